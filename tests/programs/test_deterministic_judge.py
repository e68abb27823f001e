"""DeterministicJudge: the lexical metric as a judge that evaluates, compiles and saves."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import ragjudge
from ragjudge.cli import main
from ragjudge.optimize import compile_judge
from ragjudge.programs.deterministic import DeterministicJudge

ANSWER = "William Shakespeare wrote 'Romeo and Juliet'. He is born in Ireland"
CONTEXTS = ["William Shakespeare is the author of 'Romeo and Juliet'."]


def test_reference_numbers_are_kept_and_scored() -> None:
    r = DeterministicJudge()(answer=ANSWER, contexts=CONTEXTS)
    assert r.details["rouge_p_by_sentence"] == [0.8333333333333334, 0.2]
    assert r.details["reference"]["bleu_faithfulness"] == 0.37023896751607194
    assert r.score == 0.5 and r.passed is True and r.lm_calls == 0
    r = DeterministicJudge(mode="token_overlap", sentence_threshold=0.9)(
        answer=ANSWER, contexts=CONTEXTS
    )
    assert r.score == 0.0 and r.passed is False


def test_rescore_matches_a_fresh_judge() -> None:
    base = DeterministicJudge()
    raw = base(answer=ANSWER, contexts=CONTEXTS)
    policy = {"sentence_threshold": 0.1, "aggregation": "min", "threshold": 0.3}
    fresh = DeterministicJudge(**policy)(answer=ANSWER, contexts=CONTEXTS)  # type: ignore[arg-type]
    again = base.rescore(raw, **policy)
    assert (again.score, again.passed) == (fresh.score, fresh.passed)


def test_batch_in_input_order_and_empty_answer(sample_path: Path) -> None:
    rows = ragjudge.load_gold(sample_path)
    out = DeterministicJudge().batch(rows)
    assert [r.id for r in out] == [r.id for r in rows]
    empty = DeterministicJudge()(answer="", contexts=["x"])
    assert empty.error is None and empty.passed is None


def test_compile_and_round_trip(gold_dir: Path, tmp_path: Path) -> None:
    rows = ragjudge.load_gold(gold_dir / "lfqa_verification" / "dev.jsonl")
    compiled = compile_judge(DeterministicJudge(variant="words"), gold=rows, n_trials=20, seed=0)
    report = compiled.report_
    assert report is not None and report["lm_calls"]["raw_outputs"] == 0
    assert report["validation"]["auroc"] > 0.75
    assert set(report["params"]) >= {"mode", "sentence_threshold", "aggregation", "threshold"}
    compiled.save(tmp_path / "det.json")
    same = ragjudge.load(tmp_path / "det.json")
    assert same.get_params() == compiled.get_params()


def test_cli_metric_deterministic(
    sample_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        main(
            [
                "evaluate",
                "--metric",
                "deterministic",
                "--gold",
                str(sample_path),
                "--format",
                "json",
            ]
        )
        == 0
    )
    summary = json.loads(capsys.readouterr().out)
    assert summary["n"] == 42 and summary["lm_calls"] == 0
    out = tmp_path / "det.json"
    assert (
        main(
            [
                "compile",
                "--metric",
                "deterministic",
                "--variant",
                "words",
                "--gold",
                str(sample_path),
                "--trials",
                "10",
                "--out",
                str(out),
                "--format",
                "json",
            ]
        )
        == 0
    )
    assert json.loads(capsys.readouterr().out)["params"]["variant"] == "words"
    assert isinstance(ragjudge.load(out), DeterministicJudge)
