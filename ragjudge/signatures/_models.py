"""Typed values that signatures exchange with the LM."""

from __future__ import annotations

from typing import Literal

import pydantic
from pydantic.json_schema import SkipJsonSchema

__all__ = ["AnswerVerdict", "StatementVerdict", "Verdict"]

Verdict = Literal["yes", "no", "unsure"]


class StatementVerdict(pydantic.BaseModel):
    """The verdict on one statement, with the reason for it."""

    statement: str = pydantic.Field(description="the statement, copied verbatim")
    reason: str = pydantic.Field(
        description="one sentence: why the context does or does not support it"
    )
    verdict: Verdict = pydantic.Field(
        description="yes = directly inferable from the context; "
        "no = not inferable or contradicted; unsure = the context is ambiguous about it"
    )
    confidence: float | None = pydantic.Field(
        default=None,
        ge=0.0,
        le=1.0,
        description="probability in [0, 1] that the statement is supported",
    )
    # The offline judge's evidence, which no LM is asked for (left out of the JSON schema the
    # prompt shows): `support` is its probability before its rules, `rule` the rules that decide
    # the verdict whatever the support threshold ("no_context", "contradicted", "speculated",
    # "own_missing"). `ragjudge.offline.model.offline_verdict` turns them into the verdict.
    support: SkipJsonSchema[float | None] = None
    rules: SkipJsonSchema[list[str] | None] = None


class AnswerVerdict(pydantic.BaseModel):
    """A whole-answer verdict (used for demos and results)."""

    reasoning: str
    verdict: Literal["yes", "no"]
    confidence: float | None = None
