"""Opening a labeling session: the rows read and checksummed, the gold file read back, the
judge's scores taken from the sidecar file or computed once."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from ragjudge.data._gold import load_gold
from ragjudge.data._paths import check_not_inputs
from ragjudge.exceptions import ConfigurationError, GoldDataError
from ragjudge.label._holds import Holds, holds_path
from ragjudge.label._scores import file_sha256, load_or_score, scores_path
from ragjudge.label._session import LEASE_SECONDS, Session, read_answers
from ragjudge.label._strategy import STRATEGIES
from ragjudge.programs._base import Judge

__all__ = ["open_session"]


@contextmanager
def _as_they_are() -> Iterator[None]:
    """Errors that suggest a column mapping say what works here instead: `label` reads its
    files as they are (it has no `mapping`: the gold file it appends to is read as it is by
    every command, so its columns must be ragjudge's own), so the column is to be renamed.

    Raises:
        GoldDataError: The error, its mapping said as a rename.
    """
    try:
        yield
    except GoldDataError as exc:
        if not exc.suggestion:
            raise
        text = str(exc)
        for field, column in exc.suggestion.items():
            text = text.replace(
                f"map {field}={column}, else rename the column",
                f"rename the column {column!r} to {field!r}, else rename or drop it",
            )
            text = text.replace(
                f"map {field}={column}", f"rename the column {column!r} to {field!r}"
            )
        raise GoldDataError(
            f"{text} (`ragjudge label` reads its files as they are: it has no --map)"
        ) from None


def open_session(
    *,
    rows: str | os.PathLike[str],
    gold: str | os.PathLike[str],
    judge: Judge | str | os.PathLike[str] | None = None,
    strategy: str = "random",
    target_width: float | None = None,
    seed: int = 0,
    level: float = 0.95,
    overlap: float = 0.0,
    hold_seconds: float = LEASE_SECONDS,
    on_progress: Callable[[int], None] | None = None,
) -> Session:
    """A labeling session over `rows`, appending answers to `gold`.

    Args:
        rows: The traffic rows to label (a `.jsonl`, `.csv` or `.parquet` file).
        gold: The gold file answers are appended to (`.jsonl`; created when missing).
        judge: A judge, a judge file, or None for the offline judge.
        strategy: Which row next: `random` (stratified by source), `uncertain` (the judge's
            least sure first) or `estimate` (drawn for the active-inference estimate).
        target_width: The interval width the page counts labels toward.
        seed: Seeds the strategy.
        level: The interval's level.
        overlap: The share of each reviewer's rows that another reviewer labeled first (for
            inter-rater agreement; 0: none).
        hold_seconds: How long a row shown to a reviewer stays theirs without an answer
            (the holds are shared by every process on `gold`, in `<gold>.holds.sqlite`).
        on_progress: Called with a count as rows are judged (once; the scores are cached in
            `<gold>.scores.json`).

    Returns:
        A `Session`.

    Raises:
        GoldDataError: Rows or gold that cannot be read (one line naming file, row, field).
        ConfigurationError: A bad option.

    Example:
        >>> session = open_session(rows="traffic.jsonl", gold="gold.jsonl")  # doctest: +SKIP
        >>> row_id = session.next_row("ana")  # doctest: +SKIP
        >>> session.answer(reviewer="ana", row_id=row_id, label=1)  # doctest: +SKIP
    """
    from ragjudge.estimation._estimate import load_judge

    if strategy not in STRATEGIES:
        raise ConfigurationError(
            f"The `strategy` parameter must be one of {', '.join(STRATEGIES)}; got {strategy!r}"
        )
    if target_width is not None and not 0 < target_width < 1:
        raise ConfigurationError("The `target_width` parameter must be in (0, 1)")
    if not 0 <= overlap <= 1:
        raise ConfigurationError("The `overlap` parameter must be in [0, 1]")
    if not hold_seconds > 0:
        raise ConfigurationError("The `hold_seconds` parameter must be positive")
    rows_path, gold_path = Path(rows), Path(gold)
    if not rows_path.is_file():
        raise GoldDataError("file not found", file=str(rows_path))
    if gold_path.suffix != ".jsonl":
        raise GoldDataError("the gold file must be a .jsonl file", file=str(gold_path))
    judge_file = judge if isinstance(judge, (str, os.PathLike)) else None
    check_not_inputs(  # the one rule: no output over an input (data/_paths.py)
        {
            "`gold`": gold_path,
            "the scores file": scores_path(gold_path),
            "the holds file": holds_path(gold_path),
        },
        {"`rows`": rows_path, "`judge`": judge_file},
    )
    sha = file_sha256(rows_path)
    with _as_they_are():
        records = load_gold(rows_path)
        read_answers(gold_path)  # refuse a bad gold file before judging anything
    with Holds(holds_path(gold_path), seconds=hold_seconds, gold=gold_path).locked():
        pass  # and a holds file that cannot be used
    made = load_judge(judge)
    cache = load_or_score(
        rows=records,
        rows_sha256=sha,
        judge=made,
        path=scores_path(gold_path),
        inputs=[rows_path, gold_path],
        on_progress=on_progress,
    )
    if file_sha256(rows_path) != sha:
        raise GoldDataError("the rows file changed while it was read", file=str(rows_path))
    threshold = float(getattr(made, "threshold", 0.5) or 0.5)
    return Session(
        rows=records,
        rows_path=rows_path,
        gold_path=gold_path,
        scores=cache,
        judge=made,
        strategy=strategy,
        threshold=threshold,
        target_width=target_width,
        seed=seed,
        level=level,
        overlap=overlap,
        hold_seconds=hold_seconds,
    )
