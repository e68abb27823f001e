"""Assertions for a user's own tests: `assert_faithful(answer, contexts)`."""

from __future__ import annotations

import math
import os
import threading
from collections.abc import Sequence
from typing import Any

from ragjudge.programs._base import Judge
from ragjudge.programs._metric import feedback_text, with_statements
from ragjudge.programs._results import JudgeResult

__all__ = ["assert_faithful", "session_judge", "set_session_judge"]

_lock = threading.Lock()
_session: dict[str, Any] = {"path": None, "judge": None}


def set_session_judge(path: str | os.PathLike[str] | None) -> None:
    """Name the judge file `session_judge()` loads (the pytest plugin's `--ragjudge-judge`)."""
    with _lock:
        _session["path"] = None if path is None else os.fspath(path)
        _session["judge"] = None


def session_judge() -> Judge:
    """The judge of this test session, loaded once: the file named by `--ragjudge-judge`, the
    `ragjudge_judge` ini option or `$RAGJUDGE_JUDGE`, else the default offline faithfulness judge.
    """
    with _lock:
        if _session["judge"] is None:
            path = _session["path"] or os.environ.get("RAGJUDGE_JUDGE") or None
            if path:
                from ragjudge.programs._serialization import load

                _session["judge"] = load(path)
            else:
                from ragjudge.programs.faithfulness import Faithfulness

                _session["judge"] = Faithfulness(lm="local")
        judge: Judge = _session["judge"]
        return judge


def assert_faithful(
    answer: str,
    contexts: Sequence[str] | str,
    *,
    question: str = "",
    judge: Judge | None = None,
    min_score: float | None = None,
) -> JudgeResult:
    """Assert that the contexts support the answer, by a (compiled) judge's verdict.

    Args:
        answer: The answer under test.
        contexts: The passages it should rest on.
        question: The question asked, if any.
        judge: The judge; default `session_judge()` (the pytest plugin's, loaded once).
        min_score: Require this score in [0, 1] instead of the judge's own pass verdict.

    Returns:
        The judge's result, when the assertion holds.

    Raises:
        AssertionError: Listing the unsupported statements with the judge's reasons, or why
            the answer could not be judged.

    Example:
        >>> r = assert_faithful("Paris is in France.", ["Paris is in France."])  # doctest: +SKIP
    """
    __tracebackhide__ = True
    judge = judge or session_judge()
    ctx = [contexts] if isinstance(contexts, str) else list(contexts)
    result = judge(question=question, contexts=ctx, answer=answer)
    if result.error or math.isnan(result.score):
        raise AssertionError(f"the answer could not be judged: {feedback_text(result)}")
    unit = result.unit(scale=judge.compile_spec().scale)
    ok = result.passed if min_score is None else unit >= min_score
    if not ok:
        result = with_statements(
            judge, result, {"question": question, "contexts": ctx, "answer": answer}
        )
        bound = "" if min_score is None else f" (required score {min_score:g})"
        raise AssertionError(
            f"the answer is not faithful to its contexts{bound}: "
            f"{feedback_text(result)}\nanswer: {answer!r}"
        )
    return result
