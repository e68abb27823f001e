"""A cap on the LM calls a compile spends on raw outputs (`--max-lm-calls`).

A compile judges its tuning rows once per (mode, demo set) and caches the raw outputs; trials
that change only thresholds and policies are free. With a real model those raw-output sets are
the whole cost, so the budget is checked before a set starts (a set the remaining calls
cannot finish, at the calls a row of its mode is planned or seen to take, is not started) and
again before each chunk of rows (a row that took more calls than planned can still leave a set
unfinished). What was skipped is recorded for the report. Cache hits are not calls and cost nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

import pydantic

from ragjudge.data._gold import GoldRecord
from ragjudge.lm._meter import WORST_CALLS_PER_PREDICTOR_CALL
from ragjudge.programs._base import Judge
from ragjudge.programs._results import JudgeResult

__all__ = [
    "BudgetSpentError",
    "LMCallBudget",
    "SkippedSet",
    "call_ceiling",
    "judge_within_budget",
]

logger = logging.getLogger(__name__)


class BudgetSpentError(Exception):
    """The remaining LM calls cannot pay for the next chunk of rows."""


class SkippedSet(pydantic.BaseModel):
    """A (mode, demo set) whose raw outputs the budget did not pay for."""

    mode: str
    demos: int
    rows_judged: int
    rows: int
    calls_spent: int


class LMCallBudget:
    """At most `limit` LM calls for raw outputs (None: no limit).

    The cost of a row is estimated per mode as the most calls any row of that mode has taken
    so far, and never less than the calls the plan names for it (`plan`; one call where it
    names nothing; none where it names none and no row has called an LM). A mode's first row
    is judged alone, so the budget is exceeded only when a row takes more calls than every row
    of its mode before it and than the plan said.

    Args:
        limit: The most LM calls to spend.
    """

    def __init__(self, limit: int | None) -> None:
        self.limit = limit
        #: The most calls spendable now: `limit`, less what is reserved for later steps.
        self.cap = limit
        self.reserved = 0
        self.spent = 0
        self.skipped: list[SkippedSet] = []
        self._per_row: dict[str, int] = {}
        self._planned: dict[str, int] = {}

    def plan(self, calls: dict[str, int]) -> None:
        """The calls a row of each mode is planned to take (the judge's spec says)."""
        self._planned = dict(calls)

    @property
    def remaining(self) -> int | None:
        """Calls left, or None without a limit."""
        return None if self.cap is None else max(0, self.cap - self.spent)

    def reserve(self, calls: int) -> None:
        """Hold `calls` back for later steps (validation): `remaining` leaves them out."""
        if self.limit is not None:
            self.reserved = calls
            self.cap = self.limit - calls

    def release(self) -> None:
        """Give the reserved calls back (the later steps run now)."""
        self.cap = self.limit

    def observed(self, mode: str) -> bool:
        """Whether a row of `mode` has been judged yet."""
        return mode in self._per_row

    def row_cost(self, mode: str) -> int:
        """The estimated calls of one row of `mode`."""
        if self._planned.get(mode) == 0 and not self._per_row.get(mode):
            return 0  # the plan says a row of this mode calls no LM, and none has
        return max(1, self._per_row.get(mode, 1), self._planned.get(mode, 1))

    def affords(self, mode: str, rows: int) -> bool:
        """Whether `rows` more rows of `mode` fit in the remaining calls."""
        remaining = self.remaining
        return remaining is None or remaining >= rows * self.row_cost(mode)

    def skip(self, skipped: SkippedSet) -> None:
        """Record a set the budget did not pay for, once (as it was when first skipped)."""
        if not any(s.mode == skipped.mode and s.demos == skipped.demos for s in self.skipped):
            self.skipped.append(skipped)

    def start_set(self, mode: str, demos: int, rows: int) -> None:
        """Check, before a raw-output set's first call, that the rest can pay for all of it.

        Raises:
            BudgetSpentError: When it cannot; the set is recorded in `skipped`, no call spent.
        """
        if self.affords(mode, rows):
            return
        self.skip(SkippedSet(mode=mode, demos=demos, rows_judged=0, rows=rows, calls_spent=0))
        logger.info(
            "LM call budget: %s left, raw outputs for mode %s, demo set %d (%d rows at %d "
            "call(s)) not started",
            self.remaining,
            mode,
            demos,
            rows,
            self.row_cost(mode),
        )
        raise BudgetSpentError(f"mode {mode}, demo set {demos}")

    def charge(self, mode: str, results: Sequence[JudgeResult]) -> None:
        """Count the calls of judged rows and learn the mode's cost per row."""
        calls = [r.lm_calls for r in results]
        self.spent += sum(calls)
        if calls:
            self._per_row[mode] = max(self._per_row.get(mode, 0), *calls)

    def record(self) -> dict[str, Any]:
        """What the report keeps: the limit, the calls spent, the skipped sets."""
        return {
            "limit": self.limit,
            "spent": self.spent,
            "reserved_after_study": self.reserved,
            "skipped": [s.model_dump() for s in self.skipped],
        }


def call_ceiling(
    *,
    tune_rows: int,
    mode_calls: Sequence[int],
    demo_sets: int,
    after_study: int,
    start: int,
    limit: int | None,
) -> tuple[int, str]:
    """The most LM calls a compile can make, and what they are for, said before it starts.

    Every raw-output set the study may ask for (each mode with each demo set, on every
    tuning row), the runs after the study (`after_study`: validation, the ablation, an `init`
    judge) and the start judged on the tuning rows (`start`), each predictor call counted
    with the one more call it may need (`WORST_CALLS_PER_PREDICTOR_CALL`: a fallback, or the
    retry of a reply cut at max_tokens); never more than `limit` (`max_lm_calls`).

    Args:
        tune_rows: The tuning rows.
        mode_calls: The predictor calls a row costs in each mode the study may choose.
        demo_sets: The demo sets the study chooses among.
        after_study: The predictor calls of the runs after the study (`AfterStudy.calls`).
        start: The predictor calls of the start judged on the tuning rows (0 when its outputs
            come from the study's).
        limit: `max_lm_calls`, if any.

    Returns:
        `(ceiling, what it is made of)`.
    """
    worst = WORST_CALLS_PER_PREDICTOR_CALL
    study = tune_rows * demo_sets * sum(mode_calls)
    total = worst * (study + after_study + start)
    detail = (
        f"{len(mode_calls)} mode(s) x {demo_sets} demo set(s) x {tune_rows} tuning rows, "
        f"then {after_study + start} calls of validation and baselines, each call counted "
        f"x{worst} for a fallback or a retry"
    )
    if limit is not None and limit < total:
        return limit, f"--max-lm-calls; without it {total}: {detail}"
    return total, detail


def judge_within_budget(
    judge: Judge,
    rows: Sequence[GoldRecord],
    *,
    budget: LMCallBudget,
    mode: str,
    demos: int,
    concurrency: int,
    on_result: Callable[[int, JudgeResult], None] | None = None,
    fill: bool = False,
) -> list[JudgeResult]:
    """Judge `rows` in chunks of `concurrency`, each paid for before it starts.

    Args:
        judge: The judge to run.
        rows: The rows.
        budget: The calls left; charged as rows finish.
        mode: The judge's mode (the unit of the cost estimate).
        demos: The demo set's index, for the record of a skipped set.
        concurrency: Rows judged at once (the chunk size).
        on_result: Called with each row's index and result.
        fill: Instead of raising, end every row the budget cannot pay for with the error
            "LM call budget spent" (validation: such rows count as failed and lowest).

    Returns:
        One result per row.

    Raises:
        BudgetSpentError: Before a chunk the remaining calls cannot pay for; the set is
            recorded in `budget.skipped`.
    """
    if budget.limit is None:
        return judge.batch(rows, concurrency=concurrency, on_result=on_result)
    out: list[JudgeResult] = []
    start = 0
    while start < len(rows):
        size = 1 if not budget.observed(mode) else max(1, concurrency)
        size = min(size, len(rows) - start)
        if not budget.affords(mode, size) and fill:
            error = f"LM call budget spent ({budget.spent} of {budget.limit} calls)"
            mode_name = judge.compile_spec().mode or mode
            out += [
                JudgeResult(metric=judge.metric, mode=mode_name, error=error) for _ in rows[start:]
            ]
            return out
        if not budget.affords(mode, size):
            budget.skip(
                SkippedSet(
                    mode=mode,
                    demos=demos,
                    rows_judged=len(out),
                    rows=len(rows),
                    calls_spent=sum(r.lm_calls for r in out),
                )
            )
            logger.info(
                "LM call budget spent (%d of %s): raw outputs for mode %s, demo set %d skipped "
                "after %d of %d rows",
                budget.spent,
                budget.limit,
                mode,
                demos,
                len(out),
                len(rows),
            )
            raise BudgetSpentError(f"mode {mode}, demo set {demos}")
        offset = start

        def forward(i: int, result: JudgeResult, offset: int = offset) -> None:
            if on_result is not None:
                on_result(offset + i, result)

        chunk = judge.batch(rows[start : start + size], concurrency=concurrency, on_result=forward)
        budget.charge(mode, chunk)
        out.extend(chunk)
        start += size
    return out
