"""An estimate does not change with a judge's `scale`: the scale only multiplies the score a
person reads; the rate, its interval and the judge's pass rate are those of the unscaled score."""

from __future__ import annotations

from typing import Any

import pytest
from _conformance_cases import CASES, Case, example_rows, labeled_gold, lm_for

from ragjudge.data._gold import GoldRecord
from ragjudge.estimation import estimate
from ragjudge.programs._serialization import registry

#: The judges whose spec says their score is scaled (`CompileSpec.scale_policy`), every metric:
#: faithfulness estimated from people's labels, relevancy and recall from derived ones.
SCALED = [c for c in CASES if c.make().compile_spec().scale_policy is not None]


def test_every_judge_that_scales_its_score_is_checked() -> None:
    """The spec, not a parameter's name, picks the cases: every class whose judges take a scale
    (a cascade's score is a probability, the deterministic metrics' a ratio: they take none),
    on an LM and offline."""
    picked = {type(c.make()).__name__ for c in SCALED}
    assert picked == set(registry()) - {"Cascade", "DeterministicJudge"}, picked
    assert {c.lm for c in SCALED} == {"offline", "scripted"}
    assert len(SCALED) > 4  # it ran on 4 cases, chosen by the string "scale"


def _rows(metric: str) -> tuple[list[GoldRecord], list[GoldRecord]]:
    """A system's rows, most of them unlabeled, and the labeled rows among them."""
    if metric == "faithfulness":
        gold = labeled_gold(metric)  # 12 labeled rows ...
        rows = [r.model_copy(update={"faithful": None}) for r in example_rows(per_kind=4)]
        return rows, gold
    return labeled_gold(metric, per_label=10), labeled_gold(metric, per_label=5)


@pytest.mark.parametrize("case", SCALED, ids=[c.id for c in SCALED])
def test_an_estimate_does_not_change_with_the_judges_scale(case: Case) -> None:
    judge = case.make()
    rows, gold = _rows(judge.metric)
    assert len(rows) > len(gold) and {r.id for r in gold} <= {r.id for r in rows}
    with lm_for(case):  # ... among the system's rows
        plain = estimate(rows=rows, gold=gold, judge=judge, seed=0)
        scaled = estimate(rows=rows, gold=gold, judge=judge.clone(scale=5.0), seed=0)
    assert plain.n_labeled == len(gold) and plain.n_rows == len(rows)
    # On the offline faithfulness judge the scores agree with the labels, so the estimate
    # gives them weight and the check is not vacuous (the scripted LM's scores are noise to
    # the labels: PPI++ may give them none, and then only the pass rate tells the scales apart).
    if judge.metric == "faithfulness" and case.lm == "offline":
        assert plain.lam > 0
    assert _numbers(scaled.summary()) == pytest.approx(_numbers(plain.summary()))


def _numbers(data: Any, path: str = "") -> dict[str, Any]:
    """Every number and flag of a nested summary, by its path (names and notes left out)."""
    if isinstance(data, dict):
        out: dict[str, Any] = {}
        for key, value in data.items():
            if key not in ("judge_name", "notes", "rows", "gold"):
                out.update(_numbers(value, f"{path}.{key}"))
        return out
    if isinstance(data, list):
        out = {}
        for index, value in enumerate(data):
            out.update(_numbers(value, f"{path}[{index}]"))
        return out
    return {path: data}
