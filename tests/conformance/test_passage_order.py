"""Passage order does not change a verdict: the retrieved passages are a set to the judge."""

from __future__ import annotations

import math

import pytest
from _conformance_cases import CASES, IDS, Case, judged, lm_for

from ragjudge.data._gold import GoldRecord


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_passage_order_does_not_change_a_verdict(case: Case, rows: list[GoldRecord]) -> None:
    several = [r for r in rows if len(r.contexts) > 1]
    assert len(several) >= 4  # the rows' contexts are cut into passages
    turned = [r.model_copy(update={"contexts": r.contexts[::-1]}) for r in several]
    judge = case.make()
    with lm_for(case):
        first, second = judged(judge, several), judged(judge, turned)
    for row, a, b in zip(several, first, second, strict=True):
        assert a.error is None and b.error is None, (a.error, b.error)
        assert a.passed == b.passed, (row.id, a.reason, b.reason)
        assert (math.isnan(a.score) and math.isnan(b.score)) or a.score == pytest.approx(b.score)
