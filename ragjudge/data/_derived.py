"""Derived gold for answer relevancy and context recall, built from faithfulness gold rows.

The shared gold sets label faithfulness only. Some relevancy and recall labels follow from them
by construction; this module builds exactly those, and nothing else:

Answer relevancy (`metric="answer_relevancy"`), question-answering rows only (`task == "qa"`;
dialogue turns are left out because a dialogue response need not answer the previous turn,
and summaries and claims have no question):

* **on-topic (label 1)**: each row's own question and answer. Unfaithful answers count too: a
  wrong answer to the question is still on topic (relevancy is not correctness).
* **off-topic (label 0)**: the same answer paired with the question of another row from the same
  source and a different group (`meta.group_id`, so never a rephrasing of the same question),
  drawn with a seeded generator.

Context recall (`metric="context_recall"`), with `reference` = an answer and `contexts` = the
row's contexts:

* **HaluEval** (`source == "halueval"`): the right answer is covered by its knowledge (label 1),
  the hallucinated answer is not (label 0): HaluEval builds the hallucinated answer to be
  unsupported by the knowledge. Bare "yes"/"no" answers are left out (coverage of a bare yes/no
  is not defined by the knowledge alone). Labels here are synthetic, as HaluEval's are.
* **HaluEval swapped**: the right answer against the knowledge of another group (label 0).
* **LFQA-Verification** (`source == "lfqa_verification"`): the answer as reference against its
  evidence documents; label 1 iff annotators found every sentence supported (the human
  faithfulness label: a reference is fully covered exactly when all its statements are
  attributable), plus a continuous gold score = the share of sentences a majority of the three
  annotators marked supported (`meta.sentence_labels`), for Spearman's rho.

Every derived row has `faithful=None` (so it never counts as a faithfulness label) and
`meta["derived"] = {"metric", "label", "score", "rule", "from"}`; reports keep these rows apart
from human labels.

Example:
    >>> from ragjudge.data._gold import GoldRecord
    >>> rows = [GoldRecord(id="a", task="qa", source="s", question="Where is Ulm?",
    ...                    answer="In Germany.", meta={"group_id": "1"}),
    ...         GoldRecord(id="b", task="qa", source="s", question="Who wrote Faust?",
    ...                    answer="Goethe.", meta={"group_id": "2"})]
    >>> [(r.id, r.meta["derived"]["label"]) for r in derive_relevancy(rows)]
    [('a~on', 1), ('a~off', 0), ('b~on', 1), ('b~off', 0)]
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from typing import Any

from ragjudge.data._gold import GoldRecord

__all__ = [
    "DERIVED_METRICS",
    "derive_gold",
    "derive_recall",
    "derive_relevancy",
    "derived_label",
    "is_derived",
]

DERIVED_METRICS = ("answer_relevancy", "context_recall")
_YESNO = re.compile(r"^\s*(yes|no)\W*$", re.IGNORECASE)


def is_derived(row: GoldRecord) -> bool:
    """True for a row built by this module (its label is derived, not a human label)."""
    return isinstance(row.meta.get("derived"), dict)


def derived_label(row: GoldRecord, metric: str) -> tuple[int | None, float | None]:
    """The derived `(label, score)` of a row for `metric`, or `(None, None)`.

    Example:
        >>> derived_label(GoldRecord(id="x", answer="a"), "context_recall")
        (None, None)
    """
    info = row.meta.get("derived")
    if not isinstance(info, dict) or info.get("metric") != metric:
        return None, None
    score = info.get("score")
    return int(info["label"]), None if score is None else float(score)


def _derived(
    row: GoldRecord,
    *,
    suffix: str,
    metric: str,
    label: int,
    rule: str,
    sources: list[str],
    score: float | None = None,
    **fields: Any,
) -> GoldRecord:
    meta = {k: v for k, v in row.meta.items() if k != "derived"}
    meta["derived"] = {
        "metric": metric,
        "label": label,
        "score": score,
        "rule": rule,
        "from": sources,
    }
    data = {
        "id": f"{row.id}~{suffix}",
        "question": row.question,
        "contexts": list(row.contexts),
        "answer": row.answer,
        "reference": None,
        "source": row.source,
        "task": row.task,
        **fields,
        "faithful": None,
        "meta": meta,
    }
    return GoldRecord.model_validate(data)


def _other(rng: random.Random, pool: Sequence[GoldRecord], row: GoldRecord) -> GoldRecord | None:
    candidates = [r for r in pool if r.group != row.group]
    return rng.choice(candidates) if candidates else None


def derive_relevancy(
    rows: Sequence[GoldRecord], *, seed: int = 13, tasks: Sequence[str] = ("qa",)
) -> list[GoldRecord]:
    """On-topic and off-topic (question, answer) pairs; see the module docstring.

    Args:
        rows: Faithfulness gold rows.
        seed: Seed of the off-topic pairing.
        tasks: Row tasks to use (default question answering only).

    Returns:
        Two rows per usable input row (`<id>~on`, label 1, and `<id>~off`, label 0).
    """
    rng = random.Random(seed)
    usable = [r for r in rows if r.task in tasks and r.question.strip() and r.answer.strip()]
    by_source: dict[str, list[GoldRecord]] = {}
    for row in usable:
        by_source.setdefault(row.source, []).append(row)
    out = []
    for row in usable:
        other = _other(rng, by_source[row.source], row)
        out.append(
            _derived(
                row,
                suffix="on",
                metric="answer_relevancy",
                label=1,
                rule="own question and answer (on-topic)",
                sources=[row.id],
            )
        )
        if other is not None:
            out.append(
                _derived(
                    row,
                    suffix="off",
                    metric="answer_relevancy",
                    label=0,
                    rule="answer paired with the question of a row from another group (off-topic)",
                    sources=[row.id, other.id],
                    question=other.question,
                    contexts=list(other.contexts),
                )
            )
    return out


def _supported_share(row: GoldRecord) -> float | None:
    labels = row.meta.get("sentence_labels")
    if not isinstance(labels, list) or not labels:
        return None
    supported = sum(1 for s in labels if isinstance(s, dict) and s.get("majority") == "supported")
    return supported / len(labels)


def derive_recall(rows: Sequence[GoldRecord], *, seed: int = 13) -> list[GoldRecord]:
    """Context recall rows (reference = an answer); see the module docstring.

    Args:
        rows: Faithfulness gold rows (HaluEval and LFQA-Verification rows are used).
        seed: Seed of the swapped-knowledge pairing.

    Returns:
        The derived rows, ids `<id>~recall` and `<id>~recall-swap`.
    """
    rng = random.Random(seed)
    halu = [
        r
        for r in rows
        if r.source == "halueval" and r.faithful is not None and not _YESNO.match(r.answer)
    ]
    out = []
    for row in halu:
        kind = str(row.meta.get("answer_kind", "right" if row.faithful else "hallucinated"))
        out.append(
            _derived(
                row,
                suffix="recall",
                metric="context_recall",
                label=int(row.faithful or 0),
                rule=f"HaluEval {kind} against its own knowledge (synthetic)",
                sources=[row.id],
                reference=row.answer,
            )
        )
    right = [r for r in halu if r.faithful == 1]
    for row in right:
        other = _other(rng, right, row)
        if other is None:
            continue
        out.append(
            _derived(
                row,
                suffix="recall-swap",
                metric="context_recall",
                label=0,
                rule="HaluEval right answer against another group's knowledge",
                sources=[row.id, other.id],
                reference=row.answer,
                contexts=list(other.contexts),
            )
        )
    for row in rows:
        if row.source != "lfqa_verification" or row.faithful is None:
            continue
        out.append(
            _derived(
                row,
                suffix="recall",
                metric="context_recall",
                label=int(row.faithful),
                score=_supported_share(row),
                rule="LFQA answer as reference against its evidence documents; label = human "
                "all-sentences-supported, score = share of supported sentences",
                sources=[row.id],
                reference=row.answer,
            )
        )
    return out


def derive_gold(rows: Sequence[GoldRecord], *, seed: int = 13) -> dict[str, list[GoldRecord]]:
    """Derived relevancy and recall gold from faithfulness gold rows.

    Args:
        rows: Faithfulness gold rows.
        seed: Seed of the pairings.

    Returns:
        `{"answer_relevancy": [...], "context_recall": [...]}`.
    """
    return {
        "answer_relevancy": derive_relevancy(rows, seed=seed),
        "context_recall": derive_recall(rows, seed=seed),
    }
