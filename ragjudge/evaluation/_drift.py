"""Drift: has a compiled judge's agreement with human labels fallen on new labeled rows?

The compile report of a judge file keeps each validation row's label, score and verdict. The
judge is run on the new rows, and a one-sided permutation test asks whether the chosen figure
(balanced accuracy by default) is lower on the new rows than on the compile's validation rows
by more than chance: the rows of both sets are pooled, randomly re-split into sets of the same
sizes many times, and the p-value is the share of re-splits whose drop is at least the one
observed. Every row counts in both sets, as in the compile: an unscored row never passes and
ranks lowest.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pydantic

from ragjudge.data._gold import GoldRecord
from ragjudge.evaluation._evaluate import gold_label
from ragjudge.exceptions import ConfigurationError
from ragjudge.optimize._report import CompileReport
from ragjudge.programs._base import Judge
from ragjudge.programs._results import JudgeResult
from ragjudge.stats._agreement import (
    METRICS,
    Agreement,
    _auroc,
    _ba,
    _counts,
    _f1,
    _kappa,
    _resample_weights,
    agreement,
)

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
        p_value: One-sided permutation p-value for "the figure is lower on the new rows".
        permutations: Re-splits drawn.
        dropped: `p_value < alpha`: agreement fell beyond chance.
        errors: New rows the judge could not score (counted as failed, lowest score).
    """

    model_config = pydantic.ConfigDict(ser_json_inf_nan="null")

    metric: str
    figure: str
    alpha: float
    reference: Agreement
    new: Agreement
    difference: dict[str, float | None]
    difference_ci: dict[str, list[float | None]]
    p_value: float
    permutations: int
    dropped: bool
    errors: int = 0
    gold: str = ""
    judge: str = ""

    def summary(self) -> dict[str, Any]:
        """The JSON document `ragjudge drift --format json` prints."""
        return self.model_dump(mode="json")


def reference_sample(report: CompileReport | dict[str, Any] | None, *, path: str) -> DriftSample:
    """The compile's validation rows, from a judge file's compile report.

    Raises:
        ConfigurationError: For a judge file with no compile report, or one that recorded no
            per-row validation predictions.
    """
    if report is None:
        raise ConfigurationError(
            f"{path} has no compile report (it was saved uncompiled): drift compares a compiled "
            "judge with its compile; compile it with `ragjudge compile`, or use `ragjudge evaluate`"
        )
    parsed = report if isinstance(report, CompileReport) else CompileReport.model_validate(report)
    if not parsed.predictions:
        raise ConfigurationError(
            f"{path}: its compile report holds no per-row validation predictions; "
            "re-compile it with this version of ragjudge"
        )
    preds = parsed.predictions
    return DriftSample(
        labels=[int(p.gold) for p in preds],
        passed=[bool(p.passed) and p.score is not None for p in preds],
        scores=[_rank_score(p.score) for p in preds],
        groups=[p.group or p.id for p in preds],
    )


def new_sample(
    rows: Sequence[GoldRecord], results: Sequence[JudgeResult], *, metric: str
) -> DriftSample:
    """The new labeled rows as the judge saw them (unlabeled rows left out)."""
    kept = [
        (label, res, row.group)
        for row, res in zip(rows, results, strict=True)
        if (label := gold_label(row, metric)) is not None
    ]
    return DriftSample(
        labels=[int(label) for label, _, _ in kept],
        passed=[res.error is None and res.passed is True for _, res, _ in kept],
        scores=[_rank_score(None if res.error else res.score) for _, res, _ in kept],
        groups=[group for *_, group in kept],
    )


def _rank_score(score: float | None) -> float:
    """A score for ranking: an unscored row ranks below every score."""
    if score is None or math.isnan(score):
        return -1.0
    return float(score)


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
        The report; `dropped` is True when the p-value is below `alpha`.

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
    new_a = agreement(
        y2, p2.astype(bool), s2, n_boot=n_boot, seed=seed, errors=_errors(new), groups=new.groups
    )
    rng = np.random.default_rng(seed)
    # Permutation test: pooled rows, re-split at the original sizes; masks as row weights.
    y, p, s = np.concatenate([y1, y2]), np.concatenate([p1, p2]), np.concatenate([s1, s2])
    n1, n = len(y1), len(y1) + len(y2)
    drops = np.empty(permutations + 1)
    for start in range(0, permutations + 1, 200):  # blocks bound the memory
        size = min(200, permutations + 1 - start)
        masks = np.zeros((size, n))
        for b in range(size):
            if start + b == 0:
                masks[b, :n1] = 1.0  # the observed split first
            else:
                masks[b, rng.permutation(n)[:n1]] = 1.0
        drops[start : start + size] = _figure(y, p, s, masks, figure) - _figure(
            y, p, s, 1.0 - masks, figure
        )
    observed = drops[0]
    finite = drops[1:][~np.isnan(drops[1:])]
    p_value = float((1 + np.sum(finite >= observed - 1e-12)) / (1 + len(finite)))
    # The difference's interval: each set resampled on its own (whole groups, where known).
    difference = {m: _minus(getattr(new_a, m), getattr(_point(y1, p1, s1), m)) for m in METRICS}
    diff_ci: dict[str, list[float | None]] = {m: [None, None] for m in METRICS}
    if n_boot:
        w1 = _resample_weights(seed + 1, n_boot, n1, reference.groups)
        w2 = _resample_weights(seed + 2, n_boot, len(y2), new.groups)
        for m in METRICS:
            d = _figure(y2, p2, s2, w2, m) - _figure(y1, p1, s1, w1, m)
            d = d[~np.isnan(d)]
            if len(d) >= n_boot // 2:
                diff_ci[m] = [float(np.percentile(d, 2.5)), float(np.percentile(d, 97.5))]
    return DriftReport(
        metric=metric,
        figure=figure,
        alpha=alpha,
        reference=ref_a,
        new=new_a,
        difference=difference,
        difference_ci=diff_ci,
        p_value=p_value if not math.isnan(observed) else 1.0,
        permutations=permutations,
        dropped=bool(not math.isnan(observed) and p_value < alpha),
        errors=_errors(new),
    )


def _figure(y: np.ndarray, p: np.ndarray, s: np.ndarray, w: np.ndarray, figure: str) -> np.ndarray:
    """`figure` for each row of weights `w` (B, n)."""
    if figure == "auroc":
        return _auroc(y, s, w)
    counts = _counts(y, p, w)
    return {"balanced_accuracy": _ba, "cohen_kappa": _kappa, "f1": _f1}[figure](*counts)


def _errors(sample: DriftSample) -> int:
    return sum(1 for s in sample.scores if s == -1.0)


def _point(y: np.ndarray, p: np.ndarray, s: np.ndarray) -> Agreement:
    return agreement(y, p.astype(bool), s, n_boot=0)


def _minus(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else float(a - b)


def measured_on(judge: Judge) -> str:
    """What the judge's compile measured: its gold file and validation size, for reports."""
    report = judge.report_ or {}
    gold = report.get("gold", {})
    sizes = report.get("sizes", {})
    return f"{gold.get('path', '?')} ({sizes.get('validation', '?')} validation rows)"
