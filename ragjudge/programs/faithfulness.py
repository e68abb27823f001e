"""Faithfulness: is every claim of the answer supported by the retrieved contexts?"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar, Literal

import dspy

import ragjudge.offline.tasks  # noqa: F401 - the offline judge's rubric handler
from ragjudge.exceptions import ConfigurationError
from ragjudge.lm._safety import fence
from ragjudge.offline.model import OfflineParams, offline_verdict
from ragjudge.programs._base import Judge, check_calibration, check_choice, passages_text
from ragjudge.programs._demos import faithfulness_demo
from ragjudge.programs._learner import offline_learner
from ragjudge.programs._results import (
    JudgeResult,
    RawOutput,
    RubricOutput,
    StatementResult,
    StatementsOutput,
    WholeOutput,
    with_outcome,
)
from ragjudge.programs._serialization import register_judge
from ragjudge.programs._spec import CompileSpec
from ragjudge.signatures import (
    ExtractStatements,
    JudgeAnswer,
    JudgeStatements,
    RateFaithfulness,
    default_demos,
    default_rubric_demos,
)

if TYPE_CHECKING:
    from optuna.distributions import BaseDistribution

__all__ = ["Faithfulness", "score_statements", "statement_reason"]

Mode = Literal["statement", "whole", "rubric"]
UnsurePolicy = Literal["unsupported", "supported", "exclude"]
EmptyPolicy = Literal["nan", "zero", "one"]
Aggregation = Literal["fraction", "net", "mean", "min"]

MODES = ("statement", "whole", "rubric")
UNSURE = ("unsupported", "supported", "exclude")
EMPTY = ("nan", "zero", "one")
AGGREGATIONS = ("fraction", "net", "mean", "min")
#: The aggregations that count verdicts (the others read the judge's confidence).
_VERDICT_AGGREGATIONS = ("fraction", "net")
_VERDICT_VALUE = {"yes": 1.0, "no": 0.0, "unsure": 0.5}


#: The parameters that turn statement verdicts into a score (`finish`'s policies).
STATEMENT_POLICIES = ("threshold", "scale", "unsure", "empty", "aggregation")


def statement_policy_space() -> dict[str, BaseDistribution]:
    """The policies of judges that score statement verdicts: pass threshold, unsure, aggregation."""
    from optuna.distributions import CategoricalDistribution, FloatDistribution

    return {
        "threshold": FloatDistribution(0.0, 1.0),
        "unsure": CategoricalDistribution(UNSURE),
        "aggregation": CategoricalDistribution(AGGREGATIONS),
    }


def score_statements(
    statements: Sequence[StatementResult],
    *,
    unsure: str = "unsupported",
    empty: str = "nan",
    aggregation: str = "fraction",
) -> float:
    """The faithfulness score in [0, 1] of judged statements (NaN where `empty="nan"`).

    Args:
        statements: The judged statements.
        unsure: `"unsupported"` counts an unsure verdict as not supported, `"supported"` as
            supported, `"exclude"` leaves it out.
        empty: The score of an answer with no (remaining) statements: `"nan"`, `"zero"`, `"one"`.
        aggregation: `"fraction"` = share of supported statements; `"net"` = supported less
            contradicted ("no") statements, over all, at least 0: a claim the context
            contradicts counts against the answer, not only not for it; `"mean"` / `"min"` =
            mean / minimum of the judge's confidence that each statement is supported (the
            verdict stands in where the judge gave no confidence).

    Returns:
        The score.

    Example:
        >>> st = [StatementResult(text="a", verdict="yes"), StatementResult(text="b", verdict="no")]
        >>> score_statements(st), score_statements(st, aggregation="net")
        (0.5, 0.0)
    """
    kept = [s for s in statements if not (unsure == "exclude" and s.verdict == "unsure")]
    if not kept:
        return {"nan": math.nan, "zero": 0.0, "one": 1.0}[empty]
    if aggregation in _VERDICT_AGGREGATIONS:
        supported = sum(
            1
            for s in kept
            if s.verdict == "yes" or (s.verdict == "unsure" and unsure == "supported")
        )
        if aggregation == "net":
            supported -= sum(1 for s in kept if s.verdict == "no")
        return max(0.0, supported / len(kept))
    values = [
        s.confidence if s.confidence is not None else _VERDICT_VALUE.get(s.verdict, 0.0)
        for s in kept
    ]
    return min(values) if aggregation == "min" else sum(values) / len(values)


@register_judge
class Faithfulness(Judge):
    """Judge whether every claim of an answer is supported by the retrieved contexts.

    Args:
        mode: `"statement"` extracts atomic statements and judges all of them in one call
            (score: see `aggregation`; two LM calls); `"whole"` judges the answer in one call
            (score 1.0 or 0.0); `"rubric"` asks for a 1-5 rating against written anchors in one
            call (5 = every statement supported ... 1 = entirely fabricated or contradicts),
            whose unscaled score is `(rating - 1) / 4`: the default threshold 0.5 passes ratings
            of 3 and above, 0.75 (for production) ratings of 4 and above.
        threshold: Pass when the unscaled score (in [0, 1]) is at least this.
        scale: The reported score is multiplied by this (e.g. 5 or 100).
        unsure: How an "unsure" verdict counts: `"unsupported"`, `"supported"` or `"exclude"`.
        empty: The score of an answer with no statements: `"nan"` (no score, never passes),
            `"zero"` or `"one"`.
        aggregation: How statement verdicts become a score: `"net"` (the default: supported
            less contradicted statements, over all, at least 0, so one claim the context
            contradicts fails a short answer), `"fraction"` (supported / total, as RAGAS
            scores), or the `"mean"` / `"min"` of the judge's confidence; in whole mode
            `"net"` and `"fraction"` are the verdict itself and `"mean"`/`"min"` the judge's
            confidence.
        lm: `"local"` (the offline judge), a model string such as `"openai/gpt-4o-mini"`, a
            `dspy.LM`, or None: the LM from `dspy.configure`, else the offline judge.
        calibration: `(a, b)`: the unscaled score becomes `1 / (1 + exp(-(a * s + b)))`, the
            probability that a reviewer calls the answer faithful (Platt scaling, fitted by
            `compile`); `threshold` then applies to the calibrated score. None: no calibration.
        support_threshold: The offline judge only: a statement is supported when its support
            probability is at least this (`ragjudge.offline.model.offline_verdict`); None: the
            threshold of the offline judge's weights. An LM's verdicts are taken as given.
        max_tokens: Tokens one LM reply may have; None sizes it per call (a few hundred for a
            whole-answer verdict, more per statement to judge). A reply cut by it is the row's
            error.
        temperature: Sampling temperature of the LM calls; None keeps the LM's own, else 0.
        timeout: Seconds one LM call may take (default 120); a call past it is the row's error.

    Example:
        >>> judge = Faithfulness(mode="statement")
        >>> r = judge(question="Where was Einstein born?",
        ...           contexts=["Albert Einstein was born in Ulm, Germany, in 1879."],
        ...           answer="Einstein was born in Ulm in 1879.")
        >>> r.passed
        True
    """

    metric: ClassVar[str] = "faithfulness"
    modes: ClassVar[tuple[str, ...]] = MODES
    needs_contexts: ClassVar[bool] = True
    policy_names: ClassVar[tuple[str, ...]] = (
        *STATEMENT_POLICIES,
        "calibration",
        "support_threshold",
    )

    def __init__(
        self,
        *,
        mode: Mode = "statement",
        threshold: float = 0.5,
        scale: float = 1.0,
        unsure: UnsurePolicy = "unsupported",
        empty: EmptyPolicy = "nan",
        aggregation: Aggregation = "net",
        lm: str | dspy.BaseLM | None = None,
        calibration: Sequence[float] | None = None,
        support_threshold: float | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
        timeout: float | None = None,
    ) -> None:
        super().__init__()
        owner = "Faithfulness"
        self._set_generation(owner, max_tokens=max_tokens, temperature=temperature, timeout=timeout)
        check_choice(owner, "mode", mode, MODES)
        check_choice(owner, "unsure", unsure, UNSURE)
        check_choice(owner, "empty", empty, EMPTY)
        check_choice(owner, "aggregation", aggregation, AGGREGATIONS)
        if not 0.0 <= float(threshold) <= 1.0:
            raise ConfigurationError(
                f"The `threshold` parameter of {owner} must be in [0, 1]. "
                f"Got {threshold!r} instead."
            )
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
        self.calibration = check_calibration(owner, calibration)
        if support_threshold is not None and not 0.0 <= float(support_threshold) <= 1.0:
            raise ConfigurationError(
                f"The `support_threshold` parameter of {owner} must be in [0, 1] or None. "
                f"Got {support_threshold!r} instead."
            )
        self.support_threshold = support_threshold
        self.offline_params_: OfflineParams | None = None
        demos = default_demos()
        self.extract = dspy.Predict(ExtractStatements)
        self.extract.demos = demos["extract"]
        self.judge = dspy.Predict(JudgeStatements)
        self.judge.demos = demos["judge"]
        self.whole = dspy.Predict(JudgeAnswer)
        self.whole.demos = demos["whole"]
        self.rubric = dspy.Predict(RateFaithfulness)
        self.rubric.demos = default_rubric_demos()["faithfulness"]

    def raw_item(
        self,
        *,
        answer: str,
        contexts: Sequence[str] | str = (),
        question: str = "",
        reference: str | None = None,
    ) -> RawOutput:
        """The raw output for one answer (the LM calls); may raise on LM failure."""
        del reference  # faithfulness does not use a reference answer
        context = passages_text(contexts)
        question, answer = fence(question or ""), fence(answer or "")
        if self.mode == "whole":
            return self._raw_whole(question=question, context=context, answer=answer)
        if self.mode == "rubric":
            if not answer.strip():  # scored by the `empty` policy
                return RubricOutput()
            out = self.rubric(question=question, context=context, answer=answer)
            return RubricOutput(rating=int(out.faithfulness_score), reasoning=str(out.reasoning))
        return self._raw_statements(question=question, context=context, answer=answer)

    def _raw_statements(self, *, question: str, context: str, answer: str) -> StatementsOutput:
        texts: list[str] = []
        if answer.strip():
            texts = [s for s in self.extract(question=question, answer=answer).statements if s]
        judged = self.judge(context=context, statements=texts) if texts else None
        verdicts = judged.verdicts if judged is not None else []
        if texts and len(verdicts) != len(texts):
            raise ValueError(
                f"the judge returned {len(verdicts)} verdicts for {len(texts)} statements"
            )
        statements = [
            StatementResult(
                text=t,
                verdict=v.verdict,
                reason=v.reason,
                confidence=v.confidence,
                support=getattr(v, "support", None),
                rules=getattr(v, "rules", None),
            )
            for t, v in zip(texts, verdicts, strict=True)
        ]
        offline = _offline_params(dspy.settings.lm)
        return StatementsOutput(
            statements=statements,
            confidence_source=getattr(judged, "verdicts_confidence_source", None),
            support_threshold=None if offline is None else offline.support_threshold,
            unsure_margin=None if offline is None else offline.unsure_margin,
            schema_version=None if offline is None else offline.schema_version,
        )

    def _raw_whole(self, *, question: str, context: str, answer: str) -> RawOutput:
        if not answer.strip():
            return StatementsOutput()  # no statement: scored by the `empty` policy
        out = self.whole(question=question, context=context, answer=answer)
        stated = getattr(out, "stated_confidence", None)
        return WholeOutput(
            verdict=str(out.verdict),
            confidence=_clip(out.confidence),
            reasoning=str(out.reasoning),
            stated_confidence=None if stated is None else _clip(stated),
            confidence_source=getattr(out, "confidence_source", None),
        )

    def score(self, raw: RawOutput, policy: Mapping[str, Any]) -> JudgeResult:
        """Score a raw output under `policy` (no LM call): the one scoring rule of this judge.

        Args:
            raw: Judged statements, a whole-answer verdict or a rubric rating.
            policy: A value for every name in `policy_names`.

        Returns:
            The scored result.
        """
        p = dict(policy)
        if isinstance(raw, RubricOutput):
            if raw.rating is None:
                return self._statements_result(StatementsOutput(), p).model_copy(
                    update={"mode": "rubric", "raw": raw}
                )
            result = self._rubric_result(
                {"rubric_score": raw.rating, "reasoning": raw.reasoning}, p
            )
            return with_outcome(result, p, result.reason).model_copy(update={"raw": raw})
        if isinstance(raw, WholeOutput):
            return self._whole_result(raw, p)
        if isinstance(raw, StatementsOutput):
            return self._statements_result(raw, p)
        raise TypeError(f"Faithfulness cannot score a {type(raw).__name__}")

    def _whole_result(self, raw: WholeOutput, p: dict[str, Any]) -> JudgeResult:
        if p["aggregation"] in _VERDICT_AGGREGATIONS or raw.confidence is None:
            value = 1.0 if raw.verdict == "yes" else 0.0
        else:
            value = float(raw.confidence)
        details: dict[str, Any] = {"verdict": raw.verdict, "reasoning": raw.reasoning}
        if raw.stated_confidence is not None:  # the LM's own figure, beside the logprob one
            details["stated_confidence"] = raw.stated_confidence
        result = self._result(
            value,
            p,
            mode="whole",
            reason="",
            confidence=raw.confidence,
            confidence_source=raw.confidence_source,
            details=details,
            raw=raw,
        )
        return with_outcome(result, p, raw.reasoning, verdict=raw.verdict)

    def _statements_result(self, raw: StatementsOutput, p: dict[str, Any]) -> JudgeResult:
        statements = [_decided(s, raw, p.get("support_threshold")) for s in raw.statements]
        value = score_statements(
            statements, unsure=p["unsure"], empty=p["empty"], aggregation=p["aggregation"]
        )
        confidences = [s.confidence for s in statements if s.confidence is not None]
        result = self._result(
            value,
            p,
            mode="statement",
            statements=statements,
            confidence=min(confidences) if confidences else None,
            confidence_source=raw.confidence_source,
            raw=raw,
        )
        return with_outcome(result, p, statement_reason(value, statements, p))

    def finish(
        self,
        *,
        statements: Sequence[StatementResult] = (),
        whole: dict[str, Any] | None = None,
        rubric: dict[str, Any] | None = None,
        **overrides: Any,
    ) -> JudgeResult:
        """Score judged statements, a whole-answer verdict or a rubric rating (no LM call).

        A convenience over `score` for outputs given as plain values.

        Args:
            statements: Judged statements (statement mode).
            whole: `{"verdict", "confidence", "reasoning"}` (whole mode).
            rubric: `{"rubric_score", "reasoning"}` (rubric mode).
            **overrides: Policy values to use instead of this judge's (`threshold`, ...).

        Returns:
            The scored result.
        """
        raw: RawOutput
        if rubric is not None:
            raw = RubricOutput(
                rating=int(rubric["rubric_score"]), reasoning=str(rubric.get("reasoning", ""))
            )
        elif whole is not None:
            raw = WholeOutput(
                verdict=str(whole.get("verdict", "no")),
                confidence=_clip(whole.get("confidence")),
                reasoning=str(whole.get("reasoning", "")),
            )
        else:
            raw = StatementsOutput(statements=list(statements))
        return self.score(raw, {**self.policy(), **overrides})

    def compile_spec(self) -> CompileSpec[Judge]:
        """The statement policies searched; two LM calls a row in statement mode (extract,
        then judge every statement), else one; on the offline judge, its weights fitted."""
        spec = super().compile_spec()
        return replace(
            spec,
            space=statement_policy_space(),
            calls_by_mode={m: 2 if m == "statement" else 1 for m in MODES},
            learner=offline_learner(self) if not spec.calls_lm else None,
            demo=faithfulness_demo,
        )

    def legacy_raw(self, result: JudgeResult) -> RawOutput | None:
        """A result of results format 1 (no `raw`), read back from its fields."""
        if result.mode == "whole":
            return WholeOutput(
                verdict=str(result.details.get("verdict", "no")),
                confidence=result.confidence,
                reasoning=str(result.details.get("reasoning", "")),
                stated_confidence=result.details.get("stated_confidence"),
                confidence_source=result.confidence_source,
            )
        if result.mode == "rubric":
            rating = result.details.get("rubric_score")
            return RubricOutput(
                rating=None if rating is None else int(rating),
                reasoning=str(result.details.get("reasoning", "")),
            )
        return StatementsOutput(
            statements=list(result.statements), confidence_source=result.confidence_source
        )


def _offline_params(lm: Any) -> OfflineParams | None:
    """The offline judge's parameters when `lm` is the offline judge, else None."""
    engine = getattr(lm, "engine", None)
    model = getattr(engine, "model", None)
    params = getattr(model, "params", None)
    return params if isinstance(params, OfflineParams) else None


def _decided(
    statement: StatementResult, raw: StatementsOutput, support_threshold: float | None
) -> StatementResult:
    """A statement's verdict under a support threshold: the offline judge's statements (with
    their support and rules) through `offline_verdict`, the one rule judging and compiling
    share; an LM's verdict as given."""
    if statement.support is None or statement.rules is None or raw.unsure_margin is None:
        return statement
    threshold = support_threshold if support_threshold is not None else raw.support_threshold
    if threshold is None:
        return statement
    verdict, confidence = offline_verdict(
        support=statement.support,
        rules=statement.rules,
        support_threshold=threshold,
        unsure_margin=raw.unsure_margin,
        schema_version=raw.schema_version if raw.schema_version is not None else 2,
    )
    confidence = round(confidence, 6)  # as the offline judge reports it
    if verdict == statement.verdict and confidence == statement.confidence:
        return statement
    return statement.model_copy(update={"verdict": verdict, "confidence": confidence})


def _clip(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(number) else min(1.0, max(0.0, number))


def statement_reason(
    value: float,
    statements: Sequence[StatementResult],
    p: Mapping[str, Any],
    *,
    what: str = "statements",
    found: str = "supported",
    missed: str = "could not be verified",
) -> str:
    """What judged statements say, as the policies `p` count them (`unsure`, `empty`,
    `aggregation`): the finding `outcome_reason` leads with the score and the verdict.

    Args:
        value: The unscaled score of the statements (NaN when none counts).
        statements: The judged statements.
        p: The policies that scored them.
        what: What the statements are ("statements", "reference statements").
        found: What a "yes" verdict means ("supported", "in the contexts").
        missed: What a "no" verdict means.

    Returns:
        The finding, e.g. "1 of 2 statements are supported; 'X' is uncertain (counted as
        unsupported)".
    """
    if not statements:
        source = "answer" if what == "statements" else "reference"
        return f"the {source} makes no statement that can be checked"
    if math.isnan(value):
        return f"no {what.removesuffix('s')} could be judged (all unsure, excluded)"
    unsure, aggregation = p["unsure"], p["aggregation"]
    supported = sum(1 for s in statements if s.verdict == "yes")
    parts = [f"{supported} of {len(statements)} {what} are {found}"]
    failed = [s for s in statements if s.verdict == "no"]
    unsure_ones = [s for s in statements if s.verdict == "unsure"]
    parts.extend(f"'{_short(s.text)}' {missed}{_finding(s)}" for s in failed[:3])
    if unsure_ones:
        if unsure == "exclude":
            counted = "left out"
        elif aggregation in _VERDICT_AGGREGATIONS:
            counted = f"counted as {unsure}"
        else:
            counted = "counted by the judge's confidence"
        parts.extend(
            f"'{_short(s.text)}' is uncertain ({counted}){_finding(s)}" for s in unsure_ones[:3]
        )
    left = len(failed[3:]) + len(unsure_ones[3:])
    if left:
        parts.append(f"{left} more not {found}")
    if aggregation == "net" and failed:
        parts.append("each contradicted statement counts against a supported one")
    elif aggregation not in _VERDICT_AGGREGATIONS:
        parts.append(f"the score is the {aggregation} of the judge's confidence per statement")
    return "; ".join(parts)


def _finding(statement: StatementResult) -> str:
    """What the judge found for a statement it did not find supported: the first clause of its
    reason (the offline judge leads with what it found wrong where the context contradicts the
    statement, else with the words the context lacks), after a colon."""
    first = statement.reason.split("; ")[0].strip() if statement.reason else ""
    return f": {_short(first, 120)}" if first else ""


def _short(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
