"""A report, a drift test and an estimate work for every metric with labels: faithfulness
(people's labels) and relevancy and recall (labels derived from them, docs/derived-gold.md),
each judged by an LM judge on the scripted LM."""

from __future__ import annotations

import math
from collections.abc import Callable

import pytest
from _conformance_cases import Case, labeled_gold, lm_for, small_compile

from ragjudge.estimation import estimate
from ragjudge.evaluation._drift import drift_test, new_sample, reference_sample
from ragjudge.programs import AnswerRelevancy, ContextRecall, Faithfulness
from ragjudge.programs._base import Judge
from ragjudge.report._build import build_report

METRICS: list[tuple[str, Callable[[], Judge]]] = [
    ("faithfulness", lambda: Faithfulness(mode="whole")),
    ("answer_relevancy", lambda: AnswerRelevancy(mode="rubric")),
    ("context_recall", lambda: ContextRecall(mode="rubric")),
]


def _case(metric: str, make: Callable[[], Judge]) -> Case:
    return Case(f"{metric}-scripted", make, "scripted")


def _params() -> list[object]:
    return [pytest.param(metric, make, id=metric) for metric, make in METRICS]


@pytest.mark.parametrize(("metric", "make"), _params())
def test_a_report_works_for_every_metric_with_labels(
    metric: str, make: Callable[[], Judge]
) -> None:
    rows, judge = labeled_gold(metric), make()
    with lm_for(_case(metric, make)):
        results = judge.batch(rows)
    html = build_report(rows=rows, results=results, judge=judge, n_boot=50)
    assert "<html" in html.lower() and len(html) > 1000


@pytest.mark.parametrize(("metric", "make"), _params())
def test_a_drift_test_works_for_every_metric_with_labels(
    metric: str, make: Callable[[], Judge]
) -> None:
    rows, judge = labeled_gold(metric), make()
    with lm_for(_case(metric, make)):
        compiled = small_compile(judge, gold=rows, n_trials=3, max_demos=0)
        results = compiled.batch(rows)
    reference = reference_sample(compiled.report_, path="judge.json")
    new = new_sample(rows, results, metric=metric)
    assert new.n == len(rows) and sorted(set(new.labels)) == [0, 1]
    report = drift_test(reference, new, metric=metric, permutations=200, n_boot=50)
    assert report.metric == metric and 0.0 <= report.p_value <= 1.0


@pytest.mark.parametrize(
    ("metric", "make"),
    _params(),
)
def test_an_estimate_works_for_every_metric_with_labels(
    metric: str, make: Callable[[], Judge]
) -> None:
    rows, judge = labeled_gold(metric), make()
    with lm_for(_case(metric, make)):
        result = estimate(rows=rows, judge=judge, seed=0)
    assert result.n_labeled == len(rows)
    low, high = result.ppi.ci
    assert not math.isnan(result.ppi.estimate) and low <= result.ppi.estimate <= high
