"""A short hash of one row (its id and what a judge reads), to record which rows a judge saw."""

from __future__ import annotations

import hashlib
import json

from ragjudge.data._gold import GoldRecord

__all__ = ["row_hash"]


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
