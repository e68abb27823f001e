"""Agreement between a judge and human labels, with bootstrap confidence intervals.

All statistics are computed from confusion counts and ranks with numpy, vectorized over the
bootstrap resamples, so a report on thousands of rows takes milliseconds.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pydantic

__all__ = [
    "Agreement",
    "RatingAgreement",
    "agreement",
    "auroc",
    "balanced_accuracy",
    "cohen_kappa",
    "f1",
    "krippendorff_alpha",
    "paired_difference",
    "rating_agreement",
]

METRICS = ("balanced_accuracy", "cohen_kappa", "auroc", "f1")


class Agreement(pydantic.BaseModel):
    """Agreement of judge decisions and scores with binary gold labels.

    `ci` maps each statistic to its 95% percentile-bootstrap interval `[low, high]`.
    Values are None where undefined (e.g. AUROC with one class only).
    """

    model_config = pydantic.ConfigDict(ser_json_inf_nan="null")

    n: int
    balanced_accuracy: float | None
    cohen_kappa: float | None
    auroc: float | None
    f1: float | None
    ci: dict[str, list[float | None]]
    positives: int = 0
    errors: int = 0
    groups: int | None = pydantic.Field(
        default=None,
        description="groups the intervals resampled whole (rows of one group move together); "
        "None where every row was resampled on its own",
    )


def _counts(y: np.ndarray, p: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, ...]:
    """Weighted confusion counts `(tp, fn, fp, tn)`; `w` is (B, n) resample weights."""
    cells = np.stack([y * p, y * (1 - p), (1 - y) * p, (1 - y) * (1 - p)], axis=1)
    counts = w @ cells  # one pass over the weights for the four cells
    return counts[:, 0], counts[:, 1], counts[:, 2], counts[:, 3]


def _resample_weights(
    seed: int, n_boot: int, n: int, groups: Sequence[Any] | np.ndarray | None = None
) -> np.ndarray:
    """(n_boot, n) bootstrap weights: how often each item is drawn in each resample (the same
    draws, in the same order, as `n_boot` calls of `default_rng(seed).integers(0, n, n)`).

    With `groups` (a key per item), whole groups are drawn, and each item weighs what its
    group does: rows of one group (answers to one question, turns of one dialogue) are not
    independent, and resampling them apart misstates the spread. Where every item is its own
    group, the draws are the rows' own.

    Read-only and memoized: one report asks for the same resamples several times (the
    overall figure, the scored-only one, alpha against the labels), and drawing them is most
    of a statistic's cost.
    """
    return _weights(seed, n_boot, n, _group_index(groups, n))


def _weights(seed: int, n_boot: int, n: int, index: np.ndarray | None) -> np.ndarray:
    """`_resample_weights` for items numbered by group (`_group_index`; None: items alone)."""
    if index is None:
        return _memo_weights(int(seed), int(n_boot), int(n))
    return _memo_group_weights(int(seed), int(n_boot), tuple(index.tolist()))


def _group_index(groups: Sequence[Any] | np.ndarray | None, n: int) -> np.ndarray | None:
    """Each item's group number (0..G-1, in order of first appearance), or None when there are
    no groups to keep together."""
    if groups is None:
        return None
    if len(groups) != n:
        raise ValueError("groups must have one key per item")
    numbers: dict[str, int] = {}
    index = np.array([numbers.setdefault(str(g), len(numbers)) for g in groups], dtype=int)
    return None if len(numbers) == n else index


def _bootstrap(
    seed: int, n_boot: int, n: int, groups: Sequence[Any] | np.ndarray | None
) -> tuple[np.ndarray | None, int | None]:
    """The resample weights of `_resample_weights` (None where there is nothing to resample:
    no resamples, one item, or one group, which shows no spread) and how many groups they
    draw (None when they draw items)."""
    index = _group_index(groups, n)
    n_groups = None if index is None else int(index.max()) + 1
    if not n_boot or n < 2 or n_groups == 1:
        return None, n_groups
    return _weights(seed, n_boot, n, index), n_groups


@functools.lru_cache(maxsize=4)
def _memo_group_weights(seed: int, n_boot: int, index: tuple[int, ...]) -> np.ndarray:
    group_weights = _memo_weights(seed, n_boot, max(index) + 1)
    weights = group_weights[:, np.asarray(index)]
    weights.flags.writeable = False
    return weights


@functools.lru_cache(maxsize=4)
def _memo_weights(seed: int, n_boot: int, n: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, n, (n_boot, n)) + n * np.arange(n_boot)[:, None]
    weights = np.bincount(draws.ravel(), minlength=n_boot * n).reshape(n_boot, n).astype(float)
    weights.flags.writeable = False
    return weights


def _div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(b > 0, a / np.where(b > 0, b, 1), np.nan)


def _ba(tp: np.ndarray, fn: np.ndarray, fp: np.ndarray, tn: np.ndarray) -> np.ndarray:
    return (_div(tp, tp + fn) + _div(tn, tn + fp)) / 2


def _kappa(tp: np.ndarray, fn: np.ndarray, fp: np.ndarray, tn: np.ndarray) -> np.ndarray:
    n = tp + fn + fp + tn
    po = _div(tp + tn, n)
    pe = _div((tp + fn) * (tp + fp) + (tn + fp) * (tn + fn), n * n)
    with np.errstate(divide="ignore", invalid="ignore"):
        kappa = np.where(1 - pe > 1e-12, (po - pe) / (1 - pe), np.nan)
    return kappa


def _f1(tp: np.ndarray, fn: np.ndarray, fp: np.ndarray, tn: np.ndarray) -> np.ndarray:
    del tn
    return _div(2 * tp, 2 * tp + fp + fn)


def _auroc(y: np.ndarray, s: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Weighted Mann-Whitney AUROC for each row of `w` (ties count one half).

    Each positive wins the weight of the negatives scored below it and half of those tied
    with it: two lookups in the cumulative weights of the negatives sorted by score.
    """
    pos = y > 0.5
    neg_scores = s[~pos]
    order = np.argsort(neg_scores, kind="mergesort")
    neg_sorted = neg_scores[order]
    cumulative = np.zeros((w.shape[0], len(order) + 1))
    np.cumsum(w[:, ~pos][:, order], axis=1, out=cumulative[:, 1:])
    below = np.searchsorted(neg_sorted, s[pos], side="left")
    up_to = np.searchsorted(neg_sorted, s[pos], side="right")
    w_pos = w[:, pos]
    wins = 0.5 * (w_pos * (cumulative[:, below] + cumulative[:, up_to])).sum(axis=1)
    return _div(wins, w_pos.sum(axis=1) * cumulative[:, -1])


def _all(y: np.ndarray, p: np.ndarray, s: np.ndarray, w: np.ndarray) -> dict[str, np.ndarray]:
    counts = _counts(y, p, w)
    return {
        "balanced_accuracy": _ba(*counts),
        "cohen_kappa": _kappa(*counts),
        "auroc": _auroc(y, s, w),
        "f1": _f1(*counts),
    }


def _clean(value: float) -> float | None:
    return None if value is None or math.isnan(value) else float(value)


def agreement(
    labels: Sequence[int] | np.ndarray,
    passed: Sequence[bool] | np.ndarray,
    scores: Sequence[float] | np.ndarray | None = None,
    *,
    n_boot: int = 1000,
    seed: int = 0,
    errors: int = 0,
    groups: Sequence[Any] | np.ndarray | None = None,
) -> Agreement:
    """Agreement statistics of judge decisions with gold labels.

    Args:
        labels: Gold labels, 1 = faithful.
        passed: The judge's pass/fail decisions.
        scores: Continuous judge scores for AUROC (higher = more faithful); `passed` if None.
        n_boot: Bootstrap resamples for the 95% intervals (0 for none).
        seed: Seed of the resampling.
        errors: Items that could not be judged (reported, never averaged in).
        groups: A group key per item (`GoldRecord.group`): the intervals resample whole
            groups. None (or every item its own group) resamples items.

    Returns:
        The statistics with their intervals.

    Example:
        >>> a = agreement([1, 0, 1, 0], [True, False, False, False], [0.9, 0.1, 0.4, 0.3], n_boot=0)
        >>> a.balanced_accuracy, a.auroc
        (0.75, 1.0)
    """
    y = np.asarray(labels, dtype=float)
    p = np.asarray(passed, dtype=float)
    s = p if scores is None else np.asarray(scores, dtype=float)
    if not (len(y) == len(p) == len(s)):
        raise ValueError("labels, passed and scores must have the same length")
    n = len(y)
    point = _all(y, p, s, np.ones((1, n))) if n else {m: np.array([np.nan]) for m in METRICS}
    ci: dict[str, list[float | None]] = {m: [None, None] for m in METRICS}
    weights, n_groups = _bootstrap(seed, n_boot, n, groups)
    if weights is not None:
        boot = _all(y, p, s, weights)
        for metric, values in boot.items():
            finite = values[~np.isnan(values)]
            if len(finite) >= max(10, n_boot // 2):
                low, high = np.percentile(finite, [2.5, 97.5])
                ci[metric] = [float(low), float(high)]
    return Agreement(
        n=n,
        positives=int(y.sum()),
        errors=errors,
        ci=ci,
        groups=n_groups,
        **{m: _clean(float(point[m][0])) for m in METRICS},
    )


def paired_difference(
    labels: npt.ArrayLike,
    a: tuple[npt.ArrayLike, npt.ArrayLike],
    b: tuple[npt.ArrayLike, npt.ArrayLike],
    *,
    n_boot: int = 1000,
    seed: int = 0,
    groups: Sequence[Any] | np.ndarray | None = None,
) -> dict[str, list[float | None]]:
    """Judge a minus judge b on the same rows, with a paired 95% bootstrap interval.

    Both judges are resampled together (the same rows in every resample), so the interval is
    that of the gain itself, narrower than two overlapping intervals suggest.

    Args:
        labels: Gold labels, 1 = faithful.
        a: `(passed, scores)` of the first judge.
        b: `(passed, scores)` of the second judge.
        n_boot: Bootstrap resamples.
        seed: Seed of the resampling.
        groups: A group key per row: resample whole groups (see `agreement`).

    Returns:
        `{metric: [difference, low, high]}` for each agreement metric (None where undefined).

    Example:
        >>> d = paired_difference([1, 0, 1, 0], ([1, 0, 1, 0], [.9, .1, .8, .2]),
        ...                       ([1, 1, 0, 0], [.6, .7, .4, .3]), n_boot=0)
        >>> d["balanced_accuracy"][0]
        0.5
    """
    y = np.asarray(labels, dtype=float)
    n = len(y)
    arrays = [(np.asarray(p, dtype=float), np.asarray(s, dtype=float)) for p, s in (a, b)]
    one = np.ones((1, n))
    point = [_all(y, p, s, one) for p, s in arrays]
    out: dict[str, list[float | None]] = {
        m: [_clean(float(point[0][m][0] - point[1][m][0])), None, None] for m in METRICS
    }
    weights, _ = _bootstrap(seed, n_boot, n, groups)
    if weights is not None:
        boot = [_all(y, p, s, weights) for p, s in arrays]
        for m in METRICS:
            diff = boot[0][m] - boot[1][m]
            finite = diff[~np.isnan(diff)]
            if len(finite) >= max(10, n_boot // 2):
                low, high = np.percentile(finite, [2.5, 97.5])
                out[m][1:] = [float(low), float(high)]
    return out


def balanced_accuracy(labels: npt.ArrayLike, passed: npt.ArrayLike) -> float:
    """Balanced accuracy (mean of the recalls of both classes)."""
    y, p = np.asarray(labels, float), np.asarray(passed, float)
    return float(_ba(*_counts(y, p, np.ones((1, len(y)))))[0])


def cohen_kappa(labels: npt.ArrayLike, passed: npt.ArrayLike) -> float:
    """Cohen's kappa of two binary raters."""
    y, p = np.asarray(labels, float), np.asarray(passed, float)
    return float(_kappa(*_counts(y, p, np.ones((1, len(y)))))[0])


def f1(labels: npt.ArrayLike, passed: npt.ArrayLike) -> float:
    """F1 of the positive (faithful) class."""
    y, p = np.asarray(labels, float), np.asarray(passed, float)
    return float(_f1(*_counts(y, p, np.ones((1, len(y)))))[0])


def auroc(labels: npt.ArrayLike, scores: npt.ArrayLike) -> float:
    """Area under the ROC curve (ties count one half)."""
    y, s = np.asarray(labels, float), np.asarray(scores, float)
    return float(_auroc(y, s, np.ones((1, len(y))))[0])


# -- ratings: Krippendorff's alpha and Spearman's rho -------------------------------------------

ALPHA_LEVELS = ("nominal", "ordinal", "interval")


class RatingAgreement(pydantic.BaseModel):
    """Agreement of ratings (verdicts, 1-5 scores or continuous scores) between raters.

    Attributes:
        n: Units (items) rated by at least two raters.
        raters: How many raters (judge and gold, or the repeats of a judge).
        level: The Krippendorff metric: `"nominal"` (verdicts), `"ordinal"` (rubric scores) or
            `"interval"` (continuous scores).
        krippendorff_alpha: Krippendorff's alpha (1 = perfect, 0 = chance, < 0 = systematic
            disagreement); None where undefined (a single value throughout).
        spearman: Spearman's rank correlation of two raters; None for more raters or constant
            ratings.
        ci: 95% percentile-bootstrap intervals (units resampled, whole groups where given) of
            each statistic.
    """

    model_config = pydantic.ConfigDict(ser_json_inf_nan="null")

    n: int
    raters: int
    level: str
    krippendorff_alpha: float | None
    spearman: float | None = None
    ci: dict[str, list[float | None]] = pydantic.Field(default_factory=dict)


def _pairable_counts(data: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Value counts per unit (units x values) of units with >= 2 ratings, and the values."""
    present = ~np.isnan(data)
    values = np.unique(data[present])
    counts = np.zeros((data.shape[1], len(values)))
    for rater in range(data.shape[0]):
        ok = present[rater]
        counts[np.nonzero(ok)[0], np.searchsorted(values, data[rater, ok])] += 1
    keep = counts.sum(axis=1) >= 2
    return counts[keep], values


def _alpha_from_counts(counts: np.ndarray, values: np.ndarray, level: str) -> float:
    if counts.shape[0] == 0:
        return math.nan
    m = counts.sum(axis=1)
    weighted = counts / (m - 1)[:, None]
    coincidence = weighted.T @ counts - np.diag(weighted.sum(axis=0))
    n_c = coincidence.sum(axis=1)
    n = n_c.sum()
    if n <= 1:
        return math.nan
    if level == "nominal":
        delta = 1.0 - np.eye(len(values))
    elif level == "interval":
        delta = (values[:, None] - values[None, :]) ** 2
    else:  # ordinal: squared count of ranks between the two values
        cum = np.cumsum(n_c)
        lo = np.minimum.outer(np.arange(len(values)), np.arange(len(values)))
        hi = np.maximum.outer(np.arange(len(values)), np.arange(len(values)))
        between = cum[hi] - np.where(lo > 0, cum[np.maximum(lo - 1, 0)], 0.0)
        delta = (between - (n_c[lo] + n_c[hi]) / 2.0) ** 2
    observed = float((coincidence * delta).sum()) / n
    expected = float((np.outer(n_c, n_c) * delta).sum()) / (n * (n - 1))
    return math.nan if expected <= 0 else 1.0 - observed / expected


def krippendorff_alpha(
    data: Sequence[Sequence[float]] | np.ndarray, *, level: str = "nominal"
) -> float:
    """Krippendorff's alpha of a reliability matrix (raters x units, NaN = missing rating).

    Args:
        data: One row per rater, one column per unit; NaN where a rater gave no rating.
        level: `"nominal"` (categories, e.g. pass/fail), `"ordinal"` (ranks, e.g. 1-5 scores)
            or `"interval"` (continuous scores).

    Returns:
        Alpha; NaN where undefined (fewer than two pairable ratings or a single value).

    Example:
        >>> round(krippendorff_alpha([[1, 2, 3, 3], [1, 2, 3, 4]], level="nominal"), 3)
        0.696
    """
    if level not in ALPHA_LEVELS:
        raise ValueError(f"level must be one of {', '.join(ALPHA_LEVELS)}, got {level!r}")
    matrix = np.asarray(data, dtype=float)
    if matrix.ndim != 2:
        raise ValueError("data must be a 2-d raters x units matrix")
    counts, values = _pairable_counts(matrix)
    return float(_alpha_from_counts(counts, values, level))


def _spearman(x: np.ndarray, y: np.ndarray) -> float:
    from scipy.stats import spearmanr

    if len(x) < 3 or np.all(x == x[0]) or np.all(y == y[0]):
        return math.nan
    return float(spearmanr(x, y).statistic)


def _boot_alphas(matrix: np.ndarray, weights: np.ndarray, level: str) -> np.ndarray:
    """Alpha of each bootstrap sample, the samples given as unit weights (draws per unit).

    A unit drawn k times adds k times its coincidences, so every sample's coincidence matrix
    is `weights @ per-unit coincidences`: one matrix product instead of a loop. For interval
    data (many distinct values) the squared-difference sums are used directly.
    """
    counts, values = _pairable_counts(matrix)
    present = ~np.isnan(matrix)
    pairable = present.sum(axis=0) >= 2
    w = weights[:, pairable]
    if counts.shape[0] == 0:
        return np.full(weights.shape[0], math.nan)
    m = counts.sum(axis=1)
    if level == "interval":
        x = np.where(present[:, pairable], matrix[:, pairable], 0.0)
        sums, squares = x.sum(axis=0), (x * x).sum(axis=0)
        within = squares - sums * sums / m  # per unit: sum of squared deviations
        n = w @ m
        observed = (w @ (2.0 * m * within / (m - 1))) / n
        pooled = (w @ squares) - (w @ sums) ** 2 / n  # total sum of squared deviations
        expected = 2.0 * n * pooled / (n * (n - 1))
        with np.errstate(divide="ignore", invalid="ignore"):
            alphas = 1.0 - observed / expected
        return np.where((n > 1) & (expected > 0), alphas, math.nan)
    k = len(values)
    per_unit = counts[:, :, None] * counts[:, None, :]
    per_unit[:, np.arange(k), np.arange(k)] -= counts
    per_unit /= (m - 1)[:, None, None]
    coincidences = (w @ per_unit.reshape(len(m), k * k)).reshape(-1, k, k)
    if level == "nominal":  # every sample at once: disagreements off the diagonal
        n_c = coincidences.sum(axis=2)
        n = n_c.sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            observed = (n - np.trace(coincidences, axis1=1, axis2=2)) / n
            expected = (n * n - (n_c * n_c).sum(axis=1)) / (n * (n - 1))
            alphas = 1.0 - observed / expected
        return np.where((n > 1) & (expected > 0), alphas, math.nan)
    return np.array([_alpha_from_coincidence(c, level) for c in coincidences], dtype=float)


def _alpha_from_coincidence(coincidence: np.ndarray, level: str) -> float:
    n_c = coincidence.sum(axis=1)
    present = n_c > 0
    coincidence, n_c = coincidence[np.ix_(present, present)], n_c[present]
    n = n_c.sum()
    if n <= 1 or len(n_c) < 2:
        return math.nan
    size = len(n_c)
    if level == "nominal":
        delta = 1.0 - np.eye(size)
    else:  # ordinal
        cum = np.cumsum(n_c)
        lo = np.minimum.outer(np.arange(size), np.arange(size))
        hi = np.maximum.outer(np.arange(size), np.arange(size))
        between = cum[hi] - np.where(lo > 0, cum[np.maximum(lo - 1, 0)], 0.0)
        delta = (between - (n_c[lo] + n_c[hi]) / 2.0) ** 2
    observed = float((coincidence * delta).sum()) / n
    expected = float((np.outer(n_c, n_c) * delta).sum()) / (n * (n - 1))
    return math.nan if expected <= 0 else 1.0 - observed / expected


def _boot_spearman(pair: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Spearman's rho of each bootstrap sample (unit weights), over units both raters rated.

    A unit drawn k times is k tied observations, so a sample's average ranks come from the
    weights of the distinct values below and at each value; rho is the weighted Pearson
    correlation of those ranks.
    """
    full = ~np.isnan(pair).any(axis=0)
    x, y, w = pair[0, full], pair[1, full], weights[:, full]
    rx, ry = _weighted_ranks(x, w), _weighted_ranks(y, w)
    total = w.sum(axis=1)
    mx = (w * rx).sum(axis=1) / np.maximum(total, 1)
    my = (w * ry).sum(axis=1) / np.maximum(total, 1)
    dx, dy = rx - mx[:, None], ry - my[:, None]
    cov = (w * dx * dy).sum(axis=1)
    var = (w * dx * dx).sum(axis=1) * (w * dy * dy).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        rho = cov / np.sqrt(var)
    return np.where((total >= 3) & (var > 1e-12), np.clip(rho, -1.0, 1.0), math.nan)


def _weighted_ranks(x: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Average (1-based) ranks of each unit's value in each weighted sample (B x units)."""
    if len(x) == 0:
        return np.zeros_like(weights)
    order = np.argsort(x, kind="stable")
    ordered = x[order]
    new_group = np.r_[True, ordered[1:] != ordered[:-1]]
    group = np.cumsum(new_group) - 1
    totals = np.add.reduceat(weights[:, order], np.flatnonzero(new_group), axis=1)
    ranks_of_groups = np.cumsum(totals, axis=1) - totals + (totals + 1.0) / 2.0
    ranks = np.empty_like(weights)
    ranks[:, order] = ranks_of_groups[:, group]
    return ranks


def rating_agreement(
    ratings: Sequence[Sequence[float]] | np.ndarray,
    *,
    level: str = "nominal",
    spearman: bool | None = None,
    n_boot: int = 1000,
    seed: int = 0,
    groups: Sequence[Any] | np.ndarray | None = None,
) -> RatingAgreement:
    """Krippendorff's alpha (and Spearman for two raters) with 95% bootstrap intervals.

    Use it between a judge and gold (two raters: `[gold, judge]`) or between the repeats of a
    judge (one row per repeat). Units are resampled with replacement for the intervals.

    Args:
        ratings: Raters x units; NaN where a rater gave no rating.
        level: Krippendorff metric, see `krippendorff_alpha`.
        spearman: Also compute Spearman's rho (two raters only); default: for two raters at the
            ordinal or interval level.
        n_boot: Bootstrap resamples (0 for none).
        seed: Seed of the resampling.
        groups: A group key per unit: resample whole groups (see `agreement`).

    Returns:
        The statistics and their intervals.

    Example:
        >>> a = rating_agreement([[1, 2, 3, 4, 5], [1, 2, 3, 5, 4]], level="ordinal", n_boot=0)
        >>> round(a.krippendorff_alpha, 2), round(a.spearman, 2)
        (0.91, 0.9)
    """
    matrix = np.asarray(ratings, dtype=float)
    if matrix.ndim != 2:
        raise ValueError("ratings must be a 2-d raters x units matrix")
    if level not in ALPHA_LEVELS:
        raise ValueError(f"level must be one of {', '.join(ALPHA_LEVELS)}, got {level!r}")
    raters = matrix.shape[0]
    with_rho = (raters == 2 and level != "nominal") if spearman is None else spearman
    with_rho = bool(with_rho and raters == 2)
    both = ~np.isnan(matrix).any(axis=0)
    keep = (~np.isnan(matrix)).sum(axis=0) >= 2
    matrix = matrix[:, keep]
    if groups is not None:
        if len(groups) != len(keep):
            raise ValueError("groups must have one key per unit")
        groups = [g for g, kept in zip(groups, keep, strict=True) if kept]
    counts, values = _pairable_counts(matrix)
    alpha = _alpha_from_counts(counts, values, level)
    pair = matrix[:, both[keep]] if with_rho else None
    rho = _spearman(pair[0], pair[1]) if pair is not None else math.nan
    ci: dict[str, list[float | None]] = {"krippendorff_alpha": [None, None]}
    if with_rho:
        ci["spearman"] = [None, None]
    units = matrix.shape[1]
    weights, _ = _bootstrap(seed, n_boot, units, groups)
    if weights is not None:
        boots = {"krippendorff_alpha": _boot_alphas(matrix, weights, level)}
        if with_rho:
            boots["spearman"] = _boot_spearman(matrix, weights)
        for name, boot in boots.items():
            finite = boot[~np.isnan(boot)]
            if len(finite) >= max(10, n_boot // 2):
                low, high = np.percentile(finite, [2.5, 97.5])
                ci[name] = [float(low), float(high)]
    return RatingAgreement(
        n=int(matrix.shape[1]),
        raters=raters,
        level=level,
        krippendorff_alpha=_clean(alpha),
        spearman=_clean(rho) if with_rho else None,
        ci=ci,
    )
