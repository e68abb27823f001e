"""Compile ships what it scored: the judge compile saves, loaded, judging the validation rows,
gives the verdicts and scores the study's rule gives them, and the figures its report prints.

The study scores a trial by rescoring raw outputs under the trial's policies
(`CompileSpec.rescore`), taking unit scores (`CompileSpec.unit`) and refitting the pass cut on
them (`CompileSpec.threshold`); compile then calibrates the chosen score and moves the cut with
it. A judge ships what it scored when, on any row, its verdict is its unit score against that
cut and its score is that unit score, calibrated and scaled; and when the unit score does not
depend on the cut (else the refitted cut would cut another score than the one it was fitted
on). Every case of the suite is compiled (a few trials) and checked.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from _conformance_cases import CASES, IDS, Case, judged, labeled_gold, lm_for, small_compile

from ragjudge.data._labels import gold_label
from ragjudge.programs._base import Judge
from ragjudge.programs._results import JudgeResult
from ragjudge.programs._serialization import load
from ragjudge.stats._logistic import calibrated
from ragjudge.stats._threshold import objective_value


def _compile(judge: Judge, *, calibrate: bool = True) -> Judge:
    """A small compile of the case's judge in its own mode (the other modes are cases too)."""
    own = judge.compile_spec().mode
    return small_compile(
        judge,
        n_trials=6,
        max_demos=2,
        demo_candidates=1,
        regularization=1.0,
        head=False,
        select="best",
        modes=None if own is None else [own],
        calibrate=calibrate,
    )


def _same(a: float | None, b: float) -> bool:
    if a is None or math.isnan(b):
        return a is None and math.isnan(b)
    return abs(a - b) <= 1e-9


def _calibrated(case: Case) -> bool:
    with lm_for(case):
        judge = case.make()
        spec = judge.compile_spec()
        return spec.calibration is not None and judge.policy()[spec.calibration] is not None


#: The cases whose judge comes with a calibration of its own: compiled without calibrating,
#: the cut the study fitted on uncalibrated scores must move through it.
CALIBRATED = [c for c in CASES if _calibrated(c)]


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_the_saved_judge_gives_the_verdicts_and_scores_compile_scored(
    case: Case, tmp_path: Path
) -> None:
    _check_ships(case, tmp_path / "judge.json", calibrate=True)


@pytest.mark.parametrize("case", CALIBRATED, ids=[c.id for c in CALIBRATED])
def test_a_judge_compiled_without_calibrating_keeps_the_cut_it_scored(
    case: Case, tmp_path: Path
) -> None:
    """Its own calibration ships with the cut moved through it (it shipped beside a cut fitted
    on uncalibrated scores)."""
    _check_ships(case, tmp_path / "judge.json", calibrate=False)


def _check_ships(case: Case, path: Path, *, calibrate: bool) -> None:
    with lm_for(case):
        compiled = _compile(case.make(), calibrate=calibrate)
        compiled.save(path)
        loaded = load(path)
        report = loaded.report_
        assert report is not None
        by_id = {r.id: r for r in labeled_gold(loaded.metric)}
        valid = [by_id[p["id"]] for p in report["predictions"]]
        results = judged(loaded, valid)
    # The figures the report prints: each validation row's score and verdict, and agreement.
    for prediction, result in zip(report["predictions"], results, strict=True):
        assert prediction["passed"] == result.passed, (prediction, result.reason)
        assert _same(prediction["score"], result.score), (prediction, result.reason)
    labels = np.array([int(gold_label(r, loaded.metric) or 0) for r in valid])
    passed = np.array([bool(r.passed) and not r.error for r in results])
    figure = objective_value("balanced_accuracy", labels, passed)
    assert report["validation"]["n"] == len(valid)
    assert report["validation"]["balanced_accuracy"] == pytest.approx(figure)
    # The study's rule on the same rows: the unit score against the refitted cut.
    _check_study_rule(loaded, results, report)


def _check_study_rule(judge: Judge, results: list[JudgeResult], report: dict[str, Any]) -> None:
    spec = judge.compile_spec()
    policy = judge.policy()
    calibration = policy.get(spec.calibration) if spec.calibration else None
    cut = float(policy[spec.threshold]) if spec.threshold else math.nan
    trial = report["params"].get("best_trial")
    if trial is not None and spec.refits_threshold and spec.threshold is not None:
        record = next(t for t in report["study"]["trials"] if t["number"] == trial)
        cut = float(record["params"][spec.threshold])  # the cut the study fitted
        assert float(policy[spec.threshold]) == pytest.approx(calibrated(cut, calibration))
        settled = spec.settle(dict(record["params"]), record["lm_calls_per_row"])
        chosen = {k: v for k, v in settled.items() if k in spec.space and k != spec.threshold}
        trial_policy = judge.clone(**chosen).policy()  # every other policy is the trial's
        assert {k: policy[k] for k in chosen} == {k: trial_policy[k] for k in chosen}
    elif calibration is not None:  # a start shipped with a calibration of its own
        cut = _uncalibrated_cut(float(policy[spec.threshold or ""]), calibration)
    checked = 0
    for result in results:
        if result.error:
            continue
        units = (
            [
                spec.unit(spec.rescore(result, {**policy, spec.threshold or "": t}))
                for t in (cut, 0.5, 0.05, 0.95)
            ]
            if spec.threshold
            else [spec.unit(spec.rescore(result, policy))]
        )
        unit = units[0]
        assert all(_same(u, unit) or (math.isnan(u) and math.isnan(unit)) for u in units), (
            "the unit score moves with the cut",
            units,
            result.reason,
        )
        if math.isnan(unit):
            assert result.passed is not True, result.reason
            continue
        if spec.threshold:
            assert result.passed == (unit >= cut), (unit, cut, result.reason)
        assert result.score == pytest.approx(calibrated(unit, calibration) * spec.scale), (
            unit,
            result.reason,
        )
        checked += 1
    assert checked, "no validation row had a score to check"


def _uncalibrated_cut(threshold: float, calibration: Any) -> float:
    """The unit score a calibrated threshold cuts at: the inverse of the Platt map."""
    a, b = calibration
    threshold = min(max(threshold, 1e-12), 1 - 1e-12)
    return (math.log(threshold / (1 - threshold)) - b) / a
