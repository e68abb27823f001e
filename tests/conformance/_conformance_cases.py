"""The judges the conformance suite runs, the rows it runs them on, and its scripted LM.

Every promise of the suite (one test module each) is parametrized over `CASES`, as Optuna runs
one suite over every sampler: a new judge class joins by adding a case here, and
`test_every_registered_judge_is_a_case` fails until it does.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import dspy

from ragjudge.data._gold import GoldRecord, load_gold
from ragjudge.exceptions import UngroupedRowsWarning
from ragjudge.optimize._compile import compile_judge
from ragjudge.programs import (
    AnswerRelevancy,
    Cascade,
    ContextRecall,
    DeterministicJudge,
    Ensemble,
    Faithfulness,
)
from ragjudge.programs._base import Judge, judge_inputs
from ragjudge.programs._results import JudgeResult
from ragjudge.programs.cascade import ROUTES
from ragjudge.testing._function import FunctionEngine, function_lm

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "faithfulness"

LMKind = Literal["offline", "scripted", "none"]


@dataclass(frozen=True)
class Case:
    """One judge the suite runs.

    Attributes:
        id: The test id.
        make: Builds the judge (a fresh one each time).
        lm: Which LM it talks to: the offline judge, the scripted LM (configured with
            `dspy.context` for the test), or none (a deterministic judge).
        learn: Gives a judge learned state (fitted weights, demos) to check it survives
            save, load and clone.
    """

    id: str
    make: Callable[[], Judge]
    lm: LMKind
    learn: Callable[[Judge], None] = field(default=lambda judge: None)


def _keep_one_demo(judge: Judge) -> None:
    """Learned demos: each predictor keeps the first of its default demos."""
    for _, predictor in judge.named_predictors():
        predictor.demos = predictor.demos[:1]


def _fit_offline(judge: Judge) -> None:
    """Learned weights: the offline judge's support threshold moved (as compile's fit does),
    and demos (which the offline judge does not read, but a judge file keeps)."""
    from ragjudge.offline.model import OfflineParams

    params = judge.offline_params_ or OfflineParams()
    judge.offline_params_ = params.model_copy(update={"support_threshold": 0.42})
    if isinstance(judge, Ensemble):
        judge.inner.offline_params_ = judge.offline_params_
    _keep_one_demo(judge)


#: A Platt calibration `(a, b)` that moves scores and verdicts: a calibrated judge's case.
CALIBRATION = [4.0, -1.5]


def _cases() -> list[Case]:
    cases: list[Case] = []
    for mode in Faithfulness.modes:
        cases.append(
            Case(
                f"faithfulness-{mode}-offline",
                lambda m=mode: Faithfulness(mode=m, lm="local"),
                "offline",
                _fit_offline,
            )
        )
        cases.append(
            Case(
                f"faithfulness-{mode}-scripted",
                lambda m=mode: Faithfulness(mode=m),
                "scripted",
                _keep_one_demo,
            )
        )
    cases += [
        Case(
            "faithfulness-statement-calibrated-offline",
            lambda: Faithfulness(mode="statement", lm="local", calibration=CALIBRATION),
            "offline",
            _fit_offline,
        ),
        Case(
            "faithfulness-whole-mean-calibrated-scripted",
            lambda: Faithfulness(mode="whole", aggregation="mean", calibration=CALIBRATION),
            "scripted",
            _keep_one_demo,
        ),
        Case(
            "ensemble-statement-offline",
            lambda: Ensemble.of(Faithfulness(mode="statement", lm="local"), repeat=2),
            "offline",
            _fit_offline,
        ),
        Case(
            "ensemble-whole-scripted",
            lambda: Ensemble(judge="Faithfulness", params={"mode": "whole"}, repeat=3),
            "scripted",
            _keep_one_demo,
        ),
        Case(  # members whose confidences differ (a greedy reply and samples), cut once
            "ensemble-whole-mean-scripted",
            lambda: Ensemble(
                judge="Faithfulness", params={"mode": "whole", "aggregation": "mean"}, repeat=3
            ),
            "scripted",
            _keep_one_demo,
        ),
        Case(
            "ensemble-rubric-calibrated-scripted",
            lambda: Ensemble(
                judge="Faithfulness",
                params={"mode": "rubric", "calibration": CALIBRATION},
                repeat=2,
            ),
            "scripted",
            _keep_one_demo,
        ),
        Case(
            "ensemble-relevancy-questions-scripted",
            lambda: Ensemble(
                judge="AnswerRelevancy",
                params={"mode": "questions", "similarity": "lexical"},
                repeat=2,
            ),
            "scripted",
            _keep_one_demo,
        ),
        Case(
            "ensemble-recall-statement-scripted",
            lambda: Ensemble(judge="ContextRecall", params={"mode": "statement"}, repeat=2),
            "scripted",
            _keep_one_demo,
        ),
        Case(
            "ensemble-deterministic",
            lambda: Ensemble(judge="DeterministicJudge", params={"mode": "rouge"}, repeat=2),
            "none",
        ),
    ]
    for route in ROUTES:
        for mode in Cascade.modes:
            if route == "offline" and mode != Cascade.modes[0]:
                continue  # the offline route asks no LM: its LM mode changes nothing
            cases.append(
                Case(
                    "cascade-offline" if route == "offline" else f"cascade-{route}-{mode}-scripted",
                    lambda r=route, m=mode: Cascade(mode=m, route=r, low=0.2, high=0.8),
                    "offline" if route == "offline" else "scripted",
                    _fit_offline,
                )
            )
    for mode in DeterministicJudge.modes:
        cases.append(
            Case(f"deterministic-{mode}", lambda m=mode: DeterministicJudge(mode=m), "none")
        )
    cases.append(
        Case(
            "deterministic-calibrated",
            lambda: DeterministicJudge(mode="token_overlap", calibration=CALIBRATION),
            "none",
        )
    )
    for mode in AnswerRelevancy.modes:
        cases.append(
            Case(
                f"relevancy-{mode}-offline",
                lambda m=mode: AnswerRelevancy(mode=m, lm="local", similarity="lexical"),
                "offline",
                _keep_one_demo,
            )
        )
        cases.append(
            Case(
                f"relevancy-{mode}-scripted",
                lambda m=mode: AnswerRelevancy(mode=m, similarity="lexical"),
                "scripted",
                _keep_one_demo,
            )
        )
    for mode in ContextRecall.modes:
        cases.append(
            Case(
                f"recall-{mode}-offline",
                lambda m=mode: ContextRecall(mode=m, lm="local"),
                "offline",
                _keep_one_demo,
            )
        )
        cases.append(
            Case(
                f"recall-{mode}-scripted",
                lambda m=mode: ContextRecall(mode=m),
                "scripted",
                _keep_one_demo,
            )
        )
    return cases


CASES = _cases()
IDS = [c.id for c in CASES]


@contextmanager
def lm_for(case: Case) -> Iterator[FunctionEngine | None]:
    """The LM a case's judge talks to when its `lm` is None: the scripted LM for a scripted
    case (yielding its engine), nothing configured otherwise."""
    if case.lm != "scripted":
        with dspy.context(lm=None):
            yield None
        return
    lm, engine = function_lm()
    with dspy.context(lm=lm):
        yield engine


# -- rows ------------------------------------------------------------------------------------


def _split(passage: str) -> list[str]:
    """A passage cut at sentence ends into (at most) three passages."""
    sentences = [s for s in re.split(r"(?<=[.!?])\s+", passage.strip()) if s]
    if len(sentences) < 2:
        return [passage]
    size = max(1, -(-len(sentences) // 3))
    return [" ".join(sentences[i : i + size]) for i in range(0, len(sentences), size)]


def example_rows(per_kind: int = 1, *, max_context: int = 2500) -> list[GoldRecord]:
    """A few rows of the shipped examples: the shortest `per_kind` of each source and label,
    each context cut into several passages (so passage order can be changed), each with a
    reference (its answer when faithful, else its question: recall has something to find)."""
    rows = load_gold(EXAMPLES / "test.jsonl")
    by_kind: dict[tuple[str | None, int | None], list[GoldRecord]] = {}
    for row in sorted(rows, key=lambda r: len(r.answer) + sum(map(len, r.contexts))):
        if sum(map(len, row.contexts)) <= max_context:
            by_kind.setdefault((row.source, row.faithful), []).append(row)
    picked = [r for kind in sorted(by_kind, key=str) for r in by_kind[kind][:per_kind]]
    return [
        r.model_copy(
            update={
                "contexts": [p for c in r.contexts for p in _split(c)],
                "reference": r.answer if r.faithful else r.question or r.answer,
            }
        )
        for r in picked
    ]


def labeled_gold(metric: str, per_label: int = 6) -> list[GoldRecord]:
    """Rows labeled for `metric`, about `per_label` of each label: the example rows' human
    labels for faithfulness, labels derived from them (`rows_for_metric`) for relevancy and
    recall."""
    if metric == "faithfulness":  # short rows: compile fits the offline judge on them fast
        return example_rows(per_kind=per_label // 2 + 1, max_context=1000)
    from ragjudge.data._labels import gold_label, rows_for_metric

    derived, _ = rows_for_metric(metric, load_gold(EXAMPLES / "test.jsonl"))
    return [
        r
        for label in (1, 0)
        for r in [r for r in derived if gold_label(r, metric) == label][:per_label]
    ]


def small_compile(judge: Judge, **options: Any) -> Judge:
    """A small compile of `judge` on `labeled_gold(judge.metric)`, no bootstrap, seed 0, rows
    ungrouped; `options` go to `compile_judge` (and may replace these). The suite's few
    ungrouped rows make compile warn about groups and class sizes: not what a test checks."""
    settings: dict[str, Any] = {
        "gold": labeled_gold(judge.metric),
        "n_boot": 0,
        "seed": 0,
        "group_by": None,
        **options,
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UngroupedRowsWarning)
        warnings.filterwarnings("ignore", "The least populated class", UserWarning)
        return compile_judge(judge, **settings)


def same_result(a: JudgeResult, b: JudgeResult) -> bool:
    """Whether two results say the same: error, verdict, score, statements' verdicts, reason."""
    if a.error != b.error or a.passed != b.passed or a.reason != b.reason:
        return False
    if [s.verdict for s in a.statements] != [s.verdict for s in b.statements]:
        return False
    both_nan = a.score != a.score and b.score != b.score
    return both_nan or abs(a.score - b.score) <= 1e-9


def judged(judge: Judge, rows: Sequence[GoldRecord]) -> list[JudgeResult]:
    """The judge's results on `rows`, one call each (no result memo between them)."""
    return [judge(**judge_inputs(r)) for r in rows]


def raw_of(judge: Judge, row: GoldRecord) -> Any:
    """A row's raw output (`raw_item`: every LM call), under the judge's own LM as judging
    resolves it."""
    with dspy.context(lm=judge.resolved_lm()) if judge.uses_lm else _nothing():
        return judge.raw_item(**judge_inputs(row))


@contextmanager
def _nothing() -> Iterator[None]:
    yield
