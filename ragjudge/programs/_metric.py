"""A judge as a DSPy metric: `metric(example, pred, trace=None)` for `dspy.Evaluate` and the
optimizers of the user's own program (BootstrapFewShot, MIPROv2, GEPA)."""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

import dspy

from ragjudge.exceptions import ConfigurationError
from ragjudge.programs._results import reason_text
from ragjudge.stats._threshold import unit_prediction

if TYPE_CHECKING:
    from ragjudge.programs._results import JudgeResult
    from ragjudge.programs._spec import CompileSpec

__all__ = ["JudgeMetric", "feedback_text", "with_statements"]

logger = logging.getLogger(__name__)

_UNSET: Any = object()


class Judging(Protocol):
    """What the metric asks of a judge (`Judge` has it; this module imports no judge, so that
    `Judge.as_metric` can hand one out)."""

    @property
    def metric(self) -> str:
        """The metric's name."""
        ...

    @property
    def modes(self) -> tuple[str, ...]:
        """The judge's modes."""
        ...

    def __call__(self, *args: Any, **kwargs: Any) -> JudgeResult:
        """Judge one item."""
        ...

    def clone(self, **overrides: Any) -> Judging:
        """The same judge with other parameters."""
        ...

    def compile_spec(self) -> CompileSpec:
        """What compile needs of the judge (its scale, here)."""
        ...


class JudgeMetric:
    """A judge as a DSPy metric (made by `Judge.as_metric`).

    Called as `metric(example, pred, trace=None)` it returns the judge's score in [0, 1] as a
    float, or, when `trace` is set (DSPy's optimizers bootstrapping demos), whether the item
    passed as a bool. Called with GEPA's feedback signature
    `metric(gold, pred, trace, pred_name, pred_trace)` it returns
    `dspy.Prediction(score=..., feedback=...)`, the feedback listing the unsupported
    statements with the judge's reasons.

    The score is the judge's unit score (`JudgeResult.unit` on `CompileSpec.scale`) as a
    value in [0, 1] (`stats.unit_prediction`): an item the judge could not score (an LM
    failure, an answer with no statements) scores 0.0 and fails; the reason is logged and,
    for GEPA, given as the feedback.

    Attributes:
        judge: The judge that scores.
        question_field: The field of the example (or prediction) holding the question.
        contexts_field: The field of the prediction (or example) holding the contexts.
        answer_field: The field of the prediction (or example) holding the answer.
        reference_field: The field holding a reference answer (context recall), if any.
        pass_on_trace: Return the pass verdict (bool) when `trace` is set.
    """

    def __init__(
        self,
        judge: Judging,
        *,
        question_field: str = "question",
        contexts_field: str = "contexts",
        answer_field: str = "answer",
        reference_field: str | None = None,
        pass_on_trace: bool = True,
    ) -> None:
        self.judge = judge
        self.question_field = question_field
        self.contexts_field = contexts_field
        self.answer_field = answer_field
        self.reference_field = reference_field
        self.pass_on_trace = pass_on_trace
        self.__name__ = f"{judge.metric}_metric"
        self._scale: float | None = None

    @property
    def scale(self) -> float:
        """The judge's score scale (`CompileSpec.scale`), read once."""
        if self._scale is None:
            self._scale = self.judge.compile_spec().scale
        return self._scale

    def inputs(self, example: Any, pred: Any) -> dict[str, Any]:
        """The judge's keyword arguments read from an example and a prediction.

        The question is read from the example first, the contexts and the answer from the
        prediction first (what the program retrieved and wrote), each falling back to the other.

        Raises:
            ConfigurationError: When neither holds a field, naming the fields each one has.
        """
        inputs: dict[str, Any] = {
            "question": str(_field(self.question_field, "question", example, pred) or ""),
            "contexts": _contexts(_field(self.contexts_field, "contexts", pred, example)),
            "answer": str(_field(self.answer_field, "answer", pred, example) or ""),
        }
        if self.reference_field is not None:
            inputs["reference"] = _field(self.reference_field, "reference", example, pred)
        return inputs

    def result(self, example: Any, pred: Any) -> JudgeResult:
        """The judge's full result on one item."""
        return self.judge(**self.inputs(example, pred))

    def __call__(
        self,
        example: Any,
        pred: Any,
        trace: Any = None,
        pred_name: Any = _UNSET,
        pred_trace: Any = _UNSET,
    ) -> float | bool | dspy.Prediction:
        result = self.result(example, pred)
        score = unit_prediction(result.unit(scale=self.scale))
        if result.error or math.isnan(result.score):
            logger.warning("%s metric: item not scored: %s", self.judge.metric, _why(result))
        if pred_name is not _UNSET or pred_trace is not _UNSET:
            explained = with_statements(self.judge, result, self.inputs(example, pred))
            return dspy.Prediction(score=score, feedback=feedback_text(explained))
        if trace is not None and self.pass_on_trace:
            return bool(result.passed)
        return score


def with_statements(judge: Judging, result: JudgeResult, inputs: dict[str, Any]) -> JudgeResult:
    """The result with per-statement verdicts to explain it.

    A judge in a mode without statements (`whole`, `rubric`) gives one verdict; to say which
    statements are unsupported, a statement-mode clone of the judge (same LM and learned
    state) judges the item once more. Its verdicts only explain: the score stays the judge's.
    """
    if result.statements or result.error or "statement" not in judge.modes:
        return result
    if getattr(judge, "mode", "statement") == "statement":
        return result
    detail = judge.clone(mode="statement")(**inputs)
    if detail.error or not detail.statements:
        return result
    return result.model_copy(update={"statements": detail.statements})


def feedback_text(result: JudgeResult) -> str:
    """What a person (or GEPA's reflection LM) should know about a result: the score, the
    verdict and each unsupported statement with the judge's reason.

    Example:
        >>> from ragjudge.programs._results import JudgeResult, StatementResult
        >>> r = JudgeResult(score=0.5, passed=False, statements=[
        ...     StatementResult(text="A.", verdict="yes"),
        ...     StatementResult(text="B.", verdict="no", reason="'B' not in the context")])
        >>> print(feedback_text(r))
        faithfulness 0.50 (fail). Unsupported statements:
        - B. (the judge: 'B' not in the context)
    """
    if result.error or math.isnan(result.score):
        return f"{result.metric}: the answer could not be scored ({_why(result)})."
    verdict = {True: "pass", False: "fail", None: "n/a"}[result.passed]
    head = f"{result.metric} {result.score:.2f} ({verdict})."
    bad = [s for s in result.statements if s.verdict != "yes"]
    if bad:
        lines = [f"{head} Unsupported statements:"]
        for s in bad:
            label = "" if s.verdict == "no" else f" [{s.verdict}]"
            reason = f" (the judge: {s.reason})" if s.reason else ""
            lines.append(f"- {s.text}{label}{reason}")
        return "\n".join(lines)
    if result.statements:
        return f"{head} Every statement is supported by the contexts."
    return f"{head} {reason_text(result)}".strip()  # the head already says the outcome


def _why(result: JudgeResult) -> str:
    return result.error or result.reason or "no score"


def _get(obj: Any, name: str) -> Any:
    if obj is None:
        return _UNSET
    if isinstance(obj, dict):
        return obj.get(name, _UNSET)
    try:
        value = obj[name] if hasattr(obj, "keys") and name in obj.keys() else _UNSET
    except (KeyError, TypeError):
        value = _UNSET
    if value is _UNSET:
        value = getattr(obj, name, _UNSET)
    return value


def _keys(obj: Any) -> list[str]:
    if obj is None:
        return []
    if hasattr(obj, "keys"):
        return sorted(str(k) for k in obj.keys())
    return sorted(k for k in vars(obj) if not k.startswith("_")) if hasattr(obj, "__dict__") else []


def _field(name: str, role: str, first: Any, second: Any) -> Any:
    for source in (first, second):
        value = _get(source, name)
        if value is not _UNSET:
            return value
    raise ConfigurationError(
        f"as_metric: neither the prediction nor the example has the {role} field {name!r} "
        f"(prediction: {_keys(first if role != 'question' else second)}; example: "
        f"{_keys(second if role != 'question' else first)}). Pass `{role}_field=...`."
    )


def _contexts(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, Sequence) or hasattr(value, "__iter__"):
        out = []
        for item in value:
            if isinstance(item, dict):
                item = item.get("long_text") or item.get("text") or item.get("content") or item
            out.append(str(item))
        return out
    return [str(value)]
