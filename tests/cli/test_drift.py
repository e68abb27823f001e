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
from ragjudge.data._gold import load_gold
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
