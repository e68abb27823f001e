"""A `Suite` keeps its judges' promises: each of its results is its judge's own (and rescores
like it), passage order changes no verdict, it counts LM calls exactly when its judges run on
an LM, and every reason agrees with its verdict."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from _conformance_cases import Case, lm_for, same_result
from test_reasons import check_reason

from ragjudge.data._gold import GoldRecord
from ragjudge.programs import AnswerRelevancy, ContextRecall, Faithfulness, Suite
from ragjudge.programs._base import Judge, judge_inputs


def _judges(lm: str | None, mode: str) -> list[Judge]:
    if mode == "rubric":
        return [
            Faithfulness(mode="rubric", lm=lm),
            AnswerRelevancy(mode="rubric", lm=lm),
            ContextRecall(mode="rubric", lm=lm),
        ]
    return [
        Faithfulness(mode="statement", lm=lm),
        AnswerRelevancy(mode="questions", lm=lm, similarity="lexical"),
        ContextRecall(mode="statement", lm=lm),
    ]


SUITES: list[tuple[str, Callable[[], list[Judge]], str]] = [
    (f"{mode}-{kind}", lambda m=mode, k=kind: _judges("local" if k == "offline" else None, m), kind)
    for mode in ("statement", "rubric")
    for kind in ("offline", "scripted")
]


@pytest.mark.parametrize(("name", "make", "kind"), SUITES, ids=[s[0] for s in SUITES])
def test_a_suite_keeps_its_judges_promises(
    name: str, make: Callable[[], list[Judge]], kind: str, rows: list[GoldRecord]
) -> None:
    judges = make()
    suite = Suite(judges)
    case = Case(name, lambda: judges[0], "offline" if kind == "offline" else "scripted")
    with lm_for(case) as engine:
        out = suite.batch(rows)
        turned = suite.batch([r.model_copy(update={"contexts": r.contexts[::-1]}) for r in rows])
        for row, result, other in zip(rows, out, turned, strict=True):
            assert set(result.results) == {j.metric for j in judges}
            for judge in judges:
                mine = result[judge.metric]
                inputs = judge_inputs(row)
                if mine.details.get("reference_statements_from") == "faithfulness":
                    # The reference is the answer: recall reads the statements already found.
                    shared = [s.text for s in result["faithfulness"].statements]
                    inputs["reference_statements"] = shared
                # Each result is the judge's own, and rescores as it judges.
                assert same_result(mine, judge(**inputs))
                assert same_result(judge.rescore(mine), mine)
                check_reason(judge, mine)
                assert other[judge.metric].passed == mine.passed, (row.id, judge.metric)
        offline = [j.runs_offline() for j in judges]
    calls = sum(r.lm_calls for r in out)
    assert all(offline) == (kind == "offline") and len(set(offline)) == 1
    assert (calls == 0) == (kind == "offline")
    if kind == "offline":
        assert sum(r.tokens for r in out) == 0
        assert "suite: offline judge, no LM" in out[0].format()
    else:
        assert engine is not None and calls <= len(engine.requests)
