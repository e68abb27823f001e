"""What a compile records: the evidence that the compiled judge agrees with the labels."""

from __future__ import annotations

from typing import Any

import pydantic

from ragjudge.optimize._ablation import AblationStep
from ragjudge.optimize._select import Selection
from ragjudge.stats._agreement import Agreement

__all__ = ["CompileReport", "RowPrediction", "StudySummary", "TrialRecord"]


class TrialRecord(pydantic.BaseModel):
    """One finished Optuna trial."""

    number: int
    state: str
    params: dict[str, Any]
    values: list[float] | None = None
    lm_calls: int = 0
    seconds: float = 0.0


class StudySummary(pydantic.BaseModel):
    """The Optuna study behind a compile."""

    name: str
    storage: str | None = None
    sampler: str = "TPESampler"
    seed: int
    directions: list[str]
    objectives: list[str]
    n_trials: int
    best_value: float | None = None
    best_params: dict[str, Any] = pydantic.Field(default_factory=dict)
    distributions: dict[str, Any] = pydantic.Field(
        default_factory=dict, description="param name -> optuna.distributions.distribution_to_json"
    )
    trials: list[TrialRecord] = pydantic.Field(default_factory=list)
    pareto_front: list[TrialRecord] = pydantic.Field(default_factory=list)
    importances: dict[str, float] = pydantic.Field(default_factory=dict)


class RowPrediction(pydantic.BaseModel):
    """A validation row as the compiled and the baseline judge saw it."""

    id: str
    source: str = ""
    gold: int
    score: float | None
    passed: bool | None
    baseline_score: float | None = None
    baseline_passed: bool | None = None


class CompileReport(pydantic.BaseModel):
    """Everything a compile records, saved in the judge file under `compile`.

    Every agreement figure is measured on the validation rows, which no fitting has seen.
    """

    model_config = pydantic.ConfigDict(ser_json_inf_nan="null")

    metric: str
    lm: str
    objective: str
    params: dict[str, Any]
    baseline_params: dict[str, Any]
    validation: Agreement
    baseline: Agreement
    init: Agreement | None = pydantic.Field(
        default=None, description="the --init judge, unchanged, on this gold's validation rows"
    )
    by_source: dict[str, dict[str, Agreement]] = pydantic.Field(
        default_factory=dict,
        description="source -> {'compiled': ..., 'baseline': ..., 'offline': ... (LM judges)}",
    )
    offline: Agreement | None = pydantic.Field(
        default=None, description="the uncompiled offline judge on the same validation rows"
    )
    selection: Selection | None = pydantic.Field(
        default=None,
        description="the finalists' out-of-fold agreement on the training rows and the one shipped",
    )
    ablation: list[AblationStep] = pydantic.Field(
        default_factory=list,
        description="uncompiled -> +mode -> +threshold & policies -> +demos, on validation",
    )
    gold: dict[str, Any] = pydantic.Field(default_factory=dict)
    split: dict[str, Any] = pydantic.Field(default_factory=dict)
    sizes: dict[str, int] = pydantic.Field(default_factory=dict)
    study: StudySummary
    lm_calls: dict[str, Any] = pydantic.Field(default_factory=dict)
    demos: dict[str, int] = pydantic.Field(default_factory=dict)
    seconds: dict[str, float] = pydantic.Field(default_factory=dict)
    versions: dict[str, str] = pydantic.Field(default_factory=dict)
    predictions: list[RowPrediction] = pydantic.Field(default_factory=list)
    fitted_rows: list[str] | None = pydantic.Field(
        default=None,
        description="`ragjudge.data.row_hash` of every train row (fitted on, tuned on or a demo "
        "pool row); None in judge files written before it was recorded (unknown)",
    )
