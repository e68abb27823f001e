"""Active inference of a mean (Zrnic and Candès 2024): the labels drawn where the judge is
least sure, weighted back so that the estimate stays unbiased.

The rows to label are drawn one at a time, with replacement, row i with probability `q_i`
(`sampling_probabilities`: the judge's expected error `sqrt(p (1 - p))`, mixed with uniform so
that every row can be drawn). After n draws, row i has been drawn `xi_i` times, `pi_i = n q_i`
in expectation, and

    theta = mean_i[lam f_i + (y_i - lam f_i) xi_i / pi_i]
          = lam mean(f) + (1/n) sum_t (y_t - lam f_t) / (N q_t)

is unbiased for the mean of y over the N rows for any fixed `lam` (1 by default: the
estimator of Zrnic and Candès) and any judge f: each draw's
term has expectation `mean(y) - lam mean(f)` whatever the probabilities, which may change
between draws (each draw records the probability it had). With `q_i = 1/N` it is PPI++.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt
import pydantic

from ragjudge.stats._ppi import z_value

__all__ = ["ActiveEstimate", "active_mean", "labels_for_active_width", "sampling_probabilities"]

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
        >>> [round(x, 3) for x in q]
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


def active_mean(
    *,
    labels: npt.ArrayLike,
    predicted: npt.ArrayLike,
    probabilities: npt.ArrayLike,
    predicted_all: npt.ArrayLike,
    level: float = 0.95,
    lam: float | None = 1.0,
) -> ActiveEstimate:
    """The mean of the labels over every row, from draws made with known probabilities.

    Args:
        labels: The label of each draw (a row drawn twice appears twice).
        predicted: The judge's prediction on each draw's row.
        probabilities: The probability each draw had of picking its row (`q`).
        predicted_all: The judge's prediction on every row drawn from (N rows).
        level: The interval's level.
        lam: The judge's weight: 1 (the default) is the estimator above; 0 the labels alone,
            weighted; None tunes it on the draws (power tuning, as PPI++), which narrows the
            interval but, tuned on the same few draws, covers less than it says at small n
            (0.88-0.92 at 25-100 draws on lfqa_verification, `benchmarks/bench_label.py`).

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
    draw_sd = float(np.std(terms, ddof=1))
    fixed_se = lam * math.sqrt(var_f)
    se = math.sqrt(draw_sd**2 / n + fixed_se**2)
    z = z_value(level)
    return ActiveEstimate(
        estimate=theta,
        se=se,
        ci=[theta - z * se, theta + z * se],
        lam=float(lam),
        n_draws=n,
        n_rows=big_n,
        level=level,
        draw_sd=draw_sd,
        fixed_se=fixed_se,
    )


def labels_for_active_width(est: ActiveEstimate, *, width: float) -> int | None:
    """How many draws (in all) give an interval `width` wide, at the spread measured so far;
    None when the judge's part alone is wider."""
    if width <= 0:
        raise ValueError(f"width must be positive, got {width}")
    target = (width / 2 / z_value(est.level)) ** 2 - est.fixed_se**2
    if target <= 0:
        return None
    return max(2, math.ceil(est.draw_sd**2 / target))
