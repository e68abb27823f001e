"""`runs_offline()` is true exactly when no LM call is counted, and an offline judge's rows
count no LM call and no token (the header of its results says no LM)."""

from __future__ import annotations

import pytest
from _conformance_cases import CASES, IDS, Case, function_lm, judged, lm_for

from ragjudge.data._gold import GoldRecord
from ragjudge.programs import Cascade, Ensemble, Faithfulness
from ragjudge.programs._base import Judge


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_runs_offline_exactly_when_no_lm_call_is_counted(
    case: Case, rows: list[GoldRecord]
) -> None:
    judge = case.make()
    with lm_for(case) as engine:
        offline = judge.runs_offline()
        results = judged(judge, rows)
    calls = sum(r.lm_calls for r in results)
    tokens = sum(r.tokens for r in results)
    assert offline == (calls == 0), (offline, calls)
    assert offline == (case.lm != "scripted")
    if offline:
        assert tokens == 0 and all(r.offline or r.lm_calls == 0 for r in results)
    else:
        assert engine is not None and calls == len(engine.requests)  # every call, counted


def _offline_lm_judges() -> list[Judge]:
    return [Faithfulness(mode=m, lm="local") for m in Faithfulness.modes]


@pytest.mark.parametrize("judge", _offline_lm_judges(), ids=lambda j: j.mode)
def test_the_offline_judge_counts_no_lm_call_or_token(judge: Judge, rows: list[GoldRecord]) -> None:
    for r in judge.batch(rows[:3]):
        assert (r.lm_calls, r.tokens, r.offline) == (0, 0, True)
        assert "LM calls" not in r.format() and "(offline judge, no LM)" in r.format()


def test_an_ensemble_runs_offline_only_when_every_member_does() -> None:
    lm, _ = function_lm()
    assert not Ensemble(lms=["openai/a", "openai/b"]).runs_offline()
    assert not Ensemble(lms=["local", "openai/b"]).runs_offline()
    assert not Ensemble(lm="openai/a").runs_offline()
    assert not Ensemble.of(Faithfulness(), lms=["local", lm]).runs_offline()
    assert Ensemble(lms=["local", "local"]).runs_offline()
    assert Ensemble.of(Faithfulness(lm="local"), repeat=3).runs_offline()


def test_a_mixed_ensemble_counts_its_lm_members_calls(rows: list[GoldRecord]) -> None:
    lm, engine = function_lm()
    ensemble = Ensemble.of(Faithfulness(mode="whole"), lms=["local", lm])
    results = judged(ensemble, rows[:3])
    assert not ensemble.runs_offline()
    assert sum(r.lm_calls for r in results) == len(engine.requests) == 3


def test_a_cascade_on_the_offline_route_runs_offline(rows: list[GoldRecord]) -> None:
    lm, engine = function_lm()
    cascade = Cascade(route="offline", lm=lm)
    results = judged(cascade, rows[:3])
    assert sum(r.lm_calls for r in results) == len(engine.requests) == 0
    assert cascade.runs_offline()
