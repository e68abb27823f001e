"""An estimate does not change with a judge's `scale`: the scale only multiplies the score a
person reads; the rate, its interval and the judge's pass rate are those of the unscaled score."""

from __future__ import annotations

from typing import Any

import pytest
from _conformance_cases import CASES, Case, example_rows, labeled_gold, lm_for

from ragjudge.estimation import estimate

#: The judges with a `scale` and the labels an estimate needs (faithfulness: people's labels),
#: on the offline judge: its scores agree with the labels, so the estimate gives them weight
#: (the scripted LM's are noise to the labels: PPI++ gives them none, and any scale passes).
SCALED = [
    c
    for c in CASES
    if "scale" in str(c.make().get_params())
    and c.make().metric == "faithfulness"
    and c.lm == "offline"
]


def test_every_faithfulness_judge_with_a_scale_is_checked() -> None:
    assert {c.id.split("-")[0] for c in SCALED} == {"faithfulness", "ensemble"}
    assert len(SCALED) == 4


@pytest.mark.parametrize("case", SCALED, ids=[c.id for c in SCALED])
def test_an_estimate_does_not_change_with_the_judges_scale(case: Case) -> None:
    gold = labeled_gold("faithfulness")  # 12 labeled rows ...
    rows = [r.model_copy(update={"faithful": None}) for r in example_rows(per_kind=4)]
    assert len(rows) > len(gold) and {r.id for r in gold} <= {r.id for r in rows}
    judge = case.make()
    with lm_for(case):  # ... among the system's rows, most of them unlabeled
        plain = estimate(rows=rows, gold=gold, judge=judge, seed=0)
        scaled = estimate(rows=rows, gold=gold, judge=judge.clone(scale=5.0), seed=0)
    assert plain.n_labeled == len(gold) and plain.n_rows == len(rows)
    assert plain.lam > 0  # the judge's scores take part in the estimate
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
