"""Krippendorff's alpha and Spearman with bootstrap intervals, and the evaluation wiring."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ragjudge.data._gold import GoldRecord
from ragjudge.evaluation._evaluate import agreement_of, gold_label, rating_stats
from ragjudge.programs._results import JudgeResult
from ragjudge.stats._agreement import krippendorff_alpha, rating_agreement

NAN = math.nan
# Krippendorff (2011), "Computing Krippendorff's alpha-reliability", the 4 observers x 12 units
# example: alpha = 0.743 (nominal), 0.815 (ordinal), 0.849 (interval).
K2011 = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, NAN, NAN, NAN],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NAN, 3],
    [NAN, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NAN],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NAN],
]


@pytest.mark.parametrize(
    ("level", "expected"), [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849)]
)
def test_alpha_matches_the_published_example(level: str, expected: float) -> None:
    assert krippendorff_alpha(K2011, level=level) == pytest.approx(expected, abs=5e-4)


def test_alpha_extremes() -> None:
    assert krippendorff_alpha([[1, 2, 3, 1], [1, 2, 3, 1]]) == 1.0
    # systematic disagreement is below zero
    assert krippendorff_alpha([[0, 1, 0, 1], [1, 0, 1, 0]]) < 0
    assert math.isnan(krippendorff_alpha([[1, 1, 1], [1, 1, 1]]))  # one value: undefined
    with pytest.raises(ValueError, match="level"):
        krippendorff_alpha(K2011, level="ratio")


def test_ordinal_alpha_punishes_far_disagreements_more_than_nominal() -> None:
    near = [[1, 2, 3, 4, 5, 1, 2, 3, 4, 5], [1, 2, 3, 4, 5, 2, 3, 4, 5, 4]]
    assert krippendorff_alpha(near, level="ordinal") > krippendorff_alpha(near, level="nominal")


def test_rating_agreement_intervals_and_spearman() -> None:
    rng = np.random.default_rng(1)
    gold = rng.random(200)
    judge = gold + rng.normal(0, 0.1, 200)
    a = rating_agreement(np.vstack([gold, judge]), level="interval", n_boot=300, seed=0)
    assert a.n == 200 and a.raters == 2
    assert a.spearman is not None and a.spearman > 0.9
    low, high = a.ci["spearman"]
    assert low is not None and high is not None and low <= a.spearman <= high
    low, high = a.ci["krippendorff_alpha"]
    assert low is not None and low <= a.krippendorff_alpha <= high  # type: ignore[operator]
    nominal = rating_agreement([[1, 0, 1, 0], [1, 0, 0, 0]], level="nominal", n_boot=0)
    assert nominal.spearman is None and nominal.ci["krippendorff_alpha"] == [None, None]


def _row(i: int, **meta: object) -> GoldRecord:
    return GoldRecord(id=str(i), answer="a", faithful=i % 2, meta=dict(meta))


def test_reports_keep_derived_labels_apart_from_human_labels() -> None:
    human = _row(1)
    derived = GoldRecord(
        id="d", answer="a", meta={"derived": {"metric": "context_recall", "label": 0}}
    )
    assert gold_label(human) == 1 and gold_label(derived) is None
    assert (
        gold_label(human, "context_recall") is None and gold_label(derived, "context_recall") == 0
    )
    results = [JudgeResult(score=1.0, passed=True), JudgeResult(score=0.0, passed=False)]
    overall, _, _, _ = agreement_of([human, derived], results, n_boot=0)
    assert overall is not None and overall.n == 1  # the derived row is not a faithfulness label


def test_rating_stats_between_repeats() -> None:
    def member(rating: int) -> dict[str, object]:
        return {
            "score": (rating - 1) / 4,
            "passed": rating >= 3,
            "result": {"details": {"rubric_score": rating}},
        }

    rows = [_row(i) for i in range(4)]
    results = [
        JudgeResult(
            mode="rubric",
            score=0.5,
            passed=bool(i % 2),
            details={"members": [member(r), member(r)]},
        )
        for i, r in enumerate([1, 3, 2, 5])
    ]
    stats = rating_stats(rows, results, n_boot=0)
    assert stats["between_repeats"].level == "ordinal"
    assert stats["between_repeats"].krippendorff_alpha == 1.0
    assert stats["judge_vs_gold"].krippendorff_alpha == 1.0


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_vectorized_bootstrap_equals_recomputing_each_sample(level: str) -> None:
    from ragjudge.stats._agreement import (
        _alpha_from_counts,
        _boot_alphas,
        _boot_spearman,
        _pairable_counts,
    )

    rng = np.random.default_rng(3)
    for _ in range(5):
        data = rng.random((3, 50)) if level == "interval" else rng.integers(1, 6, (3, 50)) * 1.0
        data[rng.random(data.shape) < 0.2] = np.nan
        data = data[:, (~np.isnan(data)).sum(axis=0) >= 2]
        units = data.shape[1]
        picks = rng.integers(0, units, (25, units))
        weights = np.zeros((25, units))
        np.add.at(weights, (np.arange(25)[:, None], picks), 1.0)
        slow = [_alpha_from_counts(*_pairable_counts(data[:, p]), level) for p in picks]
        assert np.allclose(_boot_alphas(data, weights, level), slow, equal_nan=True)
        rhos = []
        for p in picks:
            x, y = data[0, p], data[1, p]
            both = ~(np.isnan(x) | np.isnan(y))
            rhos.append(scipy_spearman(x[both], y[both]))
        assert np.allclose(_boot_spearman(data[:2], weights), rhos, equal_nan=True)


def scipy_spearman(x: np.ndarray, y: np.ndarray) -> float:
    from scipy.stats import spearmanr

    if len(x) < 3 or np.all(x == x[0]) or np.all(y == y[0]):
        return math.nan
    return float(spearmanr(x, y).statistic)
