"""Several judges on one item at once: faithfulness, answer relevancy and context recall."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal

import dspy
import pydantic

from ragjudge.data._gold import GoldRecord
from ragjudge.exceptions import ConfigurationError
from ragjudge.lm._resolve import resolve_lm
from ragjudge.programs._base import Judge, judge_inputs
from ragjudge.programs._results import JudgeResult
from ragjudge.programs.faithfulness import Faithfulness
from ragjudge.programs.recall import ContextRecall
from ragjudge.programs.relevancy import AnswerRelevancy

__all__ = ["Suite", "SuiteResult"]


class SuiteResult(pydantic.BaseModel):
    """The results of every judge of a suite on one item.

    Attributes:
        id: The row id, when judged from a file.
        results: One result per judge, keyed by metric (`"faithfulness"`, ...); a second judge
            of the same metric is keyed `"faithfulness#2"`.
        lm_calls: LM calls of all judges together (cache hits are not calls).
        tokens: Tokens of all judges together.
    """

    model_config = pydantic.ConfigDict(ser_json_inf_nan="null")

    id: str | None = None
    results: dict[str, JudgeResult]
    lm_calls: int = 0
    tokens: int = 0

    def __getitem__(self, metric: str) -> JudgeResult:
        return self.results[metric]

    def format(self) -> str:
        """The results as text for a person."""
        parts = [r.format() for r in self.results.values()]
        if self.results and all(r.offline for r in self.results.values()):
            parts.append("suite: offline judge, no LM")
        else:
            parts.append(f"suite: {self.lm_calls} LM calls, {self.tokens} tokens")
        return "\n".join(parts)


class Suite:
    """Run several judges on the same item and collect one result per judge.

    The LM calls of a suite are the sum of its judges' calls: in statement mode faithfulness
    makes 2 (extract answer statements, judge them all), relevancy in questions mode 1 (plus
    embeddings, no LM), recall 2 (extract reference statements, judge their attribution), so the
    three-judge suite needs at most 5 calls per item; with rubric modes it needs 3. Identical
    requests are DSPy cache hits and are not counted. Extracted statements are shared where that
    is sound: when the reference is the answer itself, context recall reuses the answer
    statements that a statement-mode faithfulness judge extracted (4 calls). Otherwise answer and
    reference are different texts and each is split on its own.

    Args:
        judges: The judges; None for `Faithfulness()`, `AnswerRelevancy()`, `ContextRecall()`.
        lm: An LM for every judge whose own `lm` is None (a model string, `"local"`, a
            `dspy.LM`); None keeps each judge's LM resolution.

    Example:
        >>> suite = Suite(lm="local")
        >>> out = suite(question="Where was Einstein born?",
        ...             contexts=["Albert Einstein was born in Ulm, Germany, in 1879."],
        ...             answer="Einstein was born in Ulm.", reference="Ulm, Germany")
        >>> sorted(out.results), out.lm_calls  # the offline judge calls no LM
        (['answer_relevancy', 'context_recall', 'faithfulness'], 0)
    """

    def __init__(
        self,
        judges: Sequence[Judge] | None = None,
        *,
        lm: str | dspy.BaseLM | None = None,
    ) -> None:
        chosen = list(judges) if judges is not None else self.default_judges()
        if not chosen:
            raise ConfigurationError("A Suite needs at least one judge; pass judges=[...]")
        for judge in chosen:
            if not isinstance(judge, Judge):
                raise ConfigurationError(
                    f"Suite judges must be ragjudge judges; got {type(judge).__name__}"
                )
        self.judges = chosen
        self.lm = lm
        self.keys = _keys(chosen)

    @staticmethod
    def default_judges(mode: Literal["statement", "rubric"] = "statement") -> list[Judge]:
        """Faithfulness, answer relevancy and context recall, in statement or rubric modes.

        Example:
            >>> [j.mode for j in Suite.default_judges("rubric")]
            ['rubric', 'rubric', 'rubric']
        """
        if mode == "rubric":
            return [
                Faithfulness(mode="rubric"),
                AnswerRelevancy(mode="rubric"),
                ContextRecall(mode="rubric"),
            ]
        return [
            Faithfulness(mode="statement"),
            AnswerRelevancy(mode="questions"),
            ContextRecall(mode="statement"),
        ]

    def __call__(self, *args: Any, **inputs: Any) -> SuiteResult:
        if args:
            raise TypeError("Suite() takes keyword arguments only")
        inputs.setdefault("answer", "")
        results: dict[str, JudgeResult] = {}
        if self.lm is not None:
            with dspy.context(lm=resolve_lm(self.lm)):
                self._run(inputs, results)
        else:
            self._run(inputs, results)
        return SuiteResult(
            results=results,
            lm_calls=sum(r.lm_calls for r in results.values()),
            tokens=sum(r.tokens for r in results.values()),
        )

    def _run(self, inputs: dict[str, Any], results: dict[str, JudgeResult]) -> None:
        answer_statements: list[str] | None = None
        reference = inputs.get("reference")
        same_text = (
            isinstance(reference, str) and reference.strip() == str(inputs["answer"]).strip()
        )
        for key, judge in zip(self.keys, self.judges, strict=True):
            share = (
                same_text
                and answer_statements
                and isinstance(judge, ContextRecall)
                and judge.mode == "statement"
            )
            if share:
                results[key] = judge(**inputs, reference_statements=answer_statements)
                results[key].details["reference_statements_from"] = "faithfulness"
            else:
                results[key] = judge(**inputs)
            result = results[key]
            if (
                isinstance(judge, Faithfulness)
                and result.mode == "statement"
                and not result.error
                and result.statements
            ):
                answer_statements = [s.text for s in result.statements]

    def batch(
        self,
        rows: Sequence[GoldRecord | dict[str, Any]],
        *,
        on_result: Callable[[int, SuiteResult], None] | None = None,
    ) -> list[SuiteResult]:
        """Judge many rows, in order; each result carries its row id.

        Args:
            rows: Gold records or dicts with the judges' inputs.
            on_result: Called as `(index, result)` after each row.

        Returns:
            One suite result per row.
        """
        out = []
        for index, row in enumerate(rows):
            result = self(**judge_inputs(row))
            row_id = row.id if isinstance(row, GoldRecord) else row.get("id")
            ident = None if row_id is None else str(row_id)
            result = result.model_copy(
                update={
                    "id": ident,
                    "results": {
                        k: v.model_copy(update={"id": ident}) for k, v in result.results.items()
                    },
                }
            )
            if on_result is not None:
                on_result(index, result)
            out.append(result)
        return out


def _keys(judges: Sequence[Judge]) -> list[str]:
    seen: dict[str, int] = {}
    keys = []
    for judge in judges:
        metric = judge.metric
        seen[metric] = seen.get(metric, 0) + 1
        keys.append(metric if seen[metric] == 1 else f"{metric}#{seen[metric]}")
    return keys
