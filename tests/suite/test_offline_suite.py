"""The offline judge runs every new signature; derived gold from the shared gold; the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragjudge import AnswerRelevancy, ContextRecall, Faithfulness, Suite
from ragjudge.cli import main
from ragjudge.data._derived import derive_gold, derive_recall, derive_relevancy, derived_label
from ragjudge.data._gold import load_gold
from ragjudge.offline.tasks import is_noncommittal, lexical_similarity, to_rating
from ragjudge.stats._agreement import auroc

Q = "Where was Albert Einstein born?"
CTX = ["Albert Einstein was born in Ulm, Germany, in 1879."]


def test_offline_suite_runs_every_judge_and_mode() -> None:
    for mode, calls in (("statement", 5), ("rubric", 3)):
        out = Suite(Suite.default_judges(mode), lm="local")(  # type: ignore[arg-type]
            question=Q, contexts=CTX, answer="Einstein was born in Ulm.", reference="Ulm"
        )
        assert out.lm_calls == 0 and out.tokens == 0  # the offline judge is no LM ...
        replies = sum((r.lm_stats or {}).get("predictor_calls", 0) for r in out.results.values())
        assert replies == calls  # ... and answered every request
        assert all(r.error is None and r.passed for r in out.results.values()), out.format()


def test_offline_relevancy_says_how_it_generated_questions() -> None:
    r = AnswerRelevancy(lm="local")(question=Q, answer="Einstein was born in Ulm.")
    assert r.details["question_generation"].startswith("offline fallback")
    assert r.details["similarity"] in ("lexical", "embeddings:all-MiniLM-L6-v2")


def test_offline_judges_separate_good_from_bad() -> None:
    on = AnswerRelevancy(lm="local")(question=Q, answer="He was born in Ulm, Germany.")
    off = AnswerRelevancy(lm="local")(question=Q, answer="Bananas are rich in potassium.")
    refusal = AnswerRelevancy(lm="local")(question=Q, answer="I don't know, sorry.")
    assert on.score > off.score and refusal.score == 0.0
    covered = ContextRecall(lm="local")(question=Q, contexts=CTX, reference="Ulm")
    missing = ContextRecall(lm="local")(
        question=Q, contexts=["Paris is in France."], reference="Ulm"
    )
    assert covered.score > missing.score
    good = Faithfulness(mode="rubric", lm="local")(
        question=Q, contexts=CTX, answer="Einstein was born in Ulm in 1879."
    )
    bad = Faithfulness(mode="rubric", lm="local")(
        question=Q, contexts=CTX, answer="Einstein was born in Vienna in 1901 to a baker."
    )
    assert good.details["rubric_score"] > bad.details["rubric_score"]


def test_lexical_helpers() -> None:
    assert lexical_similarity(Q, "Einstein was born in Ulm.") > lexical_similarity(Q, "Paris.")
    assert 0.0 <= lexical_similarity("", "") <= 1.0
    assert is_noncommittal("I cannot answer that question.") and not is_noncommittal("Ulm.")
    assert [to_rating(v) for v in (0.0, 0.2, 0.49, 0.51, 1.0, 7.0)] == [1, 2, 3, 3, 5, 5]


@pytest.fixture(scope="module")
def qa_rows(gold_dir: Path) -> list:
    return load_gold(gold_dir / "halueval" / "dev.jsonl") + load_gold(
        gold_dir / "lfqa_verification" / "dev.jsonl"
    )


def test_derived_relevancy_gold(qa_rows: list) -> None:
    rows = derive_relevancy(qa_rows)
    assert len(rows) == 2 * len(qa_rows)
    by_id = {r.id: r for r in rows}
    for row in qa_rows[:50]:
        on, off = by_id[f"{row.id}~on"], by_id[f"{row.id}~off"]
        assert (on.question, on.answer) == (row.question, row.answer)
        assert off.answer == row.answer and off.question != row.question
        assert derived_label(on, "answer_relevancy") == (1, None)
        assert derived_label(off, "answer_relevancy") == (0, None)
        assert on.faithful is None and off.faithful is None  # never a human label
        other = off.meta["derived"]["from"][1]
        assert next(r for r in qa_rows if r.id == other).group != row.group
    assert derive_relevancy(qa_rows) == rows  # seeded


def test_derived_recall_gold(qa_rows: list) -> None:
    rows = derive_recall(qa_rows)
    halu = [r for r in rows if r.source == "halueval" and r.id.endswith("~recall")]
    assert halu and all(r.reference == r.answer for r in halu)
    assert all(
        r.meta["derived"]["label"] == (1 if r.id.endswith("right~recall") else 0) for r in halu
    )
    assert not any(r.reference and r.reference.strip().lower() in ("yes", "no") for r in rows)
    lfqa = [r for r in rows if r.source == "lfqa_verification"]
    assert len(lfqa) == sum(1 for r in qa_rows if r.source == "lfqa_verification")
    for r in lfqa:
        label, score = derived_label(r, "context_recall")
        assert score is not None and 0.0 <= score <= 1.0
        assert label == (1 if score == 1.0 else 0)
    assert set(derive_gold(qa_rows)) == {"answer_relevancy", "context_recall"}


def test_offline_relevancy_separates_on_from_off_topic(qa_rows: list) -> None:
    rows = [r for r in derive_relevancy(qa_rows) if r.source == "lfqa_verification"][:120]
    results = AnswerRelevancy(lm="local").batch(rows)
    labels = [int(derived_label(r, "answer_relevancy")[0] or 0) for r in rows]
    assert auroc(labels, [r.score for r in results]) > 0.9


def test_cli_evaluates_three_metrics_keeping_label_kinds_apart(
    gold_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        [
            "evaluate",
            "--metric",
            "faithfulness,answer_relevancy,context_recall",
            "--gold",
            str(gold_dir / "halueval" / "dev.jsonl"),
            "--limit",
            "40",
            "--format",
            "json",
        ]
    )
    assert code == 0
    out = json.loads(capsys.readouterr().out)["metrics"]
    assert out["faithfulness"]["labels"] == "human"
    assert out["answer_relevancy"]["labels"].startswith("derived")
    assert out["context_recall"]["labels"].startswith("derived")
    assert out["answer_relevancy"]["rows"] == 80  # on- and off-topic pair per row
    assert "krippendorff_alpha" in out["faithfulness"]["ratings"]["judge_vs_gold"]


def test_cli_rubric_repeat_reports_alpha_between_repeats(
    sample_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        [
            "evaluate",
            "--metric",
            "faithfulness",
            "--mode",
            "rubric",
            "--repeat",
            "2",
            "--gold",
            str(sample_path),
            "--limit",
            "12",
            "--format",
            "json",
        ]
    )
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    # the offline judge ran: no LM call is reported (issue 32)
    assert out["mode"] == "rubric" and out["offline"] is True and out["lm_calls"] == 0
    assert out["ratings"]["between_repeats"]["level"] == "ordinal"


def test_cli_refuses_a_mode_that_does_not_apply(
    sample_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        ["evaluate", "--metric", "context_recall", "--mode", "whole", "--gold", str(sample_path)]
    )
    assert code == 2 and "does not apply to context_recall" in capsys.readouterr().err
