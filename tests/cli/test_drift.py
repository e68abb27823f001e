"""`ragjudge drift`: a compiled judge on new labeled rows, tested against its compile."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import ragjudge
from ragjudge.cli import main
from ragjudge.cli.drift import format_drift
from ragjudge.data._gold import GoldRecord, load_gold
from ragjudge.data._rowhash import row_hash
from ragjudge.evaluation._drift import DriftSample, drift_test

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def judge_file(tmp_path_factory: pytest.TempPathFactory, gold_dir: Path) -> Path:
    rows = load_gold(gold_dir / "halueval" / "dev.jsonl", limit=160)
    judge = ragjudge.compile(ragjudge.Faithfulness(lm="local"), gold=rows, n_trials=6, seed=0)
    path = tmp_path_factory.mktemp("judges") / "halueval.json"
    judge.save(path)
    return path


def sample(rng: np.random.Generator, n: int, accuracy: float) -> DriftSample:
    labels = rng.integers(0, 2, n)
    right = rng.random(n) < accuracy
    passed = np.where(right, labels, 1 - labels).astype(bool)
    scores = np.clip(passed + rng.normal(0, 0.4, n), 0, 1)
    return DriftSample(labels=labels.tolist(), passed=passed.tolist(), scores=scores.tolist())


def test_permutation_test_detects_a_drop_and_holds_its_level() -> None:
    rng = np.random.default_rng(1)
    fell = drift_test(sample(rng, 200, 0.9), sample(rng, 200, 0.75), permutations=499)
    assert fell.dropped and fell.p_value < 0.01
    assert fell.difference["balanced_accuracy"] < -0.05
    low, high = fell.difference_ci["balanced_accuracy"]
    assert (
        low is not None and high is not None and low < fell.difference["balanced_accuracy"] < high
    )
    # No drift: the test rejects at about its level (here 0.05) over repeated draws.
    rejections = sum(
        drift_test(
            sample(rng, 150, 0.8), sample(rng, 150, 0.8), permutations=199, n_boot=0, seed=i
        ).dropped
        for i in range(60)
    )
    assert rejections <= 8
    # One-sided: a rise in agreement is never a drop.
    assert not drift_test(sample(rng, 200, 0.7), sample(rng, 200, 0.95), permutations=199).dropped


def test_no_drift_on_the_same_source(
    judge_file: Path, gold_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    same = tmp_path / "same.jsonl"
    lines = (gold_dir / "halueval" / "dev.jsonl").read_text().splitlines()[300:420]
    same.write_text("\n".join(lines) + "\n")
    code = main(["drift", "--judge", str(judge_file), "--gold", str(same), "--format", "json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert out["dropped"] is False and out["p_value"] >= 0.05
    assert out["new"]["n"] == 120
    assert out["reference"]["n"] == json.loads(judge_file.read_text())["compile"]["validation"]["n"]


def test_drop_on_another_source_exits_1_with_report(
    judge_file: Path, gold_dir: Path, tmp_path: Path
) -> None:
    report = tmp_path / "drift.html"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "ragjudge",
            "drift",
            "--judge",
            str(judge_file),
            "--gold",
            str(gold_dir / "faithbench" / "dev.jsonl"),
            "--limit",
            "150",
            "--report",
            str(report),
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=300,
    )
    assert out.returncode == 1, out.stderr
    assert "agreement FELL beyond chance" in out.stdout
    assert "compile validation" in out.stdout and "new rows" in out.stdout
    html = report.read_text()
    assert "Agreement fell beyond chance" in html
    assert "compile validation" in html and "new rows" in html and "permutation" in html


def test_bad_inputs_are_one_line_exit_2(
    judge_file: Path, gold_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    uncompiled = tmp_path / "plain.json"
    ragjudge.Faithfulness(lm="local").save(uncompiled)
    halueval = str(gold_dir / "halueval" / "dev.jsonl")
    assert main(["drift", "--judge", str(uncompiled), "--gold", halueval]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        f"ragjudge drift: error: {uncompiled} has no compile report (it was saved uncompiled): "
        "drift compares a compiled judge with its compile; compile it with `ragjudge compile`, "
        "or use `ragjudge evaluate`"
    ]
    unlabeled = tmp_path / "unlabeled.jsonl"
    rows = [json.loads(x) for x in Path(halueval).read_text().splitlines()[:5]]
    rows[2].pop("faithful")
    unlabeled.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert main(["drift", "--judge", str(judge_file), "--gold", str(unlabeled)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        f"ragjudge drift: error: {unlabeled}, row 3, field 'faithful': has no label; gold rows "
        "need faithful = 0 or 1"
    ]
    assert main(["drift", "--judge", str(judge_file), "--gold", halueval, "--alpha", "2"]) == 2
    assert "--alpha must be in (0, 1)" in capsys.readouterr().err


def test_the_interval_is_at_the_tests_level_and_a_disagreement_is_said() -> None:
    """The issue's case: an interval below zero beside "no drop beyond chance" (exit 0). The
    interval is now at the test's level (two-sided 1 - 2 alpha: its upper end is the one-sided
    bound) and, where the two methods still differ, the report says so in one sentence."""
    rng = np.random.default_rng(25)
    drift = drift_test(sample(rng, 40, 0.85), sample(rng, 20, 0.65), permutations=499, n_boot=500)
    assert drift.level == pytest.approx(0.90)
    low, high = drift.difference_ci["balanced_accuracy"]
    assert low is not None and high is not None and high < 0
    assert not drift.dropped and drift.interval_dropped is True
    assert "the permutation test finds no drop beyond chance" in drift.disagreement
    assert "the test decides" in drift.disagreement
    text = format_drift(drift)
    assert f"note: {drift.disagreement}" in text
    assert "90% bootstrap intervals (their upper end is the one-sided 95% bound" in text
    # where they agree, nothing is said, and the interval's side is the test's decision
    for seed in range(12):
        r = np.random.default_rng(seed)
        d = drift_test(sample(r, 60, 0.85), sample(r, 60, 0.7), permutations=199, n_boot=200)
        assert (d.interval_dropped == d.dropped) == (not d.disagreement)


def test_errors_and_unscored_rows_are_counted_apart_and_rank_lowest_from_stats() -> None:
    from ragjudge.data._gold import GoldRecord
    from ragjudge.data._rowhash import row_hash
    from ragjudge.evaluation._drift import new_sample
    from ragjudge.programs._results import JudgeResult
    from ragjudge.stats._threshold import UNSCORED

    rows = [
        GoldRecord(id=f"r{i}", answer=f"a{i}", contexts=["c"], faithful=i % 2) for i in range(6)
    ]
    results = [
        JudgeResult(id="r0", score=0.2, passed=False),
        JudgeResult(id="r1", score=0.9, passed=True),
        JudgeResult(id="r2", error="TimeoutError"),
        JudgeResult(id="r3"),  # unscored: NaN score, no error
        JudgeResult(id="r4", score=0.1, passed=False),
        JudgeResult(id="r5", score=0.8, passed=True),
    ]
    new = new_sample(rows, results, metric="faithfulness", fitted_rows={row_hash(rows[5])})
    assert (new.n, new.errors, new.unscored, new.fitted) == (5, 1, 1, 1)
    assert new.scores[2] == new.scores[3] == UNSCORED
    assert new.passed[2] is False and new.passed[3] is False
    ref = DriftSample(labels=[0, 1] * 10, passed=[False, True] * 10, scores=[0.1, 0.9] * 10)
    drift = drift_test(ref, new, permutations=99, n_boot=0)
    assert (drift.errors, drift.unscored, drift.fitted) == (1, 1, 1)
    assert drift.new.errors == 0  # counted in (as failing), not "left out" of the agreement
    text = format_drift(drift)
    assert "new rows 1 ended in an error and 1 unscored: counted as failing, ranked lowest" in text
    assert "note: 1 new rows were left out: the judge was fitted on them" in text


def test_drift_leaves_out_the_rows_the_judge_was_fitted_on(
    judge_file: Path, gold_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The judge was compiled on the first 160 halueval rows; 40 of them among 100 new rows
    are left out and said, as `estimate` leaves them out."""
    lines = (gold_dir / "halueval" / "dev.jsonl").read_text().splitlines()
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_text("\n".join(lines[:160] + lines[300:400]) + "\n")
    fitted = set(json.loads(judge_file.read_text())["compile"]["fitted_rows"])
    train = sum(1 for r in load_gold(mixed) if row_hash(r) in fitted)
    assert 0 < train
    code = main(["drift", "--judge", str(judge_file), "--gold", str(mixed), "--format", "json"])
    out = json.loads(capsys.readouterr().out)
    assert code in (0, 1)
    assert out["fitted"] == train and out["new"]["n"] == 260 - train
    assert any(f"{train} new rows were left out" in n for n in out["notes"])
    only_train = tmp_path / "train.jsonl"
    only_train.write_text(
        "\n".join(x for x in lines[:160] if row_hash(load_gold_line(x)) in fitted) + "\n"
    )
    assert main(["drift", "--judge", str(judge_file), "--gold", str(only_train)]) == 2
    assert "is one the judge was fitted on" in capsys.readouterr().err


def load_gold_line(line: str) -> GoldRecord:
    from ragjudge.data._gold import rows_from

    return rows_from([json.loads(line)])[0]
