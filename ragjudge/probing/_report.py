"""What a probe run found: per kind, how many probes the judge caught (must-fail) or kept
(must-pass), how sure it was when it missed, and one miss to read."""

from __future__ import annotations

import math
from collections.abc import Sequence

import pydantic

from ragjudge.probing._generate import KindCount

__all__ = ["CONFIDENT", "KindRow", "ProbeOutcome", "ProbeReport", "SourceCell"]

#: A miss is confident when a must-fail probe scores at least `CONFIDENT[1]` (a sure pass) or
#: a must-pass probe at most `CONFIDENT[0]` (a sure fail), on the unit scale; a score between
#: the two is unsure.
CONFIDENT = (0.1, 0.9)


class ProbeOutcome(pydantic.BaseModel):
    """One probe as the judge saw it.

    Attributes:
        id: The probe's id (`<row id>::<kind>`).
        kind: Its kind.
        expect: `fail` or `pass`.
        source: The source of its row.
        score: The judge's score on the unit scale [0, 1]; NaN for an error.
        passed: The judge's verdict; None for an error.
        held: True when the verdict is the expected one (caught or kept).
        error: Why the probe could not be judged.
        answer: The answer variant.
        edit: The edit, `before -> after`.
        reason: The judge's reason.
    """

    model_config = pydantic.ConfigDict(ser_json_inf_nan="null")

    id: str
    kind: str
    expect: str
    source: str
    score: float
    passed: bool | None
    held: bool
    error: str | None = None
    answer: str
    edit: str
    reason: str = ""

    @pydantic.field_validator("score", mode="before")
    @classmethod
    def _null_score(cls, value: object) -> object:
        return math.nan if value is None else value

    @property
    def confident_miss(self) -> bool:
        """A miss the judge was sure of (see `CONFIDENT`)."""
        if self.held or math.isnan(self.score):
            return False
        low, high = CONFIDENT
        return self.score >= high if self.expect == "fail" else self.score <= low

    @property
    def unsure(self) -> bool:
        """A score strictly between the two confident bounds."""
        return CONFIDENT[0] < self.score < CONFIDENT[1]


class SourceCell(pydantic.BaseModel):
    """One kind on one source: probes judged and held."""

    probes: int = 0
    held: int = 0

    @property
    def rate(self) -> float | None:
        """The share held; None without probes."""
        return self.held / self.probes if self.probes else None


class KindRow(pydantic.BaseModel):
    """One line of the capability table.

    Attributes:
        kind: The kind.
        expect: `fail` (must-fail: `held` counts probes caught) or `pass` (kept).
        summary: What the kind's edit is.
        probes: Probes judged.
        held: Probes caught (must-fail) or kept (must-pass).
        confident_misses: Misses scored at or past the confident bound (`CONFIDENT`).
        unsure: Probes scored strictly between the confident bounds.
        errors: Probes that could not be judged (they count as not held).
        mean_score: The mean unit score of the judged probes.
        made: Probes generated (before any budget cut).
        skipped: Rows the generator could make nothing of.
        example: One miss, as a person reads it (the edit, the score, the judge's reason).
    """

    kind: str
    expect: str
    summary: str
    probes: int
    held: int
    confident_misses: int
    unsure: int
    errors: int
    mean_score: float | None
    made: int
    skipped: int
    example: str | None = None

    @property
    def rate(self) -> float | None:
        """The share held; None without probes."""
        return self.held / self.probes if self.probes else None


class ProbeReport(pydantic.BaseModel):
    """A judge's capability table, kind by kind, with each probe's outcome.

    Attributes:
        judge: The judge, as a person names it (class, mode, LM).
        rows: Rows the probes were made from.
        seed: The generation seed.
        per_kind: The cap per kind (None: as many as the rows allow).
        kinds: One line per kind, must-fail kinds first.
        sources: kind -> source -> probes judged and held.
        outcomes: Every probe judged.
        lm_calls: LM calls the judge made.
        max_lm_calls: The cap on them (None: none).
        note: What the run left out and why (a budget cut), or empty.
        seconds_generate: Time spent making probes.
        seconds_judge: Time spent judging them.
    """

    judge: str
    rows: int
    seed: int
    per_kind: int | None
    kinds: list[KindRow]
    sources: dict[str, dict[str, SourceCell]]
    outcomes: list[ProbeOutcome]
    lm_calls: int = 0
    max_lm_calls: int | None = None
    note: str = ""
    seconds_generate: float = 0.0
    seconds_judge: float = 0.0

    @classmethod
    def build(
        cls,
        *,
        outcomes: Sequence[ProbeOutcome],
        counts: Sequence[KindCount],
        **fields: object,
    ) -> ProbeReport:
        """The report of `outcomes`, one table line per kind of `counts` (in their order)."""
        lines: list[KindRow] = []
        sources: dict[str, dict[str, SourceCell]] = {}
        for count in counts:
            mine = [o for o in outcomes if o.kind == count.kind]
            scored = [o.score for o in mine if not math.isnan(o.score)]
            misses = [o for o in mine if not o.held]
            lines.append(
                KindRow(
                    kind=count.kind,
                    expect=count.expect,
                    summary=count.summary,
                    probes=len(mine),
                    held=sum(o.held for o in mine),
                    confident_misses=sum(o.confident_miss for o in mine),
                    unsure=sum(o.unsure for o in mine),
                    errors=sum(o.error is not None for o in mine),
                    mean_score=sum(scored) / len(scored) if scored else None,
                    made=count.made,
                    skipped=sum(count.skipped.values()),
                    example=_example(misses),
                )
            )
            cells: dict[str, SourceCell] = {}
            for o in mine:
                cell = cells.setdefault(o.source or "-", SourceCell())
                cell.probes += 1
                cell.held += int(o.held)
            sources[count.kind] = dict(sorted(cells.items()))
        return cls(kinds=lines, sources=sources, outcomes=list(outcomes), **fields)  # type: ignore[arg-type]

    def line(self, kind: str) -> KindRow:
        """The table line of `kind`.

        Raises:
            KeyError: When the run made no probe of that kind.
        """
        for row in self.kinds:
            if row.kind == kind:
                return row
        raise KeyError(kind)

    def side(self, expect: str | None) -> tuple[int, int]:
        """(held, probes) over the must-fail (`fail`), must-pass (`pass`) or all kinds."""
        chosen = [r for r in self.kinds if expect is None or r.expect == expect]
        return sum(r.held for r in chosen), sum(r.probes for r in chosen)

    def table(self) -> str:
        """The capability table for a person."""
        head = (
            f"{'kind':<22} {'expect':<6} {'probes':>6} {'held':>6} {'rate':>6} "
            f"{'sure miss':>9} {'unsure':>6} {'mean':>5}  example miss"
        )
        out = [f"probes of {self.judge}, made from {self.rows} rows (seed {self.seed})", head]
        for expect, title in (("fail", "must fail (caught)"), ("pass", "must pass (kept)")):
            rows = [r for r in self.kinds if r.expect == expect]
            if not rows:
                continue
            held, total = self.side(expect)
            share = f" ({held / total:.0%})" if total else ""
            out.append(f"-- {title}: {held} of {total}{share}")
            for r in rows:
                rate = "-" if r.rate is None else f"{r.rate:.0%}"
                mean = "-" if r.mean_score is None else f"{r.mean_score:.2f}"
                errors = f" ({r.errors} errors)" if r.errors else ""
                example = (r.example or ("no probe could be made" if not r.made else "")) + errors
                out.append(
                    f"{r.kind:<22} {r.expect:<6} {r.probes:>6} {r.held:>6} {rate:>6} "
                    f"{r.confident_misses:>9} {r.unsure:>6} {mean:>5}  {_cut(example, 90)}"
                )
        out.append(
            "held: caught (a must-fail probe failed) or kept (a must-pass probe passed); sure "
            f"miss: a miss scored >= {CONFIDENT[1]} (must fail) or <= {CONFIDENT[0]} (must pass)"
        )
        timing = f"{self.seconds_generate:.1f} s generating, {self.seconds_judge:.1f} s judging"
        calls = f"; {self.lm_calls} LM calls" if self.lm_calls or self.max_lm_calls else ""
        cap = f" (at most {self.max_lm_calls})" if self.max_lm_calls is not None else ""
        out.append(timing + calls + cap)
        if self.note:
            out.append(self.note)
        return "\n".join(out)

    def summary(self) -> dict[str, object]:
        """The report as JSON data without the per-probe outcomes."""
        data = self.model_dump(mode="json", exclude={"outcomes"})
        for line, row in zip(data["kinds"], self.kinds, strict=True):
            line["rate"] = row.rate
        return data


def _example(misses: Sequence[ProbeOutcome]) -> str | None:
    if not misses:
        return None
    worst = sorted(misses, key=lambda o: (not o.confident_miss, o.id))[0]
    score = "error" if math.isnan(worst.score) else f"{worst.score:.2f}"
    return f"{worst.edit} scored {score}"


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"
