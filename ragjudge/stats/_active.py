"""Active inference of a mean (Zrnic and Candès 2024): the labels drawn where the judge is
least sure, weighted back so that the estimate stays unbiased.

The rows to label are drawn one at a time, with replacement, row i with probability `q_i`
(`AdaptiveSampler`, what `ragjudge label --strategy estimate` uses: the judge's error by score
bin, learned from the labels drawn; `sampling_probabilities`: its expected error
`sqrt(p (1 - p))` alone; both mixed with uniform so that every row can be drawn). After n
draws, row i has been drawn `xi_i` times, `pi_i = n q_i` in expectation, and

    theta = mean_i[lam f_i + (y_i - lam f_i) xi_i / pi_i]
          = lam mean(f) + (1/n) sum_t (y_t - lam f_t) / (N q_t)

is unbiased for the mean of y over the N rows for any fixed `lam` (1 by default: the
estimator of Zrnic and Candès) and any judge f: each draw's
term has expectation `mean(y) - lam mean(f)` whatever the probabilities, which may change
between draws (each draw records the probability it had). With `q_i = 1/N` it is PPI++.

The interval is `mean_estimate`'s small-sample one: the draws' terms are averaged, and their
spread taken, with pseudo-observations at both ends of the rectifier's range `y - lam f`, as
draws of uniform weight (`stats._ppi.guarded_mean`), and Student's t with n - 1 degrees of
freedom. The weighted terms are skewed -- an error where the judge is sure is rare and weighs
up to `1 / uniform_mix` -- so with plain t, drawing from 100,000 rows, the interval covered
0.62 at 25 draws and 0.89 at 100 where the judge is mostly right (halueval), 0.91-0.92 at 200
on begin and lfqa_verification (`python benchmarks/bench_label.py --part interval`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import pydantic

from ragjudge.stats._ppi import (
    bounded_interval,
    guarded_mean,
    labels_for_width,
    quantile,
    rectifier_ends,
)

__all__ = [
    "ActiveEstimate",
    "AdaptiveSampler",
    "active_mean",
    "labels_for_active_width",
    "sampling_probabilities",
]

#: The share of each draw's probability spread uniformly over every row.
UNIFORM_MIX = 0.2


class ActiveEstimate(pydantic.BaseModel):
    """The active-inference mean with its interval.

    Attributes:
        estimate: The estimate of the mean of y over the rows.
        se: Its standard error.
        ci: `[low, high]` at `level`.
        lam: The weight given the judge (power tuning, clipped to [0, 1]).
        n_draws: The draws (labels, counted once per draw).
        n_rows: The rows drawn from.
        level: The interval's level.
        draw_sd: The spread of one draw's term (for `labels_for_active_width`).
        fixed_se: The standard error of the judge's part, `lam mean(f)`.
    """

    estimate: float
    se: float
    ci: list[float]
    lam: float
    n_draws: int
    n_rows: int
    level: float = 0.95
    draw_sd: float = 0.0
    fixed_se: float = 0.0


def sampling_probabilities(
    scores: npt.ArrayLike, *, uniform_mix: float = UNIFORM_MIX
) -> np.ndarray:
    """Each row's probability of being drawn: proportional to the judge's expected error
    `sqrt(p (1 - p))` (p: its score, clipped to [0, 1]), mixed with uniform.

    Args:
        scores: The judge's score of every row (NaN: unscored, treated as p = 0.5).
        uniform_mix: The share spread uniformly (in (0, 1]; it bounds every weight
            `1 / (N q_i)` by `1 / uniform_mix`).

    Returns:
        Probabilities summing to 1.

    Example:
        >>> q = sampling_probabilities([0.0, 0.5, 1.0, 0.5])
        >>> [round(float(x), 3) for x in q]
        [0.05, 0.45, 0.05, 0.45]
    """
    if not 0 < uniform_mix <= 1:
        raise ValueError(f"uniform_mix must be in (0, 1], got {uniform_mix}")
    p = np.asarray(scores, dtype=float).ravel()
    if p.size == 0:
        raise ValueError("no rows to draw from")
    p = np.clip(np.where(np.isnan(p), 0.5, p), 0.0, 1.0)
    spread = np.sqrt(p * (1 - p))
    total = float(spread.sum())
    uniform = np.full(p.size, 1.0 / p.size)
    if total <= 0:
        return uniform
    return (1 - uniform_mix) * spread / total + uniform_mix * uniform


class AdaptiveSampler:
    """Draws rows one at a time, row i with probability `q_i` proportional to the judge's
    error where it lies, mixed with uniform, and learns that error from the labels drawn.

    The rows are put in `bins` bins by score. A bin's error starts as the judge's own expected
    error there, the mean of `p (1 - p)`, and is then learned from the labels drawn in it (the
    mean of `(y - p)^2`, the start weighing as `prior_draws` draws); a bin's rows share its
    draws. So a judge sure of rows it gets wrong soon gets more draws where it is wrong, and a
    judge whose scores say nothing gets draws close to uniform. Each draw's probability
    depends only on the labels before it, which keeps `active_mean` unbiased.

    Args:
        scores: The judge's score of every row (NaN: unscored, as 0.5).
        bins: Score bins of equal width on [0, 1].
        uniform_mix: The share of each draw spread uniformly (it bounds every weight
            `1 / (N q_i)` by `1 / uniform_mix`).
        prior_draws: How many draws the judge's own expected error weighs as, in each bin.
        seed: Seeds the draws.
    """

    def __init__(
        self,
        scores: npt.ArrayLike,
        *,
        bins: int = 10,
        uniform_mix: float = UNIFORM_MIX,
        prior_draws: float = 10.0,
        seed: int | Sequence[int] = 0,
    ) -> None:
        if not 0 < uniform_mix <= 1:
            raise ValueError(f"uniform_mix must be in (0, 1], got {uniform_mix}")
        p = np.asarray(scores, dtype=float).ravel()
        if p.size == 0:
            raise ValueError("no rows to draw from")
        self.p = np.clip(np.where(np.isnan(p), 0.5, p), 0.0, 1.0)
        self.bin = np.minimum((self.p * bins).astype(int), bins - 1)
        self.members = [np.flatnonzero(self.bin == b) for b in range(bins)]
        self.count = np.array([m.size for m in self.members], dtype=float)
        self.prior = np.array(
            [float(np.mean(self.p[m] * (1 - self.p[m]))) if m.size else 0.0 for m in self.members]
        )
        self.error_sum = np.zeros(bins)
        self.error_n = np.zeros(bins)
        self.uniform_mix, self.prior_draws = uniform_mix, prior_draws
        self.rng = np.random.default_rng(seed)

    def bin_mass(self) -> np.ndarray:
        """The probability that the next draw falls in each bin."""
        k = self.prior_draws
        error = (self.error_sum + k * self.prior) / (self.error_n + k)
        weight = np.sqrt(error) * self.count
        share = self.count / self.count.sum()
        guided = weight / weight.sum() if weight.sum() > 0 else share
        return (1 - self.uniform_mix) * guided + self.uniform_mix * share

    def probabilities(self) -> np.ndarray:
        """Every row's probability of being the next draw."""
        mass = self.bin_mass()
        per_row = np.divide(mass, self.count, out=np.zeros_like(mass), where=self.count > 0)
        return per_row[self.bin]

    def draw(self) -> tuple[int, float]:
        """One draw: the row and the probability it had."""
        mass = self.bin_mass()
        at = self.rng.random() * float(mass.sum())
        b = min(int(np.searchsorted(np.cumsum(mass), at, side="right")), mass.size - 1)
        while self.count[b] == 0:  # an empty bin has no mass; only rounding lands here
            b -= 1
        members = self.members[b]
        index = int(members[self.rng.integers(members.size)])
        return index, float(mass[b] / self.count[b])

    def observe(self, index: int, label: float) -> None:
        """Learn from a drawn row's label."""
        b = self.bin[index]
        self.error_sum[b] += (float(label) - self.p[index]) ** 2
        self.error_n[b] += 1


def active_mean(
    *,
    labels: npt.ArrayLike,
    predicted: npt.ArrayLike,
    probabilities: npt.ArrayLike,
    predicted_all: npt.ArrayLike,
    level: float = 0.95,
    lam: float | None = 1.0,
    label_range: tuple[float, float] = (0.0, 1.0),
    prediction_range: tuple[float, float] = (0.0, 1.0),
) -> ActiveEstimate:
    """The mean of the labels over every row, from draws made with known probabilities.

    Args:
        labels: The label of each draw (a row drawn twice appears twice).
        predicted: The judge's prediction on each draw's row.
        probabilities: The probability each draw had of picking its row (`q`).
        predicted_all: The judge's prediction on every row drawn from (N rows).
        level: The interval's level.
        lam: The judge's weight: 1 (the default) is the estimator above; 0 the labels alone,
            weighted; None tunes it on the draws (power tuning, as PPI++).
        label_range: The smallest and largest a label can be.
        prediction_range: The same for a prediction (with `label_range`, the ends of the
            rectifier's range, where the pseudo-observations go).

    Returns:
        An `ActiveEstimate`.

    Raises:
        ValueError: Fewer than two draws, lengths that differ, a probability outside (0, 1].

    Example:
        >>> est = active_mean(labels=[1, 0, 1, 1], predicted=[0.9, 0.2, 0.6, 0.8],
        ...                   probabilities=[0.25] * 4, predicted_all=[0.9, 0.2, 0.6, 0.8])
        >>> round(est.estimate, 2)
        0.75
    """
    y = np.asarray(labels, dtype=float).ravel()
    f = np.asarray(predicted, dtype=float).ravel()
    q = np.asarray(probabilities, dtype=float).ravel()
    f_all = np.asarray(predicted_all, dtype=float).ravel()
    if y.size < 2:
        raise ValueError("at least two draws are needed")
    if not (y.size == f.size == q.size):
        raise ValueError(
            f"labels ({y.size}), predicted ({f.size}) and probabilities ({q.size}) differ in length"
        )
    if np.any(~(q > 0)) or np.any(q > 1):
        raise ValueError("every probability must be in (0, 1]")
    n, big_n = y.size, f_all.size
    a = y / (big_n * q)
    b = f / (big_n * q)
    f_bar = float(f_all.mean())
    var_f = float(np.var(f_all)) / big_n
    if lam is None:
        var_b = float(np.var(b))
        cov = float(np.mean((a - a.mean()) * (b - b.mean())))
        lam = 0.0 if var_b <= 0 else cov / (var_b + n * var_f)
        lam = min(1.0, max(0.0, lam))
    terms = a - lam * b
    theta = lam * f_bar + float(terms.mean())
    ends = rectifier_ends(lam=lam, label_range=label_range, prediction_range=prediction_range)
    centre, draws_var = guarded_mean(terms, ends, level=level)
    draw_sd = math.sqrt(draws_var * n)  # one draw's spread, the pseudo-observations in
    fixed_se = lam * math.sqrt(var_f)
    se = math.sqrt(draws_var + fixed_se**2)
    z = quantile(level, n - 1)  # Student's t: the draws' spread is estimated from n draws
    return ActiveEstimate(
        estimate=theta,
        se=se,
        ci=bounded_interval(lam * f_bar + centre, se, z, theta, label_range),
        lam=float(lam),
        n_draws=n,
        n_rows=big_n,
        level=level,
        draw_sd=draw_sd,
        fixed_se=fixed_se,
    )


def labels_for_active_width(est: ActiveEstimate, *, width: float) -> int | None:
    """How many draws (in all) give an interval `width` wide, at the spread measured so far
    (`labels_for_width` with one draw's spread); None when the judge's part alone is wider."""
    return labels_for_width(
        label_sd=est.draw_sd, fixed_se=est.fixed_se, width=width, level=est.level
    )
