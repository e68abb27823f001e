"""Optional: compare compat="continuous-eval" with the real package, if it is importable.

continuous-eval is not a ragjudge dependency; it lives in the peers' virtualenv
(`bash benchmarks/peers/setup.sh`). The full float-for-float check over all gold rows is
`benchmarks/bench_deterministic.py`; this test runs a fuzz sample when the package is present.
"""

from __future__ import annotations

import os
import random

import pytest

os.environ.setdefault("CONTINUOUS_EVAL_DO_NOT_TRACK", "true")
text_metrics = pytest.importorskip("continuous_eval.metrics.generation.text")

from ragjudge.lexical import DeterministicFaithfulness  # noqa: E402

WORDS = [
    "Paris",
    "is",
    "the",
    "capital",
    "of",
    "France",
    "cannot",
    "3.5",
    "007",
    "it's",
    "U.S.",
    "Dr.",
    "“quoted”",
    "(x)",
    "wanna",
    "NaN",
    "Москва",
    "—",
    "...",
]


def _fuzz(rng: random.Random) -> str:
    parts = []
    for _ in range(rng.randint(1, 30)):
        parts.append(rng.choice(WORDS) + rng.choice(["", "", " ", ".", ". ", "!", "?\n"]))
    return " ".join(parts)


def test_matches_continuous_eval_on_fuzz() -> None:
    ref = text_metrics.DeterministicFaithfulness()
    ours = DeterministicFaithfulness(compat="continuous-eval")
    rng = random.Random(0)
    compared = 0
    for _ in range(300):
        answer, contexts = _fuzz(rng), [_fuzz(rng) for _ in range(rng.randint(1, 3))]
        try:
            expected = ref(answer=answer, retrieved_context=contexts)
        except (ZeroDivisionError, ValueError, RecursionError):
            continue
        assert ours(answer=answer, contexts=contexts) == expected
        compared += 1
    assert compared > 200
