"""A short hash of one row (its id and what a judge reads), to record which rows a judge saw,
and the one rule that reads that record back (`fitted_on`)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection

from ragjudge.data._gold import GoldRecord

__all__ = ["fitted_on", "row_hash"]


def row_hash(row: GoldRecord) -> str:
    """16 hex digits of the sha256 of the row's id, question, contexts and answer.

    The label is left out: the same row relabeled is still the row a judge was fitted on.
    Rows from two files with the same id but other content hash differently.

    Example:
        >>> len(row_hash(GoldRecord(id="1", question="q", contexts=["c"], answer="a")))
        16
    """
    content = [row.id, row.question, list(row.contexts), row.answer]
    text = json.dumps(content, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def fitted_on(row: GoldRecord, fitted_rows: Collection[str]) -> bool:
    """Whether a judge was fitted on `row`: its `row_hash` is among the hashes the judge's
    compile recorded (`CompileReport.fitted_rows`). `estimate` and `drift` leave such rows out.

    Example:
        >>> row = GoldRecord(id="1", question="q", contexts=["c"], answer="a")
        >>> fitted_on(row, {row_hash(row)}), fitted_on(row, set())
        (True, False)
    """
    return row_hash(row) in fitted_rows
