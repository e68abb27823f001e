"""`--max-lm-calls`: compile's raw outputs stay within the budget and the report says what was
skipped (scripted LM: every reply is a whole-answer verdict)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import ragjudge
from ragjudge.cli.compile import format_compile
from ragjudge.data._gold import GoldRecord, load_gold
from ragjudge.exceptions import ConfigurationError
from ragjudge.lm import ReplyCutError
from ragjudge.optimize import compile_judge
from ragjudge.optimize._budget import BudgetSpentError, LMCallBudget, judge_within_budget
from ragjudge.testing import scripted_lm


def verdicts(n: int, seed: int = 0) -> list[dict[str, object]]:
    """n whole-answer replies with varied verdicts and confidences."""
    rng = random.Random(seed)
    out: list[dict[str, object]] = []
    for _ in range(n):
        confidence = round(rng.random(), 2)
        out.append(
            {
                "reasoning": "Checked each claim against the context.",
                "verdict": "yes" if confidence >= 0.5 else "no",
                "confidence": confidence,
            }
        )
    return out


@pytest.fixture(scope="module")
def rows(gold_dir: Path) -> list[GoldRecord]:
    return load_gold(gold_dir / "halueval" / "dev.jsonl", limit=60)


def test_chunks_stop_before_the_budget_and_record_the_skipped_set(rows: list[GoldRecord]) -> None:
    lm, engine = scripted_lm(verdicts(20))
    budget = LMCallBudget(5)
    judge = ragjudge.Faithfulness(lm=lm, mode="whole")
    with pytest.raises(BudgetSpentError):
        judge_within_budget(judge, rows[:10], budget=budget, mode="whole", demos=3, concurrency=2)
    assert len(engine.requests) == budget.spent == 5
    [skipped] = budget.skipped
    assert (skipped.mode, skipped.demos, skipped.rows_judged, skipped.rows) == ("whole", 3, 5, 10)
    assert skipped.calls_spent == 5
    # no limit: every row, no record
    free = LMCallBudget(None)
    lm2, engine2 = scripted_lm(verdicts(4))
    out = judge_within_budget(
        judge.clone(lm=lm2), rows[:4], budget=free, mode="whole", demos=0, concurrency=1
    )
    assert len(out) == 4 and not free.skipped and len(engine2.requests) == 4


def test_compile_respects_the_budget_and_reports_what_it_skipped(rows: list[GoldRecord]) -> None:
    lm, engine = scripted_lm(verdicts(400))
    # validation after the study (compiled and uncompiled judges on the 20 validation rows:
    # 40 calls; with one mode the ablation has no mode step to pay for) is held back first;
    # the study gets the other 44
    limit = 84
    compiled = compile_judge(
        ragjudge.Faithfulness(lm=lm),
        gold=rows,
        modes=["whole"],
        max_lm_calls=limit,
        n_trials=6,
        max_demos=2,
        demo_candidates=2,
        seed=0,
        n_boot=50,
    )
    report = compiled.report_
    calls = report["lm_calls"]
    budget = calls["budget"]
    # every call compile made is counted, validation too, and they stay within the limit
    assert budget["spent"] <= limit
    assert len(engine.requests) == budget["spent"]
    reserved = 2 * report["sizes"]["validation"]
    assert budget["reserved_after_study"] == reserved and calls["validation"] <= reserved
    planned = {r["run"]: r["rows"] * r["calls_per_row"] for r in budget["planned_after_study"]}
    assert sum(planned.values()) == reserved
    # one full set was paid for; the others were never started: the rest could not pay for a
    # whole set, and a set is not begun that cannot be finished
    assert report["sizes"]["demo_sets"] == 3
    assert calls["raw_output_sets"] == 1
    skipped = budget["skipped"]
    # the set paid for is the uncompiled judge's own (no demos): the baseline comes first
    assert report["study"]["trials"][0]["params"]["demos"] == 0
    assert all(s["demos"] != 0 for s in skipped)
    assert len({(s["mode"], s["demos"]) for s in skipped}) == len(skipped)  # once each
    assert skipped and all(s["rows_judged"] == 0 and s["calls_spent"] == 0 for s in skipped)
    study_cap = limit - budget["reserved_after_study"]
    assert calls["raw_outputs"] <= study_cap < 2 * calls["raw_outputs"]
    assert budget["spent"] == calls["raw_outputs"] + calls["validation"]
    assert calls["pruned_trials"] >= 1
    assert report["study"]["n_trials"] == 6
    assert report["params"]["mode"] == "whole" and report["baseline_params"]["mode"] == "whole"
    # the report compares with the offline judge and names the steps of the ablation
    assert 0 < report["offline"]["n"] <= report["sizes"]["validation"]
    steps = report["ablation"]
    assert steps[0]["step"] == "uncompiled" and "compiled" in steps[-1]["step"]
    assert steps[0]["validation"] == report["baseline"]
    assert steps[-1]["validation"] == report["validation"]
    # the last step names gold demos only when compile chose some (not the built-in examples)
    chosen = report["params"]["demos"]
    assert steps[-1]["changed"] == {"demos": chosen}
    assert steps[-1]["step"] == ("+demos (compiled)" if chosen else "compiled")
    text = format_compile(report, "judge.json")
    assert f"LM call budget: {budget['spent']} of {limit} spent; skipped (budget spent)" in text
    assert "offline judge, same rows" in text and "which choice bought the gain" in text


def test_cut_replies_are_charged_to_the_budget(rows: list[GoldRecord]) -> None:
    # A model that rambles to max_tokens on every other row, and again on the one retry a cut
    # reply gets: each cut reply was a call (the costliest kind), so the budget stops after as
    # many requests as it allows, not more.
    replies: list[dict[str, object] | Exception] = []
    for i, reply in enumerate(verdicts(300)):
        cut = ReplyCutError("the reply reached max_tokens=480")
        replies.append(cut if i % 3 else reply)
    lm, engine = scripted_lm(replies)
    limit = 104  # validation (60), one pass over the 32 tuning rows, and part of a second
    compiled = compile_judge(
        ragjudge.Faithfulness(lm=lm, mode="whole"),
        gold=rows,
        modes=["whole"],
        max_lm_calls=limit,
        n_trials=4,
        max_demos=2,
        demo_candidates=1,
        seed=0,
        n_boot=50,
    )
    calls = compiled.report_["lm_calls"]
    assert calls["budget"]["spent"] <= limit
    assert len(engine.requests) == calls["budget"]["spent"]
    # the cut replies are the rows' errors; they count (failed, lowest), not left out
    validation = compiled.report_["validation"]
    assert validation["errors"] > 0
    assert validation["n"] == compiled.report_["sizes"]["validation"]
    text = format_compile(compiled.report_, "judge.json")
    assert f"rows ending in an error    {validation['errors']}" in text


def test_a_budget_below_one_pass_is_refused(rows: list[GoldRecord]) -> None:
    lm, _ = scripted_lm(verdicts(50))
    with pytest.raises(ConfigurationError, match="`max_lm_calls` 5 cannot pay for compile"):
        compile_judge(
            ragjudge.Faithfulness(lm=lm),
            gold=rows,
            modes=["whole"],
            max_lm_calls=5,
            n_trials=3,
            max_demos=0,
            n_boot=50,
        )


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--max-lm-calls", "0"], "--max-lm-calls must be at least 1, got 0"),
        (["--modes", "bogus"], "--modes 'bogus': choose from statement, whole, rubric"),
    ],
)
def test_cli_refuses_bad_budget_and_modes_in_one_line(
    sample_path: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    flags: list[str],
    message: str,
) -> None:
    from ragjudge.cli import main

    code = main(["compile", "--gold", str(sample_path), "--out", str(tmp_path / "j.json"), *flags])
    err = capsys.readouterr().err
    assert code == 2 and err.strip() == f"ragjudge compile: error: {message}"
