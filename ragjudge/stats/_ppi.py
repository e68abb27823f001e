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

import numpy as np
import numpy.typing as npt
import pydantic
from scipy import stats

__all__ = [
    "MeanEstimate",
    "classical_ci",
    "combine_strata",
    "difference",
    "labels_for_width",
    "mean_estimate",
    "ppi_lambda",
    "ppi_point",
    "ppi_se",
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


class MeanEstimate(pydantic.BaseModel):
    """A mean with its interval, by PPI++ and by the labels alone.

    Attributes:
        estimate: The PPI++ estimate.
        se: Its standard error.
        ci: `[low, high]` at `level`.
        lam: The power-tuning weight in [0, 1] actually used (0: the labels alone).
        classical: The labels-only estimate.
        classical_se: Its standard error.
        classical_ci: Its interval.
        judge: The judge's raw mean over every row, labeled and unlabeled (biased by its errors).
        n_labeled: Labeled rows used.
        n_unlabeled: Rows with a prediction but no label.
        level: The intervals' level.
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
    fell_back: bool = False
    label_sd: float = 0.0
    imputed_se: float = 0.0
    classical_sd: float = 0.0

    @property
    def effective_labels(self) -> float:
        """How many labels alone would give the PPI++ interval's width: `n * (se_classical /
        se_ppi)^2` (n itself when the interval did not narrow; infinite when the labels and
        the judge agree on every labeled row)."""
        if self.se <= 0:
            return math.inf if self.classical_se > 0 else float(self.n_labeled)
        return self.n_labeled * (self.classical_se / self.se) ** 2


def mean_estimate(
    *,
    labels: npt.ArrayLike,
    predicted: npt.ArrayLike,
    predicted_unlabeled: npt.ArrayLike,
    level: float = 0.95,
    lam: float | None = None,
) -> MeanEstimate:
    """The PPI++ mean of the labels, with the labels-only figure and the judge's raw mean.

    Args:
        labels: The labels (0/1, or any numbers) of the labeled rows.
        predicted: The judge's predictions on the same rows, in the same order.
        predicted_unlabeled: The judge's predictions on rows without a label (not the labeled
            ones: the two samples are independent, as PPI assumes). With fewer than two, the
            estimate is the labels alone (`lam` = 0).
        level: The intervals' level.
        lam: A fixed weight (1: plain PPI, 0: the labels alone); None tunes it (PPI++).

    Returns:
        A `MeanEstimate`.

    Example:
        >>> est = mean_estimate(labels=[1, 0] * 10, predicted=[1, 0] * 10,
        ...                     predicted_unlabeled=[1, 1, 0, 0, 1] * 40)
        >>> round(est.estimate, 2), est.ci[0] < est.estimate < est.ci[1]
        (0.59, True)
    """
    y, f, f_u = _arrays(labels, predicted, predicted_unlabeled)
    z = z_value(level)
    if f_u.size < 2:  # every row is labeled: the labels alone are the estimate
        lam = 0.0
        f_u = np.zeros(2)
    tuned = ppi_lambda(y, f, f_u) if lam is None else float(lam)
    theta = ppi_point(y, f, f_u, lam=tuned)
    se = ppi_se(y, f, f_u, lam=tuned)
    mean, se0, _ = classical_ci(y, level=level)
    fell_back = lam is None and se > se0
    if fell_back:
        tuned, theta, se = 0.0, mean, se0
    label_sd = float(np.std(y - tuned * f))
    return MeanEstimate(
        estimate=theta,
        se=se,
        ci=[theta - z * se, theta + z * se],
        lam=tuned,
        classical=mean,
        classical_se=se0,
        classical_ci=[mean - z * se0, mean + z * se0],
        judge=float(
            np.concatenate([f, np.asarray(predicted_unlabeled, dtype=float).ravel()]).mean()
        ),
        n_labeled=int(y.size),
        n_unlabeled=int(np.size(predicted_unlabeled)),
        level=level,
        fell_back=fell_back,
        label_sd=label_sd,
        imputed_se=float(np.std(tuned * f_u)) / math.sqrt(f_u.size),
        classical_sd=float(np.std(y)),
    )


def combine_strata(
    parts: Sequence[MeanEstimate], weights: Sequence[float], *, level: float = 0.95
) -> MeanEstimate:
    """The stratified estimate: each stratum's figures weighted by its share of the rows.

    `sum(w_h * theta_h)` with standard error `sqrt(sum(w_h^2 * se_h^2))`, the strata being
    estimated independently; the same for the labels-only figure and the judge's mean.

    Args:
        parts: One estimate per stratum.
        weights: Each stratum's share of all rows (normalized here).
        level: The intervals' level.
    """
    w = np.asarray(weights, dtype=float)
    if len(parts) != w.size or not len(parts):
        raise ValueError("one weight per stratum is needed")
    w = w / w.sum()
    z = z_value(level)

    def pooled(values: list[float]) -> float:
        return float(np.dot(w, values))

    def pooled_se(values: list[float]) -> float:
        return math.sqrt(float(np.dot(w**2, np.square(values))))

    theta, se = pooled([p.estimate for p in parts]), pooled_se([p.se for p in parts])
    mean, se0 = pooled([p.classical for p in parts]), pooled_se([p.classical_se for p in parts])
    return MeanEstimate(
        estimate=theta,
        se=se,
        ci=[theta - z * se, theta + z * se],
        lam=pooled([p.lam for p in parts]),
        classical=mean,
        classical_se=se0,
        classical_ci=[mean - z * se0, mean + z * se0],
        judge=pooled([p.judge for p in parts]),
        n_labeled=sum(p.n_labeled for p in parts),
        n_unlabeled=sum(p.n_unlabeled for p in parts),
        level=level,
        fell_back=all(p.fell_back for p in parts),
    )


class Difference(pydantic.BaseModel):
    """`b - a` with its interval and a two-sided p-value (normal test of no difference)."""

    estimate: float
    se: float
    ci: list[float]
    p_value: float


def difference(*, estimate: float, se: float, level: float = 0.95) -> Difference:
    """The interval and p-value of a difference with standard error `se`.

    For independent samples `se = sqrt(se_a^2 + se_b^2)`; for paired rows pass the standard
    error of the per-row difference's estimate.
    """
    z = z_value(level)
    if se > 0:
        p_value = float(2 * stats.norm.sf(abs(estimate) / se))
    else:
        p_value = 1.0 if estimate == 0 else 0.0
    return Difference(
        estimate=estimate, se=se, ci=[estimate - z * se, estimate + z * se], p_value=p_value
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
