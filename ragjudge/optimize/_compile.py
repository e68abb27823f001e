"""`compile_judge`: `JudgeOptimizer` as a function (`ragjudge.compile`, `ragjudge compile`)."""

from __future__ import annotations

import os
import warnings
from collections.abc import Sequence
from typing import Any

from ragjudge.data._gold import GoldRecord, rows_from
from ragjudge.data._paths import check_not_inputs
from ragjudge.exceptions import UngroupedRowsWarning
from ragjudge.optimize._optimizer import (
    OBJECTIVES,
    JudgeOptimizer,
    Objective,
    ProgressFactory,
    _objective_value,
    _refine_threshold,
    labeled_rows,
)
from ragjudge.optimize._select import SelectRule
from ragjudge.optimize._split import shared_question_rows
from ragjudge.optimize._study import storage_file
from ragjudge.programs._base import Judge

__all__ = [
    "OBJECTIVES",
    "_objective_value",
    "_refine_threshold",
    "compile_judge",
    "labeled_rows",
]


def compile_judge(
    judge: Judge,
    *,
    gold: Any,
    n_trials: int = 60,
    seed: int = 0,
    objective: Objective = "balanced_accuracy",
    objectives: Sequence[str] | None = None,
    valid_fraction: float = 0.3,
    group_by: str | None = "meta.group_id",
    storage: str | None = None,
    study_name: str | None = None,
    init: Judge | str | os.PathLike[str] | None = None,
    max_demos: int = 4,
    demo_candidates: int = 3,
    mapping: dict[str, str] | None = None,
    concurrency: int = 1,
    n_boot: int = 1000,
    progress: ProgressFactory | None = None,
    calibrate: bool = True,
    regularization: float | None = None,
    head: bool | None = None,
    max_lm_calls: int | None = None,
    modes: Sequence[str] | None = None,
    validation: Sequence[GoldRecord] | None = None,
    select: SelectRule = "one-se",
    max_lm_calls_per_row: float | None = None,
) -> Judge:
    """Compile a judge against gold labels: `JudgeOptimizer(...).compile(judge, trainset=gold)`.

    Args:
        judge: The judge to start from (left unchanged); its class, LM and parameters.
        gold: Labeled rows (`GoldRecord`s, dicts or a pandas DataFrame), or a file / dataset
            name to load them from (`ragjudge.data.rows_from`).
        n_trials: Completed Optuna trials wanted in the study (in total, across workers).
        seed: Seeds the split, the demo sets and the TPE sampler.
        objective: Agreement measure the study maximizes.
        objectives: `["agreement", "cost"]` for a multi-objective study (agreement vs LM calls
            per item); the file then records the Pareto front.
        valid_fraction: Share of rows (whole groups) held out for the reported figures.
        group_by: Dotted path of the group key; rows of one group never straddle the split.
        storage: Optuna storage URL (`sqlite:///s.db`, `postgresql://...`) or a journal file;
            an interrupted compile resumes and several processes can share one study.
        study_name: Name of the study in the storage (default: from the gold fingerprint).
        init: A compiled judge (or its file) to warm-start from: its params are the first
            trial, its demos stay candidates, its fitted weights are the starting point.
        max_demos: Largest number of few-shot demos per predictor to try.
        demo_candidates: Random demo sets tried per demo count (LM judges).
        mapping: Field -> column names of the gold file.
        concurrency: Items judged at once.
        n_boot: Bootstrap resamples for the intervals.
        progress: `(total, description) -> bar` with `update(n)` and `close()`, for a display.
        calibrate: Fit a Platt calibration of the chosen score on the tuning rows (judges with
            a `calibration` parameter), so that the score is a probability of the label.
        regularization: L2 strength of the offline weights (toward `init`'s weights when
            given); None chooses it by grouped cross-validation on the train rows.
        head: Train a tree head for the offline judge's answer model on the train rows
            (`ragjudge.offline.head`): True always, False never, None (default) keeps it only
            when grouped cross-validation on the train rows says it ranks answers better.
        max_lm_calls: The most LM calls to spend on raw outputs of the tuning rows (cache
            hits are free); a (mode, demo set) the rest cannot pay for is skipped and the
            report says which. None: no limit. The runs after the study (validation, and an
            `init` judge on the tuning rows) are counted: their calls are held back from the
            study before it starts.
        modes: The modes the study may choose (default: all of the judge's modes); the
            uncompiled baseline uses the first when its default mode is not among them.
        validation: Held-out rows to report on; then every row of `gold` is a train row and
            `valid_fraction` is not used.
        select: `"one-se"` ships the most agreeing tuned judge that beats the starting judge
            by more than one standard error (`COSTLIER_SE`, two, for one that makes more LM
            calls a row) and loses no source beyond that source's bar (`source_bar`),
            cross-validated on the train rows on the study's objective; `"best"` ships the
            highest cross-validated agreement (see `ragjudge.optimize._select`).
        max_lm_calls_per_row: The most LM calls a row may cost the judge that ships (for a
            `Cascade`: the best route and band under that budget). None: any.

    Returns:
        A new judge with the chosen parameters, demos and weights, and `report_` (a dict, see
        `CompileReport`).

    Example:
        >>> judge = Faithfulness()
        >>> compiled = compile_judge(judge, gold="gold.jsonl", n_trials=60)  # doctest: +SKIP
        >>> compiled.report_["validation"]["balanced_accuracy"]  # doctest: +SKIP
    """
    optimizer = JudgeOptimizer(
        n_trials=n_trials,
        seed=seed,
        objective=objective,
        objectives=objectives,
        valid_fraction=valid_fraction,
        group_by=group_by,
        storage=storage,
        study_name=study_name,
        init=init,
        max_demos=max_demos,
        demo_candidates=demo_candidates,
        concurrency=concurrency,
        n_boot=n_boot,
        progress=progress,
        calibrate=calibrate,
        regularization=regularization,
        head=head,
        max_lm_calls=max_lm_calls,
        modes=modes,
        select=select,
        max_lm_calls_per_row=max_lm_calls_per_row,
    )
    gold_name = os.fspath(gold) if isinstance(gold, (str, os.PathLike)) else None
    init_name = os.fspath(init) if isinstance(init, (str, os.PathLike)) else None
    check_not_inputs(
        {"`storage`": storage_file(storage)}, {"`gold`": gold_name, "`init`": init_name}
    )
    rows = rows_from(
        gold,
        mapping=mapping,
        require_labels=judge.metric == "faithfulness",
        require={"contexts": judge.metric} if judge.needs_contexts else None,
        name="gold",
    )
    if validation is None:
        _warn_ungrouped(rows, group_by)
    compiled = optimizer.compile(
        judge, trainset=rows, valset=list(validation) if validation is not None else None
    )
    assert compiled.report_ is not None
    compiled.report_["gold"]["path"] = gold_name
    return compiled


def _warn_ungrouped(rows: Sequence[GoldRecord], group_by: str | None) -> None:
    """Warn when rows of different groups share a question (twins split across the split)."""
    shared = shared_question_rows(rows, group_by)
    if shared:
        warnings.warn(
            UngroupedRowsWarning(
                f"{shared} of {len(rows)} rows share their question with a row of another "
                f"group (by {group_by or 'row'!r}), so validation rows may have near-copies "
                "in train and the figures read too high; keep them together with "
                "group_by='question' (or give each row a meta.group_id)",
                rows=shared,
            ),
            stacklevel=3,
        )
