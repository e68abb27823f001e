"""The demo pool and the demo sets compile searches, from labeled gold rows.

What a row says as a demo is the judge's to say: its spec annotates a row
(`CompileSpec.demo`, `ragjudge.programs._demos`), with the row's label for the judge's
metric in `gold_label`. This module keeps short rows (long contexts would swamp the prompt)
and draws label-balanced sets from the pool.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import dspy

from ragjudge.data._gold import GoldRecord
from ragjudge.programs._spec import DemoAnnotator

__all__ = ["demo_pool", "demo_sets"]

MAX_CONTEXT_CHARS = 1500
MAX_ANSWER_CHARS = 700


def demo_pool(
    rows: Sequence[GoldRecord], *, annotate: DemoAnnotator | None, limit: int = 200
) -> list[dspy.Example]:
    """Annotated demos from short gold rows, by the judge's annotator (none without one)."""
    if annotate is None:
        return []
    pool = []
    for row in rows:
        if len(row.context) > MAX_CONTEXT_CHARS or len(row.answer) > MAX_ANSWER_CHARS:
            continue
        example = annotate(row)
        if example is not None:
            pool.append(example)
        if len(pool) >= limit:
            break
    return pool


def demo_sets(
    pool: Sequence[dspy.Example], *, sizes: Sequence[int], per_size: int, seed: int
) -> list[list[dspy.Example]]:
    """Candidate demo sets: `per_size` random label-balanced sets of each size (balanced on
    each demo's `gold_label`).

    Returns:
        A list of demo lists; the study picks one by index (index 0 of size 0 = zero-shot).
    """
    rng = random.Random(seed)
    positives = [e for e in pool if e.get("gold_label") == 1]
    negatives = [e for e in pool if e.get("gold_label") == 0]
    sets: list[list[dspy.Example]] = []
    for size in sizes:
        for _ in range(per_size if size else 1):
            n_neg = min(len(negatives), size // 2)
            n_pos = min(len(positives), size - n_neg)
            chosen = rng.sample(positives, n_pos) + rng.sample(negatives, n_neg)
            rng.shuffle(chosen)
            sets.append(chosen)
    return sets
