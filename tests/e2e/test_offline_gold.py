"""The offline judge end to end on the shared gold data, in code and from the command line."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

import ragjudge
from ragjudge.cli import main


def _cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "DSPY_CACHEDIR": str(cwd or "/tmp"),
    }
    return subprocess.run(
        [sys.executable, "-m", "ragjudge", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=300,
        check=False,
    )


@pytest.mark.parametrize("mode", ["statement", "whole"])
def test_offline_judge_agrees_with_labels_on_the_sample(sample_path: Path, mode: str) -> None:
    rows = ragjudge.load_gold(sample_path)
    results, report = ragjudge.evaluate(ragjudge.Faithfulness(mode=mode), rows, n_boot=200)
    assert [r.id for r in results] == [r.id for r in rows]
    assert report.errors == 0
    assert report.agreement is not None and report.agreement.n >= 40
    # the offline judge ran: neither the report nor a row counts an LM call or a token; the
    # rows' reply counts still say how many requests the offline engine answered
    assert report.offline and report.lm_calls == 0 and report.tokens == 0
    assert all((r.lm_calls, r.tokens, r.offline) == (0, 0, True) for r in results)
    assert sum((r.lm_stats or {}).get("predictor_calls", 0) for r in results) == (
        2 if mode == "statement" else 1
    ) * len(rows) - sum(1 for r in results if mode == "statement" and not r.statements)


@pytest.mark.parametrize("mode", ["statement", "whole"])
@pytest.mark.parametrize(("source", "floor"), [("begin", 0.85), ("halueval", 0.78)])
def test_offline_judge_accuracy_on_dev_rows(
    gold_dir: Path, mode: str, source: str, floor: float
) -> None:
    rows = ragjudge.load_gold(gold_dir / source / "dev.jsonl", limit=200)
    _, report = ragjudge.evaluate(ragjudge.Faithfulness(mode=mode), rows, n_boot=0)
    assert report.agreement is not None
    assert report.agreement.balanced_accuracy is not None
    assert report.agreement.balanced_accuracy > floor


def test_readme_example() -> None:
    judge = ragjudge.Faithfulness(mode="statement")
    r = judge(
        question="How do I reset my password?",
        contexts=["Password reset available via login page", "Reset link sent by email"],
        answer="Click 'Forgot Password' on the login page and follow the email instructions.",
    )
    assert 0.0 <= r.score <= 1.0 and r.passed in (True, False)
    assert r.statements and all(s.verdict in ("yes", "no", "unsure") for s in r.statements)
    assert r.reason and (r.lm_calls, r.tokens, r.offline) == (0, 0, True)  # no LM


def test_unsupported_numbers_are_named() -> None:
    r = ragjudge.Faithfulness()(
        question="When was Einstein born?",
        contexts=["Albert Einstein was born in Ulm, Germany, in 1879."],
        answer="Albert Einstein was born in Ulm in 1879. He won the Nobel Prize in 1935.",
    )
    assert r.score == pytest.approx(0.0)  # one claim supported, one contradicted: net 0
    assert r.passed is False
    failed = [s for s in r.statements if s.verdict == "no"]
    assert failed and "1935" in failed[0].reason


def test_cli_evaluate_json(sample_path: Path, tmp_path: Path) -> None:
    out = tmp_path / "results.jsonl"
    done = _cli(
        "evaluate", "--gold", str(sample_path), "--format", "json", "--out", str(out), cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert {
        "n",
        "balanced_accuracy",
        "cohen_kappa",
        "auroc",
        "f1",
        "ci",
        "lm_calls",
        "errors",
    } <= set(summary)
    assert summary["n"] == 42  # unscored rows count (failing, ranked lowest), as in compile
    if summary["unscored"]:
        assert summary["scored_only"]["n"] + summary["unscored"] == 42
    # the offline judge ran: no LM call is reported (issue 32)
    assert summary["errors"] == 0 and summary["offline"] is True and summary["lm_calls"] == 0
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [line["id"] for line in lines] == [r.id for r in ragjudge.load_gold(sample_path)]
    assert all(not math.isnan(line["score"]) for line in lines if line["score"] is not None)


def _compile(gold: Path, out: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`ragjudge compile` on the gold file, JSON summary on stdout."""
    command = ("compile", "--gold", str(gold), "--out", str(out), *args, "--format", "json")
    return _cli(*command, cwd=cwd)


def test_cli_compile_save_load_evaluate(sample_path: Path, tmp_path: Path) -> None:
    judge_path = tmp_path / "judges" / "f.json"
    done = _compile(sample_path, judge_path, "--trials", "15", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert {"baseline", "params", "balanced_accuracy", "ci"} <= set(summary)
    loaded = ragjudge.load(judge_path)
    assert loaded.report_["sizes"]["validation"] == summary["n"]
    done = _cli("evaluate", "--judge", str(judge_path), "--gold", str(sample_path), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "balanced_accuracy" in done.stdout


@pytest.mark.parametrize("head", ["on", "off"])
def test_cli_compile_tree_head_is_saved_and_used(
    sample_path: Path, tmp_path: Path, head: str
) -> None:
    judge_path = tmp_path / "f.json"
    done = _compile(
        sample_path, judge_path, "--trials", "5", "--head", head, "--select", "best", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["params"]["head"] is (head == "on")
    loaded = ragjudge.load(judge_path)
    if summary["selection"]["chosen"] == "start":  # the uncompiled judge shipped: no weights
        assert loaded.offline_params_ is None and summary["params"]["best_trial"] is None
    else:
        assert (loaded.offline_params_.answer_head is not None) is (head == "on")
    row = ragjudge.load_gold(sample_path)[0]
    result = loaded(question=row.question, contexts=row.contexts, answer=row.answer)
    assert result.score is not None


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ('{"id": "a", "answer": "x", "contexts": ["c"], "faithful": 1}\n{oops\n', "row 2"),
        ('{"id": "a", "contexts": ["c"], "faithful": 1}\n', "row 1, field 'answer'"),
        ('{"id": "a", "answer": "x", "contexts": 5, "faithful": 1}\n', "field 'contexts'"),
        ('{"id": "a", "answer": "x", "contexts": [], "faithful": 7}\n', "field 'faithful'"),
        (
            '{"id": "a", "answer": "x", "contexts": []}\n'
            '{"id": "a", "answer": "y", "contexts": []}\n',
            "duplicate id",
        ),
        ("", "holds no rows"),
    ],
)
def test_bad_gold_is_one_line_exit_2(
    tmp_path: Path, content: str, expected: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(content)
    assert main(["evaluate", "--gold", str(path)]) == 2
    err = capsys.readouterr().err
    assert expected in err and str(path) in err
    assert len(err.strip().splitlines()) == 1


def test_cli_bad_gold_subprocess_has_no_traceback(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    good = (
        b'{"id": "a", "answer": "ok", "contexts": []}\n'
        b'{"id": "b", "answer": "ok", "contexts": []}\n'
    )
    path.write_bytes(good + b'{"id": "c", "answer": "\xff", "contexts": []}\n')
    done = _cli("evaluate", "--gold", str(path), cwd=tmp_path)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert "row 3" in done.stderr and "UTF-8" in done.stderr


def test_cli_map_columns(tmp_path: Path) -> None:
    path = tmp_path / "mine.csv"
    path.write_text(
        'qid,query,docs,response,label\n1,Who?,"[""Ann wrote it.""]",Ann wrote it.,1\n'
        '2,Who?,"[""Ann wrote it.""]",Bob wrote it in 1990.,0\n'
    )
    done = _cli(
        "evaluate",
        "--gold",
        str(path),
        "--map",
        "id=qid",
        "--map",
        "question=query",
        "--map",
        "contexts=docs",
        "--map",
        "answer=response",
        "--map",
        "faithful=label",
        "--format",
        "json",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["n"] == 2


def test_failing_lm_reports_its_error_message(
    sample_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert (
        main(
            [
                "evaluate",
                "--gold",
                str(sample_path),
                "--lm",
                "openai/gpt-4o-mini",
                "--limit",
                "2",
                "--no-cache",
            ]
        )
        == 2  # no row could be judged: a failed run (issue 32)
    )
    out = capsys.readouterr().out
    assert "2 errors" in out and "error in 2 rows: LMNotConfiguredError" in out
    assert "no row could be judged" in out
