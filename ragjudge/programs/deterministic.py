"""Deterministic faithfulness as a judge: ROUGE-L, token overlap and BLEU, no LM, compilable.

`ragjudge.lexical.DeterministicFaithfulness` reproduces the reference numbers; this judge wraps
it so that it evaluates, compiles and saves like every other judge. Compiling chooses which
score(s), the per-sentence threshold, the aggregation and the pass threshold against gold.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any, ClassVar, Literal

from ragjudge.data._gold import GoldRecord
from ragjudge.exceptions import ConfigurationError
from ragjudge.lexical import SCORE_KEYS, DeterministicFaithfulness, aggregate_scores
from ragjudge.programs._base import (
    Judge,
    calibrated,
    check_calibration,
    check_choice,
    judge_inputs,
)
from ragjudge.programs._results import JudgeResult, RawOutput, SentencesOutput, with_outcome
from ragjudge.programs._serialization import register_judge
from ragjudge.programs._spec import CompileSpec

__all__ = ["DeterministicJudge"]

Score = Literal["rouge", "token_overlap", "bleu", "mean"]
SCORES = ("rouge", "token_overlap", "bleu", "mean")
AGGREGATIONS = ("fraction", "mean", "min")


@register_judge
class DeterministicJudge(Judge):
    """Faithfulness from lexical overlap with the contexts, per answer sentence; no LM.

    Args:
        mode: The per-sentence score: `"rouge"` (ROUGE-L precision), `"token_overlap"`,
            `"bleu"`, or `"mean"` of the three.
        sentence_threshold: A sentence is faithful when its score is at least this.
        aggregation: `"fraction"` of faithful sentences (the reference definition), or the
            `"mean"` / `"min"` sentence score.
        threshold: Pass when the row score is at least this.
        compat: `"reference"` or `"continuous-eval"` (see `DeterministicFaithfulness`).
        variant: `"default"` or `"words"` (content words, smoothed word BLEU).
        workers: Processes used by `batch` (1 = this process).
        lm: Must stay unset (or `"local"`): this judge calls no LM.
        calibration: `(a, b)`: the row score becomes `1 / (1 + exp(-(a * s + b)))` (Platt
            scaling fitted by `compile`); `threshold` applies to the calibrated score.

    Example:
        >>> judge = DeterministicJudge(variant="words")
        >>> judge(answer="Paris is in France.", contexts=["Paris is in France."]).passed
        True
    """

    metric: ClassVar[str] = "faithfulness"
    metric_option: ClassVar[str | None] = "deterministic"
    modes: ClassVar[tuple[str, ...]] = SCORES
    uses_lm: ClassVar[bool] = False
    needs_contexts: ClassVar[bool] = True
    policy_names: ClassVar[tuple[str, ...]] = (
        "mode",
        "sentence_threshold",
        "aggregation",
        "threshold",
        "calibration",
    )

    def __init__(
        self,
        *,
        mode: Score = "rouge",
        sentence_threshold: float = 0.5,
        aggregation: Literal["fraction", "mean", "min"] = "fraction",
        threshold: float = 0.5,
        compat: Literal["reference", "continuous-eval"] = "reference",
        variant: Literal["default", "words"] = "default",
        workers: int = 1,
        lm: str | None = None,
        calibration: Sequence[float] | None = None,
    ) -> None:
        super().__init__()
        check_choice("DeterministicJudge", "mode", mode, SCORES)
        check_choice("DeterministicJudge", "aggregation", aggregation, AGGREGATIONS)
        for name, value in (("sentence_threshold", sentence_threshold), ("threshold", threshold)):
            if not 0.0 <= float(value) <= 1.0:
                raise ConfigurationError(
                    f"The `{name}` parameter of DeterministicJudge must be in [0, 1]. "
                    f"Got {value!r} instead."
                )
        if lm not in (None, "local"):
            raise ConfigurationError(
                f"DeterministicJudge uses no LM; got lm={lm!r}. Leave `lm` unset (or 'local')."
            )
        self.mode = mode
        self.sentence_threshold = sentence_threshold
        self.aggregation = aggregation
        self.threshold = threshold
        self.compat = compat
        self.variant = variant
        self.workers = workers
        self.calibration = check_calibration("DeterministicJudge", calibration)
        self.lm = None
        self.offline_params_ = None
        self._metric = DeterministicFaithfulness(
            compat=compat, variant=variant, threshold=sentence_threshold
        )

    # -- judging --------------------------------------------------------------------------
    def forward(self, **inputs: Any) -> JudgeResult:
        """Score one item (no LM involved, so no LM calls and no tokens)."""
        try:
            return self.judge_item(**inputs)
        except (TypeError, ValueError) as exc:
            return JudgeResult(
                metric=self.metric, mode=self.mode, error=f"{type(exc).__name__}: {exc}"
            )

    def judge_item(
        self,
        *,
        answer: str,
        contexts: Sequence[str] | str = (),
        question: str = "",
        reference: str | None = None,
    ) -> JudgeResult:
        """Score one answer against its contexts."""
        del question, reference
        return self.score(self.raw_item(answer=answer, contexts=contexts), self.policy())

    def raw_item(
        self,
        *,
        answer: str,
        contexts: Sequence[str] | str = (),
        question: str = "",
        reference: str | None = None,
    ) -> SentencesOutput:
        """The per-sentence scores of one answer (no LM)."""
        del question, reference
        return _sentences(
            self._metric(
                answer=answer, contexts=[contexts] if isinstance(contexts, str) else contexts
            )
        )

    def batch(
        self,
        rows: Sequence[GoldRecord | dict[str, Any]],
        *,
        concurrency: int = 1,
        on_result: Any = None,
    ) -> list[JudgeResult]:
        """Score many rows with shared tokenization and context caching; input order."""
        del concurrency
        pairs = [
            (judge_inputs(r).get("answer", ""), judge_inputs(r).get("contexts", ())) for r in rows
        ]
        raws = self._metric.batch(pairs, workers=self.workers)
        out = []
        for index, (row, raw) in enumerate(zip(rows, raws, strict=True)):
            row_id = row.id if isinstance(row, GoldRecord) else row.get("id")
            result = self.score(_sentences(raw), self.policy()).model_copy(
                update={"id": None if row_id is None else str(row_id)}
            )
            out.append(result)
            if on_result is not None:
                on_result(index, result)
        return out

    def iter_batch(
        self, rows: Sequence[GoldRecord | dict[str, Any]], *, concurrency: int = 1
    ) -> Iterator[tuple[int, JudgeResult]]:
        """Yield `(index, result)` in input order."""
        yield from enumerate(self.batch(rows, concurrency=concurrency))

    def score(self, raw: RawOutput, policy: Mapping[str, Any]) -> JudgeResult:
        """Score per-sentence scores under `policy` (the one scoring rule of this judge).

        Args:
            raw: The per-sentence scores (`SentencesOutput`).
            policy: A value for every name in `policy_names`.

        Returns:
            The scored result.
        """
        if not isinstance(raw, SentencesOutput):
            raise TypeError(f"DeterministicJudge cannot score a {type(raw).__name__}")
        p = policy
        per_sentence = {key: list(raw.per_sentence.get(key, [])) for key in SCORE_KEYS.values()}
        n = len(per_sentence["rouge_p_by_sentence"])
        details = {**per_sentence, "reference": dict(raw.reference)}
        if n == 0:
            return JudgeResult(
                metric=self.metric,
                mode=p["mode"],
                reason="the answer has no sentence",
                details=details,
                raw=raw,
            )
        scores, _ = aggregate_scores(
            [per_sentence],
            {
                "score": p["mode"],
                "sentence_threshold": p["sentence_threshold"],
                "pass_threshold": p["threshold"],
                "aggregate": p["aggregation"],
            },
        )
        score = calibrated(float(scores[0]), p.get("calibration"))
        names = list(SCORE_KEYS) if p["mode"] == "mean" else [p["mode"]]
        text = (
            f"{p['aggregation']} of per-sentence {'/'.join(names)} "
            f"over {n} sentence{'s' if n != 1 else ''} (sentence threshold "
            f"{p['sentence_threshold']:.2f})"
        )
        result = JudgeResult(
            metric=self.metric,
            mode=p["mode"],
            score=score,
            passed=None if math.isnan(score) else score >= p["threshold"],
            details=details,
            raw=raw,
        )
        return with_outcome(result, p, text)

    # -- compiling ------------------------------------------------------------------------
    def compile_spec(self) -> CompileSpec[Judge]:
        """Per-sentence threshold, aggregation and pass threshold: no recomputation needed."""
        from optuna.distributions import CategoricalDistribution, FloatDistribution

        space = {
            "sentence_threshold": FloatDistribution(0.0, 1.0),
            "aggregation": CategoricalDistribution(AGGREGATIONS),
            "threshold": FloatDistribution(0.0, 1.0),
        }
        return replace(super().compile_spec(), space=space)

    def legacy_raw(self, result: JudgeResult) -> RawOutput | None:
        """A result of results format 1 (no `raw`): its per-sentence scores in `details`."""
        return SentencesOutput(
            per_sentence={key: list(result.details.get(key, [])) for key in SCORE_KEYS.values()},
            reference=dict(result.details.get("reference", {})),
        )

    def clone(self, **overrides: Any) -> Judge:
        """A new judge with the same parameters but `overrides` and the same compile report
        (there is no other learned state)."""
        new = type(self)(**{**self.get_params(), **overrides})
        new.report_ = copy.deepcopy(self.report_)
        return new

    def runs_offline(self) -> bool:
        """Always: this judge calls no LM (its rows count no LM call)."""
        return True

    def dump_state(self, json_mode: bool = True) -> dict[str, Any]:
        """No DSPy predictors: only the (empty) learned state."""
        return {"ragjudge": {"learned": {}}}

    def load_state(self, state: dict[str, Any], **kwargs: Any) -> Judge:
        """Nothing to restore beyond the parameters."""
        return self


def _sentences(raw: dict[str, Any]) -> SentencesOutput:
    """The metric's output as a raw output."""
    return SentencesOutput(
        per_sentence={key: [float(v) for v in raw[key]] for key in SCORE_KEYS.values()},
        reference=_reference(raw),
    )


def _reference(raw: dict[str, Any]) -> dict[str, float]:
    """The reference definition's three aggregates, kept beside ragjudge's own score."""
    return {
        k: raw[k]
        for k in ("rouge_faithfulness", "token_overlap_faithfulness", "bleu_faithfulness")
        if k in raw
    }
