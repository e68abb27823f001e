"""The cascade: the offline judge on every row, the LM only on the rows in the band."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from ragjudge.data._gold import GoldRecord, load_gold
from ragjudge.exceptions import ConfigurationError
from ragjudge.programs import Cascade, Faithfulness, load
from ragjudge.programs._base import judge_inputs
from ragjudge.testing import scripted_lm, simulated_lm

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "faithfulness"

ROW = {
    "question": "Where was Einstein born?",
    "contexts": ["Albert Einstein was born in Ulm, Germany, in 1879."],
    "answer": "Einstein was born in Berlin.",
}


@pytest.fixture(scope="module")
def rows() -> list[GoldRecord]:
    return load_gold(EXAMPLES / "test.jsonl")[:24]


def _offline_scores(rows: list[GoldRecord]) -> list[float]:
    offline = Cascade(route="offline")
    return [offline(**judge_inputs(r)).details["offline_score"] for r in rows]


def test_only_rows_in_the_band_go_to_the_lm(rows: list[GoldRecord]) -> None:
    scores = _offline_scores(rows)
    low, high = sorted(scores)[len(scores) // 4], sorted(scores)[3 * len(scores) // 4]
    inside = sum(1 for s in scores if low <= s <= high)
    assert 0 < inside < len(rows)
    lm, engine = simulated_lm({r.answer: int(r.faithful or 0) for r in rows}, accuracy=1.0)
    judge = Cascade(lm=lm, low=low, high=high)
    results = [judge(**judge_inputs(r)) for r in rows]
    assert len(engine.requests) == inside
    assert sum(r.lm_calls for r in results) == inside
    for result, score, row in zip(results, scores, rows, strict=True):
        routed = low <= score <= high
        assert result.details["routed"] is routed
        assert result.offline is (not routed)
        if routed:  # the (oracle) LM decides the row
            assert result.passed is bool(row.faithful)
        else:
            assert result.score == pytest.approx(score)


def test_the_routes_score_as_documented() -> None:
    lm, engine = scripted_lm([{"reasoning": "r", "verdict": "no", "confidence": 0.2}])
    judge = Cascade(lm=lm, route="lm")
    result = judge(**ROW)
    s = result.details["offline_score"]
    assert result.score == pytest.approx(0.2) and result.lm_calls == 1
    assert judge.rescore(result, route="offline").score == pytest.approx(s)
    combined = judge.rescore(result, route="combined", low=0.0, high=1.0, weight=0.25)
    assert combined.score == pytest.approx(0.25 * 0.2 + 0.75 * s)
    outside = judge.rescore(result, route="cascade", low=min(1.0, s + 0.01), high=1.0)
    assert outside.score == pytest.approx(s)
    assert outside.lm_calls == 0 and not outside.details["routed"]
    verdict = judge.rescore(result, lm_aggregation="fraction")
    assert verdict.score == 0.0  # the LM's verdict, not its confidence
    assert len(engine.requests) == 1


def test_a_result_without_the_lms_output_is_not_rescored_as_if_it_had_one() -> None:
    lm, engine = scripted_lm([])
    judge = Cascade(lm=lm, route="offline")
    result = judge(**ROW)
    assert result.lm_calls == 0 and not engine.requests
    again = judge.rescore(result, route="lm")
    assert again.error is not None and "judge it again" in again.error
    assert math.isnan(again.score) and again.passed is None


def test_a_failed_lm_call_is_the_rows_error_only_where_the_lm_decides() -> None:
    lm, _ = scripted_lm([RuntimeError("server down")])
    result = Cascade(lm=lm, route="lm")(**ROW)
    assert result.error is not None and "server down" in result.error
    assert Cascade(lm=lm, route="lm").rescore(result, route="offline").error is None


def test_a_compiled_offline_judge_becomes_the_cascades_offline_judge(tmp_path: Path) -> None:
    offline = Faithfulness(lm="local", mode="whole", aggregation="mean")
    offline.offline_params_ = offline.resolved_lm().engine.model.params.model_copy(  # type: ignore[attr-defined]
        update={"support_threshold": 0.42}
    )
    lm, _ = scripted_lm([])
    cascade = Cascade.of(offline, lm=lm, low=0.2, high=0.4)
    assert cascade.offline_params_ is not None
    assert cascade.offline_params_.support_threshold == 0.42
    assert cascade.clone().offline_params_ == cascade.offline_params_
    with pytest.raises(ConfigurationError, match="offline judge"):
        Cascade.of(Faithfulness(lm=lm))


def test_a_cascade_saves_and_loads_with_its_offline_weights(tmp_path: Path) -> None:
    judge = Cascade(lm="openai/some-model", mode="statement", route="combined", low=0.1)
    judge.offline_params_ = (
        Faithfulness(lm="local")
        .resolved_lm()
        .engine.model.params.model_copy(  # type: ignore[attr-defined]
            update={"support_threshold": 0.37}
        )
    )
    path = tmp_path / "cascade.json"
    judge.save(path)
    again = load(path)
    assert isinstance(again, Cascade)
    assert again.get_params() == judge.get_params()
    assert again.offline_params_ is not None and again.offline_params_.support_threshold == 0.37
    assert again.lm_judge.mode == "statement"


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"route": "both"}, "route"),
        ({"mode": "rubric"}, "mode"),
        ({"low": 1.5}, "low"),
        ({"lm_params": {"mode": "whole"}}, "lm_params"),
        ({"offline": {"lm": "openai/x"}}, "offline"),
    ],
)
def test_bad_parameters_are_named(params: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        Cascade(**params)  # type: ignore[arg-type]
