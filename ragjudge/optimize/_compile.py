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

    Every keyword but `gold`, `mapping` and `validation` is `JudgeOptimizer`'s (`n_trials`,
    `storage`, `init`, `select`, ...), under the same name and default, documented there once.

    Args:
        judge: The judge to start from (left unchanged); its class, LM and parameters.
        gold: Labeled rows (`GoldRecord`s, dicts or a pandas DataFrame), or a file / dataset
            name to load them from (`ragjudge.data.rows_from`).
        mapping: Field -> column names of the gold file.
        validation: Held-out rows to report on; then every row of `gold` is a train row and
            `valid_fraction` is not used.

    Returns:
        A new judge: the chosen parameters, demos and weights, `report_` (`CompileReport`).

    Example:
        >>> compiled = compile_judge(Faithfulness(), gold="gold.jsonl")  # doctest: +SKIP
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
    rows, gold_name = _gold_rows(judge, gold, mapping=mapping, storage=storage, init=init)
    if validation is None:
        _warn_ungrouped(rows, group_by)
    compiled = optimizer.compile(
        judge, trainset=rows, valset=list(validation) if validation is not None else None
    )
    assert compiled.report_ is not None
    compiled.report_["gold"]["path"] = gold_name
    return compiled


def _gold_rows(
    judge: Judge,
    gold: Any,
    *,
    mapping: dict[str, str] | None,
    storage: str | None,
    init: Judge | str | os.PathLike[str] | None,
) -> tuple[list[GoldRecord], str | None]:
    """The gold rows, each with what `judge` needs of it (`rows_from`), and the gold file's
    name (None for rows given as objects); a `storage` that is an input refused first."""
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
    return rows, gold_name


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
