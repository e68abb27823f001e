"""A run's LM calls counted against the most it said it would make, with progress lines.

A compile on a real model can take an hour; it says before it starts how many LM calls it will
make at most (`CallMeter.announce`), prints a line of progress now and then, and keeps that
number: every row that may call an LM reserves the most calls it can make
(`WORST_CALLS_PER_PREDICTOR_CALL` per predictor call: the first reply, then either DSPy's JSON
fallback or the one retry of a reply cut at max_tokens) before it starts, and a row the rest
cannot pay for is not started (it ends with an error). The reservation is settled with the
calls the row made, so the count of calls made never passes the number announced.

The meter is found through a context variable (`metering`), so the library code between the
caller and the judge passes nothing; `Judge.batch` carries it into its worker threads.

Example:
    >>> meter = CallMeter(report=print)
    >>> meter.announce(10, "compile")
    compile: at most 10 LM calls
    >>> with meter.row(2) as row:
    ...     row.made = 1 if row.allowed else 0
    compile: 1 of at most 10 LM calls made, 1 rows judged, 0.0 min
    >>> meter.made
    1
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import threading
import time
from collections.abc import Callable, Iterator

__all__ = [
    "WORST_CALLS_PER_PREDICTOR_CALL",
    "CallMeter",
    "MeteredRow",
    "active_meter",
    "metering",
]

#: The most LM calls one predictor call makes: its reply, and one more (DSPy's JSON fallback
#: for a reply nothing can be read from, or the retry of a reply cut at max_tokens; never both).
WORST_CALLS_PER_PREDICTOR_CALL = 2

_active: contextvars.ContextVar[CallMeter | None] = contextvars.ContextVar(
    "ragjudge_call_meter", default=None
)
_in_row: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "ragjudge_metered_row", default=False
)


@dataclasses.dataclass
class MeteredRow:
    """One row under a meter: whether it may start, and the LM calls it made."""

    allowed: bool
    made: int = 0


class CallMeter:
    """LM calls made against a ceiling, with a progress line every `every` seconds.

    Args:
        report: Where progress lines go (`print`, a logger's method); None: nowhere.
        every: Seconds between progress lines (a line also comes at each tenth of the ceiling).
        clock: The time source (for tests).
    """

    def __init__(
        self,
        *,
        report: Callable[[str], None] | None = None,
        every: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.report = report
        self.every = every
        self.clock = clock
        #: The most calls announced (None: no ceiling yet).
        self.ceiling: int | None = None
        #: LM calls made by finished rows.
        self.made = 0
        #: Rows finished, and rows not started because the ceiling could not pay for them.
        self.rows = 0
        self.refused = 0
        self._reserved = 0
        self._lock = threading.Lock()
        self._label = ""
        self._started = clock()
        self._last_line = self._started
        self._last_tenth = 0

    def announce(self, ceiling: int, label: str, detail: str = "") -> None:
        """Say, before the calls start, the most LM calls the run will make, and keep it."""
        with self._lock:
            self.ceiling = max(0, int(ceiling))
            self._label = label
            self._started = self._last_line = self.clock()
        self._say(f"{label}: at most {self.ceiling} LM calls" + (f" ({detail})" if detail else ""))

    # -- rows --------------------------------------------------------------------------------
    @contextlib.contextmanager
    def row(self, worst: int) -> Iterator[MeteredRow]:
        """Reserve `worst` calls for one row. The row's `allowed` is False (nothing reserved)
        when the ceiling cannot pay for them; set its `made` to the calls it made. A row inside
        a row is the outer row's: it reserves nothing and its `made` is not counted."""
        if _in_row.get():
            yield MeteredRow(allowed=True)
            return
        with self._lock:
            allowed = self.ceiling is None or self.made + self._reserved + worst <= self.ceiling
            if allowed:
                self._reserved += worst
            else:
                self.refused += 1
        row = MeteredRow(allowed=allowed)
        token = _in_row.set(True)
        try:
            yield row
        finally:
            _in_row.reset(token)
            with self._lock:
                self._reserved -= worst if allowed else 0
                self.made += row.made
                self.rows += 1
            self._tick()

    # -- progress ----------------------------------------------------------------------------
    def line(self) -> str:
        """The progress so far, as one line."""
        minutes = (self.clock() - self._started) / 60
        ceiling = "?" if self.ceiling is None else str(self.ceiling)
        refused = f", {self.refused} rows not started (ceiling reached)" if self.refused else ""
        return (
            f"{self._label or 'LM calls'}: {self.made} of at most {ceiling} LM calls made, "
            f"{self.rows} rows judged{refused}, {minutes:.1f} min"
        )

    def _tick(self) -> None:
        now = self.clock()
        tenth = 0 if not self.ceiling else min(10, 10 * self.made // self.ceiling)
        if now - self._last_line < self.every and tenth <= self._last_tenth:
            return
        self._last_line, self._last_tenth = now, max(tenth, self._last_tenth)
        self._say(self.line())

    def _say(self, text: str) -> None:
        if self.report is not None:
            self.report(text)


@contextlib.contextmanager
def metering(meter: CallMeter) -> Iterator[CallMeter]:
    """Count every metered row's LM calls in the block on `meter`."""
    token = _active.set(meter)
    try:
        yield meter
    finally:
        _active.reset(token)


def active_meter() -> CallMeter | None:
    """The meter of the enclosing `metering` block, if any."""
    return _active.get()
