"""`probe(judge, rows)`: make probes from rows, judge them, tabulate per kind."""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from ragjudge.data._gold import GoldRecord, rows_from
from ragjudge.exceptions import ConfigurationError
from ragjudge.probing._generate import ProbeSet, generate_probes
from ragjudge.probing._probe import Probe
from ragjudge.probing._report import ProbeOutcome, ProbeReport
from ragjudge.stats._threshold import UNSCORED

if TYPE_CHECKING:
    from ragjudge.programs._base import Judge
    from ragjudge.programs._results import JudgeResult

__all__ = ["describe_judge", "probe", "within_budget"]

#: Metrics whose judges read an answer against its passages: the ones probes test.
PROBED_METRICS = ("faithfulness", "deterministic")


def within_budget(probes: Sequence[Probe], *, rows: int | None) -> list[Probe]:
    """At most `rows` probes, taken from the kinds in turn (so every kind keeps a share);
    all of them when `rows` is None."""
    if rows is None or rows >= len(probes):
        return list(probes)
    by_kind: dict[str, list[Probe]] = {}
    for p in probes:
        by_kind.setdefault(p.kind, []).append(p)
    taken: list[Probe] = []
    depth = 0
    while len(taken) < rows:
        for queue in by_kind.values():
            if depth < len(queue) and len(taken) < rows:
                taken.append(queue[depth])
        depth += 1
    order = {p.id: i for i, p in enumerate(probes)}
    return sorted(taken, key=lambda p: order[p.id])


def describe_judge(judge: Judge) -> str:
    """How a person names the judge: its class, mode and LM."""
    name = type(judge).__name__
    mode = getattr(judge, "mode", None)
    lm = "offline judge" if judge.runs_offline() else _lm_name(judge)
    return f"{name}({'mode=' + repr(mode) + ', ' if mode else ''}{lm})"


def _lm_name(judge: Judge) -> str:
    try:
        return f"lm={getattr(judge.resolved_lm(), 'model', '?')}"
    except Exception:  # a judge whose LM cannot be resolved is still named
        return "an LM"


def probe(
    judge: Judge,
    rows: Any,
    *,
    kinds: Sequence[str] | None = None,
    per_kind: int | None = None,
    per_source: int | None = None,
    seed: int = 0,
    max_lm_calls: int | None = None,
    concurrency: int = 1,
    out: str | os.PathLike[str] | None = None,
    on_result: Callable[[int, JudgeResult], None] | None = None,
) -> ProbeReport:
    """Probe a judge: make behavioral tests from rows and tell, kind by kind, what it catches.

    Args:
        judge: Any faithfulness judge: offline, LM, compiled (`ragjudge.load`), a cascade,
            an ensemble.
        rows: The rows to make probes from, in any form `evaluate` reads (a file path, dicts,
            `GoldRecord`s), or a `ProbeSet` made before (`generate_probes`).
        kinds: The kinds to make (`ragjudge.probing.kinds()`, `must_fail`, `must_pass`);
            None for all.
        per_kind: The most probes of one kind (spread over the sources).
        per_source: The most probes of one kind from one source.
        seed: The seed of generation.
        max_lm_calls: The most LM calls the run may make: probes are judged, the kinds taken
            in turn, only as far as the judge's most calls per row allow.
        concurrency: Probes judged at once.
        out: Stream per-probe results to this `.jsonl` file (`run_rows`).
        on_result: Called as each probe is judged.

    Returns:
        The capability table and every probe's outcome.

    Raises:
        ConfigurationError: For a judge that does not judge answers against passages, an
            unknown kind, or a `max_lm_calls` below 1.

    Example:
        >>> import ragjudge
        >>> rows = [{"id": "r1", "question": "When did it open?", "answer": "In 2019.",
        ...          "contexts": ["The museum opened to visitors on 2 October 2019."]}]
        >>> report = ragjudge.probe(ragjudge.Faithfulness(), rows, kinds=["context_sentence"])
        >>> report.line("context_sentence").probes
        1
    """
    from ragjudge.evaluation._runner import run_rows

    if judge.metric not in PROBED_METRICS:
        raise ConfigurationError(
            f"probes test judges of an answer against its passages ({', '.join(PROBED_METRICS)});"
            f" the judge's metric is {judge.metric}"
        )
    if max_lm_calls is not None and max_lm_calls < 1:
        raise ConfigurationError(f"`max_lm_calls` must be at least 1, got {max_lm_calls}")
    made = (
        rows
        if isinstance(rows, ProbeSet)
        else _generate(rows, kinds=kinds, per_kind=per_kind, per_source=per_source, seed=seed)
    )
    spec = judge.compile_spec()
    per_row = spec.own_calls()
    cap = None if max_lm_calls is None or per_row == 0 else max_lm_calls // per_row
    chosen = within_budget(made.probes, rows=cap)
    note = ""
    if len(chosen) < len(made.probes):
        note = (
            f"judged {len(chosen)} of {len(made.probes)} probes, the kinds taken in turn: at most "
            f"{per_row} LM call(s) a probe within max_lm_calls={max_lm_calls}"
        )
    start = time.perf_counter()
    results = run_rows(
        judge,
        [p.record() for p in chosen],
        concurrency=concurrency,
        out=out,
        on_result=on_result,
    )
    seconds = time.perf_counter() - start
    outcomes = [_outcome(p, r, spec.unit(r)) for p, r in zip(chosen, results, strict=True)]
    return ProbeReport.build(
        outcomes=outcomes,
        counts=made.counts,
        judge=describe_judge(judge),
        rows=made.rows,
        seed=made.seed,
        per_kind=made.per_kind,
        lm_calls=sum(r.lm_calls for r in results),
        max_lm_calls=max_lm_calls,
        note=note,
        seconds_generate=made.seconds,
        seconds_judge=seconds,
    )


def _generate(rows: Any, **options: Any) -> ProbeSet:
    if not (isinstance(rows, Sequence) and all(isinstance(r, GoldRecord) for r in rows)):
        rows = rows_from(rows)
    return generate_probes(rows, **options)


def _outcome(p: Probe, result: JudgeResult, unit: float) -> ProbeOutcome:
    passed = None if result.error else result.passed
    held = passed is not None and passed == (p.expect == "pass")
    return ProbeOutcome(
        id=p.id,
        kind=p.kind,
        expect=p.expect,
        source=p.source,
        score=math.nan if unit == UNSCORED else unit,  # no score: shown as none
        passed=passed,
        held=held,
        error=result.error,
        answer=p.answer,
        edit=p.edit(),
        reason=result.reason,
    )
