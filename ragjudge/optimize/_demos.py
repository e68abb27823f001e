"""Few-shot demos from gold labels, for every signature of a judge.

A gold row becomes one annotated `dspy.Example` carrying every field of every faithfulness
signature (question, answer, context, statements, verdicts, reasoning, verdict, confidence), so
DSPy renders it as a demo for each predictor (a demo lacking a predictor's output fields is
silently dropped from the prompt). Statement verdicts come from the labels: every statement of a
faithful answer is supported; a statement overlapping a labeled hallucinated span is not; an
unfaithful one-statement answer's statement is not. Rows whose statements cannot be labeled
soundly (unfaithful, several statements, no spans) are not used.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import dspy

from ragjudge.data._gold import GoldRecord
from ragjudge.offline.model import OfflineModel
from ragjudge.signatures import StatementVerdict

__all__ = ["annotate", "demo_pool", "demo_sets"]

MAX_CONTEXT_CHARS = 1500
MAX_ANSWER_CHARS = 700
MAX_STATEMENTS = 6


def _locate(answer: str, statements: Sequence[str]) -> list[tuple[int, int]] | None:
    spans, cursor = [], 0
    for statement in statements:
        start = answer.find(statement, cursor)
        if start < 0:
            start = answer.find(statement.rstrip(". "), cursor)
        if start < 0:
            return None
        spans.append((start, start + len(statement)))
        cursor = start + 1
    return spans


def annotate(row: GoldRecord, *, model: OfflineModel | None = None) -> dspy.Example | None:
    """One gold row as a demo for every faithfulness signature, or None if it cannot be labeled.

    Args:
        row: A labeled gold row.
        model: Segments the answer into statements (the offline judge's segmenter).

    Returns:
        The annotated example, or None.
    """
    if row.faithful is None:
        return None
    segmenter = model or OfflineModel()
    statements = segmenter.extract_statements(question=row.question, answer=row.answer)
    if not statements or len(statements) > MAX_STATEMENTS:
        return None
    if row.faithful == 1:
        labels = [True] * len(statements)
        bad_spans: list[str] = []
    elif row.hallucinated_spans:
        located = _locate(row.answer, statements)
        if located is None:
            return None
        labels, bad_spans = [], []
        for start, end in located:
            hits = [s for s in row.hallucinated_spans if s.start < end and s.end > start]
            labels.append(not hits)
            bad_spans.append(", ".join(f"'{h.text.strip()}'" for h in hits[:2]))
        if all(labels):
            return None
    elif len(statements) == 1:
        labels, bad_spans = [False], [""]
    else:
        return None
    verdicts = []
    for i, (statement, ok) in enumerate(zip(statements, labels, strict=True)):
        if ok:
            reason = "The context directly states this."
        else:
            span = bad_spans[i] if i < len(bad_spans) else ""
            reason = (
                f"The context does not support {span}."
                if span
                else "The context does not support this statement."
            )
        verdicts.append(
            StatementVerdict(
                statement=statement,
                reason=reason,
                verdict="yes" if ok else "no",
                confidence=0.95 if ok else 0.05,
            )
        )
    unsupported = [v.statement for v in verdicts if v.verdict == "no"]
    if unsupported:
        reasoning = (
            "Not every claim is supported: "
            + "; ".join(f"'{s}'" for s in unsupported[:3])
            + " cannot be inferred from the context."
        )
    else:
        reasoning = "Every claim of the answer can be directly inferred from the context."
    return dspy.Example(
        question=row.question,
        answer=row.answer,
        context=row.context,
        statements=statements,
        verdicts=verdicts,
        reasoning=reasoning,
        verdict="yes" if row.faithful == 1 else "no",
        confidence=0.95 if row.faithful == 1 else 0.05,
    )


def demo_pool(rows: Sequence[GoldRecord], *, limit: int = 200) -> list[dspy.Example]:
    """Annotated demos from short gold rows (long contexts would swamp the prompt)."""
    model = OfflineModel()
    pool = []
    for row in rows:
        if len(row.context) > MAX_CONTEXT_CHARS or len(row.answer) > MAX_ANSWER_CHARS:
            continue
        example = annotate(row, model=model)
        if example is not None:
            pool.append(example)
        if len(pool) >= limit:
            break
    return pool


def demo_sets(
    pool: Sequence[dspy.Example], *, sizes: Sequence[int], per_size: int, seed: int
) -> list[list[dspy.Example]]:
    """Candidate demo sets: `per_size` random label-balanced sets of each size.

    Returns:
        A list of demo lists; the study picks one by index (index 0 of size 0 = zero-shot).
    """
    rng = random.Random(seed)
    positives = [e for e in pool if e.verdict == "yes"]
    negatives = [e for e in pool if e.verdict == "no"]
    sets: list[list[dspy.Example]] = []
    for size in sizes:
        for _ in range(per_size if size else 1):
            n_neg = min(len(negatives), size // 2)
            n_pos = min(len(positives), size - n_neg)
            chosen = rng.sample(positives, n_pos) + rng.sample(negatives, n_neg)
            rng.shuffle(chosen)
            sets.append(chosen)
    return sets
