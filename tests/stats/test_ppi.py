"""The PPI++ mean estimator against `ppi_py` (the reference implementation, with
`interval="normal"`) and by its rules; the small-sample interval's promises."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from ragjudge.stats._ppi import (
    combine_strata,
    difference,
    labels_for_width,
    mean_estimate,
    ppi_lambda,
    ppi_point,
    ppi_se,
    z_value,
)


@pytest.fixture
def ppi_py() -> Any:
    """The reference implementation (pip install ppi-python, the dev extra)."""
    return pytest.importorskip("ppi_py", reason="ppi_py (pip install ppi-python, the dev extra)")


def _case(seed: int, *, n: int, big_n: int, accuracy: float, scores: bool) -> tuple:
    rng = np.random.default_rng(seed)
    y_all = (rng.random(n + big_n) < 0.35).astype(float)
    right = rng.random(n + big_n) < accuracy
    f_all = np.where(right, y_all, 1 - y_all)
    if scores:
        f_all = np.clip(f_all * 0.6 + rng.random(n + big_n) * 0.4, 0, 1)
    return y_all[:n], f_all[:n], f_all[n:]


CASES = [
    (seed, n, big_n, acc, scores)
    for seed, (n, big_n, acc, scores) in enumerate(
        [
            (50, 950, 0.85, False),
            (100, 2000, 0.7, False),
            (200, 300, 0.95, False),
            (30, 500, 0.5, False),
            (80, 1000, 0.8, True),
            (500, 5000, 0.6, True),
            (12, 40, 0.9, False),
        ]
    )
]


@pytest.mark.parametrize(("seed", "n", "big_n", "accuracy", "scores"), CASES)
@pytest.mark.parametrize("level", [0.95, 0.9, 0.8])
def test_matches_ppi_py_with_power_tuning(
    seed: int, n: int, big_n: int, accuracy: float, scores: bool, level: float, ppi_py: Any
) -> None:
    y, f, f_u = _case(seed, n=n, big_n=big_n, accuracy=accuracy, scores=scores)
    est = mean_estimate(
        labels=y, predicted=f, predicted_unlabeled=f_u, level=level, interval="normal"
    )
    point = float(np.asarray(ppi_py.ppi_mean_pointestimate(y, f, f_u, lam=None)).ravel()[0])
    low, high = (
        float(np.asarray(v).ravel()[0])
        for v in ppi_py.ppi_mean_ci(y, f, f_u, alpha=1 - level, lam=None)
    )
    assert not est.fell_back  # (the guard ppi_py lacks is tested below)
    assert est.estimate == pytest.approx(point, abs=1e-9)
    assert est.ci[0] == pytest.approx(low, abs=1e-9)
    assert est.ci[1] == pytest.approx(high, abs=1e-9)
    c_low, c_high = (
        float(np.asarray(v).ravel()[0]) for v in ppi_py.classical_mean_ci(y, alpha=1 - level)
    )
    assert est.classical_ci[0] == pytest.approx(c_low, abs=1e-9)
    assert est.classical_ci[1] == pytest.approx(c_high, abs=1e-9)


@pytest.mark.parametrize("lam", [0.0, 0.3, 1.0])
def test_matches_ppi_py_at_a_fixed_lambda(lam: float, ppi_py: Any) -> None:
    y, f, f_u = _case(3, n=60, big_n=700, accuracy=0.8, scores=True)
    est = mean_estimate(labels=y, predicted=f, predicted_unlabeled=f_u, lam=lam, interval="normal")
    low, high = (
        float(np.asarray(v).ravel()[0]) for v in ppi_py.ppi_mean_ci(y, f, f_u, alpha=0.05, lam=lam)
    )
    assert est.ci[0] == pytest.approx(low, abs=1e-9)
    assert est.ci[1] == pytest.approx(high, abs=1e-9)
    assert est.lam == lam


def test_lambda_matches_ppi_py_internal(ppi_py: Any) -> None:
    from ppi_py.ppi import _calc_lam_glm

    y, f, f_u = _case(5, n=70, big_n=900, accuracy=0.75, scores=False)
    theta = ppi_point(y, f, f_u, lam=1.0)
    reference = _calc_lam_glm(
        (y - theta)[:, None], (f - theta)[:, None], (f_u - theta)[:, None], np.eye(1), clip=True
    )
    assert ppi_lambda(y, f, f_u) == pytest.approx(float(reference), abs=1e-12)


def test_never_wider_than_the_labels_alone() -> None:
    rng = np.random.default_rng(0)
    for seed in range(300):
        y, f, f_u = _case(seed, n=int(rng.integers(10, 80)), big_n=200, accuracy=0.5, scores=False)
        est = mean_estimate(labels=y, predicted=f, predicted_unlabeled=f_u)
        assert est.ci[1] - est.ci[0] <= est.classical_ci[1] - est.classical_ci[0] + 1e-15
        assert 0.0 <= est.lam <= 1.0


def test_a_perfect_judge_narrows_and_a_random_one_does_not_help() -> None:
    y, _, _ = _case(1, n=100, big_n=0, accuracy=1, scores=False)
    rng = np.random.default_rng(1)
    f_u = (rng.random(5000) < 0.35).astype(float)
    good = mean_estimate(labels=y, predicted=y, predicted_unlabeled=f_u)
    assert good.lam > 0.9 and good.effective_labels > 500
    noise = (rng.random(100) < 0.5).astype(float)
    bad = mean_estimate(labels=y, predicted=noise, predicted_unlabeled=f_u)
    assert bad.effective_labels == pytest.approx(100, rel=0.1)


def test_judge_rate_is_the_raw_mean_over_every_row() -> None:
    est = mean_estimate(labels=[1, 0, 1, 0], predicted=[1, 1, 1, 1], predicted_unlabeled=[0] * 4)
    assert est.judge == 0.5
    assert (est.n_labeled, est.n_unlabeled) == (4, 4)


def test_standard_error_formula() -> None:
    y, f, f_u = np.array([1, 0, 1, 1.0]), np.array([1, 0, 0, 1.0]), np.array([1, 0, 1, 0, 1.0])
    lam = 0.5
    want = math.sqrt(np.var(lam * f_u) / 5 + np.var(y - lam * f) / 4)
    assert ppi_se(y, f, f_u, lam=lam) == pytest.approx(want)


def test_strata_are_weighted_by_their_share() -> None:
    a = mean_estimate(
        labels=[1, 1, 0, 1] * 5, predicted=[1, 1, 0, 1] * 5, predicted_unlabeled=[1, 0] * 40
    )
    b = mean_estimate(
        labels=[0, 0, 1, 0] * 5, predicted=[0, 1, 1, 0] * 5, predicted_unlabeled=[0, 0, 1] * 20
    )
    pooled = combine_strata([a, b], [3, 1])
    assert pooled.estimate == pytest.approx(0.75 * a.estimate + 0.25 * b.estimate)
    assert pooled.se == pytest.approx(math.sqrt(0.75**2 * a.se**2 + 0.25**2 * b.se**2))
    assert pooled.classical == pytest.approx(0.75 * a.classical + 0.25 * b.classical)
    assert pooled.n_labeled == 40


def test_difference_p_value_and_interval() -> None:
    d = difference(estimate=0.1, se=0.05)
    assert d.p_value == pytest.approx(0.0455, abs=1e-3)
    assert d.ci == pytest.approx([0.1 - 1.959964 * 0.05, 0.1 + 1.959964 * 0.05], abs=1e-6)
    assert difference(estimate=0.0, se=0.0).p_value == 1.0


def test_labels_for_width() -> None:
    z = z_value(0.95)
    # labels alone: se = sd / sqrt(n); width 2 z sd / sqrt(n) = 0.1 -> n = (2 z sd / 0.1)^2
    assert labels_for_width(label_sd=0.5, width=0.1) == math.ceil((2 * z * 0.5 / 0.1) ** 2)
    # the judge's part alone is already wider than asked: unreachable
    assert labels_for_width(label_sd=0.3, fixed_se=0.05, width=0.1) is None
    assert labels_for_width(label_sd=0.3, fixed_se=0.01, width=0.1) > labels_for_width(
        label_sd=0.3, width=0.1
    )
    with pytest.raises(ValueError):
        labels_for_width(label_sd=0.3, width=0)


# -- the small-sample interval (the default) -----------------------------------------------------


def _judged(rng: np.random.Generator, size: int, *, rate: float, sens: float, spec: float) -> tuple:
    y = (rng.random(size) < rate).astype(float)
    draw = rng.random(size)
    return y, np.where(y == 1, draw < sens, draw >= spec).astype(float)


def test_ten_labels_cover_where_the_normal_interval_does_not() -> None:
    """The issue's case: 10 labels, a judge of sensitivity 0.9 and specificity 0.7 (the
    benchmark measures 2,000 draws per setting; this is a cheap seeded check)."""
    rng = np.random.default_rng(41)
    hits = {"small-sample": 0, "normal": 0}
    draws = 0
    while draws < 300:
        y, f = _judged(rng, 210, rate=0.5, sens=0.9, spec=0.7)
        if y[:10].min() == y[:10].max():
            continue  # `estimate` refuses labels all of one class
        draws += 1
        for kind in hits:
            est = mean_estimate(
                labels=y[:10], predicted=f[:10], predicted_unlabeled=f[10:], interval=kind
            )
            hits[kind] += est.ci[0] <= 0.5 <= est.ci[1]
    assert hits["small-sample"] / draws >= 0.9
    assert hits["normal"] / draws < 0.9  # what `estimate` gave before


def test_the_interval_holds_its_estimate_within_the_range() -> None:
    rng = np.random.default_rng(3)
    for seed in range(200):
        n = int(rng.integers(10, 60))
        y, f, f_u = _case(
            seed, n=n, big_n=300, accuracy=float(rng.uniform(0.5, 1)), scores=bool(seed % 2)
        )
        est = mean_estimate(labels=y, predicted=f, predicted_unlabeled=f_u)
        assert 0.0 <= est.ci[0] <= est.estimate <= est.ci[1] <= 1.0
        assert 0.0 <= est.classical_ci[0] <= est.classical <= est.classical_ci[1] <= 1.0
        assert est.df == n - 1


def test_labels_that_all_agree_with_the_judge_keep_a_width() -> None:
    y = np.array([1.0, 0.0] * 5)
    est = mean_estimate(labels=y, predicted=y, predicted_unlabeled=np.array([1.0, 0.0] * 50))
    assert est.ci[1] - est.ci[0] > 0.1  # ten agreements are no proof of a perfect judge
    normal = mean_estimate(
        labels=y, predicted=y, predicted_unlabeled=np.array([1.0, 0.0] * 50), interval="normal"
    )
    # the normal interval takes ten agreements at their word
    assert est.se > 2 * normal.se


def test_with_many_labels_the_small_sample_interval_nears_the_normal_one() -> None:
    y, f, f_u = _case(9, n=2000, big_n=20000, accuracy=0.8, scores=True)
    small = mean_estimate(labels=y, predicted=f, predicted_unlabeled=f_u)
    normal = mean_estimate(labels=y, predicted=f, predicted_unlabeled=f_u, interval="normal")
    assert small.estimate == normal.estimate
    assert small.ci == pytest.approx(normal.ci, abs=0.003)


def test_a_paired_difference_of_identical_systems_has_a_width() -> None:
    zero = np.zeros(20)
    est = mean_estimate(
        labels=zero,
        predicted=zero,
        predicted_unlabeled=np.zeros(200),
        label_range=(-1, 1),
        prediction_range=(-1, 1),
    )
    assert est.estimate == 0 and est.ci[0] < -0.05 and est.ci[1] > 0.05
    d = difference(estimate=est.estimate, se=est.se, centre=est.centre, df=est.df)
    assert d.p_value == 1.0 and d.ci[0] < 0 < d.ci[1]


def test_difference_with_degrees_of_freedom_matches_its_interval() -> None:
    d = difference(estimate=0.1, se=0.05, df=9)
    t = 2.2621571628
    assert d.ci == pytest.approx([0.1 - t * 0.05, 0.1 + t * 0.05], abs=1e-6)
    assert d.p_value == pytest.approx(0.0766, abs=1e-3)  # t test, 9 df: above 0.05, as the
    assert d.ci[0] < 0  # interval holds 0


def test_strata_pool_with_welch_satterthwaite_degrees_of_freedom() -> None:
    a = mean_estimate(
        labels=[1, 0, 1, 1] * 5, predicted=[1, 0, 1, 1] * 5, predicted_unlabeled=[1, 0] * 40
    )
    b = mean_estimate(labels=[1, 1, 1, 0], predicted=[1, 1, 0, 0], predicted_unlabeled=[0, 1] * 10)
    pooled = combine_strata([a, b], [1, 1])
    va, vb = 0.25 * a.se**2, 0.25 * b.se**2
    want = (va + vb) ** 2 / (va**2 / 19 + vb**2 / 3)
    assert pooled.df == pytest.approx(want)
    assert 0.0 <= pooled.ci[0] <= pooled.estimate <= pooled.ci[1] <= 1.0
