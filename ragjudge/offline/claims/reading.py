"""A claim read on its own, not by the support model: what a statement that declines to answer
(`abstention`) or a short answer read with its question (`answer`) comes to against the
context."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["SUPPORT", "Outcome", "Reading"]

#: "yes": the context supports the claim; "no": it says otherwise; "unsure": words cannot tell.
Outcome = Literal["yes", "no", "unsure"]

#: The statement's probability of support, by outcome.
SUPPORT: dict[str, float] = {"yes": 0.99, "no": 0.01, "unsure": 0.5}


@dataclass(frozen=True)
class Reading:
    """How the context bears on a claim read on its own.

    Attributes:
        outcome: See `Outcome`.
        reason: What was found, for the statement's reason.
    """

    outcome: Outcome
    reason: str
