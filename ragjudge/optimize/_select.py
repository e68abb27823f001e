"""Never worse than the start: the study's finalists against the starting judge, paired and
cross-validated on the training rows, and the decision which one ships.

Each finalist is a set of outputs on the tuning rows: the study's best trial in each mode
(out-of-fold outputs where the offline weights are cross-fitted, its pass threshold fitted
again on the other folds for each fold), and the starting judge (the uncompiled student, or the
`init` judge), whose verdicts are taken as they are. Every finalist is scored on the same
grouped folds, so the comparison is paired. A tuned finalist ships only when its out-of-fold
agreement beats the start's by more than one standard error of the paired difference (a
bootstrap over groups); otherwise the starting judge ships, and the report says why.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pydantic

from ragjudge.programs._results import JudgeResult
from ragjudge.stats._agreement import balanced_accuracy
from ragjudge.stats._folds import group_folds

__all__ = ["SELECT_RULES", "Finalist", "FinalistScore", "Selection", "select_finalist"]

SelectRule = Literal["one-se", "best"]
SELECT_RULES: tuple[str, ...] = ("one-se", "best")

#: `(results, labels, current threshold) -> fitted threshold`, for a tuned finalist.
Refit = Callable[[list[JudgeResult], np.ndarray, float], float]


@dataclass
class Finalist:
    """A candidate to ship and its outputs on the tuning rows.

    Attributes:
        name: `"start"` for the starting judge, else the mode (`"statement"`, `"whole"`, ...).
        outputs: Its results on the tuning rows (uncalibrated scores for a tuned finalist).
        params: The trial's parameters (a tuned finalist) or None (the start).
        refit: True when its pass threshold is fitted on the other folds for each fold.
        scale: The score's scale (scores are divided by it before a threshold applies).
    """

    name: str
    outputs: list[JudgeResult]
    params: dict[str, Any] | None = None
    refit: bool = True
    scale: float = 1.0


class FinalistScore(pydantic.BaseModel):
    """A finalist's out-of-fold agreement on the training rows."""

    name: str
    mode: str | None = None
    balanced_accuracy: float
    ci: tuple[float, float]
    difference: float | None = pydantic.Field(
        default=None, description="minus the start's, on the same rows"
    )
    se: float | None = pydantic.Field(
        default=None, description="standard error of the paired difference (group bootstrap)"
    )


class Selection(pydantic.BaseModel):
    """Which finalist compile ships, and why."""

    rule: str
    folds: int
    rows: int
    finalists: list[FinalistScore]
    chosen: str
    reason: str


def select_finalist(
    finalists: Sequence[Finalist],
    labels: np.ndarray,
    groups: Sequence[str],
    *,
    refit: Refit,
    rule: SelectRule = "one-se",
    folds: int = 5,
    n_boot: int = 1000,
    seed: int = 0,
) -> Selection:
    """Score every finalist on the same grouped folds and choose the one to ship.

    Args:
        finalists: The starting judge (named "start") and the tuned finalists.
        labels: Gold labels of the tuning rows (0/1).
        groups: Group keys of the tuning rows (rows of a group share a fold).
        refit: Fits a tuned finalist's pass threshold on the training folds.
        rule: `"one-se"`: the best tuned finalist ships only when it beats the start by more
            than one standard error of the paired difference; `"best"`: the highest out-of-fold
            agreement ships, the start included.
        folds: Number of grouped folds.
        n_boot: Bootstrap resamples (over groups) for the intervals and the standard error.
        seed: Seeds the folds and the bootstrap.

    Returns:
        The selection: every finalist's agreement with its interval, the chosen one, the reason.
    """
    y = np.asarray(labels, dtype=int)
    fold_of = group_folds(list(groups), y, folds=folds, seed=seed)
    passed = {f.name: _out_of_fold(f, y, fold_of, refit) for f in finalists}
    keys = np.unique(np.asarray(list(groups)), return_inverse=True)[1]
    draws = _group_draws(keys, n_boot=n_boot, seed=seed)
    start = "start" if "start" in passed else None
    boot = {name: _boot_ba(y, p, draws) for name, p in passed.items()}
    scores = []
    for f in finalists:
        value = balanced_accuracy(y, passed[f.name])
        low, high = np.nanpercentile(boot[f.name], [2.5, 97.5]) if n_boot > 0 else (value, value)
        diff = se = None
        if start is not None and f.name != start:
            diff = value - balanced_accuracy(y, passed[start])
            se = float(np.nanstd(boot[f.name] - boot[start], ddof=1)) if n_boot > 1 else 0.0
        scores.append(
            FinalistScore(
                name=f.name,
                mode=None if f.params is None else f.params.get("mode"),
                balanced_accuracy=round(float(value), 4),
                ci=(round(float(low), 4), round(float(high), 4)),
                difference=None if diff is None else round(float(diff), 4),
                se=None if se is None else round(se, 4),
            )
        )
    chosen, reason = _decide(scores, rule=rule)
    return Selection(
        rule=rule,
        folds=int(fold_of.max()) + 1,
        rows=len(y),
        finalists=scores,
        chosen=chosen,
        reason=reason,
    )


def _decide(scores: list[FinalistScore], *, rule: SelectRule) -> tuple[str, str]:
    tuned = [s for s in scores if s.name != "start"]
    start = next((s for s in scores if s.name == "start"), None)
    if not tuned:
        return "start", "no tuned finalist"
    best = max(tuned, key=lambda s: s.balanced_accuracy)
    if start is None:
        return best.name, "no starting judge to compare with"
    if rule == "best":
        if start.balanced_accuracy > best.balanced_accuracy:
            return "start", (
                f"the starting judge agrees best out of fold ({start.balanced_accuracy:.3f} vs "
                f"{best.balanced_accuracy:.3f} for {best.name}; --select best)"
            )
        return best.name, f"highest out-of-fold agreement ({best.balanced_accuracy:.3f}; best)"
    diff, se = best.difference or 0.0, best.se or 0.0
    if diff > se and diff > 0:
        return best.name, (
            f"{best.name} beats the starting judge by {diff:+.3f} out of fold, more than one "
            f"standard error ({se:.3f})"
        )
    return "start", (
        f"the best tuned judge ({best.name}) is {diff:+.3f} against the starting judge out of "
        f"fold, within one standard error ({se:.3f}): the starting judge ships"
    )


def _out_of_fold(
    finalist: Finalist, y: np.ndarray, fold_of: np.ndarray, refit: Refit
) -> np.ndarray:
    """Pass verdicts on every row: a tuned finalist's threshold fitted on the other folds."""
    outs = finalist.outputs
    if not finalist.refit:
        return np.array([bool(r.passed) and not r.error for r in outs])
    scores = np.array(
        [-1.0 if r.error or math.isnan(r.score) else r.score / finalist.scale for r in outs]
    )
    passed = np.zeros(len(outs), dtype=bool)
    current = float((finalist.params or {}).get("threshold", 0.5))
    for k in np.unique(fold_of):
        train = np.flatnonzero(fold_of != k)
        test = fold_of == k
        cut = refit([outs[i] for i in train], y[train], current) if len(train) else current
        passed[test] = scores[test] >= cut
    return passed


def _group_draws(keys: np.ndarray, *, n_boot: int, seed: int) -> list[np.ndarray]:
    """Row indices of `n_boot` bootstrap resamples of whole groups."""
    rng = np.random.default_rng(seed)
    members = [np.flatnonzero(keys == g) for g in range(int(keys.max()) + 1)] if len(keys) else []
    draws = []
    for _ in range(n_boot):
        picked = rng.integers(0, len(members), len(members))
        draws.append(np.concatenate([members[g] for g in picked]))
    return draws


def _boot_ba(y: np.ndarray, passed: np.ndarray, draws: list[np.ndarray]) -> np.ndarray:
    return np.array([balanced_accuracy(y[d], passed[d]) for d in draws], dtype=float)
