"""Drift: has a compiled judge's agreement with human labels fallen on new labeled rows?

The compile report of a judge file keeps each validation row's label, score and verdict. The
judge is run on the new rows, and a one-sided permutation test asks whether the chosen figure
(balanced accuracy by default) is lower on the new rows than on the compile's validation rows
by more than chance: the rows of both sets are pooled, randomly re-split into sets of the same
sizes many times (whole groups, where the rows carry them, as the intervals resample them),
and the p-value is the share of re-splits whose drop is at least the one observed. The
difference's bootstrap interval is given at the level the test decides at: the two-sided
`1 - 2 alpha` interval, whose upper end is the one-sided `1 - alpha` bound; where the interval
and the test disagree (the two methods differ on few rows), the report says so and the test
decides. Every row counts in both sets, as in the compile: a row that ended in an error or was
left unscored never passes and ranks lowest (`stats.UNSCORED`). New rows the judge was fitted
on (`CompileReport.fitted_rows`, `data.fitted_on`) are left out, as `estimate` leaves them out.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from typing import Any

import numpy as np
import pydantic

from ragjudge.data._gold import GoldRecord
from ragjudge.data._labels import gold_label
from ragjudge.data._rowhash import fitted_on
from ragjudge.evaluation._predictions import RowPrediction, RowPredictions
from ragjudge.exceptions import ConfigurationError
from ragjudge.programs._results import JudgeResult
from ragjudge.stats._agreement import (
    METRICS,
    Agreement,
    _auroc,
    _ba,
    _counts,
    _f1,
    _group_index,
    _kappa,
    _resample_weights,
    agreement,
)
from ragjudge.stats._threshold import UNSCORED, floored

__all__ = ["DRIFT_FIGURES", "DriftReport", "DriftSample", "drift_test", "reference_sample"]

#: Figures the test can be run on.
DRIFT_FIGURES = METRICS


class DriftSample(pydantic.BaseModel):
    """One set of labeled rows as the judge saw them (every row counts)."""

    labels: list[int]
    passed: list[bool]
    scores: list[float]
    groups: list[str] | None = pydantic.Field(
        default=None,
        description="each row's group: the intervals resample whole groups (None: rows alone)",
    )
    errors: int = pydantic.Field(default=0, description="rows that ended in an error")
    unscored: int = pydantic.Field(default=0, description="rows judged without a score")
    fitted: int = pydantic.Field(
        default=0, description="rows left out: the judge was fitted on them"
    )

    @property
    def n(self) -> int:
        """Rows in the set."""
        return len(self.labels)


class DriftReport(pydantic.BaseModel):
    """The compile's validation figures beside the new rows', and the test between them.

    Attributes:
        figure: The figure tested.
        alpha: The test's level.
        reference: Agreement on the compile's validation rows (as the compile measured it).
        new: Agreement on the new rows, counted the same way.
        difference: `new - reference` for every figure, with a 95% two-sample bootstrap
            interval (each set's groups resampled whole, where its rows carry them).
        level: The level of the difference's intervals, `1 - 2 alpha`: the upper end of the
            tested figure's interval is the one-sided `1 - alpha` bound the test matches.
        p_value: One-sided permutation p-value for "the figure is lower on the new rows".
        permutations: Re-splits drawn.
        dropped: `p_value < alpha`: agreement fell beyond chance (the decision).
        interval_dropped: Whether the tested figure's interval lies below zero (None: no
            interval); where it differs from `dropped`, `disagreement` says so.
        disagreement: One sentence when the interval and the test disagree, else "".
        errors: New rows that ended in an error (counted as failed, ranked lowest).
        unscored: New rows judged without a score (counted as failed, ranked lowest).
        fitted: New rows left out because the judge was fitted on them.
        notes: What a reader must know about the rows compared (fitted rows, ...).
    """

    model_config = pydantic.ConfigDict(ser_json_inf_nan="null")

    metric: str
    figure: str
    alpha: float
    reference: Agreement
    new: Agreement
    difference: dict[str, float | None]
    difference_ci: dict[str, list[float | None]]
    level: float = 0.95
    p_value: float
    permutations: int
    dropped: bool
    interval_dropped: bool | None = None
    disagreement: str = ""
    errors: int = 0
    unscored: int = 0
    fitted: int = 0
    notes: list[str] = pydantic.Field(default_factory=list)
    gold: str = ""
    judge: str = ""

    def summary(self) -> dict[str, Any]:
        """The JSON document `ragjudge drift --format json` prints."""
        return self.model_dump(mode="json")


def reference_sample(report: Any, *, path: str) -> DriftSample:
    """The compile's validation rows, from a judge file's compile report (a `CompileReport`,
    or the dict a judge file holds; None for a judge saved uncompiled).

    Raises:
        ConfigurationError: For a judge file with no compile report, or one that recorded no
            per-row validation predictions.
    """
    if report is None:
        raise ConfigurationError(
            f"{path} has no compile report (it was saved uncompiled): drift compares a compiled "
            "judge with its compile; compile it with `ragjudge compile`, or use `ragjudge evaluate`"
        )
    preds: list[RowPrediction] = (
        RowPredictions.model_validate(report).predictions
        if isinstance(report, dict)
        else list(report.predictions)
    )
    if not preds:
        raise ConfigurationError(
            f"{path}: its compile report holds no per-row validation predictions; "
            "re-compile it with this version of ragjudge"
        )
    scores = floored(p.score for p in preds)
    return DriftSample(
        labels=[int(p.gold) for p in preds],
        passed=[bool(p.passed) and s != UNSCORED for p, s in zip(preds, scores, strict=True)],
        scores=scores.tolist(),
        groups=[p.group or p.id for p in preds],
        unscored=int(np.sum(scores == UNSCORED)),
    )


def new_sample(
    rows: Sequence[GoldRecord],
    results: Sequence[JudgeResult],
    *,
    metric: str,
    fitted_rows: Collection[str] | None = None,
) -> DriftSample:
    """The new labeled rows as the judge saw them: unlabeled rows left out (`gold_label`), and
    the rows the judge was fitted on (`fitted_rows`: `CompileReport.fitted_rows`), which
    would flatter it; errors and unscored rows fail and rank lowest."""
    labeled = [
        (label, row, res)
        for row, res in zip(rows, results, strict=True)
        if (label := gold_label(row, metric)) is not None
    ]
    kept = [t for t in labeled if not (fitted_rows and fitted_on(t[1], fitted_rows))]
    scores = floored(None if res.error else res.score for *_, res in kept)
    return DriftSample(
        labels=[int(label) for label, _, _ in kept],
        passed=[
            res.error is None and res.passed is True and s != UNSCORED
            for (_, _, res), s in zip(kept, scores, strict=True)
        ],
        scores=scores.tolist(),
        groups=[row.group for _, row, _ in kept],
        errors=sum(1 for *_, res in kept if res.error),
        unscored=sum(1 for *_, res in kept if not res.error and math.isnan(res.score)),
        fitted=len(labeled) - len(kept),
    )


def _arrays(sample: DriftSample) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return (
        np.asarray(sample.labels, dtype=float),
        np.asarray(sample.passed, dtype=float),
        np.asarray(sample.scores, dtype=float),
    )


def drift_test(
    reference: DriftSample,
    new: DriftSample,
    *,
    metric: str = "faithfulness",
    figure: str = "balanced_accuracy",
    alpha: float = 0.05,
    permutations: int = 2000,
    n_boot: int = 1000,
    seed: int = 0,
    reference_agreement: Agreement | None = None,
) -> DriftReport:
    """Test whether `figure` is lower on `new` than on `reference` beyond chance.

    Args:
        reference: The compile's validation rows (`reference_sample`).
        new: The new labeled rows (`new_sample`).
        metric: The judge's metric, for the report.
        figure: One of `DRIFT_FIGURES`.
        alpha: The level of the one-sided test.
        permutations: Random re-splits for the permutation test.
        n_boot: Resamples for the intervals.
        seed: Seeds the re-splits and the resamples.
        reference_agreement: The figures the compile recorded (else measured from `reference`).

    Returns:
        The report; `dropped` is True when the p-value is below `alpha`. The difference's
        intervals are at level `1 - 2 alpha` (their upper end: the one-sided bound the test
        matches); `disagreement` says where the tested figure's interval and the test differ.

    Example:
        >>> ref = DriftSample(labels=[1, 0] * 50, passed=[True, False] * 50, scores=[1, 0] * 50)
        >>> new = DriftSample(labels=[1, 0] * 50, passed=[False, True] * 50, scores=[0, 1] * 50)
        >>> drift_test(ref, new, permutations=200, n_boot=0).dropped
        True
    """
    if figure not in DRIFT_FIGURES:
        raise ConfigurationError(f"unknown figure {figure!r}; choose from {', '.join(METRICS)}")
    if not 0 < alpha < 1:
        raise ConfigurationError(f"`alpha` must be in (0, 1), got {alpha}")
    if new.n < 2 or len(set(new.labels)) < 2:
        raise ConfigurationError(
            "the new rows need labels of both kinds (faithful 0 and 1) to measure agreement"
        )
    y1, p1, s1 = _arrays(reference)
    y2, p2, s2 = _arrays(new)
    ref_a = reference_agreement or agreement(
        y1, p1.astype(bool), s1, n_boot=n_boot, seed=seed, groups=reference.groups
    )
    new_a = agreement(y2, p2.astype(bool), s2, n_boot=n_boot, seed=seed, groups=new.groups)
    p_value, observed = _permutation_p(reference, new, figure, permutations, seed)
    dropped = bool(not math.isnan(observed) and p_value < alpha)
    level = 1.0 - 2.0 * alpha
    difference = {m: _minus(getattr(new_a, m), getattr(_point(y1, p1, s1), m)) for m in METRICS}
    diff_ci = _difference_intervals(reference, new, n_boot, seed, level)
    high = diff_ci[figure][1]
    interval_dropped = None if high is None else bool(high < 0)
    disagreement = ""
    if interval_dropped is not None and interval_dropped != dropped:
        low = diff_ci[figure][0]
        where = "lies below zero" if interval_dropped else "reaches zero or above"
        finds = "finds no drop beyond chance" if not dropped else "finds a drop beyond chance"
        disagreement = (
            f"the {100 * level:g}% bootstrap interval of the difference in {figure} "
            f"[{low:+.3f}, {high:+.3f}] {where}, but the permutation test {finds} (p = "
            f"{p_value:.4f}, alpha = {alpha:g}): the two methods disagree on these rows, and "
            "the test decides; label more rows to settle it"
        )
    notes = []
    if new.fitted:
        notes.append(
            f"{new.fitted} new rows were left out: the judge was fitted on them "
            "(compile's train rows), and they would flatter it"
        )
    return DriftReport(
        metric=metric,
        figure=figure,
        alpha=alpha,
        reference=ref_a,
        new=new_a,
        difference=difference,
        difference_ci=diff_ci,
        level=level,
        p_value=p_value if not math.isnan(observed) else 1.0,
        permutations=permutations,
        dropped=dropped,
        interval_dropped=interval_dropped,
        disagreement=disagreement,
        errors=new.errors,
        unscored=new.unscored,
        fitted=new.fitted,
        notes=notes,
    )


def _permutation_p(
    reference: DriftSample, new: DriftSample, figure: str, permutations: int, seed: int
) -> tuple[float, float]:
    """The one-sided permutation p-value of `figure`'s drop, and the observed drop.

    The rows of both sets are pooled and re-split many times: whole groups where the rows
    carry groups (the same sets the intervals resample), each row alone otherwise.
    """
    y1, p1, s1 = _arrays(reference)
    y2, p2, s2 = _arrays(new)
    y, p, s = np.concatenate([y1, y2]), np.concatenate([p1, p2]), np.concatenate([s1, s2])
    n1, n = len(y1), len(y1) + len(y2)
    keys = [f"r:{g}" for g in (reference.groups or range(n1))] + [
        f"n:{g}" for g in (new.groups or range(len(y2)))
    ]
    index = _group_index(keys, n)  # None: every row its own group
    g1 = n1 if index is None else len({k for k in keys[:n1]})
    n_groups = n if index is None else int(index.max()) + 1
    rng = np.random.default_rng(seed)
    drops = np.empty(permutations + 1)
    for start in range(0, permutations + 1, 200):  # blocks bound the memory
        size = min(200, permutations + 1 - start)
        masks = np.zeros((size, n))
        for b in range(size):
            if start + b == 0:
                masks[b, :n1] = 1.0  # the observed split first
                continue
            chosen = rng.permutation(n_groups)[:g1]
            if index is None:
                masks[b, chosen] = 1.0
            else:
                masks[b, np.isin(index, chosen)] = 1.0
        drops[start : start + size] = _figure(y, p, s, masks, figure) - _figure(
            y, p, s, 1.0 - masks, figure
        )
    observed = float(drops[0])
    finite = drops[1:][~np.isnan(drops[1:])]
    return float((1 + np.sum(finite >= observed - 1e-12)) / (1 + len(finite))), observed


def _difference_intervals(
    reference: DriftSample, new: DriftSample, n_boot: int, seed: int, level: float
) -> dict[str, list[float | None]]:
    """`new - reference` for every figure: a `level` two-sample percentile interval, each set
    resampled on its own (whole groups, where known)."""
    diff_ci: dict[str, list[float | None]] = {m: [None, None] for m in METRICS}
    if not n_boot:
        return diff_ci
    y1, p1, s1 = _arrays(reference)
    y2, p2, s2 = _arrays(new)
    w1 = _resample_weights(seed + 1, n_boot, len(y1), reference.groups)
    w2 = _resample_weights(seed + 2, n_boot, len(y2), new.groups)
    tail = 100 * (1 - level) / 2
    for m in METRICS:
        d = _figure(y2, p2, s2, w2, m) - _figure(y1, p1, s1, w1, m)
        d = d[~np.isnan(d)]
        if len(d) >= n_boot // 2:
            diff_ci[m] = [float(np.percentile(d, tail)), float(np.percentile(d, 100 - tail))]
    return diff_ci


def _figure(y: np.ndarray, p: np.ndarray, s: np.ndarray, w: np.ndarray, figure: str) -> np.ndarray:
    """`figure` for each row of weights `w` (B, n)."""
    if figure == "auroc":
        return _auroc(y, s, w)
    counts = _counts(y, p, w)
    return {"balanced_accuracy": _ba, "cohen_kappa": _kappa, "f1": _f1}[figure](*counts)


def _point(y: np.ndarray, p: np.ndarray, s: np.ndarray) -> Agreement:
    return agreement(y, p.astype(bool), s, n_boot=0)


def _minus(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else float(a - b)
