"""Compiling a cascade: one set of LM outputs, every route and band rescored, and an LM that
ships only when it beats the offline judge alone out of fold.

The LM is simulated (`ragjudge.testing.simulated_lm`): right on a row with a set probability,
independently of the offline judge's errors.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ragjudge.data._gold import GoldRecord, load_gold
from ragjudge.optimize import compile_judge
from ragjudge.programs import Cascade, Judge, load
from ragjudge.programs._base import judge_inputs
from ragjudge.testing import simulated_lm

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "faithfulness"


@pytest.fixture(scope="module")
def train() -> list[GoldRecord]:
    return load_gold(EXAMPLES / "train.jsonl")


@pytest.fixture(scope="module")
def test_rows() -> list[GoldRecord]:
    return load_gold(EXAMPLES / "test.jsonl")


def _labels(*sets: list[GoldRecord]) -> dict[str, int]:
    return {r.answer: int(r.faithful or 0) for rows in sets for r in rows}


def _compile(
    lm: Any, train: list[GoldRecord], test_rows: list[GoldRecord], **options: Any
) -> Judge:
    """A cascade on `lm`, compiled on `train` (whole mode, no demos, 30 trials), validated on
    `test_rows`."""
    return compile_judge(
        Cascade(lm=lm),
        gold=train,
        validation=test_rows,
        n_trials=30,
        max_demos=0,
        modes=["whole"],
        **options,
    )


def test_an_lm_that_is_always_right_ships_and_is_asked_once_per_row(
    train: list[GoldRecord], test_rows: list[GoldRecord]
) -> None:
    lm, engine = simulated_lm(_labels(train, test_rows), accuracy=1.0)
    compiled = _compile(lm, train, test_rows)
    report = compiled.report_
    assert report is not None
    assert compiled.get_params()["route"] != "offline"
    chosen = report["selection"]["chosen"]
    assert chosen != "start" and chosen.endswith(":whole"), report["selection"]
    # LM outputs on the tuning rows once for all trials; the validation runs after
    study_calls = report["lm_calls"]["raw_outputs"]
    assert study_calls == report["sizes"]["tuning"]
    assert len(engine.requests) == study_calls + report["lm_calls"]["validation"]
    assert report["validation"]["balanced_accuracy"] > report["offline"]["balanced_accuracy"]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_an_lm_that_guesses_adds_nothing_and_the_offline_judge_ships(
    train: list[GoldRecord], test_rows: list[GoldRecord], seed: int
) -> None:
    """A coin-flip LM (right half the time whatever the label) on BEGIN's rows: no route that
    asks it beats the offline judge alone by its bar, so the offline judge ships."""
    train = [r for r in train if r.source == "begin"]
    test_rows = [r for r in test_rows if r.source == "begin"]
    lm, _ = simulated_lm(_labels(train, test_rows), accuracy=0.5, seed=seed)
    compiled = _compile(lm, train, test_rows)
    report = compiled.report_
    assert report is not None
    assert compiled.get_params()["route"] == "offline", report["selection"]
    assert report["selection"]["chosen"] == "start"
    assert "offline" in report["selection"]["reason"]
    costs = [f["lm_calls_per_row"] for f in report["selection"]["finalists"]]
    assert costs[0] == 0.0 and all(c is not None for c in costs)
    results = [compiled(**judge_inputs(r)) for r in test_rows[:10]]
    assert sum(r.lm_calls for r in results) == 0


def test_a_calls_per_row_budget_picks_the_best_point_within_it(
    train: list[GoldRecord], test_rows: list[GoldRecord], tmp_path: Path
) -> None:
    lm, _ = simulated_lm(_labels(train, test_rows), accuracy=1.0)
    compiled = _compile(
        lm, train, test_rows, objectives=["agreement", "cost"], max_lm_calls_per_row=0.2
    )
    report = compiled.report_
    assert report is not None and report["lm_calls"]["max_per_row"] == 0.2
    front = report["study"]["pareto_front"]
    assert front and any(t["values"][1] == 0.0 for t in front)  # the offline judge alone
    trials = {t["number"]: t for t in report["study"]["trials"]}
    shipped = trials[report["params"]["best_trial"]]
    assert shipped["lm_calls_per_row"] <= 0.2
    calls = sum(compiled(**judge_inputs(r)).lm_calls for r in train) / len(train)
    assert calls <= 0.2 + 0.05  # measured on the rows it was tuned on
    path = tmp_path / "cascade.json"
    compiled.save(path)
    again = load(path)
    params = {k: v for k, v in compiled.get_params().items() if k != "lm"}
    assert {k: v for k, v in again.get_params().items() if k != "lm"} == params
    assert again.get_params()["lm"] == "simulated/judge-1-s0"  # an LM object is saved by name
    assert again.offline_params_ == compiled.offline_params_
    row = judge_inputs(test_rows[0])
    assert again.clone(lm=lm)(**row).score == pytest.approx(compiled(**row).score)
