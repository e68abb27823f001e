"""What a probe is: one answer variant made from a real row, with the verdict it must get."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import pydantic

from ragjudge.data._gold import GoldRecord

__all__ = ["Expect", "Probe", "Skip", "Variant"]

#: What a judge must say of a probe: `fail` (the edit made the answer unfaithful) or `pass`.
Expect = Literal["fail", "pass"]


class Probe(pydantic.BaseModel):
    """One behavioral test: a context, an answer variant, the verdict it must get, and why.

    Attributes:
        id: `<row id>::<kind>`, unique within a probe set.
        kind: The kind of edit (`number_value`, `negation`, ...; see `ragjudge.probing.KINDS`).
        expect: `fail` for a must-fail kind (the variant is unfaithful), `pass` for a
            must-pass kind (the variant is faithful).
        row_id: The row the probe was made from.
        source: That row's source (a benchmark or a domain).
        group_id: That row's group: probes of one group are never split apart.
        language: The language of the edited text (`en`, `de`, `fr`, `es`).
        question: The question the variant answers.
        contexts: The passages the variant is judged against.
        answer: The answer variant.
        before: The text the edit replaced (the context sentence, a span of it, or the row's
            answer).
        after: What it became.
    """

    model_config = pydantic.ConfigDict(frozen=True)

    id: str
    kind: str
    expect: Expect
    row_id: str
    source: str = ""
    group_id: str = ""
    language: str = "en"
    question: str = ""
    contexts: list[str]
    answer: str
    before: str
    after: str

    def record(self) -> GoldRecord:
        """The probe as a labeled row: `faithful` is 0 for a must-fail probe, 1 otherwise."""
        return GoldRecord(
            id=self.id,
            question=self.question,
            contexts=list(self.contexts),
            answer=self.answer,
            faithful=0 if self.expect == "fail" else 1,
            source=self.source,
            task="probe",
            meta={"group_id": self.group_id or self.row_id, "kind": self.kind},
        )

    def edit(self) -> str:
        """The edit as a person reads it: `before -> after`."""
        return f"{self.before!r} -> {self.after!r}"


@dataclass(frozen=True)
class Variant:
    """What a generator makes of one row: the new answer and the edit.

    Attributes:
        answer: The answer variant.
        before: The text the edit replaced.
        after: What it became.
        contexts: The passages to judge against; None keeps the row's own.
        question: The question; None keeps the row's own.
        language: The language of the edited text.
    """

    answer: str
    before: str
    after: str
    contexts: tuple[str, ...] | None = None
    question: str | None = None
    language: str = "en"


@dataclass(frozen=True)
class Skip:
    """Why a generator could make no probe of a row (counted, never faked).

    Attributes:
        reason: A short reason shared by every row skipped the same way, e.g.
            `"no sentence with a number"`.
    """

    reason: str
