"""Streaming `--out`, `--resume` and interruption: every row ends up written exactly once."""

from __future__ import annotations

import json
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from _reliability_helpers import PYTHON, cli_env, make_rows, server_lm, write_rows

from ragjudge.evaluation._runner import ResumeError, read_results, run_rows
from ragjudge.programs import Faithfulness
from ragjudge.programs._results import JudgeResult
from ragjudge.testing._server import TestServer


def _ids(path: Path) -> list[str]:
    return [json.loads(line)["id"] for line in path.read_text().splitlines() if line.strip()]


class CountingJudge(Faithfulness):
    """Faithfulness (offline) that counts items and can fail or stop at a given item."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.seen: list[str] = []
        self.lock = threading.Lock()
        self.interrupt_at: str | None = None

    def judge_item(self, **inputs: Any) -> JudgeResult:
        with self.lock:
            self.seen.append(inputs["question"])
        if self.interrupt_at is not None and inputs["question"] == self.interrupt_at:
            raise KeyboardInterrupt
        return super().judge_item(**inputs)


def test_results_in_input_order_with_ids(tmp_path: Path) -> None:
    rows = make_rows(24)
    out = tmp_path / "out.jsonl"
    with TestServer(delay=0.05, max_seconds=120) as server:
        results = run_rows(Faithfulness(lm=server_lm(server)), rows, concurrency=6, out=out)
        assert server.stats()["max_in_flight"] > 1  # really concurrent
        serial = run_rows(Faithfulness(lm=server_lm(server)), rows, concurrency=1)
    assert [r.id for r in results] == [r.id for r in rows]
    assert _ids(out) == [r.id for r in rows]
    assert [r.score for r in serial] == [r.score for r in results]


def test_interrupted_run_resumes_to_every_row_exactly_once(tmp_path: Path) -> None:
    rows = make_rows(12)
    out = tmp_path / "out.jsonl"
    judge = CountingJudge(lm="local")
    judge.interrupt_at = rows[7].question
    with pytest.raises(KeyboardInterrupt):
        run_rows(judge, rows, concurrency=1, out=out)
    assert _ids(out) == [r.id for r in rows[:7]]  # every finished row was written, in order
    again = CountingJudge(lm="local")
    results = run_rows(again, rows, concurrency=3, out=out, resume=True)
    assert _ids(out) == [r.id for r in rows]
    assert len(again.seen) == 5  # only the missing rows were judged
    fresh = run_rows(Faithfulness(lm="local"), rows)
    assert [r.score for r in results] == [r.score for r in fresh]


def test_half_written_last_line_is_dropped_and_redone(tmp_path: Path) -> None:
    rows = make_rows(6)
    out = tmp_path / "out.jsonl"
    run_rows(Faithfulness(lm="local"), rows[:3], out=out)
    with out.open("a") as handle:
        handle.write('{"metric": "faithfulness", "id": "r0003", "sco')  # crash mid-write
    judge = CountingJudge(lm="local")
    run_rows(judge, rows, out=out, resume=True)
    assert _ids(out) == [r.id for r in rows]
    assert len(judge.seen) == 3
    assert set(read_results(out)) == {r.id for r in rows}


def test_resume_with_nothing_left_judges_nothing(tmp_path: Path) -> None:
    rows = make_rows(5)
    out = tmp_path / "out.jsonl"
    first = run_rows(Faithfulness(lm="local"), rows, out=out)
    judge = CountingJudge(lm="local")
    again = run_rows(judge, rows, out=out, resume=True)
    assert judge.seen == []
    assert [(r.id, r.score) for r in again] == [(r.id, r.score) for r in first]
    assert _ids(out) == [r.id for r in rows]


def test_resume_refuses_other_rows_and_damaged_lines(tmp_path: Path) -> None:
    rows = make_rows(4)
    out = tmp_path / "out.jsonl"
    run_rows(Faithfulness(lm="local"), rows, out=out)
    with pytest.raises(ResumeError, match="not in the input"):
        run_rows(Faithfulness(lm="local"), rows[:2], out=out, resume=True)
    lines = out.read_text().splitlines()
    lines[1] = "not json"
    out.write_text("\n".join(lines) + "\n")
    with pytest.raises(ResumeError, match="line 2"):
        run_rows(Faithfulness(lm="local"), rows, out=out, resume=True)


def test_without_resume_the_file_starts_afresh(tmp_path: Path) -> None:
    rows = make_rows(4)
    out = tmp_path / "out.jsonl"
    run_rows(Faithfulness(lm="local"), rows, out=out)
    run_rows(Faithfulness(lm="local"), rows[:2], out=out)
    assert _ids(out) == [r.id for r in rows[:2]]


def test_parquet_output_resumes_through_a_partial_file(tmp_path: Path) -> None:
    pytest.importorskip("pyarrow")
    rows = make_rows(8)
    out = tmp_path / "out.parquet"
    judge = CountingJudge(lm="local")
    judge.interrupt_at = rows[5].question
    with pytest.raises(KeyboardInterrupt):
        run_rows(judge, rows, out=out)
    partial = tmp_path / "out.parquet.partial.jsonl"
    assert _ids(partial) == [r.id for r in rows[:5]] and not out.exists()
    run_rows(Faithfulness(lm="local"), rows, out=out, resume=True)
    assert not partial.exists()
    assert list(read_results(out)) == [r.id for r in rows]


def _start_server_process(delay: float) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [PYTHON, "-m", "ragjudge.testing._server", "--delay", str(delay), "--max-seconds", "120"],
        stdout=subprocess.PIPE,
        text=True,
        env=cli_env(),
    )
    assert proc.stdout is not None
    info = json.loads(proc.stdout.readline())
    return proc, info["api_base"]


def _default_sigint() -> None:
    """In the child before exec: SIGINT's default action (an inherited "ignore" survives exec)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.slow
def test_cli_ctrl_c_then_resume(tmp_path: Path) -> None:
    """SIGINT a real `ragjudge evaluate` mid-run: exit 130, no traceback, --resume completes.

    The run starts with Ctrl-C's default action, as from a terminal: a test runner launched in
    the background of a script (where the shell ignores SIGINT, and children inherit that) must
    not make the signal a no-op.
    """
    rows = make_rows(40)
    gold = write_rows(tmp_path / "rows.jsonl", rows)
    out = tmp_path / "out.jsonl"
    proc, api_base = _start_server_process(delay=0.15)
    try:
        cmd = [
            PYTHON,
            "-m",
            "ragjudge",
            "evaluate",
            "--gold",
            str(gold),
            "--lm",
            "openai/gpt-4o-mini",
            "--api-base",
            api_base,
            "--no-cache",
            "--concurrency",
            "2",
            "--out",
            str(out),
        ]
        run = subprocess.Popen(
            cmd,
            env=cli_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            preexec_fn=_default_sigint,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and (not out.exists() or len(_ids(out)) < 3):
            time.sleep(0.05)
        run.send_signal(signal.SIGINT)
        _, err = run.communicate(timeout=60)
        assert run.returncode == 130, err
        assert b"Traceback" not in err
        written = _ids(out)
        assert 3 <= len(written) < len(rows)
        assert written == [r.id for r in rows[: len(written)]]
        again = subprocess.run(
            [*cmd, "--resume", "--format", "json"],
            env=cli_env(),
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert again.returncode == 0, again.stderr
        assert _ids(out) == [r.id for r in rows]
        summary = json.loads(again.stdout)
        assert summary["rows"] == len(rows) and summary["errors"] == 0
    finally:
        proc.terminate()
        proc.wait(timeout=10)


class FailingJudge(CountingJudge):
    """Fails (an LM error) on the questions in `fail`."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.fail: set[str] = set()

    def judge_item(self, **inputs: Any) -> JudgeResult:
        if inputs["question"] in self.fail:
            raise RuntimeError("upstream 503")
        return super().judge_item(**inputs)


def test_resume_with_retry_errors_judges_only_the_failed_rows_again(tmp_path: Path) -> None:
    rows = make_rows(10)
    out = tmp_path / "out.jsonl"
    flaky = FailingJudge(lm="local")
    flaky.fail = {rows[2].question, rows[6].question}
    first = run_rows(flaky, rows[:8], concurrency=2, out=out)  # rows 8-9: not reached yet
    assert [r.id for r in first if r.error] == [rows[2].id, rows[6].id]
    kept = {i: r for i, r in read_results(out).items() if not r.error}

    plain = CountingJudge(lm="local")
    run_rows(plain, rows, out=out, resume=True)  # without the flag, errors are kept
    assert len(plain.seen) == 2 and sum(1 for r in read_results(out).values() if r.error) == 2

    healthy = CountingJudge(lm="local")
    results = run_rows(healthy, rows, out=out, resume=True, retry_errors=True)
    assert sorted(healthy.seen) == sorted([rows[2].question, rows[6].question])
    assert not any(r.error for r in results)
    assert sorted(_ids(out)) == sorted(r.id for r in rows)  # each row once
    again = read_results(out)
    assert all(again[i].model_dump() == r.model_dump() for i, r in kept.items())
    assert [r.id for r in results] == [r.id for r in rows]
    with pytest.raises(ValueError, match="needs resume"):
        run_rows(healthy, rows, out=out, retry_errors=True)


def test_cli_retry_errors(tmp_path: Path) -> None:
    gold = write_rows(tmp_path / "g.jsonl", make_rows(6))
    out = tmp_path / "out.jsonl"
    base = [PYTHON, "-m", "ragjudge", "evaluate", "--gold", str(gold), "--out", str(out)]
    done = subprocess.run(base, env=cli_env(), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in out.read_text().splitlines()]
    for record in records[1::2]:  # rows 1, 3, 5 ended in an error
        record.update(score=None, passed=None, error="RateLimitError: 429")
    out.write_text("".join(json.dumps(r) + "\n" for r in records))
    done = subprocess.run(
        [*base, "--resume", "--retry-errors", "--format", "json"],
        env=cli_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["errors"] == 0
    after = {json.loads(line)["id"]: json.loads(line) for line in out.read_text().splitlines()}
    assert len(after) == 6 and all(r["error"] is None for r in after.values())
    assert [after[r["id"]] for r in records[::2]] == records[::2]  # the others kept as they were
    refused = subprocess.run(
        [*base, "--retry-errors"], env=cli_env(), capture_output=True, text=True, timeout=300
    )
    assert refused.returncode == 2 and "--retry-errors needs --resume" in refused.stderr
