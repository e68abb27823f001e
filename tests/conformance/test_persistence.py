"""Save, load and clone keep a judge's results and learned state (fitted weights, demos)."""

from __future__ import annotations

from pathlib import Path

import pytest
from _conformance_cases import CASES, IDS, Case, judged, lm_for, same_result

from ragjudge.data._gold import GoldRecord
from ragjudge.programs._serialization import load


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_save_load_and_clone_keep_results_and_learned_state(
    case: Case, rows: list[GoldRecord], tmp_path: Path
) -> None:
    judge = case.make().clone(threshold=0.4)
    case.learn(judge)
    state = judge.dump_state()
    judge.save(tmp_path / "judge.json")
    loaded = load(tmp_path / "judge.json")
    cloned = judge.clone()
    for other in (loaded, cloned):
        assert type(other) is type(judge)
        assert other.get_params() == judge.get_params()
        assert other.dump_state() == state
        assert other.runs_offline() == judge.runs_offline()
    with lm_for(case):
        expected = judged(judge, rows)
        for other in (loaded, cloned):
            for row, a, b in zip(rows, expected, judged(other, rows), strict=True):
                assert same_result(a, b), (row.id, a.reason, b.reason)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_each_case_has_learned_state_to_keep(case: Case) -> None:
    """The state the test above checks is there: every judge with predictors or fitted
    weights is given some (the deterministic judge has none to learn)."""
    judge = case.make()
    before = judge.dump_state()
    case.learn(judge)
    assert (judge.dump_state() != before) == (case.lm != "none"), case.id
