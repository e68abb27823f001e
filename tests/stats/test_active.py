"""The active-inference mean (stats/_active.py): against a direct computation, PPI++ when the
draws are uniform, unbiased and covering in simulation."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.stats

from ragjudge.stats._active import (
    ActiveEstimate,
    AdaptiveSampler,
    active_mean,
    labels_for_active_width,
    sampling_probabilities,
)
from ragjudge.stats._ppi import z_value


def _population(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    p = rng.beta(0.4, 0.4, size=n)  # a judge mostly sure, sometimes not
    y = (rng.random(n) < p).astype(float)
    return p, y


def test_probabilities_follow_the_expected_error_mixed_with_uniform() -> None:
    p = np.array([0.0, 0.5, 0.9, np.nan])
    q = sampling_probabilities(p, uniform_mix=0.2)
    spread = np.sqrt(np.array([0.0, 0.25, 0.09, 0.25]))
    expected = 0.8 * spread / spread.sum() + 0.2 / 4
    assert q == pytest.approx(expected)
    assert q.sum() == pytest.approx(1.0)
    assert sampling_probabilities([1.0, 1.0]) == pytest.approx([0.5, 0.5])


def test_against_a_direct_computation() -> None:
    p, y = _population(50, 1)
    q = sampling_probabilities(p)
    draws = np.array([3, 7, 7, 12, 40, 41, 2, 9])
    est = active_mean(
        labels=y[draws], predicted=p[draws], probabilities=q[draws], predicted_all=p, lam=1.0
    )
    n_big, n = 50, draws.size
    # the brief's form: mean_i[f_i + (y_i - f_i) xi_i / pi_i], xi_i draws of i, pi_i = n q_i
    xi = np.bincount(draws, minlength=n_big)
    direct = float(np.mean(p + (y - p) * xi / (n * q)))
    assert est.estimate == pytest.approx(direct, abs=1e-12)
    terms = (y[draws] - p[draws]) / (n_big * q[draws])
    # the spread with z^2/4 pseudo-draws at each end of y - f's range, [-1, 1]
    w = z_value(0.95) ** 2 / 4
    total = n + 2 * w
    centre = (terms.sum() + w * (1.0 - 1.0)) / total
    squares = np.square(terms - centre).sum() + w * ((1 - centre) ** 2 + (-1 - centre) ** 2)
    se = math.sqrt(squares / (total - 1) / total + np.var(p) / n_big)
    assert est.se == pytest.approx(se, abs=1e-12)
    t = scipy.stats.t.ppf(0.975, n - 1)  # Student's t on the n draws' spread
    middle = p.mean() + centre
    low, high = max(0.0, min(middle - t * se, direct)), min(1.0, max(middle + t * se, direct))
    assert est.ci == pytest.approx([low, high])


def test_uniform_draws_are_the_ppi_estimator() -> None:
    p, y = _population(200, 2)
    draws = np.random.default_rng(0).integers(0, 200, size=40)
    est = active_mean(
        labels=y[draws],
        predicted=p[draws],
        probabilities=np.full(40, 1 / 200),
        predicted_all=p,
        lam=0.7,
    )
    assert est.estimate == pytest.approx(0.7 * p.mean() + np.mean(y[draws] - 0.7 * p[draws]))


@pytest.mark.parametrize("lam", [1.0, None])
def test_unbiased_and_covering_in_simulation(lam: float | None) -> None:
    p, y = _population(2000, 3)
    f = np.clip(p + 0.15, 0, 1)  # a judge biased upward: the draws must correct it
    q = sampling_probabilities(f)
    rng = np.random.default_rng(4)
    estimates, covered = [], 0
    for _ in range(1500):
        draws = rng.choice(2000, size=100, p=q)
        est = active_mean(
            labels=y[draws], predicted=f[draws], probabilities=q[draws], predicted_all=f, lam=lam
        )
        estimates.append(est.estimate)
        covered += est.ci[0] <= y.mean() <= est.ci[1]
    spread = float(np.std(estimates))
    assert abs(np.mean(estimates) - y.mean()) < 4 * spread / math.sqrt(1500)
    assert abs(f.mean() - y.mean()) > 0.1  # the judge alone is far off
    assert covered / 1500 >= 0.93


def test_narrower_than_uniform_where_the_judge_is_mostly_sure() -> None:
    p, y = _population(5000, 5)
    q = sampling_probabilities(p)
    rng = np.random.default_rng(6)
    widths: dict[str, list[float]] = {"active": [], "uniform": []}
    for _ in range(300):
        for name, probs in (("active", q), ("uniform", np.full(5000, 1 / 5000))):
            draws = rng.choice(5000, size=100, p=probs)
            est = active_mean(
                labels=y[draws], predicted=p[draws], probabilities=probs[draws], predicted_all=p
            )
            widths[name].append(est.ci[1] - est.ci[0])
    # a calibrated judge with scores Beta(0.4, 0.4): at best (E sqrt(p(1-p)))^2 / E p(1-p) =
    # 0.76 of the variance; the uniform share gives some of that back
    assert np.mean(widths["active"]) < 0.92 * np.mean(widths["uniform"])


def test_labels_for_a_width() -> None:
    p, y = _population(1000, 7)
    q = sampling_probabilities(p)
    draws = np.random.default_rng(8).choice(1000, size=60, p=q)
    est = active_mean(labels=y[draws], predicted=p[draws], probabilities=q[draws], predicted_all=p)
    width = est.ci[1] - est.ci[0]
    total = labels_for_active_width(est, width=width / 2)
    assert total is not None and total > 4 * 60  # the judge's part does not shrink
    se = math.sqrt(est.draw_sd**2 / total + est.fixed_se**2)
    assert 2 * z_value(0.95) * se == pytest.approx(width / 2, rel=0.01)


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="two draws"):
        active_mean(labels=[1], predicted=[1], probabilities=[0.5], predicted_all=[1, 0])
    with pytest.raises(ValueError, match=r"\(0, 1\]"):
        active_mean(labels=[1, 0], predicted=[1, 0], probabilities=[0, 0.5], predicted_all=[1, 0])


def test_the_adaptive_sampler_says_each_draws_probability() -> None:
    p, _ = _population(500, 9)
    sampler = AdaptiveSampler(p, seed=1)
    for k in range(40):
        q = sampler.probabilities()
        assert q.sum() == pytest.approx(1.0)
        assert q.min() >= 0.2 / 500 - 1e-12  # the uniform share
        index, prob = sampler.draw()
        assert prob == pytest.approx(q[index], abs=1e-12)
        sampler.observe(index, k % 2)


def test_the_adaptive_sampler_learns_where_the_judge_errs() -> None:
    p = np.r_[np.zeros(500), np.full(500, 0.5)]  # sure of half the rows, unsure of the rest
    sampler = AdaptiveSampler(p, seed=2)
    before = sampler.probabilities()[0]
    for _ in range(20):
        sampler.observe(0, 1.0)  # the sure half is wrong
    assert sampler.probabilities()[0] > 3 * before


def _adaptive_estimate(f: np.ndarray, y: np.ndarray, *, draws: int, seed: int) -> ActiveEstimate:
    """`draws` draws of an `AdaptiveSampler` fed each label, and their estimate."""
    sampler = AdaptiveSampler(f, seed=seed)
    rows, probs = [], []
    for _ in range(draws):
        index, prob = sampler.draw()
        rows.append(index)
        probs.append(prob)
        sampler.observe(index, y[index])
    at = np.array(rows)
    return active_mean(labels=y[at], predicted=f[at], probabilities=probs, predicted_all=f)


def test_unbiased_and_covering_with_adaptive_draws() -> None:
    p, y = _population(1500, 10)
    f = np.where(np.arange(1500) % 5 == 0, 1 - p, p)  # a judge confidently wrong on a fifth
    rng = np.random.default_rng(11)
    estimates, covered = [], 0
    for _ in range(600):
        est = _adaptive_estimate(f, y, draws=100, seed=int(rng.integers(2**31)))
        estimates.append(est.estimate)
        covered += est.ci[0] <= y.mean() <= est.ci[1]
    spread = float(np.std(estimates))
    assert abs(np.mean(estimates) - y.mean()) < 4 * spread / math.sqrt(600)
    assert covered / 600 >= 0.93


def test_covers_where_the_judge_errs_rarely_and_surely() -> None:
    # halueval's shape: every score near 0 or 1, the few errors where the judge is sure. With
    # 25 draws most samples show no error at all, so the draws' own spread is near 0: Student's
    # t on it alone covered 0.64 here; the pseudo-observations hold the level.
    rng = np.random.default_rng(11)
    n_big = 20000
    sure_yes = rng.random(n_big) < 0.5
    f = np.where(sure_yes, rng.uniform(0.93, 1.0, n_big), rng.uniform(0.0, 0.02, n_big))
    y = np.where(sure_yes, rng.random(n_big) > 0.035, rng.random(n_big) < 0.005).astype(float)
    covered = 0
    for k in range(400):
        est = _adaptive_estimate(f, y, draws=25, seed=k)
        covered += est.ci[0] <= y.mean() <= est.ci[1]
    assert covered / 400 >= 0.94
