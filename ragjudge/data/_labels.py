"""The label of a row for a metric, and where it comes from: the one rule compile, evaluate,
drift and estimate share.

Faithfulness is labeled by people (`faithful`). Answer relevancy and context recall have no
human labels in the gold sets: their labels are derived from faithfulness gold
(`ragjudge.data._derived`), carried by the derived rows themselves, and never written into
`faithful` (a derived row has `faithful=None`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import pydantic

from ragjudge.data._derived import derive_gold, derived_label, is_derived
from ragjudge.data._gold import GoldRecord
from ragjudge.exceptions import GoldDataError

__all__ = [
    "gold_label",
    "label_source",
    "labeled_rows",
    "read_label",
    "row_label",
    "rows_for_metric",
]

LabelSource = Literal["human", "derived"]


def gold_label(row: GoldRecord, metric: str = "faithfulness") -> int | None:
    """The row's label for `metric`: its human `faithful` label for faithfulness, its derived
    label for the other metrics; None where it has none.

    Example:
        >>> gold_label(GoldRecord(id="x", answer="a", faithful=1))
        1
    """
    if metric == "faithfulness":
        return None if is_derived(row) else row.faithful
    return derived_label(row, metric)[0]


def read_label(value: Any, *, file: str, row: int, field: str = "faithful") -> int | None:
    """A label cell read by the rule a gold file's `faithful` is read by (0, 1, true/false,
    yes/no; empty or null: no label), for a label that reaches ragjudge outside a gold row
    (a results file's `gold`).

    Raises:
        GoldDataError: Any other value, naming `file`, `row` and `field`.

    Example:
        >>> read_label("yes", file="results.jsonl", row=1, field="gold")
        1
    """
    try:
        return GoldRecord(id="label", answer="", faithful=value).faithful
    except pydantic.ValidationError:
        raise GoldDataError(
            f"must be 0, 1 or empty, got {value!r}", file=file, row=row, field=field
        ) from None


def row_label(row: GoldRecord) -> int | None:
    """A row's own label: the derived one of a derived row, else its human `faithful`."""
    info = row.meta.get("derived")
    if is_derived(row) and isinstance(info, dict):
        return derived_label(row, str(info.get("metric")))[0]
    return row.faithful


def label_source(metric: str) -> LabelSource:
    """Where the labels of `metric` come from: people (faithfulness) or derivation."""
    return "human" if metric == "faithfulness" else "derived"


def rows_for_metric(metric: str, rows: Sequence[GoldRecord]) -> tuple[list[GoldRecord], str]:
    """The rows to judge for `metric`, and where their labels come from.

    Faithfulness uses the rows' human labels (derived rows are left out). Relevancy and recall
    use the rows' derived labels for that metric when they carry them, else labels derived from
    the rows' faithfulness gold (`derive_gold`, docs/derived-gold.md), else none.

    Returns:
        `(rows, provenance)`: "human", "derived (from the file)", "derived (built from ...)"
        or "none".
    """
    if metric == "faithfulness":
        own = [r for r in rows if not is_derived(r)]
        return (own or list(rows)), "human"
    carried = [r for r in rows if derived_label(r, metric)[0] is not None]
    if carried:
        return carried, "derived (from the file)"
    built = derive_gold([r for r in rows if not is_derived(r)]).get(metric, [])
    if built:
        return built, "derived (built from the rows' faithfulness gold, see docs/derived-gold.md)"
    return [r for r in rows if not is_derived(r)], "none"


def labeled_rows(rows: Sequence[GoldRecord], metric: str) -> list[GoldRecord]:
    """The rows that carry a label for `metric` (`gold_label`), as they are, derived from the
    faithfulness gold where no row carries one (`rows_for_metric`)."""
    chosen, _ = rows_for_metric(metric, rows)
    return [r for r in chosen if gold_label(r, metric) is not None]
