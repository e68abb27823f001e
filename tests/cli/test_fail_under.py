"""`ragjudge evaluate --fail-under`: the CI gate, from the command line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ragjudge.cli import main
from ragjudge.evaluation._gate import parse_bounds, pass_rate
from ragjudge.exceptions import ConfigurationError
from ragjudge.programs._results import JudgeResult

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def halueval(gold_dir: Path) -> Path:
    return gold_dir / "halueval" / "dev.jsonl"


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [sys.executable, "-m", "ragjudge", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=120,
    )


def test_parse_bounds() -> None:
    assert parse_bounds(["pass_rate=0.9,balanced_accuracy=0.8", "kappa=-0.1"]) == {
        "pass_rate": 0.9,
        "balanced_accuracy": 0.8,
        "kappa": -0.1,
    }
    for bad, match in [
        ("recall=0.5", "unknown figure 'recall'"),
        ("auroc=high", "must be a number"),
        ("auroc=1.2", r"in \[0, 1\]"),
        ("pass_rate", "figure=bound"),
        (",", "names no figure"),
    ]:
        with pytest.raises(ConfigurationError, match=match):
            parse_bounds(bad)


def test_pass_rate_counts_errors_and_unscored_as_failures() -> None:
    results = [JudgeResult(score=1.0, passed=True)] * 6 + [
        JudgeResult(error="boom"),
        JudgeResult(),
        JudgeResult(score=0.0, passed=False),
        JudgeResult(score=0.0, passed=False),
    ]
    rate, (low, high) = pass_rate(results)
    assert rate == 0.6
    assert low is not None and high is not None
    assert 0.31 < low < 0.32 and 0.83 < high < 0.84  # Wilson 95% interval for 6 of 10


def test_gate_passes_and_fails_from_the_command_line(halueval: Path) -> None:
    ok = run_cli(
        "evaluate",
        "--gold",
        str(halueval),
        "--limit",
        "80",
        "--format",
        "json",
        "--fail-under",
        "pass_rate=0.2,balanced_accuracy=0.6",
    )
    assert ok.returncode == 0, ok.stderr
    summary = json.loads(ok.stdout)
    assert [c["figure"] for c in summary["fail_under"]] == ["pass_rate", "balanced_accuracy"]
    assert all(c["passed"] for c in summary["fail_under"])

    bad = run_cli(
        "evaluate",
        "--gold",
        str(halueval),
        "--limit",
        "80",
        "--fail-under",
        "pass_rate=0.99",
        "--fail-under",
        "auroc=0.5",
    )
    assert bad.returncode == 1
    lines = bad.stderr.strip().splitlines()
    assert len(lines) == 1, bad.stderr
    rate = summary["fail_under"][0]["value"]
    assert lines[0].startswith(f"ragjudge evaluate: fail-under: faithfulness pass_rate {rate:.3f}")
    assert "[95% CI " in lines[0] and lines[0].endswith("is below the bound 0.99")


def test_bad_specs_exit_2_with_one_line(halueval: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for spec in ("kappa=2", "precision=0.5", "pass_rate=0.5;auroc=0.5"):
        code = main(["evaluate", "--gold", str(halueval), "--limit", "5", "--fail-under", spec])
        err = capsys.readouterr().err.strip().splitlines()
        assert code == 2 and len(err) == 1 and "--fail-under" in err[0], err


def test_label_figure_on_unlabeled_rows_is_bad_input(tmp_path: Path, halueval: Path) -> None:
    rows = [json.loads(line) for line in halueval.read_text().splitlines()[:20]]
    unlabeled = tmp_path / "unlabeled.jsonl"
    unlabeled.write_text(
        "".join(json.dumps({k: v for k, v in r.items() if k != "faithful"}) + "\n" for r in rows)
    )
    out = run_cli("evaluate", "--gold", str(unlabeled), "--fail-under", "kappa=0.5")
    assert out.returncode == 2
    assert out.stderr.strip().splitlines() == [
        f"ragjudge evaluate: error: --fail-under kappa needs labeled rows, and no row of "
        f"{unlabeled} has a label for faithfulness; use pass_rate, or add labels"
    ]
    assert "Traceback" not in out.stderr
    fine = run_cli("evaluate", "--gold", str(unlabeled), "--fail-under", "pass_rate=0")
    assert fine.returncode == 0, fine.stderr
