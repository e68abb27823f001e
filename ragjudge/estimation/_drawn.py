"""Labeled rows drawn by `ragjudge label --strategy estimate`: each draw weighted by one over
the probability it had (`meta.sampling.pi`), so that the estimate stays unbiased although the
rows were not drawn uniformly (active inference, `ragjudge.stats._active`)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ragjudge.data._gold import GoldRecord, is_review_answer
from ragjudge.exceptions import ConfigurationError, GoldDataError
from ragjudge.stats._active import ActiveEstimate, active_mean

__all__ = [
    "DrawnEstimate",
    "drawn_estimate",
    "draws_of",
    "skip_note",
    "skipped_draws",
    "skipped_in_file",
]


def draws_of(record: GoldRecord | None) -> list[float]:
    """The draw probabilities `ragjudge label` recorded for a row (empty: not drawn)."""
    if record is None:
        return []
    sampling = record.meta.get("sampling")
    if not isinstance(sampling, dict) or sampling.get("strategy") != "estimate":
        return []
    return [float(p) for p in sampling.get("pi") or []]


def skipped_draws(answers: Iterable[tuple[int | None, Sequence[float]]]) -> tuple[int, int]:
    """The drawn rows a reviewer skipped, and their draws: the one rule the review page and
    `estimate` share.

    A row drawn by `ragjudge label --strategy estimate` and skipped (its last answer is a skip)
    has its draws dropped: the estimate is over the draws that were answered. That keeps it
    unbiased only if skipping says nothing about the label (`skip_note`).

    Args:
        answers: Each row's last answer: its label (None: a skip) and the probabilities of its
            draws (empty: not drawn).

    Returns:
        (rows, draws) skipped.

    Example:
        >>> skipped_draws([(None, [0.01, 0.02]), (1, [0.03]), (None, [])])
        (1, 2)
    """
    rows = draws = 0
    for label, drawn in answers:
        if label is None and drawn:
            rows += 1
            draws += len(drawn)
    return rows, draws


def skip_note(rows: int, draws: int) -> str | None:
    """What the page and `estimate` say of skipped draws (None: none skipped).

    Example:
        >>> skip_note(3, 4)[:60]
        '3 drawn rows skipped (4 draws dropped): the estimate assumes '
    """
    if rows <= 0:
        return None
    return (
        f"{rows} drawn row{'s' if rows != 1 else ''} skipped ({draws} "
        f"draw{'s' if draws != 1 else ''} dropped): the estimate assumes a skip says nothing "
        "about the label (if the rows skipped are more often unfaithful than those answered, "
        "it is biased)"
    )


def skipped_in_file(path: str | Path) -> tuple[int, int]:
    """`skipped_draws` of a gold file `ragjudge label` wrote: its skip lines, which `load_gold`
    leaves out, read again (each id's last review answer). (0, 0) for a file that is not a
    local `.jsonl` file."""
    path = Path(path)
    if path.suffix != ".jsonl" or not path.is_file():
        return 0, 0
    last: dict[str, tuple[int | None, list[float]]] = {}
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if not line.strip():
                continue
            try:
                record = GoldRecord.model_validate(json.loads(line))
            except ValueError:  # load_gold has judged the file already
                continue
            if is_review_answer(record):
                last[record.id] = (record.faithful, draws_of(record))
    return skipped_draws(last.values())


class DrawnEstimate:
    """The weighted estimate (`ppi`: judge + labels; `classical`: the labels alone, weighted)
    and what the reader should know."""

    def __init__(
        self, *, ppi: ActiveEstimate, classical: ActiveEstimate, rows: int, note: str
    ) -> None:
        self.ppi, self.classical, self.rows, self.note = ppi, classical, rows, note


def drawn_estimate(
    *,
    labeled: Sequence[Any],
    labels: np.ndarray,
    predicted: np.ndarray,
    predicted_all: np.ndarray,
    gold: str,
    by: str | None,
    level: float,
) -> DrawnEstimate | None:
    """The active-inference estimate when some labeled rows were drawn by `ragjudge label
    --strategy estimate`; None when none was.

    Args:
        labeled: The labeled rows (each with `.record`, `.number`), in the order of `labels`.
        labels: Their labels; predicted: the judge's prediction on each.
        predicted_all: The judge's prediction on every measured row (the rows drawn from).
        gold: The gold file's name (for errors; a `.jsonl` file is read again for its skips).
        by: The stratifying field, if any (not supported with draws).
        level: The interval's level.

    Raises:
        GoldDataError: The draws were made from another number of rows than measured.
        ConfigurationError: `by` with drawn rows.
    """
    draws = [draws_of(getattr(r, "record", None)) for r in labeled]
    chosen = [i for i, d in enumerate(draws) if d]
    if not chosen:
        return None
    if by:
        raise ConfigurationError(
            "`by` cannot stratify rows drawn by `ragjudge label --strategy estimate` (their "
            "weights are for all the rows); drop `by`"
        )
    first = labeled[chosen[0]]
    sampling = first.record.meta["sampling"]
    drawn_from = int(sampling.get("rows") or 0)
    if drawn_from != predicted_all.size:
        raise GoldDataError(
            f"its rows were drawn from {drawn_from} rows by `ragjudge label --strategy "
            f"estimate`, but {predicted_all.size} rows are measured: estimate the rows they "
            "were drawn from",
            file=gold,
            row=first.number,
            field="meta.sampling",
        )
    y = np.array([labels[i] for i in chosen for _ in draws[i]])
    f = np.array([predicted[i] for i in chosen for _ in draws[i]])
    q = np.array([p for i in chosen for p in draws[i]])
    ppi = active_mean(
        labels=y, predicted=f, probabilities=q, predicted_all=predicted_all, level=level
    )
    classical = active_mean(
        labels=y, predicted=f, probabilities=q, predicted_all=predicted_all, level=level, lam=0.0
    )
    left_out = len(labeled) - len(chosen)
    note = (
        f"{len(chosen)} labeled rows ({y.size} draws) were drawn by `ragjudge label --strategy "
        "estimate`: each draw weighted by one over its probability (active inference)"
    )
    if left_out:
        note += f"; {left_out} labeled rows not drawn so were left out"
    note += (
        "; no row is left out for the judge having been fitted on it: the weights are for all "
        "the rows, and keep the estimate unbiased whatever the judge"
    )
    skipped = skip_note(*skipped_in_file(gold))
    if skipped:
        note += f"; {skipped}"
    return DrawnEstimate(ppi=ppi, classical=classical, rows=len(chosen), note=note)
