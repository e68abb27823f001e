"""Agreement between a judge and human labels, with bootstrap confidence intervals.

All statistics are computed from confusion counts and ranks with numpy, vectorized over the
bootstrap resamples, so a report on thousands of rows takes milliseconds.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pydantic

__all__ = ["Agreement", "agreement", "auroc", "balanced_accuracy", "cohen_kappa", "f1"]

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


def _counts(y: np.ndarray, p: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, ...]:
    """Weighted confusion counts; `w` is (B, n) resample weights."""
    tp = w @ (y * p)
    fn = w @ (y * (1 - p))
    fp = w @ ((1 - y) * p)
    tn = w @ ((1 - y) * (1 - p))
    return tp, fn, fp, tn


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
    """Weighted Mann-Whitney AUROC for each row of `w` (ties count one half)."""
    order = np.argsort(s, kind="mergesort")
    s_sorted, y_sorted, w_sorted = s[order], y[order], w[:, order]
    _, group = np.unique(s_sorted, return_inverse=True)
    n_groups = int(group.max()) + 1 if len(group) else 0
    pos = np.zeros((w.shape[0], n_groups))
    neg = np.zeros((w.shape[0], n_groups))
    np.add.at(pos.T, group, (w_sorted * y_sorted).T)
    np.add.at(neg.T, group, (w_sorted * (1 - y_sorted)).T)
    neg_below = np.cumsum(neg, axis=1) - neg
    wins = (pos * (neg_below + 0.5 * neg)).sum(axis=1)
    return _div(wins, pos.sum(axis=1) * neg.sum(axis=1))


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
) -> Agreement:
    """Agreement statistics of judge decisions with gold labels.

    Args:
        labels: Gold labels, 1 = faithful.
        passed: The judge's pass/fail decisions.
        scores: Continuous judge scores for AUROC (higher = more faithful); `passed` if None.
        n_boot: Bootstrap resamples for the 95% intervals (0 for none).
        seed: Seed of the resampling.
        errors: Items that could not be judged (reported, never averaged in).

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
    if n_boot and n > 1:
        rng = np.random.default_rng(seed)
        weights = np.empty((n_boot, n))
        for b in range(n_boot):
            weights[b] = np.bincount(rng.integers(0, n, n), minlength=n)
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
        **{m: _clean(float(point[m][0])) for m in METRICS},
    )


def balanced_accuracy(labels: Sequence[int], passed: Sequence[bool]) -> float:
    """Balanced accuracy (mean of the recalls of both classes)."""
    y, p = np.asarray(labels, float), np.asarray(passed, float)
    return float(_ba(*_counts(y, p, np.ones((1, len(y)))))[0])


def cohen_kappa(labels: Sequence[int], passed: Sequence[bool]) -> float:
    """Cohen's kappa of two binary raters."""
    y, p = np.asarray(labels, float), np.asarray(passed, float)
    return float(_kappa(*_counts(y, p, np.ones((1, len(y)))))[0])


def f1(labels: Sequence[int], passed: Sequence[bool]) -> float:
    """F1 of the positive (faithful) class."""
    y, p = np.asarray(labels, float), np.asarray(passed, float)
    return float(_f1(*_counts(y, p, np.ones((1, len(y)))))[0])


def auroc(labels: Sequence[int], scores: Sequence[float]) -> float:
    """Area under the ROC curve (ties count one half)."""
    y, s = np.asarray(labels, float), np.asarray(scores, float)
    return float(_auroc(y, s, np.ones((1, len(y))))[0])
