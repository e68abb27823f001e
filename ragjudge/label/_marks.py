"""Each statement of an answer as the judge sees it: its verdict, and the passage words it
matched (the content words it shares with the passages, with their places there)."""

from __future__ import annotations

from typing import Any

from ragjudge.data._gold import GoldRecord
from ragjudge.offline.text import tokenize
from ragjudge.programs._base import Judge
from ragjudge.programs._results import JudgeResult

__all__ = ["VERDICT_WORDS", "statement_marks"]

#: A statement verdict as the page says it.
VERDICT_WORDS = {"yes": "supported", "no": "unsupported", "unsure": "unsure"}


def statement_marks(row: GoldRecord, result: JudgeResult) -> list[dict[str, Any]]:
    """The statements of `result` (the judge's verdict on `row`) with the words of the
    passages each one matched: `{"text", "verdict", "reason", "words", "spans"}`, each span
    `[passage, start, end]` (character offsets)."""
    passages = [tokenize(text) for text in row.contexts]
    marks: list[dict[str, Any]] = []
    statements = result.statements or []
    if not statements:
        verdict = "supported" if result.passed else "unsupported"
        statements_data = [(row.answer, verdict, result.reason)]
    else:
        statements_data = [
            (s.text, VERDICT_WORDS.get(s.verdict, s.verdict), s.reason) for s in statements
        ]
    for text, verdict, reason in statements_data:
        stems = {t.stem for t in tokenize(text) if t.is_content}
        spans: list[list[int]] = []
        words: list[str] = []
        for number, tokens in enumerate(passages):
            for token in tokens:
                if token.is_content and token.stem in stems:
                    spans.append([number, token.start, token.start + len(token.text)])
                    word = token.text.lower()
                    if word not in words:
                        words.append(word)
        marks.append(
            {"text": text, "verdict": verdict, "reason": reason, "words": words, "spans": spans}
        )
    return marks


def judge_row(judge: Judge, row: GoldRecord) -> JudgeResult:
    """The judge's verdict on one row."""
    return judge.batch([row])[0]
