"""`ragjudge probe` from the command line: the table, the files it writes, the gate, refusals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _cli_helpers import refused, run_cli

REPO = Path(__file__).resolve().parents[2]
TEST_ROWS = str(REPO / "examples" / "faithfulness" / "test.jsonl")


def test_probe_prints_a_table_and_writes_probes_results_and_report(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    probes, results, report = tmp_path / "p.jsonl", tmp_path / "r.jsonl", tmp_path / "p.html"
    code, out, err = run_cli(
        capsys, "probe", "--gold", TEST_ROWS, "--kinds", "context_sentence", "--per-kind", "5",
        "--probes", str(probes), "--out", str(results), "--report", str(report),
    )  # fmt: skip
    assert code == 0 and not err
    assert "context_sentence" in out and "must pass (kept)" in out
    made = [json.loads(line) for line in probes.read_text().splitlines()]
    assert len(made) == 5 and {"contexts", "answer", "before", "after", "expect"} <= set(made[0])
    judged = [json.loads(line) for line in results.read_text().splitlines()]
    assert [j["id"] for j in judged] == [m["id"] for m in made]
    html = report.read_text()
    assert "Probes, kind by kind" in html and "context_sentence" in html


def test_fail_under_exits_1_and_names_the_kind(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run_cli(
        capsys, "probe", "--gold", TEST_ROWS, "--kinds", "context_sentence", "--per-kind", "3",
        "--fail-under", "context_sentence=0.5,must_fail=0.9", "--format", "json",
    )  # fmt: skip
    data = json.loads(out)
    assert code == 1
    assert [c["passed"] for c in data["fail_under"]] == [True, False]
    refused(err, "fail-under", "must_fail")


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--kinds", "negatoin"], "unknown probe kind 'negatoin'"),
        (["--per-kind", "0"], "--per-kind must be at least 1"),
        (["--max-lm-calls", "0"], "--max-lm-calls must be at least 1"),
        (["--fail-under", "all=2"], "must be in [0, 1]"),
        (["--probes", "p.txt"], "--probes writes .jsonl"),
    ],
)
def test_bad_options_are_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], args: list[str], said: str
) -> None:
    code, _, err = run_cli(capsys, "probe", "--gold", TEST_ROWS, *args)
    assert code == 2
    refused(err, said)


def test_no_output_over_the_rows(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(capsys, "probe", "--gold", TEST_ROWS, "--probes", TEST_ROWS)
    assert code == 2
    refused(err, "--probes")
