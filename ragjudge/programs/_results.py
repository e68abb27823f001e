"""What a judge returns for one item."""

from __future__ import annotations

import math
from typing import Any

import pydantic

__all__ = ["JudgeResult", "StatementResult"]


class StatementResult(pydantic.BaseModel):
    """One statement of the answer and the judge's verdict on it."""

    text: str
    verdict: str
    reason: str = ""
    confidence: float | None = None


class JudgeResult(pydantic.BaseModel):
    """A judge's verdict on one item.

    Attributes:
        metric: The metric's name, e.g. `"faithfulness"`.
        id: The row id, when judged from a file.
        score: The score in `[0, scale]`; NaN when the item has no score (see `error`).
        passed: `score >= threshold`, or None when there is no score.
        mode: How the score was computed (`"statement"`, `"whole"`, ...).
        reason: A sentence a person can read.
        statements: Per-statement verdicts and reasons (statement mode).
        confidence: The judge's probability that the item passes, when it reports one.
        confidence_source: Where `confidence` came from: `"logprobs"` (P(yes) / (P(yes) +
            P(no)) at the verdict tokens), `"stated"` (the number the LM wrote), or None.
        lm_calls: LM calls made for this item (cache hits are not calls).
        tokens: Prompt plus completion tokens used.
        error: Why the item could not be judged; `score` is NaN then.
        details: Metric-specific extras (member scores of an ensemble, sub-scores, ...).
        lm_stats: What happened to this item's LM calls: the reply counts of
            `ragjudge.lm.ParseStats` (predictor calls, first-try parses, salvaged, fallback
            calls, failures, verdicts read from logprobs) plus `prompt_tokens` and
            `cached_tokens` (prompt tokens a server's or llama.cpp's prefix cache served,
            where reported); None when no predictor was called.
        offline: True when the offline judge produced the result: pure-Python rules, no
            language model (its `lm_calls` and `tokens` count requests to that engine).
    """

    model_config = pydantic.ConfigDict(ser_json_inf_nan="null")

    metric: str = "faithfulness"
    id: str | None = None
    score: float = math.nan
    passed: bool | None = None
    mode: str = ""
    reason: str = ""
    statements: list[StatementResult] = pydantic.Field(default_factory=list)
    confidence: float | None = None
    confidence_source: str | None = None
    lm_calls: int = 0
    tokens: int = 0
    error: str | None = None
    details: dict[str, Any] = pydantic.Field(default_factory=dict)
    lm_stats: dict[str, int] | None = None
    offline: bool = False

    @classmethod
    def from_json_data(cls, data: dict[str, Any], **update: Any) -> JudgeResult:
        """A result from its JSON data (strict JSON stores a NaN score as null); keys that are
        not result fields (an output line's `source`, `gold`) are ignored."""
        fields = {k: v for k, v in data.items() if k in cls.model_fields}
        fields.update(update)
        if fields.get("score") is None:
            fields["score"] = math.nan
        return cls.model_validate(fields)

    @property
    def ok(self) -> bool:
        """True when the item was judged (no error)."""
        return self.error is None

    def format(self) -> str:
        """The result as text for a person."""
        head = f"{self.metric} [{self.mode}]"
        if self.error:
            return f"{head}: ERROR {self.error}"
        verdict = {True: "PASS", False: "FAIL", None: "n/a"}[self.passed]
        lines = [f"{head}: {self.score:.2f} {verdict}", f"  {self.reason}"]
        marks = {"yes": "+", "no": "-", "unsure": "?"}
        for st in self.statements:
            lines.append(f"  [{marks.get(st.verdict, ' ')}] {st.text}")
            if st.reason:
                lines.append(f"        {st.reason}")
        if self.offline:
            lines.append("  (offline judge, no LM)")
        elif self.lm_calls or self.tokens:
            lines.append(f"  ({self.lm_calls} LM calls, {self.tokens} tokens)")
        else:
            lines.append("  (no LM call)")
        return "\n".join(lines)

    def pretty(self) -> None:
        """Print the result for a person."""
        print(self.format())
