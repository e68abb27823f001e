"""`--max-lm-calls` is never exceeded by a compile: the scripted LM counts every request a
compile really makes (study, validation, ablation), and a compile refused for want of calls
makes none it cannot pay for. Small compiles (a few trials, at most two demos)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from _conformance_cases import CASES, Case, judged, labeled_gold, lm_for, same_result, small_compile

from ragjudge.exceptions import ConfigurationError
from ragjudge.programs import DeterministicJudge, Ensemble, Faithfulness
from ragjudge.programs._base import Judge
from ragjudge.programs._serialization import load

LM_CASES = [c for c in CASES if c.lm == "scripted"]


def _compile(judge: Judge, *, limit: int | None) -> Judge:
    return small_compile(
        judge,
        n_trials=4,
        max_lm_calls=limit,
        max_demos=2,
        demo_candidates=1,
        regularization=1.0,
        head=False,
    )


def _within(case: Case, limit: int, needs: list[int], refusals: list[str]) -> Judge | None:
    """A compile under `limit` that spends within it, or None when it is refused (then it
    spent within the limit too; the refusal is added to `refusals` and the budget it names,
    if any, to `needs`)."""
    with lm_for(case) as engine:
        assert engine is not None
        try:
            compiled = _compile(case.make(), limit=limit)
        except ConfigurationError as exc:  # refused: it names the budget, spent within it
            assert "max_lm_calls" in str(exc)
            assert len(engine.requests) <= limit
            refusals.append(str(exc))
            named = re.search(r"give at least (\d+)", str(exc))
            if named:
                assert int(named[1]) > limit, str(exc)
                needs.append(int(named[1]))
            return None
        assert len(engine.requests) <= limit
    assert compiled.report_ is not None
    budget = compiled.report_["lm_calls"]["budget"]
    assert budget["limit"] == limit and budget["spent"] <= limit
    return compiled


@pytest.mark.parametrize("case", LM_CASES, ids=[c.id for c in LM_CASES])
def test_a_compile_never_exceeds_max_lm_calls(case: Case, tmp_path: Path) -> None:
    with lm_for(case) as engine:  # what the compile spends when nothing holds it back
        assert engine is not None
        free = _compile(case.make(), limit=None)
        spent = len(engine.requests)
    assert free.report_ is not None and spent > 0
    # Budgets that bind: one call short of it, and half (a judge that fits a learner before
    # each compile, a cascade's offline judge, tries the first only: each try refits it).
    with lm_for(case):
        fits = case.make().compile_spec().learner is not None
    limits = [spent - 1] if fits else [spent - 1, spent // 2]
    compiled: Judge | None = None
    needs: list[int] = []
    refusals: list[str] = []
    for limit in limits:
        compiled = _within(case, limit, needs, refusals) or compiled
    # Every binding budget refused: a refusal up front names the budget that pays for the plan
    # (the most calls the runs after the study can make, held back: more than a compile with
    # no limit happens to spend), and a compile under that budget must keep to it.
    if compiled is None and needs:
        compiled = _within(case, max(needs), [], refusals)
    # A budget at least the one the plan names is kept, never refused by the study after it:
    # a raw-output set the rest cannot finish is not started, and a first trial refused in a
    # costlier mode is tried again in the cheapest, which the plan paid for.
    assert compiled is not None, refusals
    # What a compile learned survives save, load and clone, and judges the same.
    compiled.save(tmp_path / "compiled.json")
    rows = labeled_gold(compiled.metric)[:4]
    with lm_for(case):
        expected = judged(compiled, rows)
        for other in (load(tmp_path / "compiled.json"), compiled.clone()):
            assert other.report_ == compiled.report_
            assert other.dump_state() == compiled.dump_state()
            for a, b in zip(expected, judged(other, rows), strict=True):
                assert same_result(a, b), (a.reason, b.reason)


@pytest.mark.parametrize(
    "judge",
    [Ensemble.of(Faithfulness(mode="whole", lm="local")), DeterministicJudge()],
    ids=["ensemble-offline", "deterministic"],
)
def test_a_judge_that_makes_no_lm_call_compiles_under_any_budget(judge: Judge) -> None:
    assert judge.runs_offline()
    compiled = _compile(judge, limit=1)
    assert compiled.report_ is not None
