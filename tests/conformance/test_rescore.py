"""Rescoring a stored raw output equals judging again.

A result's raw output (`raw_item`: every LM call) scored under the judge's policies (`score`)
is the judge's result; a result written out as JSON and read back, rescored (`rescore`), is
the same result again, under the judge's own policies and under another threshold (then it
equals the judge cloned with that threshold). Compile tunes by rescoring; a judge that rescored
differently from how it judges would ship a judge the study never scored.
"""

from __future__ import annotations

import json

import pytest
from _conformance_cases import CASES, IDS, Case, judged, lm_for, raw_of, same_result

from ragjudge.data._gold import GoldRecord
from ragjudge.programs._base import judge_inputs
from ragjudge.programs._results import JudgeResult


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_raw_then_score_is_the_judges_result(case: Case, rows: list[GoldRecord]) -> None:
    judge = case.make()
    with lm_for(case):
        results = judged(judge, rows)
        assert not any(r.error for r in results), [r.error for r in results]
        for row, result in zip(rows, results, strict=True):
            scored = judge.score(raw_of(judge, row), judge.policy())
            assert same_result(scored, result), (row.id, scored.reason, result.reason)


@pytest.mark.parametrize("case", CASES, ids=IDS)
@pytest.mark.parametrize("threshold", [None, 0.3, 0.8])
def test_a_stored_result_rescored_is_judging_again(
    case: Case, threshold: float | None, rows: list[GoldRecord]
) -> None:
    judge = case.make()
    policy = {} if threshold is None else {"threshold": threshold}
    with lm_for(case):
        stored = [  # as written to --out and read back
            JudgeResult.from_json_data(json.loads(r.model_dump_json())) for r in judged(judge, rows)
        ]
        other = judge.clone(**policy)
        for row, result in zip(rows, stored, strict=True):
            again = other(**judge_inputs(row))
            rescored = judge.rescore(result, **policy)
            assert same_result(rescored, again), (row.id, rescored.reason, again.reason)
