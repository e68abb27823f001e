"""JudgeOptimizer: a DSPy teleprompter whose steps are methods a subclass can replace."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from dspy.teleprompt import Teleprompter

import ragjudge
from ragjudge.data._gold import GoldRecord, load_gold
from ragjudge.evaluation import evaluate
from ragjudge.optimize import JudgeOptimizer, compile_judge
from ragjudge.programs._results import JudgeResult


@pytest.fixture(scope="module")
def rows(gold_dir: Path) -> list[GoldRecord]:
    return load_gold(gold_dir / "lfqa_verification" / "dev.jsonl", limit=90)


class LastRowsHeldOut(JudgeOptimizer):
    """Validation is the last 30 rows; no calibration; records every threshold refit."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.refits: list[float] = []

    def split(self, rows: list[GoldRecord]) -> tuple[list[GoldRecord], list[GoldRecord]]:
        return rows[:-30], rows[-30:]

    def calibration(
        self, student: ragjudge.Judge, results: list[JudgeResult], labels: np.ndarray
    ) -> tuple[float, float] | None:
        return None

    def refit_threshold(
        self, scores: np.ndarray, labels: np.ndarray, *, objective: str, current: float
    ) -> tuple[float, float]:
        cut, value = super().refit_threshold(scores, labels, objective=objective, current=current)
        self.refits.append(cut)
        return cut, value


def test_overridden_steps_are_the_ones_that_run(rows: list[GoldRecord]) -> None:
    optimizer = LastRowsHeldOut(n_trials=6, seed=1, n_boot=50, regularization=1.0)
    assert isinstance(optimizer, Teleprompter)
    compiled = optimizer.compile(ragjudge.Faithfulness(), trainset=rows)
    report = compiled.report_
    assert report is not None
    assert [p["id"] for p in report["predictions"]] == [r.id for r in rows[-30:]]
    assert report["sizes"] == {**report["sizes"], "train": 60, "validation": 30}
    assert compiled.get_params()["calibration"] is None
    # one refit per trial, then the selection's: every finalist's trials on every fold of
    # every fold assignment refit through the same step
    assert len(optimizer.refits) > 6
    selection = report["selection"]
    best = report["params"]["best_trial"]
    if selection["chosen"] == "start":
        assert best is None and compiled.get_params()["threshold"] == 0.5
    else:
        assert compiled.get_params()["threshold"] == pytest.approx(optimizer.refits[best])
    # the default steps calibrate the same judge (when a tuned judge ships)
    plain = JudgeOptimizer(
        n_trials=6, seed=1, n_boot=50, regularization=1.0, select="best"
    ).compile(ragjudge.Faithfulness(), trainset=rows)
    assert plain.report_ is not None
    chosen = plain.report_["selection"]["chosen"]
    assert (plain.get_params()["calibration"] is not None) == (chosen != "start")


def test_valset_is_held_out_and_matches_the_function_form(rows: list[GoldRecord]) -> None:
    optimizer = JudgeOptimizer(n_trials=5, seed=2, n_boot=50, regularization=1.0)
    compiled = optimizer.compile(ragjudge.Faithfulness(), trainset=rows[:60], valset=rows[60:])
    report = compiled.report_
    assert report is not None
    assert report["sizes"]["train"] == 60 and report["sizes"]["validation"] == 30
    assert {p["id"] for p in report["predictions"]} == {r.id for r in rows[60:]}
    # evaluate counts the same rows the same way (unscored rows: failing, ranked lowest)
    _, evaluation = evaluate(compiled, rows[60:], n_boot=0)
    assert evaluation.agreement is not None
    assert evaluation.agreement.n == report["validation"]["n"] == 30
    for key in ("balanced_accuracy", "auroc"):
        assert getattr(evaluation.agreement, key) == pytest.approx(report["validation"][key])
    # compile_judge is the optimizer with its split: same seed, same judge and figures
    a = JudgeOptimizer(n_trials=5, seed=2, n_boot=50, regularization=1.0).compile(
        ragjudge.Faithfulness(), trainset=[r.model_dump() for r in rows]
    )
    b = compile_judge(
        ragjudge.Faithfulness(), gold=rows, n_trials=5, seed=2, n_boot=50, regularization=1.0
    )
    assert a.get_params() == b.get_params()
    assert a.report_ is not None and b.report_ is not None
    assert a.report_["validation"] == b.report_["validation"]
