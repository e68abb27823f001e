"""The pass threshold that agrees best with labels, how an unscored row ranks, and the value of a
compile objective: the one rule of each that fitting the offline judge, compiling and selecting
share."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Literal

import numpy as np
import numpy.typing as npt

from ragjudge.stats._agreement import _auroc, _ba, _counts, _f1, _kappa

__all__ = [
    "UNSCORED",
    "best_threshold",
    "floored",
    "objective_draws",
    "objective_value",
    "unit_prediction",
    "unit_score",
]

#: Where a row without a score (NaN, or an error) stands: below every threshold in [0, 1], so it
#: never passes and ranks lowest.
UNSCORED = -1.0

_OBJECTIVES = {"balanced_accuracy": _ba, "kappa": _kappa, "f1": _f1}


def objective_draws(
    objective: str,
    labels: npt.ArrayLike,
    passed: npt.ArrayLike,
    scores: npt.ArrayLike,
    weights: npt.ArrayLike,
) -> npt.NDArray[np.float64]:
    """A compile objective under each row of resample weights (`(B, n)`; one row of ones for
    the point value): `"balanced_accuracy"`, `"kappa"` or `"f1"` of the verdicts `passed`
    (0/1, or the share of fold assignments that passed a row), `"auroc"` of `scores`. NaN
    where a resample leaves it undefined (one label only).

    Example:
        >>> objective_draws("kappa", [1, 0, 1, 0], [1, 0, 0, 0], [.9, .1, .4, .3],
        ...                 np.ones((1, 4))).round(3).tolist()
        [0.5]
    """
    y = np.asarray(labels, dtype=float)
    w = np.asarray(weights, dtype=float)
    if objective == "auroc":
        return np.asarray(_auroc(y, np.asarray(scores, dtype=float), w), dtype=float)
    counts = _counts(y, np.asarray(passed, dtype=float), w)
    return np.asarray(_OBJECTIVES[objective](*counts), dtype=float)


def objective_value(objective: str, labels: npt.ArrayLike, passed: npt.ArrayLike) -> float:
    """`"balanced_accuracy"`, `"kappa"` or `"f1"` of pass verdicts against labels (NaN where
    undefined).

    Example:
        >>> objective_value("f1", [1, 0, 1, 0], [1, 1, 1, 0])
        0.8
    """
    y = np.asarray(labels, dtype=float)
    return float(objective_draws(objective, y, passed, y, np.ones((1, len(y))))[0])


def floored(scores: Iterable[float | None]) -> npt.NDArray[np.float64]:
    """Scores with `UNSCORED` for the rows that have none (None or NaN).

    Example:
        >>> floored([0.5, None, float("nan")]).tolist()
        [0.5, -1.0, -1.0]
    """
    return np.array(
        [UNSCORED if s is None or math.isnan(s) else float(s) for s in scores], dtype=float
    )


def unit_score(score: float | None, *, scale: float = 1.0) -> float:
    """The one reading of a judge's score as a unit score: the score over the judge's `scale`,
    in [0, 1]; `UNSCORED` for a row without one (None, NaN, or an error: see
    `JudgeResult.unit`), which never passes and ranks lowest. Compile's study and selection,
    the reports, drift, the DSPy metric and the estimates all read a score through it.

    Example:
        >>> unit_score(4.0, scale=5.0), unit_score(float("nan"), scale=5.0), unit_score(None)
        (0.8, -1.0, -1.0)
    """
    if score is None or math.isnan(score):
        return UNSCORED
    return min(1.0, max(0.0, float(score) / (scale or 1.0)))


def unit_prediction(unit: float) -> float:
    """A unit score (`unit_score`) where the value must lie in [0, 1] (a DSPy metric's value,
    the prediction PPI averages): an unscored row, which fails, predicts 0.

    Example:
        >>> unit_prediction(unit_score(4.0, scale=5.0)), unit_prediction(unit_score(None))
        (0.8, 0.0)
    """
    return max(0.0, unit)


def best_threshold(
    scores: npt.ArrayLike,
    labels: npt.ArrayLike,
    *,
    objective: str = "balanced_accuracy",
    current: float = 0.5,
    ties: Literal["middle", "highest"] = "middle",
) -> tuple[float, float]:
    """The cut in [0, 1] (pass: score >= cut) that maximizes `objective`, and its value.

    The objective is flat between sorted unique scores, so every candidate cut (0, the
    midpoints between neighbouring scores, 1) is scored at once from sorted scores (confusion
    counts by binary search, O(n log n)).

    Args:
        scores: Scores in [0, 1]; an unscored row is `UNSCORED` (see `floored`).
        labels: 0/1 labels.
        objective: `"balanced_accuracy"`, `"kappa"` or `"f1"`.
        current: With `ties="middle"`, the cut to stay near among tied runs.
        ties: Among cuts tied for the best value, `"middle"` takes the middle of the run of
            adjacent tied cuts nearest `current`, as far as it can be from the rows on either
            side; `"highest"` takes the highest tied cut.

    Returns:
        `(cut, value)`; `(current, nan)` when the labels are all one class.

    Example:
        >>> best_threshold([0.1, 0.4, 0.6, 0.9], [0, 0, 1, 1])
        (0.5, 1.0)
    """
    s = np.asarray(scores, dtype=float)
    y = np.asarray(labels).astype(bool)
    if len(s) < 2 or y.all() or not y.any():
        return current, math.nan
    unique = np.unique(s)
    cuts = np.concatenate([[0.0], (unique[:-1] + unique[1:]) / 2, [1.0]])
    cuts = np.unique(cuts[(cuts >= 0.0) & (cuts <= 1.0)])
    pos, neg = np.sort(s[y]), np.sort(s[~y])
    tp = len(pos) - np.searchsorted(pos, cuts, side="left")
    fp = len(neg) - np.searchsorted(neg, cuts, side="left")
    fn, tn = len(pos) - tp, len(neg) - fp
    counts = (tp.astype(float), fn.astype(float), fp.astype(float), tn.astype(float))
    values = np.nan_to_num(_OBJECTIVES[objective](*counts), nan=0.0)
    best = values.max()
    tied = np.flatnonzero(values >= best - 1e-12)  # ascending
    if ties == "highest":
        return float(cuts[tied[-1]]), float(values[tied[-1]])
    at = int(np.argmin(np.abs(cuts[tied] - current)))
    low = high = at
    while low > 0 and tied[low - 1] == tied[low] - 1:
        low -= 1
    while high + 1 < len(tied) and tied[high + 1] == tied[high] + 1:
        high += 1
    return float((cuts[tied[low]] + cuts[tied[high]]) / 2), float(values[tied[at]])
