"""Cross-fitting (cross-prediction-powered inference, Zrnic & Candès 2024): compile a judge per
fold of the labeled rows; each labeled row is predicted by the judge that did not see its fold,
each unlabeled row by the mean of the fold judges' verdicts."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Literal

import numpy as np

from ragjudge.data._gold import GoldRecord
from ragjudge.data._labels import gold_label
from ragjudge.evaluation._runner import run_rows
from ragjudge.exceptions import GoldDataError
from ragjudge.optimize._compile import compile_judge
from ragjudge.optimize._split import group_key
from ragjudge.programs._base import Judge
from ragjudge.programs._results import JudgeResult
from ragjudge.programs.faithfulness import Faithfulness
from ragjudge.stats._folds import group_folds
from ragjudge.stats._threshold import UNSCORED, unit_prediction, unit_score

__all__ = ["CrossFit", "Prediction", "cross_fit", "verdict"]

logger = logging.getLogger(__name__)


#: What PPI takes from a verdict: the judge's score in [0, 1], or whether it passed.
Prediction = Literal["score", "passed"]


def verdict(result: JudgeResult, kind: Prediction = "score", *, scale: float = 1.0) -> float:
    """A result as the prediction PPI uses: its unit score on the judge's `scale`
    (`JudgeResult.unit`) as a value in [0, 1] (`kind="score"`; `stats.unit_prediction`), or
    1.0 when it passed (`"passed"`); an error or an unscored row fails and predicts 0."""
    return _prediction(result.unit(scale=scale), result.passed, kind)


def _prediction(unit: float, passed: bool | None, kind: Prediction) -> float:
    if kind == "passed":
        return 1.0 if passed and unit != UNSCORED else 0.0
    return unit_prediction(unit)


class CrossFit:
    """The fold judges and their out-of-fold verdicts on the labeled rows.

    Attributes:
        judges: One compiled judge per fold.
        labeled: The prediction on each labeled row (in the order given) by the judge that was
            not compiled on it.
        labeled_passed: Its pass verdict (1.0 / 0.0).
        labeled_errors: How many of those verdicts are errors.
    """

    def __init__(
        self,
        judges: list[Judge],
        labeled: np.ndarray,
        labeled_passed: np.ndarray,
        labeled_errors: int,
        kind: Prediction,
    ) -> None:
        self.judges, self.labeled, self.labeled_passed = judges, labeled, labeled_passed
        self.labeled_errors, self.kind = labeled_errors, kind

    def predict(
        self, rows: Sequence[GoldRecord], *, concurrency: int = 1
    ) -> tuple[np.ndarray, np.ndarray]:
        """The mean of the fold judges' predictions on each row, and of their pass verdicts."""
        if not rows:
            return np.zeros(0), np.zeros(0)
        results = [run_rows(judge, rows, concurrency=concurrency) for judge in self.judges]
        votes = [[verdict(r, self.kind) for r in rs] for rs in results]
        passes = [[verdict(r, "passed") for r in rs] for rs in results]
        return (
            np.asarray(votes, dtype=float).mean(axis=0),
            np.asarray(passes, dtype=float).mean(axis=0),
        )


def cross_fit(
    labeled: Sequence[GoldRecord],
    *,
    folds: int,
    student: Judge | None = None,
    n_trials: int = 30,
    seed: int = 0,
    group_by: str | None = "meta.group_id",
    concurrency: int = 1,
    kind: Prediction = "score",
) -> CrossFit:
    """Compile `student` (default: the offline judge) once per fold of the labeled rows.

    Folds keep a group (`meta.group_id`) whole and are stratified on the label
    (`ragjudge.stats._folds.group_folds`, the one fold maker). Each fold's
    judge is compiled on the other folds with that fold as its validation rows, so its
    verdicts on the fold come out of the compile itself.

    Args:
        labeled: The labeled rows.
        folds: How many folds (K >= 2).
        student: The judge to compile (left unchanged).
        n_trials: Optuna trials per compile.
        seed: Seeds the folds and each compile.
        group_by: Dotted path of the group key; None folds by row.
        concurrency: Rows judged at once.
        kind: What the verdicts give PPI (`verdict`).

    Raises:
        GoldDataError: If there are fewer groups than folds, or a fold would lack a label.
    """
    if folds < 2:
        raise GoldDataError(f"cross-fitting needs at least 2 folds, got {folds}")
    labels = np.array([int(gold_label(r) or 0) for r in labeled])
    groups = [group_key(r, group_by) for r in labeled]
    if len(set(groups)) < folds:
        raise GoldDataError(f"only {len(set(groups))} groups of labeled rows for {folds} folds")
    fold_of = group_folds(groups, labels, folds=folds, seed=seed)
    predicted = np.zeros(len(labeled))
    passed = np.zeros(len(labeled))
    errors = 0
    judges: list[Judge] = []
    start = student if student is not None else Faithfulness()
    scale = start.compile_spec().scale  # compile searches no scale: the fold judges' own
    for k in range(int(fold_of.max()) + 1):
        train_index = [int(i) for i in np.flatnonzero(fold_of != k)]
        held_index = [int(i) for i in np.flatnonzero(fold_of == k)]
        train = [labeled[i] for i in train_index]
        held = [labeled[i] for i in held_index]
        if len({gold_label(r) for r in train}) < 2:
            raise GoldDataError(f"cross-fitting fold {k + 1} has one label only; add labels")
        logger.info("cross-fitting: compiling fold %d of %d on %d rows", k + 1, folds, len(train))
        judge = compile_judge(
            start,
            gold=train,
            validation=held,
            n_trials=n_trials,
            seed=seed,
            n_boot=200,
            concurrency=concurrency,
        )
        by_id = {p["id"]: p for p in (judge.report_ or {}).get("predictions", [])}
        for i, row in zip(held_index, held, strict=True):
            p = by_id[row.id]
            unit = unit_score(p["score"], scale=scale)
            predicted[i] = _prediction(unit, p["passed"], kind)
            passed[i] = _prediction(unit, p["passed"], "passed")
            errors += p["score"] is None
        judges.append(judge)
    return CrossFit(judges, predicted, passed, errors, kind)
