"""Judge many rows without losing work: ordered streaming output, resume, Ctrl-C safety.

`run_rows` judges rows `concurrency` at a time and, given `out=`, appends each result to a JSONL
file as soon as every row before it is done (so the file is always an input-order prefix of
the results, one flushed line per row). After a crash, Ctrl-C or SIGTERM, the same call with
`resume=True` reads the rows already written, judges only the others and appends them: every
row ends up in the file exactly once. A half-written last line (a crash mid-write) is cut off.
With `retry_errors=True` as well, the rows whose result is an error are judged again: the file
is rewritten without them (the other rows kept as they are) and their new results appended.

`.parquet` outputs stream into `<out>.partial.jsonl` and are converted when the run completes.

Example:
    >>> from ragjudge import Faithfulness, load_gold
    >>> rows = load_gold("rows.jsonl")  # doctest: +SKIP
    >>> results = run_rows(Faithfulness(), rows, out="results.jsonl", resume=True)  # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import signal
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import FrameType
from typing import IO, Any

import orjson
import pydantic

from ragjudge.data._gold import GoldRecord
from ragjudge.data._labels import gold_label
from ragjudge.exceptions import ConfigurationError, RagJudgeError
from ragjudge.programs._base import Judge
from ragjudge.programs._results import JudgeResult

__all__ = [
    "OUT_SUFFIXES",
    "ResumeError",
    "check_out_path",
    "read_results",
    "result_record",
    "run_rows",
    "write_results",
]

logger = logging.getLogger(__name__)


class ResumeError(RagJudgeError, ValueError):
    """An output file cannot be resumed (damaged, or written for other rows or another judge)."""


#: The results file's format: 2 adds each result's raw output (`raw`), which `Judge.rescore`
#: scores again; lines of format 1 (no `raw`, no `format_version`) are read back from their
#: fields (`Judge.legacy_raw`).
RESULTS_FORMAT_VERSION = 2


def result_record(row: GoldRecord, result: JudgeResult) -> dict[str, Any]:
    """One output line: the result plus the row's id, source and label for the result's
    metric (`gold_label`: the human label for faithfulness, the derived one for the other
    metrics; null where the row has none) (strict JSON)."""
    record: dict[str, Any] = orjson.loads(result.model_dump_json())
    record["format_version"] = RESULTS_FORMAT_VERSION
    record["id"] = row.id
    record["source"] = row.source
    record["gold"] = gold_label(row, result.metric)
    return record


def result_line(row: GoldRecord, result: JudgeResult) -> str:
    """`result_record` as one line of the output file (UTF-8 JSON, newline-terminated)."""
    return orjson.dumps(result_record(row, result), option=orjson.OPT_APPEND_NEWLINE).decode()


def read_results(path: str | os.PathLike[str]) -> dict[str, JudgeResult]:
    """The results already in an output file (JSONL or Parquet), by row id, in file order.

    Args:
        path: A file written by `run_rows` / `ragjudge evaluate --out`.

    Returns:
        `{row id: result}`; an empty dict when the file does not exist.

    Raises:
        ResumeError: If a line (other than a half-written last one) is not a result, or an id
            appears twice.

    Example:
        >>> done = read_results("results.jsonl")  # doctest: +SKIP
    """
    target = Path(path)
    if not target.exists():
        return {}
    if target.suffix == ".parquet":
        return _read_parquet(target)
    records, _ = _scan_jsonl(target)
    return records


def _scan_jsonl(target: Path) -> tuple[dict[str, JudgeResult], int]:
    """Results by id, and the byte length of the intact part of the file."""
    results: dict[str, JudgeResult] = {}
    good = 0
    with target.open("rb") as handle:
        data = handle.read()
    lines = data.split(b"\n")
    # The part after the last newline is a half-written line (or empty).
    for number, line in enumerate(lines[:-1], start=1):
        if line.strip():
            record = _parse_line(target, number, line)
            row_id = str(record["id"])
            if row_id in results:
                raise ResumeError(
                    f"{target}: line {number}: id {row_id!r} appears twice; the file was not "
                    "written by one ragjudge run, so it cannot be resumed"
                )
            results[row_id] = JudgeResult.from_json_data(record)
        good += len(line) + 1
    if lines[-1].strip():
        logger.warning("%s: dropping a half-written last line (%d bytes)", target, len(lines[-1]))
    return results, good


def _parse_line(target: Path, number: int, line: bytes) -> dict[str, Any]:
    try:
        record = json.loads(line)
        if not isinstance(record, dict) or record.get("id") is None:
            raise ValueError("not a result object with an id")
        JudgeResult.from_json_data(record)
    except (ValueError, UnicodeDecodeError, pydantic.ValidationError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ResumeError(
            f"{target}: line {number} is not a ragjudge result ({reason}); fix or delete that "
            "line, or run without `resume` to start over"
        ) from None
    return record


def _read_parquet(target: Path) -> dict[str, JudgeResult]:
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(target)
    except Exception as exc:  # pyarrow raises several types for damaged files
        raise ResumeError(f"{target}: cannot be read as Parquet ({exc})") from None
    results: dict[str, JudgeResult] = {}
    for record in table.to_pylist():
        for key in ("statements", "details"):
            if isinstance(record.get(key), str):
                record[key] = json.loads(record[key])
        results[str(record["id"])] = JudgeResult.from_json_data(record)
    return results


class _OrderedWriter:
    """Appends records in input order as they complete; flushes every line."""

    def __init__(self, handle: IO[str], order: Sequence[int]) -> None:
        self.handle = handle
        self.order = list(order)  # row indexes still to be written, in input order
        self.next = 0
        self.pending: dict[int, str] = {}

    def add(self, index: int, line: str) -> None:
        self.pending[index] = line
        wrote = False
        while self.next < len(self.order) and self.order[self.next] in self.pending:
            self.handle.write(self.pending.pop(self.order[self.next]))
            self.next += 1
            wrote = True
        if wrote:
            self.handle.flush()

    def close(self) -> None:
        self.handle.flush()
        with contextlib.suppress(OSError):
            os.fsync(self.handle.fileno())
        self.handle.close()


@contextlib.contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """Treat SIGTERM like Ctrl-C while a run writes (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


#: The file types `run_rows` writes results as.
OUT_SUFFIXES = (".jsonl", ".parquet")


def check_out_path(out: str | os.PathLike[str]) -> Path:
    """Refuse, before any row is judged, a results path that cannot be written as asked: an
    existing folder, or a suffix other than `.jsonl` / `.parquet` (results are never written
    in another format than the name says).

    Raises:
        ConfigurationError: Naming the path and the fix.

    Example:
        >>> check_out_path("results.jsonl").suffix
        '.jsonl'
    """
    target = Path(out)
    if target.is_dir():
        raise ConfigurationError(f"{target}: is a folder; name a .jsonl or .parquet file in it")
    if target.suffix.lower() not in OUT_SUFFIXES:
        extra = " (CSV is not written)" if target.suffix.lower() in (".csv", ".tsv") else ""
        raise ConfigurationError(
            f"{target}: results are written as .jsonl or .parquet; name a file ending in one of "
            f"them{extra}"
        )
    return target


def run_rows(
    judge: Judge,
    rows: Sequence[GoldRecord],
    *,
    concurrency: int = 1,
    out: str | os.PathLike[str] | None = None,
    resume: bool = False,
    retry_errors: bool = False,
    on_result: Callable[[int, JudgeResult], None] | None = None,
) -> list[JudgeResult]:
    """Judge rows, optionally streaming results to a file and resuming an interrupted run.

    Args:
        judge: The judge.
        rows: The rows (ids must be unique, as `load_gold` guarantees).
        concurrency: Rows judged at once (LM calls in flight).
        out: A `.jsonl` (or `.parquet`) file to write one result per row to, in input order.
        resume: Keep the results already in `out` and judge only the missing rows; without it
            `out` is started afresh.
        retry_errors: With `resume`, judge again the rows whose result in `out` is an error
            (a failed LM call, a timeout); the other rows are kept.
        on_result: Called as `(index, result)` as each row finishes, including rows taken from
            `out` when resuming.

    Returns:
        One result per row, in input order, each carrying its row id.

    Raises:
        ResumeError: If `out` holds results for rows that are not in `rows`, or from another
            metric, or is damaged.
        KeyboardInterrupt: On Ctrl-C or SIGTERM, after every finished row has been written.

    Example:
        >>> results = run_rows(judge, rows, concurrency=8, out="out.jsonl")  # doctest: +SKIP
    """
    if concurrency < 1:
        raise ValueError(f"concurrency must be at least 1, got {concurrency}")
    if resume and out is None:
        raise ValueError("resume=True needs out=...")
    if retry_errors and not resume:
        raise ValueError("retry_errors=True needs resume=True")
    results: list[JudgeResult | None] = [None] * len(rows)
    if out is None:
        for index, result in judge.iter_batch(rows, concurrency=concurrency):
            results[index] = result
            if on_result is not None:
                on_result(index, result)
        return _complete(results)

    target = check_out_path(out)
    final_parquet = target if target.suffix.lower() == ".parquet" else None
    stream = target.with_name(target.name + ".partial.jsonl") if final_parquet else target
    stream.parent.mkdir(parents=True, exist_ok=True)
    done: dict[str, JudgeResult] = {}
    keep = 0
    if resume:
        if stream.exists():
            done, keep = _scan_jsonl(stream)
        elif final_parquet is not None and final_parquet.exists():
            done = _read_parquet(final_parquet)
            by_id = {row.id: row for row in rows}
            _check_resumable(target, rows, done, judge)
            _write_jsonl(stream, [(by_id[i], r) for i, r in done.items()])
            keep = stream.stat().st_size
        _check_resumable(target, rows, done, judge)
        failed = [row_id for row_id, result in done.items() if result.error]
        if retry_errors and failed:
            done = {row_id: r for row_id, r in done.items() if not r.error}
            keep = _rewrite(stream, rows, done)
            logger.info("retrying %d rows of %s that ended in an error", len(failed), stream)
    index_of = {row.id: i for i, row in enumerate(rows)}
    for row_id, result in done.items():
        index = index_of[row_id]
        results[index] = result
        if on_result is not None:
            on_result(index, result)
    todo = [i for i, row in enumerate(rows) if row.id not in done]
    if done:
        logger.info("resuming %s: %d rows done, %d to judge", stream, len(done), len(todo))
    if resume and stream.exists():
        with stream.open("r+b") as raw:  # cut a half-written last line
            raw.truncate(keep)
    handle = stream.open("a" if resume else "w", encoding="utf-8")
    writer = _OrderedWriter(handle, todo)
    subset = [rows[i] for i in todo]
    try:
        with _sigterm_as_interrupt():
            for sub_index, result in judge.iter_batch(subset, concurrency=concurrency):
                index = todo[sub_index]
                results[index] = result
                writer.add(index, result_line(rows[index], result))
                if on_result is not None:
                    on_result(index, result)
    finally:
        writer.close()
    complete = _complete(results)
    if final_parquet is not None:
        write_results(final_parquet, rows, complete)
        stream.unlink()
    return complete


def _rewrite(stream: Path, rows: Sequence[GoldRecord], done: dict[str, JudgeResult]) -> int:
    """Replace `stream` by the results in `done` (file order kept), atomically; its size."""
    by_id = {row.id: row for row in rows}
    partial = stream.with_name(stream.name + ".retry")
    _write_jsonl(partial, [(by_id[row_id], result) for row_id, result in done.items()])
    os.replace(partial, stream)
    return stream.stat().st_size


def _write_jsonl(path: Path, pairs: Sequence[tuple[GoldRecord, JudgeResult]]) -> None:
    with path.open("w", encoding="utf-8") as handle:
        for row, result in pairs:
            handle.write(result_line(row, result))


def _check_resumable(
    target: Path, rows: Sequence[GoldRecord], done: dict[str, JudgeResult], judge: Judge
) -> None:
    ids = {row.id for row in rows}
    foreign = [row_id for row_id in done if row_id not in ids]
    if foreign:
        raise ResumeError(
            f"{target}: holds {len(foreign)} rows that are not in the input (first: "
            f"{foreign[0]!r}); resume with the same rows, or write to another `out`"
        )
    metrics = {r.metric for r in done.values()} - {judge.metric}
    if metrics:
        raise ResumeError(
            f"{target}: holds results of metric {sorted(metrics)[0]!r}, not {judge.metric!r}; "
            "resume with the same judge, or write to another `out`"
        )


def _complete(results: list[JudgeResult | None]) -> list[JudgeResult]:
    missing = [i for i, r in enumerate(results) if r is None]
    if missing:
        raise RuntimeError(f"{len(missing)} rows were not judged (first index {missing[0]})")
    return [r for r in results if r is not None]


def write_results(
    path: str | os.PathLike[str], rows: Sequence[GoldRecord], results: Sequence[JudgeResult]
) -> None:
    """Write per-row results as JSONL or Parquet (by the file suffix)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    pairs = list(zip(rows, results, strict=True))
    if target.suffix == ".parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        records = [result_record(row, res) for row, res in pairs]
        flat = [
            {**r, "statements": json.dumps(r["statements"]), "details": json.dumps(r["details"])}
            for r in records
        ]
        pq.write_table(pa.Table.from_pylist(flat), target)
        return
    _write_jsonl(target, pairs)
