"""Seeded, grouped, label-stratified train/validation splits of gold rows."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ragjudge.data._gold import GoldRecord
from ragjudge.data._labels import row_label
from ragjudge.exceptions import ConfigurationError, GoldDataError
from ragjudge.stats._folds import group_folds

__all__ = ["group_key", "shared_question_rows", "split_gold", "strata"]


def group_key(row: GoldRecord, group_by: str | None) -> str:
    """The group of a row: the value at a dotted path (`meta.group_id`), or the row id."""
    if not group_by:
        return row.id
    value: Any = row.model_dump()
    for part in group_by.split("."):
        value = value.get(part) if isinstance(value, dict) else None
        if value is None or value == "":  # no key (an empty question, say): the row alone
            return row.id
    return str(value)


def strata(rows: Sequence[GoldRecord], labels: np.ndarray, *, min_count: int = 1) -> np.ndarray:
    """What a split stratifies on: the label, and the source too where the rows come from
    several and each source has at least `min_count` rows of each label (so every source is
    held out in proportion and has validation figures; fewer would thin the label's strata).

    Example:
        >>> rows = [GoldRecord(id=str(i), answer="x", source=s) for i, s in enumerate("aabb")]
        >>> strata(rows, np.array([0, 1, 0, 1])).tolist()
        [0, 1, 2, 3]
        >>> strata(rows, np.array([0, 1, 0, 1]), min_count=2).tolist()
        [0, 1, 0, 1]
    """
    y = np.asarray(labels, dtype=np.int64)
    sources = sorted({r.source for r in rows})
    index = {s: i for i, s in enumerate(sources)}
    codes = np.array([2 * index[r.source] for r in rows], dtype=np.int64) + y
    if len(sources) < 2 or np.bincount(codes, minlength=2 * len(sources)).min() < min_count:
        return y
    return codes


def shared_question_rows(rows: Sequence[GoldRecord], group_by: str | None) -> int:
    """How many rows share their (non-empty) question with a row of another group: pairs such
    as HaluEval's right and hallucinated answers to one question, which a split by `group_by`
    may put on both sides (validation rows whose twin was trained on).

    Example:
        >>> a = GoldRecord(id="a", question="Who?", answer="x")
        >>> b = GoldRecord(id="b", question="Who?", answer="y")
        >>> shared_question_rows([a, b], None), shared_question_rows([a, b], "question")
        (2, 0)
    """
    groups: dict[str, set[str]] = {}
    for row in rows:
        if row.question.strip():
            groups.setdefault(row.question.strip(), set()).add(group_key(row, group_by))
    shared = {q for q, g in groups.items() if len(g) > 1}
    return sum(1 for row in rows if row.question.strip() in shared)


def split_gold(
    rows: Sequence[GoldRecord],
    *,
    valid_fraction: float = 0.3,
    group_by: str | None = "meta.group_id",
    seed: int = 0,
) -> tuple[list[GoldRecord], list[GoldRecord]]:
    """Split labeled rows into train and validation.

    Rows of one group never straddle the split; labels (and sources, `strata`) are stratified
    as far as groups allow.

    Args:
        rows: Labeled gold rows.
        valid_fraction: The share of rows held out for validation.
        group_by: Dotted path of the group key (`meta.group_id`); None groups by row.
        seed: Seed of the shuffle.

    Returns:
        `(train, validation)`, each in the original row order.

    Raises:
        ConfigurationError: If `valid_fraction` is not in (0, 0.9].
        GoldDataError: If there are too few rows or groups, or only one label.
    """
    if not 0.0 < valid_fraction <= 0.9:
        raise ConfigurationError(
            f"The `valid_fraction` parameter must be in (0, 0.9]. Got {valid_fraction!r} instead."
        )
    labels = np.array([int(row_label(r) or 0) for r in rows])
    if len(rows) < 10:
        raise GoldDataError(f"compiling needs at least 10 labeled rows, got {len(rows)}")
    if labels.min() == labels.max():
        raise GoldDataError("compiling needs both labels (faithful = 0 and 1) in the gold data")
    groups = np.array([group_key(r, group_by) for r in rows])
    n_splits = max(2, round(1.0 / valid_fraction))
    n_groups = len(set(groups.tolist()))
    if n_groups < n_splits:
        raise GoldDataError(
            f"only {n_groups} groups (by {group_by!r}): too few to hold out "
            f"{valid_fraction:.0%} of them; pass `group_by` '' to split by row"
        )
    # the first of `n_splits` grouped, stratified folds (the one fold maker, `stats.group_folds`)
    by = strata(rows, labels, min_count=n_splits)
    in_valid = group_folds(groups.tolist(), by, folds=n_splits, seed=seed) == 0
    train = [r for r, v in zip(rows, in_valid, strict=True) if not v]
    valid = [r for r, v in zip(rows, in_valid, strict=True) if v]
    if len({row_label(r) for r in valid}) < 2 or len({row_label(r) for r in train}) < 2:
        raise GoldDataError("the split left one side with a single label; add labeled rows")
    return train, valid
