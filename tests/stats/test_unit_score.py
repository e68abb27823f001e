"""One rule reads a judge's score on its scale, with one treatment of a missing score
(`stats.unit_score`: over the scale, in [0, 1]; `UNSCORED`, failing and lowest, where none), and
every reader asks it: compile's spec, the cascade, the DSPy metric, the estimates' predictions,
the reports."""

from __future__ import annotations

import math
from typing import Any

import pytest

from ragjudge.data._gold import GoldRecord
from ragjudge.estimation._crossfit import verdict
from ragjudge.evaluation._predictions import RowPrediction
from ragjudge.programs._metric import JudgeMetric
from ragjudge.programs._results import JudgeResult
from ragjudge.programs.cascade import _unit
from ragjudge.programs.faithfulness import Faithfulness
from ragjudge.report._data import Variant, variant_from_predictions
from ragjudge.stats._threshold import UNSCORED, unit_prediction, unit_score

SCALE = 5.0
RESULTS = {
    "scored": JudgeResult(score=4.0, passed=True),
    "zero": JudgeResult(score=0.0, passed=False),
    "unscored": JudgeResult(score=math.nan, passed=None),
    "error": JudgeResult(error="the LM timed out"),
}
UNITS = {"scored": 0.8, "zero": 0.0, "unscored": UNSCORED, "error": UNSCORED}


def test_unit_score() -> None:
    assert unit_score(4.0, scale=SCALE) == 0.8
    assert unit_score(None) == unit_score(math.nan, scale=SCALE) == UNSCORED
    assert unit_score(7.0, scale=SCALE) == 1.0  # never outside [0, 1]
    assert UNSCORED < unit_score(0.0)  # an unscored row ranks below every score
    assert unit_prediction(UNSCORED) == 0.0 and unit_prediction(0.8) == 0.8


@pytest.mark.parametrize("name", sorted(RESULTS))
def test_every_reader_of_a_score_agrees(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    result, unit = RESULTS[name], UNITS[name]
    judge = Faithfulness(scale=SCALE)
    assert result.unit(scale=SCALE) == unit
    assert judge.compile_spec().scale == SCALE
    assert judge.compile_spec().unit(result) == unit
    # the cascade builds its own score from its members': NaN where a member has none
    member = _unit(result, judge)
    assert member == unit or (unit == UNSCORED and math.isnan(member))
    # where a value must lie in [0, 1]: the DSPy metric, PPI's prediction
    metric = JudgeMetric(judge)

    def judged(self: Any, example: Any, pred: Any) -> JudgeResult:
        return result

    monkeypatch.setattr(JudgeMetric, "result", judged)
    assert metric({"question": "q"}, {"answer": "a", "contexts": ["c"]}) == unit_prediction(unit)
    assert verdict(result, "score", scale=SCALE) == unit_prediction(unit)
    assert verdict(result, "passed", scale=SCALE) == float(name == "scored")
    # the reports: unscored rows rank lowest (errors are left out of a judged variant)
    row = GoldRecord(id="r", answer="a", contexts=["c"], faithful=1)
    judged_rows = Variant.from_results("compiled", [row], [result], scale=SCALE)
    assert judged_rows.prob.tolist() == ([] if name == "error" else [unit])
    recorded = [
        RowPrediction(
            id="r",
            gold=1,
            score=None if math.isnan(result.score) else result.score,
            passed=result.passed,
        ),
        RowPrediction(id="s", gold=0, score=1.0, passed=False),
    ]
    from_file = variant_from_predictions("compiled", recorded, scale=SCALE)
    assert from_file.prob.tolist() == [unit, 0.2]
