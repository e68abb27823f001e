"""The PPI++ mean estimator against `ppi_py` (the reference implementation) and by its rules."""

from __future__ import annotations

import math

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

ppi_py = pytest.importorskip("ppi_py", reason="ppi_py (pip install ppi-python, the dev extra)")


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
    seed: int, n: int, big_n: int, accuracy: float, scores: bool, level: float
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
def test_matches_ppi_py_at_a_fixed_lambda(lam: float) -> None:
    y, f, f_u = _case(3, n=60, big_n=700, accuracy=0.8, scores=True)
    est = mean_estimate(labels=y, predicted=f, predicted_unlabeled=f_u, lam=lam, interval="normal")
    low, high = (
        float(np.asarray(v).ravel()[0]) for v in ppi_py.ppi_mean_ci(y, f, f_u, alpha=0.05, lam=lam)
    )
    assert est.ci[0] == pytest.approx(low, abs=1e-9)
    assert est.ci[1] == pytest.approx(high, abs=1e-9)
    assert est.lam == lam


def test_lambda_matches_ppi_py_internal() -> None:
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
    assert good.lam > 0.9 and good.effective_labels > 1000
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
