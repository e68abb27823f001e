"""What a judge returns for one item."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Annotated, Any, Literal

import pydantic

from ragjudge.stats._threshold import unit_score

__all__ = [
    "CascadeOutput",
    "JudgeResult",
    "MemberOutput",
    "MembersOutput",
    "QuestionsOutput",
    "RawOutput",
    "RubricOutput",
    "SentencesOutput",
    "StatementResult",
    "StatementsOutput",
    "UnscoredOutput",
    "WholeOutput",
    "outcome_reason",
    "own_verdict",
    "reason_text",
    "with_outcome",
]

#: Separates a reason's outcome (score, verdict, threshold) from what the judge found; the
#: outcome itself never contains it, so `reason_text` reads the finding back exactly.
_SEPARATOR = ": "


class StatementResult(pydantic.BaseModel):
    """One statement of the answer and the judge's verdict on it."""

    text: str
    verdict: str
    reason: str = ""
    confidence: float | None = None
    #: The offline judge's probability of support before its rules, and the rules that decide
    #: the verdict whatever the support threshold (`ragjudge.offline.model.offline_verdict`);
    #: None for an LM's verdicts, which are taken as given.
    support: float | None = None
    rules: list[str] | None = None


# -- raw outputs: what a judge's LM calls produced, before any policy scores them ---------------
# Judging is "raw, then score"; rescoring is "score the stored raw under another policy".


class StatementsOutput(pydantic.BaseModel):
    """Judged statements (faithfulness and recall in statement mode).

    Attributes:
        statements: The statements with the LM's (or the offline judge's) verdicts.
        confidence_source: Where the confidences came from (`JudgeResult.confidence_source`).
        support_threshold: The offline judge's support threshold these verdicts were given
            under; with `unsure_margin` and `schema_version`, what `offline_verdict` needs to
            give them again under another threshold. None for an LM.
    """

    kind: Literal["statements"] = "statements"
    statements: list[StatementResult] = pydantic.Field(default_factory=list)
    confidence_source: str | None = None
    support_threshold: float | None = None
    unsure_margin: float | None = None
    schema_version: int | None = None


class WholeOutput(pydantic.BaseModel):
    """A whole-answer verdict (faithfulness in whole mode)."""

    kind: Literal["whole"] = "whole"
    verdict: str = "no"
    confidence: float | None = None
    reasoning: str = ""
    stated_confidence: float | None = None
    confidence_source: str | None = None


class RubricOutput(pydantic.BaseModel):
    """A 1-5 rating against anchors; `rating` None for an empty answer (the `empty` policy)."""

    kind: Literal["rubric"] = "rubric"
    rating: int | None = None
    reasoning: str = ""


class QuestionsOutput(pydantic.BaseModel):
    """Questions generated back from the answer and their similarity to the asked one."""

    kind: Literal["questions"] = "questions"
    questions: list[str] = pydantic.Field(default_factory=list)
    similarities: list[float] = pydantic.Field(default_factory=list)
    noncommittal: bool = False
    extras: dict[str, Any] = pydantic.Field(default_factory=dict)


class SentencesOutput(pydantic.BaseModel):
    """Per-sentence scores of a deterministic metric, and the reference aggregates."""

    kind: Literal["sentences"] = "sentences"
    per_sentence: dict[str, list[float]] = pydantic.Field(default_factory=dict)
    reference: dict[str, float] = pydantic.Field(default_factory=dict)


class UnscoredOutput(pydantic.BaseModel):
    """Nothing to judge (no reference, no question): no score under any policy."""

    kind: Literal["unscored"] = "unscored"
    reason: str = ""


class MemberOutput(pydantic.BaseModel):
    """One member of an ensemble: which LM, which repeat, and its result."""

    lm: str = ""
    repeat: int = 0
    offline: bool = False
    result: JudgeResult


class MembersOutput(pydantic.BaseModel):
    """The members of an ensemble, each with its own raw output."""

    kind: Literal["members"] = "members"
    members: list[MemberOutput] = pydantic.Field(default_factory=list)


class CascadeOutput(pydantic.BaseModel):
    """A cascade's two judges: the offline judge's result on the row, and the LM judge's where
    the LM was asked (None where the route did not send the row to it)."""

    kind: Literal["cascade"] = "cascade"
    offline: JudgeResult
    lm: JudgeResult | None = None


RawOutput = Annotated[
    StatementsOutput
    | WholeOutput
    | RubricOutput
    | QuestionsOutput
    | SentencesOutput
    | UnscoredOutput
    | MembersOutput
    | CascadeOutput,
    pydantic.Field(discriminator="kind"),
]


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
        raw: The judge's raw output (`RawOutput`), which `Judge.rescore` scores again under
            other policies; None for a failed item or a result read from an older file.
        lm_stats: What happened to this item's LM calls: the reply counts of
            `ragjudge.lm.ParseStats` (predictor calls, first-try parses, salvaged, fallback
            calls, failures, verdicts read from logprobs) plus `prompt_tokens` and
            `cached_tokens` (prompt tokens a server's or llama.cpp's prefix cache served,
            where reported); None when no predictor was called.
        offline: True when the offline judge produced the result: pure-Python rules, no
            language model (so `lm_calls` and `tokens` are 0).
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
    raw: RawOutput | None = None
    offline: bool = False

    @pydantic.field_validator("score", mode="before")
    @classmethod
    def _null_score(cls, value: Any) -> Any:
        """Strict JSON stores a NaN score as null: read it back as NaN, at any depth (the
        members of an ensemble, the two judges of a cascade)."""
        return math.nan if value is None else value

    def unit(self, *, scale: float = 1.0) -> float:
        """This result's score as a unit score (`ragjudge.stats._threshold.unit_score`, given
        its judge's `scale`: `CompileSpec.scale`): an error counts as no score, which never
        passes and ranks lowest (`UNSCORED`)."""
        return unit_score(None if self.error else self.score, scale=scale)

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


def _pair(value: float, bound: float) -> tuple[str, str]:
    """`value` and `bound` with the fewest decimals (2 to 6) that tell them apart, so that a
    shown score never looks equal to, or on the wrong side of, the threshold it is compared to."""
    for digits in range(2, 7):
        shown = f"{value:.{digits}f}", f"{bound:.{digits}f}"
        if shown[0] != shown[1] or value == bound:
            return shown
    return f"{value:.6g}", f"{bound:.6g}"


def outcome_reason(
    *,
    score: float,
    passed: bool | None,
    threshold: float | None,
    text: str,
    scale: float = 1.0,
    verdict: str | None = None,
) -> str:
    """A result's reason: its outcome (final score, pass or fail and why), then what the judge
    found. The one rule every judge writes its reasons by, so that a reason always agrees with
    the score, the threshold and the verdict beside it.

    Args:
        score: The final score (after calibration and `scale`).
        passed: The final verdict; None for a result without a score (then `text` alone).
        threshold: The pass threshold on the unscaled score (shown times `scale`).
        text: What the judge found (statement counts, the LM's reasoning); it must not restate
            the score or the verdict.
        scale: The judge's `scale` (the score is the unscaled score times it).
        verdict: The judge's own yes/no verdict (a whole-answer verdict); named when the final
            verdict differs from it (a confidence, a calibration or a tuned threshold decided).

    Returns:
        `"<score> passes (at least the threshold <t>): <text>"`, `"<score> fails (below the
        threshold <t>): <text>"`, or `text` alone for a result without a score.

    Example:
        >>> outcome_reason(score=0.5, passed=True, threshold=0.5, text="1 of 2 supported")
        '0.50 passes (at least the threshold 0.50): 1 of 2 supported'
        >>> outcome_reason(score=0.57, passed=False, threshold=0.6, text="r", verdict="yes")
        "0.57 fails (below the threshold 0.60; the judge's own verdict was 'yes'): r"
    """
    text = text.strip()
    if passed is None or math.isnan(score):
        return text
    outcome = "passes" if passed else "fails"
    if threshold is None:
        shown, why = f"{score:.2f}", ""
    else:
        shown, bound = _pair(score, float(threshold) * scale)
        why = f"at least the threshold {bound}" if passed else f"below the threshold {bound}"
    if verdict is not None and (verdict == "yes") != passed:
        said = verdict.replace(":", "")  # the outcome never holds the separator
        why += ("; " if why else "") + f"the judge's own verdict was '{said}'"
    lead = f"{shown} {outcome}" + (f" ({why})" if why else "")
    return f"{lead}{_SEPARATOR}{text}" if text else lead


def with_outcome(
    result: JudgeResult, policy: Mapping[str, Any], text: str, *, verdict: str | None = None
) -> JudgeResult:
    """`result` (scored under `policy`: its `threshold` and `scale`) with its reason written by
    `outcome_reason` from the finding `text`.

    Example:
        >>> r = JudgeResult(score=2.0, passed=False)
        >>> with_outcome(r, {"threshold": 0.6, "scale": 5.0}, "2 of 5").reason
        '2.00 fails (below the threshold 3.00): 2 of 5'
    """
    reason = outcome_reason(
        score=result.score,
        passed=result.passed,
        threshold=policy.get("threshold"),
        scale=float(policy.get("scale", 1.0)),
        text=text,
        verdict=verdict,
    )
    return result.model_copy(update={"reason": reason})


def own_verdict(result: JudgeResult) -> str | None:
    """The judge's own yes/no verdict behind a result (a whole-answer verdict), which its
    reason names when the final verdict differs (`outcome_reason`); None for other outputs."""
    return result.raw.verdict if isinstance(result.raw, WholeOutput) else None


def reason_text(result: JudgeResult) -> str:
    """What the judge found, without the outcome `outcome_reason` led the reason with (a
    cascade quotes the judge that decided a row under its own outcome).

    Example:
        >>> reason_text(JudgeResult(score=1.0, passed=True, reason="1.00 passes: found"))
        'found'
    """
    if result.passed is None or math.isnan(result.score):
        return result.reason
    _, _, text = result.reason.partition(_SEPARATOR)
    return text


MemberOutput.model_rebuild()
MembersOutput.model_rebuild()
CascadeOutput.model_rebuild()
JudgeResult.model_rebuild()
