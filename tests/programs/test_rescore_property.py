"""Rescoring is judging: `judge.rescore(judge(**row), **p)` equals `judge.clone(**p)(**row)`.

For every registered judge (a cascade judged with its LM on every row), each of its modes and
policies drawn from its own policy space (hypothesis), on gold rows: with the offline judge,
the deterministic judge and a scripted LM whose replies are a fixed function of the prompt.
Compile tunes by rescoring; a judge that rescored differently from how it judges would ship a
judge the study never scored.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import dspy
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from optuna.distributions import CategoricalDistribution, FloatDistribution

from ragjudge.data._gold import GoldRecord, load_gold
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
from ragjudge.programs._serialization import registry
from ragjudge.testing._function import function_lm


@pytest.fixture(scope="module")
def rows(gold_dir: Path) -> list[GoldRecord]:
    """Gold rows of every source, both labels, a few with several passages."""
    sample = load_gold(gold_dir / "sample.jsonl")
    chosen = sample[:6]
    several = [r for r in sample if len(r.contexts) > 1][:2]
    return [
        r.model_copy(update={"reference": r.answer if r.faithful else r.question})
        for r in [*chosen, *several]
    ]


def _policy(judge: Judge) -> st.SearchStrategy[dict[str, Any]]:
    """Policies drawn from the judge's own policy space (plus the offline support threshold)."""
    fields: dict[str, st.SearchStrategy[Any]] = {}
    for name, dist in judge.compile_spec().space.items():
        if isinstance(dist, FloatDistribution):
            fields[name] = st.floats(dist.low, dist.high, allow_nan=False)
        elif isinstance(dist, CategoricalDistribution):
            fields[name] = st.sampled_from(list(dist.choices))
    if "support_threshold" in judge.policy_names:
        fields["support_threshold"] = st.floats(0.05, 0.95, allow_nan=False)
    return st.fixed_dictionaries(fields)


def _same(a: JudgeResult, b: JudgeResult) -> None:
    assert a.error == b.error
    assert [s.verdict for s in a.statements] == [s.verdict for s in b.statements]
    assert a.passed == b.passed
    assert (math.isnan(a.score) and math.isnan(b.score)) or a.score == pytest.approx(b.score)


def _judges(lm: str | dspy.BaseLM | None) -> list[Judge]:
    judges: list[Judge] = []
    for mode in Faithfulness.modes:
        judges.append(Faithfulness(mode=mode, lm=lm))
        judges.append(Ensemble.of(Faithfulness(mode=mode, lm=lm), repeat=2))
    # A cascade judged with the LM on every row holds what every route and band needs.
    judges += [Cascade(mode=m, lm=lm, route="lm") for m in Cascade.modes]
    judges += [ContextRecall(mode=m, lm=lm) for m in ContextRecall.modes]
    judges += [AnswerRelevancy(mode=m, lm=lm, similarity="lexical") for m in AnswerRelevancy.modes]
    return judges


CASES = [
    *[("offline", j) for j in _judges("local")],
    *[("scripted", j) for j in _judges(None)],
    *[("deterministic", DeterministicJudge(mode=m)) for m in DeterministicJudge.modes],
]


def test_every_registered_judge_is_covered() -> None:
    covered = {type(j).__name__ for _, j in CASES}
    assert covered == set(registry())


@pytest.mark.parametrize(
    ("lm", "judge"),
    CASES,
    ids=[f"{lm}-{type(j).__name__}-{getattr(j, 'mode', '')}" for lm, j in CASES],
)
def test_rescoring_a_result_equals_judging_with_the_policy(
    lm: str, judge: Judge, rows: list[GoldRecord]
) -> None:
    scripted, _ = function_lm()
    context = dspy.context(lm=scripted) if lm == "scripted" else dspy.context()
    with context:
        judged = [judge(**judge_inputs(r)) for r in rows]
        assert not any(r.error for r in judged), [r.error for r in judged]

        @settings(
            max_examples=6,
            deadline=None,
            derandomize=True,
            suppress_health_check=[HealthCheck.function_scoped_fixture],
        )
        @given(policy=_policy(judge))
        def check(policy: dict[str, Any]) -> None:
            clone = judge.clone(**policy)
            for row, result in zip(rows, judged, strict=True):
                _same(judge.rescore(result, **policy), clone(**judge_inputs(row)))

        check()


def test_the_offline_verdict_rule_is_the_one_compile_rescores_with() -> None:
    """A statement only planned in the context stays "unsure" under any support threshold."""
    judge = Faithfulness()
    row = {
        "contexts": ["The company plans to open a new factory in Ohio next year."],
        "answer": "The company opened a new factory in Ohio.",
    }
    result = judge(**row)
    for threshold in (0.2, 0.5, 0.8):
        again = judge.rescore(result, support_threshold=threshold)
        assert [s.verdict for s in again.statements] == ["unsure"]
        assert again.passed is False
        assert judge.clone(support_threshold=threshold)(**row).passed is False


def test_the_support_threshold_is_a_policy_that_changes_verdicts(rows: list[GoldRecord]) -> None:
    judge = Faithfulness()
    low, high = judge.clone(support_threshold=0.05), judge.clone(support_threshold=0.95)
    verdicts = [
        (
            [s.verdict for s in low(**judge_inputs(r)).statements],
            [s.verdict for s in high(**judge_inputs(r)).statements],
        )
        for r in rows
    ]
    assert any(a != b for a, b in verdicts)
    assert all(a.count("yes") >= b.count("yes") for a, b in verdicts)
