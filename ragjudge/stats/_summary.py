"""What a run's verdicts say without labels: the pass rate and the mean score, each with a
95% interval (Wilson for the rate, percentile bootstrap for the mean)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist

import numpy as np
import pydantic

from ragjudge.stats._agreement import _resample_weights

__all__ = ["ScoreSummary", "mean_interval", "score_summary", "wilson_interval"]

_Z95 = 1.959963984540054


def wilson_interval(successes: int, n: int, *, level: float = 0.95) -> list[float | None]:
    """The Wilson score interval of a proportion `successes / n` (95% unless `level` says
    otherwise): the one interval of a pass rate, in `evaluate`, the gate and `estimate`.

    Example:
        >>> [round(v, 3) for v in wilson_interval(8, 10)]
        [0.49, 0.943]
    """
    if n <= 0:
        return [None, None]
    p = successes / n
    z = _Z95 if level == 0.95 else float(NormalDist().inv_cdf(1 - (1 - level) / 2))
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return [max(0.0, centre - half), min(1.0, centre + half)]


def mean_interval(
    values: Sequence[float] | np.ndarray, *, n_boot: int = 1000, seed: int = 0
) -> list[float | None]:
    """The 95% percentile-bootstrap interval of the mean of `values` (None, None for fewer
    than two values or `n_boot=0`).

    Example:
        >>> low, high = mean_interval([0.0, 1.0] * 20, n_boot=200)
        >>> 0.3 < low < 0.5 < high < 0.7
        True
    """
    x = np.asarray(values, dtype=float)
    n = len(x)
    if n < 2 or not n_boot:
        return [None, None]
    means = _resample_weights(seed, n_boot, n) @ x / n
    low, high = np.percentile(means, [2.5, 97.5])
    return [float(low), float(high)]


class ScoreSummary(pydantic.BaseModel):
    """The verdicts of a run, labeled or not.

    Attributes:
        n: Rows judged (errors and unscored rows included).
        passed: Rows that passed.
        pass_rate: `passed / n`: a row with an error or no score did not pass.
        pass_rate_ci: Its 95% Wilson interval.
        scored: Rows with a score.
        mean_score: The mean score of the scored rows (None when none is scored).
        mean_score_ci: Its 95% percentile-bootstrap interval.
    """

    n: int
    passed: int
    pass_rate: float | None
    pass_rate_ci: list[float | None]
    scored: int
    mean_score: float | None
    mean_score_ci: list[float | None]


def score_summary(
    passed: Sequence[bool],
    scores: Sequence[float],
    *,
    n_boot: int = 1000,
    seed: int = 0,
) -> ScoreSummary:
    """The pass rate and mean score of a run's verdicts, with 95% intervals.

    Args:
        passed: One pass verdict per row (False for a row with an error or no score).
        scores: One score per row (NaN for a row with an error or no score: left out of the
            mean).
        n_boot: Bootstrap resamples for the mean's interval.
        seed: Seed of the resampling.

    Returns:
        The summary.

    Example:
        >>> s = score_summary([True, False, True, True], [0.9, 0.2, float("nan"), 0.7], n_boot=0)
        >>> s.pass_rate, s.scored, round(s.mean_score, 3)
        (0.75, 3, 0.6)
    """
    if len(passed) != len(scores):
        raise ValueError("passed and scores must have the same length")
    n = len(passed)
    k = sum(1 for p in passed if p)
    finite = [float(s) for s in scores if s is not None and not math.isnan(float(s))]
    return ScoreSummary(
        n=n,
        passed=k,
        pass_rate=k / n if n else None,
        pass_rate_ci=wilson_interval(k, n),
        scored=len(finite),
        mean_score=float(np.mean(finite)) if finite else None,
        mean_score_ci=mean_interval(finite, n_boot=n_boot, seed=seed),
    )
