"""Context recall: did retrieval find everything the reference answer needs?"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, ClassVar, Literal

import dspy

import ragjudge.offline.tasks  # noqa: F401 - registers the offline handlers of these signatures
from ragjudge.exceptions import ConfigurationError
from ragjudge.lm._safety import fence
from ragjudge.offline.model import OfflineParams
from ragjudge.programs._base import Judge, check_choice, passages_text
from ragjudge.programs._demos import recall_demo
from ragjudge.programs._results import (
    JudgeResult,
    RawOutput,
    RubricOutput,
    StatementResult,
    StatementsOutput,
    UnscoredOutput,
    with_outcome,
)
from ragjudge.programs._serialization import register_judge
from ragjudge.programs._spec import CompileSpec
from ragjudge.programs.faithfulness import (
    AGGREGATIONS,
    EMPTY,
    STATEMENT_POLICIES,
    UNSURE,
    score_statements,
    statement_policy_space,
    statement_reason,
)
from ragjudge.programs.relevancy import check_unit
from ragjudge.signatures import (
    ExtractReferenceStatements,
    JudgeAttribution,
    RateRecall,
    default_recall_demos,
    default_rubric_demos,
)

__all__ = ["ContextRecall"]

Mode = Literal["statement", "rubric"]
MODES = ("statement", "rubric")


def _reference_text(reference: str | Sequence[str] | None) -> str:
    if reference is None:
        return ""
    if isinstance(reference, str):
        return reference
    return "\n\n".join(str(r) for r in reference if r)


@register_judge
class ContextRecall(Judge):
    """Judge how much of a reference answer the retrieved contexts cover.

    The reference is `reference=` (a reference answer, or a list of gold passages, which are
    joined). Without a reference the item has no score (NaN, `passed=None`) and no LM call.

    Args:
        mode: `"statement"` splits the reference into statements (one call) and judges whether
            each can be attributed to the contexts (one call); score = covered / total.
            `"rubric"` asks for a 1-5 rating in one call (5 = all key facts covered ... 1 = not
            covered at all); the unscaled score is `(rating - 1) / 4`, so the default threshold
            0.5 passes ratings of 3 and above.
        threshold: Pass when the unscaled score in [0, 1] is at least this.
        scale: The reported score is multiplied by this.
        unsure: How an "unsure" attribution counts: `"unsupported"`, `"supported"`, `"exclude"`.
        empty: The score when the reference yields no statements: `"nan"`, `"zero"`, `"one"`.
        aggregation: `"fraction"` (covered / total), or the `"mean"` / `"min"` of the judge's
            confidence that each statement is covered.
        lm: `"local"` (the offline judge), a model string, a `dspy.LM`, or None.
        max_tokens: Tokens one LM reply may have; None sizes it per call. A reply cut by it
            is the row's error.
        temperature: Sampling temperature of the LM calls; None keeps the LM's own, else 0.
        timeout: Seconds one LM call may take (default 120); a call past it is the row's error.

    Example:
        >>> judge = ContextRecall(mode="statement", lm="local")
        >>> r = judge(question="Where was Einstein born?",
        ...           contexts=["Albert Einstein was born in Ulm, Germany, in 1879."],
        ...           reference="Einstein was born in Ulm.")
        >>> r.passed
        True
    """

    metric: ClassVar[str] = "context_recall"
    needs_contexts: ClassVar[bool] = True
    modes: ClassVar[tuple[str, ...]] = MODES
    policy_names: ClassVar[tuple[str, ...]] = STATEMENT_POLICIES

    def __init__(
        self,
        *,
        mode: Mode = "statement",
        threshold: float = 0.5,
        scale: float = 1.0,
        unsure: Literal["unsupported", "supported", "exclude"] = "unsupported",
        empty: Literal["nan", "zero", "one"] = "nan",
        aggregation: Literal["fraction", "mean", "min"] = "fraction",
        lm: str | dspy.BaseLM | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
        timeout: float | None = None,
    ) -> None:
        super().__init__()
        owner = "ContextRecall"
        self._set_generation(owner, max_tokens=max_tokens, temperature=temperature, timeout=timeout)
        check_choice(owner, "mode", mode, MODES)
        check_choice(owner, "unsure", unsure, UNSURE)
        check_choice(owner, "empty", empty, EMPTY)
        check_choice(owner, "aggregation", aggregation, AGGREGATIONS)
        check_unit(owner, "threshold", threshold)
        if not float(scale) > 0:
            raise ConfigurationError(
                f"The `scale` parameter of {owner} must be positive. Got {scale!r} instead."
            )
        self.mode = mode
        self.threshold = threshold
        self.scale = scale
        self.unsure = unsure
        self.empty = empty
        self.aggregation = aggregation
        self.lm = lm
        self.offline_params_: OfflineParams | None = None
        demos = default_recall_demos()
        self.extract = dspy.Predict(ExtractReferenceStatements)
        self.extract.demos = demos["extract"]
        self.judge = dspy.Predict(JudgeAttribution)
        self.judge.demos = demos["judge"]
        self.rubric = dspy.Predict(RateRecall)
        self.rubric.demos = default_rubric_demos()["recall"]

    def forward(self, **inputs: Any) -> JudgeResult:
        """Judge one item; `answer=` is optional here (recall does not read the answer)."""
        inputs.setdefault("answer", "")
        return super().forward(**inputs)

    def judge_item(
        self,
        *,
        answer: str = "",
        contexts: Sequence[str] | str = (),
        question: str = "",
        reference: str | Sequence[str] | None = None,
        reference_statements: Sequence[str] | None = None,
    ) -> JudgeResult:
        """Judge one item (see the class docstring); may raise on LM failure.

        `reference_statements` (statement mode) is the reference already split into statements
        (e.g. gold key facts): the extraction call is skipped.
        """
        raw = self.raw_item(
            answer=answer,
            contexts=contexts,
            question=question,
            reference=reference,
            reference_statements=reference_statements,
        )
        return self.score(raw, self.policy())

    def raw_item(
        self,
        *,
        answer: str = "",
        contexts: Sequence[str] | str = (),
        question: str = "",
        reference: str | Sequence[str] | None = None,
        reference_statements: Sequence[str] | None = None,
    ) -> RawOutput:
        """The raw output for one item (the LM calls); may raise on LM failure."""
        del answer  # recall compares the reference with the contexts
        text = fence(_reference_text(reference))
        if reference_statements is not None and not text.strip():
            text = fence("\n".join(reference_statements))
        if not text.strip():
            return UnscoredOutput(
                reason="no reference was given (reference=...), so context recall is undefined"
            )
        context = passages_text(contexts)
        question = fence(question or "")
        if self.mode == "rubric":
            out = self.rubric(question=question, context=context, reference=text)
            return RubricOutput(rating=int(out.recall_score), reasoning=str(out.reasoning))
        if reference_statements is not None:
            texts = [fence(str(s)) for s in reference_statements if str(s).strip()]
        else:
            extracted = self.extract(question=question, reference=text).reference_statements
            texts = [s for s in extracted if s]
        verdicts = (
            self.judge(context=context, reference_statements=texts).attributions if texts else []
        )
        if texts and len(verdicts) != len(texts):
            raise ValueError(
                f"the judge returned {len(verdicts)} attributions for {len(texts)} statements"
            )
        return StatementsOutput(
            statements=[
                StatementResult(text=t, verdict=v.verdict, reason=v.reason, confidence=v.confidence)
                for t, v in zip(texts, verdicts, strict=True)
            ]
        )

    def score(self, raw: RawOutput, policy: Mapping[str, Any]) -> JudgeResult:
        """Score a raw output under `policy` (no LM call): the one scoring rule of this judge.

        Args:
            raw: Attributed reference statements, a rubric rating, or nothing to judge.
            policy: A value for every name in `policy_names`.

        Returns:
            The scored result.
        """
        if isinstance(raw, UnscoredOutput):
            return JudgeResult(metric=self.metric, mode=self.mode, reason=raw.reason, raw=raw)
        if isinstance(raw, RubricOutput):
            rubric = {"rubric_score": raw.rating or 1, "reasoning": raw.reasoning}
            result = self._rubric_result(rubric, policy)
            return with_outcome(result, policy, result.reason).model_copy(update={"raw": raw})
        if not isinstance(raw, StatementsOutput):
            raise TypeError(f"ContextRecall cannot score a {type(raw).__name__}")
        statements = raw.statements
        value = score_statements(
            statements,
            unsure=policy["unsure"],
            empty=policy["empty"],
            aggregation=policy["aggregation"],
        )
        confidences = [s.confidence for s in statements if s.confidence is not None]
        result = self._result(
            value,
            policy,
            mode="statement",
            statements=list(statements),
            confidence=min(confidences) if confidences else None,
            raw=raw,
        )
        text = statement_reason(
            value,
            statements,
            policy,
            what="reference statements",
            found="in the contexts",
            missed="not found in the contexts",
        )
        return with_outcome(result, policy, text)

    def finish(
        self,
        *,
        statements: Sequence[StatementResult] = (),
        rubric: dict[str, Any] | None = None,
        **overrides: Any,
    ) -> JudgeResult:
        """Score attributed statements or a rubric rating given as plain values (no LM call).

        Args:
            statements: Reference statements with their attribution verdicts (statement mode).
            rubric: `{"rubric_score", "reasoning"}` (rubric mode).
            **overrides: Policy values to use instead of this judge's (`threshold`, ...).

        Returns:
            The scored result.
        """
        raw: RawOutput = (
            RubricOutput(rating=int(rubric["rubric_score"]), reasoning=rubric.get("reasoning", ""))
            if rubric is not None
            else StatementsOutput(statements=list(statements))
        )
        return self.score(raw, {**self.policy(), **overrides})

    def compile_spec(self) -> CompileSpec[Judge]:
        """The statement policies searched; two LM calls a row in statement mode (extract,
        then judge every statement), else one."""
        return replace(
            super().compile_spec(),
            space=statement_policy_space(),
            calls_by_mode={m: 2 if m == "statement" else 1 for m in self.modes},
            demo=recall_demo,
        )

    def legacy_raw(self, result: JudgeResult) -> RawOutput | None:
        """A result of results format 1 (no `raw`), read back from its fields."""
        if result.mode == "rubric" and "rubric_score" in result.details:
            return RubricOutput(
                rating=int(result.details["rubric_score"]),
                reasoning=str(result.details.get("reasoning", "")),
            )
        if result.mode == "statement" and (result.statements or not math.isnan(result.score)):
            return StatementsOutput(statements=list(result.statements))
        return None  # no reference: nothing to score
