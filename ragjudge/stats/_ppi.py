"""Prediction-powered inference (PPI / PPI++) for a mean: a judge's verdicts on every row,
corrected by a few labeled rows.

The estimator of Angelopoulos, Duchi and Zrnic (PPI++, 2023), written with numpy: for labels
`y` (n labeled rows), the judge's predictions `f` on those rows and its predictions `f_u` on N
unlabeled rows,

    theta(lam) = lam * mean(f_u) + mean(y - lam * f)
    se(lam)^2  = var(lam * f_u) / N + var(y - lam * f) / n

with `lam` chosen from the data to minimize the variance and clipped to [0, 1] (0 is the
labels-only estimate, 1 plain PPI). The interval is the normal one, `theta +- z * se`. The
figures equal `ppi_py.ppi_mean_ci` / `ppi_mean_pointestimate` with `lam=None` (tested to 1e-9).

`mean_estimate` adds one guard `ppi_py` lacks: when the tuned interval would come out wider
than the labels-only one (possible by a hair, since `lam` is estimated), it is the labels-only
one, so PPI++ is never wider than the labels alone.

Example:
    >>> import numpy as np
    >>> y = np.array([1, 0, 1, 1, 0, 1, 0, 1, 1, 1.0])
    >>> est = mean_estimate(labels=y, predicted=y, predicted_unlabeled=np.ones(90) * 0.7)
    >>> round(est.lam, 3), est.n_labeled
    (1.0, 10)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

import numpy as np
import numpy.typing as npt
import pydantic
from scipy import stats

__all__ = [
    "Interval",
    "MeanEstimate",
    "bounded_interval",
    "classical_ci",
    "combine_strata",
    "difference",
    "effective_labels",
    "guarded_mean",
    "labels_for_width",
    "mean_estimate",
    "ppi_lambda",
    "ppi_point",
    "ppi_se",
    "quantile",
    "rectifier_ends",
    "satterthwaite",
    "z_value",
]


def z_value(level: float) -> float:
    """The two-sided normal quantile of an interval at `level` (1.96 for 0.95)."""
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    return float(stats.norm.ppf(1 - (1 - level) / 2))


def _arrays(
    labels: npt.ArrayLike, predicted: npt.ArrayLike, predicted_unlabeled: npt.ArrayLike
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    y = np.asarray(labels, dtype=float).ravel()
    f = np.asarray(predicted, dtype=float).ravel()
    f_u = np.asarray(predicted_unlabeled, dtype=float).ravel()
    if y.shape != f.shape:
        raise ValueError(f"{y.size} labels but {f.size} predictions on the labeled rows")
    if y.size < 2:
        raise ValueError("at least two labeled rows are needed")
    return y, f, f_u


def ppi_point(
    labels: npt.ArrayLike,
    predicted: npt.ArrayLike,
    predicted_unlabeled: npt.ArrayLike,
    *,
    lam: float,
) -> float:
    """`lam * mean(f_u) + mean(y - lam * f)`: the PPI estimate at a given `lam`."""
    y, f, f_u = _arrays(labels, predicted, predicted_unlabeled)
    return float(lam * f_u.mean() + (y - lam * f).mean())


def ppi_lambda(
    labels: npt.ArrayLike, predicted: npt.ArrayLike, predicted_unlabeled: npt.ArrayLike
) -> float:
    """The power-tuned `lam` of PPI++ for a mean, clipped to [0, 1] (as `ppi_py` computes it:
    the covariance of label and prediction over `(1 + n/N)` times the predictions' variance,
    both centred at the plain PPI estimate)."""
    y, f, f_u = _arrays(labels, predicted, predicted_unlabeled)
    n, big_n = y.size, f_u.size
    theta = f_u.mean() + (y - f).mean()
    grads, grads_hat = y - theta, f - theta
    cov = 2.0 / n * float(np.dot(grads - grads.mean(), grads_hat - grads_hat.mean()))
    var = float(np.var(np.concatenate([grads_hat, f_u - theta]), ddof=1))
    if var <= 0 or not math.isfinite(var):
        return 0.0  # constant predictions carry nothing: labels alone
    lam = cov / (2 * (1 + n / big_n) * var)
    return float(np.clip(lam, 0.0, 1.0))


def ppi_se(
    labels: npt.ArrayLike,
    predicted: npt.ArrayLike,
    predicted_unlabeled: npt.ArrayLike,
    *,
    lam: float,
) -> float:
    """The standard error of the PPI estimate at `lam` (population standard deviations)."""
    y, f, f_u = _arrays(labels, predicted, predicted_unlabeled)
    imputed = float(np.std(lam * f_u)) / math.sqrt(f_u.size)
    rectifier = float(np.std(y - lam * f)) / math.sqrt(y.size)
    return math.sqrt(imputed**2 + rectifier**2)


def classical_ci(labels: npt.ArrayLike, *, level: float = 0.95) -> tuple[float, float, float]:
    """The labels-only estimate, its standard error and nothing else: `(mean, se, z)`.

    The normal interval `mean +- z * se` with the population standard deviation, as
    `ppi_py.classical_mean_ci` computes it.
    """
    y = np.asarray(labels, dtype=float).ravel()
    if y.size < 2:
        raise ValueError("at least two labeled rows are needed")
    return float(y.mean()), float(np.std(y)) / math.sqrt(y.size), z_value(level)


def effective_labels(*, n_labeled: float, se: float, classical_se: float) -> float:
    """How many labels alone would give an interval as narrow as one with standard error `se`:
    `n * (classical_se / se)^2` (infinite when `se` is 0 and the labels vary; `n` when neither
    does). The one definition the estimate, its strata and a comparison of two systems share.

    Example:
        >>> effective_labels(n_labeled=100, se=0.05, classical_se=0.1)
        400.0
    """
    if se <= 0:
        return math.inf if classical_se > 0 else float(n_labeled)
    return float(n_labeled * (classical_se / se) ** 2)


#: The intervals `mean_estimate` can give: `"small-sample"` (the default: pseudo-observations
#: at both ends of the rectifier's range and a t quantile) or `"normal"` (`ppi_py`'s).
Interval = Literal["small-sample", "normal"]


class MeanEstimate(pydantic.BaseModel):
    """A mean with its interval, by PPI++ and by the labels alone.

    Attributes:
        estimate: The PPI++ estimate (`ppi_py`'s point estimate at the `lam` used).
        se: The standard error of the interval.
        ci: `[low, high]` at `level`, within the labels' range.
        lam: The power-tuning weight in [0, 1] actually used (0: the labels alone).
        classical: The labels-only estimate (the labels' mean).
        classical_se: The standard error of its interval.
        classical_ci: Its interval.
        judge: The judge's raw mean over every row, labeled and unlabeled (biased by its errors).
        n_labeled: Labeled rows used.
        n_unlabeled: Rows with a prediction but no label.
        level: The intervals' level.
        interval: How the intervals were made (`Interval`).
        centre: The middle of the PPI++ interval (the estimate itself for `"normal"`; for
            `"small-sample"` pulled towards the middle of the rectifier's range by the
            pseudo-observations, as the Agresti-Coull interval of a proportion is).
        classical_centre: The middle of the labels-only interval.
        df: Degrees of freedom of the interval's quantile (None: the normal quantile).
        fell_back: True when the tuned interval came out wider than the labels-only one and the
            labels-only one is reported instead.
        label_sd: The spread of one labeled row's term `y - lam * f` (for `labels_for_width`).
        imputed_se: The standard error of the judge's part, `lam * mean(f_u)`.
        classical_sd: The spread of the labels.
    """

    estimate: float
    se: float
    ci: list[float]
    lam: float
    classical: float
    classical_se: float
    classical_ci: list[float]
    judge: float
    n_labeled: int
    n_unlabeled: int
    level: float = 0.95
    interval: Interval = "small-sample"
    centre: float = math.nan
    classical_centre: float = math.nan
    df: float | None = None
    fell_back: bool = False
    label_sd: float = 0.0
    imputed_se: float = 0.0
    classical_sd: float = 0.0

    @property
    def effective_labels(self) -> float:
        """How many labels alone would give the PPI++ interval's width (`effective_labels`)."""
        return effective_labels(
            n_labeled=self.n_labeled, se=self.se, classical_se=self.classical_se
        )


def quantile(level: float, df: float | None) -> float:
    """The two-sided quantile of an interval at `level`: Student's t with `df` degrees of
    freedom, or the normal one when `df` is None (or infinite)."""
    if df is None or math.isinf(df):
        return z_value(level)
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    return float(stats.t.ppf(1 - (1 - level) / 2, max(df, 1.0)))


def guarded_mean(terms: np.ndarray, ends: Sequence[float], *, level: float) -> tuple[float, float]:
    """The mean of `terms` and the variance of that mean, each taken with `z^2 / 4`
    pseudo-observations at each of the two `ends` of the terms' range (`z^2 / 2` in all), as
    Agresti and Coull add pseudo-counts to a proportion: a few terms that all agree (a judge
    right on every label drawn so far) still leave the interval a width.

    Returns:
        `(mean, variance of the mean)`.
    """
    z = z_value(level)
    weight = z * z / 4
    at = np.asarray(ends, dtype=float)
    total = terms.size + 2 * weight
    mean = (float(terms.sum()) + weight * float(at.sum())) / total
    squares = float(np.square(terms - mean).sum()) + weight * float(np.square(at - mean).sum())
    return mean, squares / (total - 1) / total


def rectifier_ends(
    *, lam: float, label_range: tuple[float, float], prediction_range: tuple[float, float]
) -> tuple[float, float]:
    """The two ends of the range of the rectifier `y - lam * f`."""
    (y_lo, y_hi), (f_lo, f_hi) = label_range, prediction_range
    return y_hi - lam * f_lo, y_lo - lam * f_hi


def _small_sample(
    y: np.ndarray,
    f: np.ndarray,
    f_u: np.ndarray,
    *,
    lam: float,
    level: float,
    label_range: tuple[float, float],
    prediction_range: tuple[float, float],
) -> tuple[float, float]:
    """The centre and standard error of the small-sample PPI interval at `lam`: the rectifier
    `y - lam * f`'s mean and variance with pseudo-observations at both ends of its range
    (`guarded_mean`; at `lam` = 0 this is Agresti and Coull's interval, with half the
    pseudo-counts)."""
    ends = rectifier_ends(lam=lam, label_range=label_range, prediction_range=prediction_range)
    mean, rectifier_var = guarded_mean(y - lam * f, ends, level=level)
    imputed_var = float(np.var(lam * f_u)) / f_u.size
    return lam * float(f_u.mean()) + mean, math.sqrt(imputed_var + rectifier_var)


def bounded_interval(
    centre: float, se: float, q: float, point: float, bounds: tuple[float, float] | None
) -> list[float]:
    """`centre +- q * se`, never leaving out the point estimate, within `bounds` if given."""
    low, high = min(centre - q * se, point), max(centre + q * se, point)
    if bounds is not None:
        low, high = max(low, bounds[0]), min(high, bounds[1])
    return [low, high]


def mean_estimate(
    *,
    labels: npt.ArrayLike,
    predicted: npt.ArrayLike,
    predicted_unlabeled: npt.ArrayLike,
    level: float = 0.95,
    lam: float | None = None,
    interval: Interval = "small-sample",
    label_range: tuple[float, float] = (0.0, 1.0),
    prediction_range: tuple[float, float] = (0.0, 1.0),
) -> MeanEstimate:
    """The PPI++ mean of the labels, with the labels-only figure and the judge's raw mean.

    Args:
        labels: The labels (0/1, or any numbers in `label_range`) of the labeled rows.
        predicted: The judge's predictions on the same rows, in the same order.
        predicted_unlabeled: The judge's predictions on rows without a label (not the labeled
            ones: the two samples are independent, as PPI assumes). With fewer than two, the
            estimate is the labels alone (`lam` = 0).
        level: The intervals' level.
        lam: A fixed weight (1: plain PPI, 0: the labels alone); None tunes it (PPI++).
        interval: `"small-sample"` (the default) holds its level from 10 labels on
            (benchmarks/bench_estimate.py): pseudo-observations at both ends of the rectifier's
            range (`_small_sample`) and a t quantile with `n - 1` degrees of freedom, the
            interval kept within `label_range`. `"normal"` is `ppi_py.ppi_mean_ci`'s
            `theta +- z * se`, which undercovers with few labels.
        label_range: The smallest and largest a label can be ((0, 1) for a rate, (-1, 1) for
            the per-question difference of two rates).
        prediction_range: The same for a prediction.

    Returns:
        A `MeanEstimate`.

    Example:
        >>> est = mean_estimate(labels=[1, 0] * 10, predicted=[1, 0] * 10,
        ...                     predicted_unlabeled=[1, 1, 0, 0, 1] * 40)
        >>> round(est.estimate, 2), est.ci[0] < est.estimate < est.ci[1]
        (0.59, True)
    """
    y, f, f_u = _arrays(labels, predicted, predicted_unlabeled)
    if f_u.size < 2:  # every row is labeled: the labels alone are the estimate
        lam = 0.0
        f_u = np.zeros(2)
    tuned = ppi_lambda(y, f, f_u) if lam is None else float(lam)
    mean = float(y.mean())
    if interval == "normal":
        df, bounds = None, None
        centre, se = ppi_point(y, f, f_u, lam=tuned), ppi_se(y, f, f_u, lam=tuned)
        centre0, se0, _ = classical_ci(y, level=level)
    else:
        df, bounds = float(y.size - 1), label_range
        ranges = {"label_range": label_range, "prediction_range": prediction_range}
        centre, se = _small_sample(y, f, f_u, lam=tuned, level=level, **ranges)
        centre0, se0 = _small_sample(y, f, f_u, lam=0.0, level=level, **ranges)
    q = quantile(level, df)
    theta = ppi_point(y, f, f_u, lam=tuned)
    ci, ci0 = (
        bounded_interval(centre, se, q, theta, bounds),
        bounded_interval(centre0, se0, q, mean, bounds),
    )
    fell_back = lam is None and ci[1] - ci[0] > ci0[1] - ci0[0]
    if fell_back:
        tuned, centre, se, theta, ci = 0.0, centre0, se0, mean, ci0
    return MeanEstimate(
        estimate=theta,
        se=se,
        ci=ci,
        lam=tuned,
        classical=mean,
        classical_se=se0,
        classical_ci=ci0,
        judge=float(
            np.concatenate([f, np.asarray(predicted_unlabeled, dtype=float).ravel()]).mean()
        ),
        n_labeled=int(y.size),
        n_unlabeled=int(np.size(predicted_unlabeled)),
        level=level,
        interval=interval,
        centre=centre,
        classical_centre=centre0,
        df=df,
        fell_back=fell_back,
        label_sd=float(np.std(y - tuned * f)),
        imputed_se=float(np.std(tuned * f_u)) / math.sqrt(f_u.size),
        classical_sd=float(np.std(y)),
    )


def satterthwaite(variances: np.ndarray, dfs: Sequence[float | None]) -> float | None:
    """The Welch-Satterthwaite degrees of freedom of a sum of independent variances."""
    if any(d is None for d in dfs):
        return None
    parts = [v * v / d for v, d in zip(variances, dfs, strict=True) if d and v > 0]
    total = float(variances.sum())
    return total * total / sum(parts) if parts and total > 0 else None


def combine_strata(
    parts: Sequence[MeanEstimate], weights: Sequence[float], *, level: float = 0.95
) -> MeanEstimate:
    """The stratified estimate: each stratum's figures weighted by its share of the rows.

    `sum(w_h * theta_h)` with standard error `sqrt(sum(w_h^2 * se_h^2))`, the strata being
    estimated independently; the same for the labels-only figure and the judge's mean. The
    intervals are centred on the pooled centres, with the Welch-Satterthwaite degrees of freedom
    of the strata's (for small-sample strata).

    Args:
        parts: One estimate per stratum.
        weights: Each stratum's share of all rows (normalized here).
        level: The intervals' level.
    """
    w = np.asarray(weights, dtype=float)
    if len(parts) != w.size or not len(parts):
        raise ValueError("one weight per stratum is needed")
    w = w / w.sum()

    def pooled(values: list[float]) -> float:
        return float(np.dot(w, values))

    def pooled_var(values: list[float]) -> np.ndarray:
        return np.asarray(w**2 * np.square(values), dtype=float)

    dfs = [p.df for p in parts]
    var, var0 = pooled_var([p.se for p in parts]), pooled_var([p.classical_se for p in parts])
    se, se0 = math.sqrt(float(var.sum())), math.sqrt(float(var0.sum()))
    q, q0 = quantile(level, satterthwaite(var, dfs)), quantile(level, satterthwaite(var0, dfs))
    theta, mean = pooled([p.estimate for p in parts]), pooled([p.classical for p in parts])
    centre, centre0 = pooled([p.centre for p in parts]), pooled([p.classical_centre for p in parts])
    bounds = None if parts[0].interval == "normal" else (0.0, 1.0)
    return MeanEstimate(
        estimate=theta,
        se=se,
        ci=bounded_interval(centre, se, q, theta, bounds),
        lam=pooled([p.lam for p in parts]),
        classical=mean,
        classical_se=se0,
        classical_ci=bounded_interval(centre0, se0, q0, mean, bounds),
        judge=pooled([p.judge for p in parts]),
        n_labeled=sum(p.n_labeled for p in parts),
        n_unlabeled=sum(p.n_unlabeled for p in parts),
        level=level,
        interval=parts[0].interval,
        centre=centre,
        classical_centre=centre0,
        df=satterthwaite(var, dfs),
        fell_back=all(p.fell_back for p in parts),
    )


class Difference(pydantic.BaseModel):
    """`b - a` with its interval and a two-sided p-value (the test of no difference that
    matches the interval: the interval excludes 0 exactly when p < 1 - level)."""

    estimate: float
    se: float
    ci: list[float]
    p_value: float


def difference(
    *,
    estimate: float,
    se: float,
    level: float = 0.95,
    centre: float | None = None,
    df: float | None = None,
) -> Difference:
    """The interval and p-value of a difference with standard error `se`.

    For independent samples `se = sqrt(se_a^2 + se_b^2)`; for paired rows pass the standard
    error of the per-row difference's estimate.

    Args:
        estimate: The point estimate of the difference.
        se: Its standard error.
        level: The interval's level.
        centre: The interval's middle (default: `estimate`).
        df: Degrees of freedom of the t quantile (None: normal).
    """
    middle = estimate if centre is None else centre
    q = quantile(level, df)
    if se > 0:
        score = abs(middle) / se
        p_value = float(2 * (stats.norm.sf(score) if df is None else stats.t.sf(score, df)))
    else:
        p_value = 1.0 if middle == 0 else 0.0
    return Difference(
        estimate=estimate,
        se=se,
        ci=bounded_interval(middle, se, q, estimate, (-1.0, 1.0)),
        p_value=p_value,
    )


def labels_for_width(
    *, label_sd: float, fixed_se: float = 0.0, width: float, level: float = 0.95
) -> int | None:
    """How many labels give an interval `width` wide (high minus low).

    The standard error with n labels is `sqrt(fixed_se^2 + label_sd^2 / n)`: `label_sd` is the
    spread of one label's term (the label for the labels alone, `y - lam * f` for PPI++) and
    `fixed_se` the part that more labels do not shrink (the judge's mean over the unlabeled
    rows, for PPI++), both measured on the labels so far.

    Returns:
        The number of labels (in all, not more), 0 when `label_sd` is 0, None when the
        fixed part alone is wider than `width` (more labels cannot get there).
    """
    if width <= 0:
        raise ValueError(f"width must be positive, got {width}")
    target = (width / 2 / z_value(level)) ** 2 - fixed_se**2
    if label_sd <= 0:
        return 0 if target >= 0 else None
    if target <= 0:
        return None
    return max(2, math.ceil(label_sd**2 / target))
