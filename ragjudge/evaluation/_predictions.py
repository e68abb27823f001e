"""`RowPrediction`: a labeled row as a judge saw it, the record a compile keeps of each validation
row (`CompileReport.predictions`) and that drift and the reports read back."""

from __future__ import annotations

import pydantic

__all__ = ["RowPrediction", "RowPredictions"]


class RowPrediction(pydantic.BaseModel):
    """A validation row as the compiled and the baseline judge saw it."""

    id: str
    source: str = ""
    group: str = pydantic.Field(
        default="",
        description="the row's group (compile's `group_by`); empty in judge files written "
        "before it was recorded, whose intervals resample rows",
    )
    gold: int
    score: float | None
    passed: bool | None
    baseline_score: float | None = None
    baseline_passed: bool | None = None


class RowPredictions(pydantic.BaseModel):
    """The per-row predictions of a compile report, read without the rest of it (a judge
    file's `compile` section; every other field is ignored)."""

    predictions: list[RowPrediction] = pydantic.Field(default_factory=list)
