"""`ragjudge evaluate --ray` against a real two-node Ray cluster on this machine.

Checked: the results equal the single-process run's, row for row, and so does the agreement
report (the offline judge in statement mode on a folder of shards, the deterministic metrics,
a saved judge file); a worker killed mid-block costs only that block (every row once, the same
results); `--resume` judges only the blocks without a shard; an LM judge keeps one limit on
requests in flight across both workers.

Needs `RAGJUDGE_TEST_RAY_ADDRESS` (`.ci/run` sources `.ci/start-ray`, which starts the cluster
and sets it); skipped otherwise. Every run is a CLI subprocess, as a user would run it.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from ragjudge.data import load_gold
from ragjudge.evaluation import evaluate, read_results
from ragjudge.programs import Faithfulness, Judge
from ragjudge.programs._serialization import load, save_judge
from ragjudge.programs.deterministic import DeterministicJudge
from ragjudge.testing import TestServer

ADDRESS = os.environ.get("RAGJUDGE_TEST_RAY_ADDRESS", "")
REPO = Path(__file__).resolve().parents[2]

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not ADDRESS, reason="set RAGJUDGE_TEST_RAY_ADDRESS (see .ci/start-ray)"),
]


def _evaluate(*argv: str, timeout: float = 240) -> tuple[dict[str, Any], str]:
    """Run `ragjudge -v evaluate ... --format json`; the JSON summary and stderr."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-m", "ragjudge", "-v", "evaluate", *argv, "--format", "json"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout), done.stderr


def _one_process(judge: Judge, gold: Path, out: Path) -> dict[str, Any]:
    """The single-process reference run (`evaluate`, as the CLI calls it); its JSON summary."""
    _, report = evaluate(judge, load_gold(str(gold)), out=out)
    return dict(json.loads(json.dumps(report.summary(), default=str)))


def _same_report(one: dict[str, Any], ray: dict[str, Any]) -> None:
    timing = ("seconds", "items_per_second")
    assert {k: v for k, v in ray.items() if k not in timing} == {
        k: v for k, v in one.items() if k not in timing
    }


def _shards(folder: Path) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for shard in sorted(folder.glob("part-*.parquet")):
        part = read_results(shard)
        assert not set(part) & set(out), "a row in two shards"
        out.update(part)
    return out


def _gold_folder(gold_dir: Path, folder: Path) -> Path:
    """halueval's 600 rows as two JSONL shards, and the same rows as one file."""
    lines = (gold_dir / "halueval" / "dev.jsonl").read_text(encoding="utf-8").splitlines()
    folder.mkdir()
    (folder / "part-a.jsonl").write_text("\n".join(lines[:250]) + "\n")
    (folder / "part-b.jsonl").write_text("\n".join(lines[250:]) + "\n")
    whole = folder.with_suffix(".jsonl")
    whole.write_text("\n".join(lines) + "\n")
    return whole


def test_statement_judge_on_shards_equals_one_process(gold_dir: Path, tmp_path: Path) -> None:
    whole = _gold_folder(gold_dir, tmp_path / "in")
    one = _one_process(Faithfulness(lm="local"), whole, tmp_path / "one.jsonl")
    ray, err = _evaluate(
        "--gold", str(tmp_path / "in"), "--out", str(tmp_path / "ray"), "--ray", ADDRESS,
        "--block-rows", "100",
    )  # fmt: skip
    _same_report(one, ray)
    expected = read_results(tmp_path / "one.jsonl")
    got = _shards(tmp_path / "ray")
    assert list(got) == list(expected)
    assert got == expected
    assert len(list((tmp_path / "ray").glob("part-*.parquet"))) == 7  # 3 + 4 blocks

    # --resume after losing two shards judges those two blocks only, with the same results.
    for name in ("part-00000-000001.parquet", "part-00001-000003.parquet"):
        (tmp_path / "ray" / name).unlink()
    again, err = _evaluate(
        "--gold", str(tmp_path / "in"), "--out", str(tmp_path / "ray"), "--ray", ADDRESS,
        "--block-rows", "100", "--resume",
    )  # fmt: skip
    assert "5 blocks done, 2 to judge" in err
    assert err.count("rows in ") == 2  # one log line per judged block
    _same_report(one, again)
    assert _shards(tmp_path / "ray") == expected


def test_deterministic_and_judge_file_equal_one_process(gold_dir: Path, tmp_path: Path) -> None:
    gold = gold_dir / "sample.jsonl"
    base = ["--gold", str(gold), "--metric", "deterministic", "--mode", "rouge"]
    one = _one_process(DeterministicJudge(mode="rouge"), gold, tmp_path / "one.jsonl")
    ray, _ = _evaluate(
        *base, "--out", str(tmp_path / "ray.jsonl"), "--ray", ADDRESS, "--block-rows", "10"
    )
    _same_report(one, ray)
    one_bytes = (tmp_path / "one.jsonl").read_bytes()
    assert (tmp_path / "ray.jsonl").read_bytes() == one_bytes  # one JSONL, same lines
    assert not (tmp_path / "ray.jsonl.shards").exists()

    judge = save_judge(
        Faithfulness(lm="local", mode="whole", threshold=0.4), tmp_path / "judge.json"
    )
    one = _one_process(load(judge), gold, tmp_path / "j1.jsonl")
    base = ["--gold", str(gold), "--judge", str(judge)]
    ray, _ = _evaluate(*base, "--out", str(tmp_path / "j2.jsonl"), "--ray", ADDRESS)
    _same_report(one, ray)
    assert (tmp_path / "j2.jsonl").read_bytes() == (tmp_path / "j1.jsonl").read_bytes()


def _judging_workers() -> list[int]:
    """Process ids of Ray workers running a block (Ray titles them `ray::judge_block`)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if cmdline.startswith(b"ray::judge_block"):
                pids.append(int(entry.name))
    return pids


def test_killed_worker_costs_one_block_and_lm_limit_holds(
    sample_path: Path, tmp_path: Path
) -> None:
    """An LM judge (the OpenAI-compatible test server, 20 ms a reply) on 42 rows in blocks of 3,
    one row at a time per worker but four threads each, at most 2 requests in flight overall;
    one worker is killed (SIGKILL) while it judges a block."""
    base = ["--gold", str(sample_path), "--lm", "openai/test", "--no-cache"]
    with TestServer(delay=0.02, max_seconds=300) as server:
        one, _ = _evaluate(*base, "--api-base", server.api_base, "--out", str(tmp_path / "1.jsonl"))
    out = tmp_path / "ray"
    killed: list[int] = []

    def kill_one() -> None:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not killed:
            pids = _judging_workers() if list(out.glob("part-*.parquet")) else []
            if pids:
                os.kill(pids[0], signal.SIGKILL)
                killed.append(pids[0])
            time.sleep(0.05)

    with TestServer(delay=0.02, max_seconds=300) as server:
        killer = threading.Thread(target=kill_one)
        killer.start()
        ray, err = _evaluate(
            *base, "--api-base", server.api_base, "--out", str(out), "--ray", ADDRESS,
            "--block-rows", "3", "--concurrency", "4", "--lm-limit", "2",
        )  # fmt: skip
        killer.join()
        stats = server.stats()
    assert killed, "no worker was judging a block"
    _same_report(one, ray)
    got = _shards(out)
    expected = read_results(tmp_path / "1.jsonl")
    assert list(got) == list(expected)  # every row exactly once
    assert got == expected
    assert len(list(out.glob("part-*.parquet"))) == 14
    assert stats["max_in_flight"] <= 2
    assert "at most 2 rows in flight" in err


def test_a_cascade_on_ray_equals_one_process(sample_path: Path, tmp_path: Path) -> None:
    """`--cascade` on the cluster: the same results and report as one process, and the same
    rows sent to the LM (the test server counts them)."""
    base = ["--gold", str(sample_path), "--lm", "openai/test", "--no-cache", "--cascade"]
    with TestServer(max_seconds=300) as server:
        one, _ = _evaluate(*base, "--api-base", server.api_base, "--out", str(tmp_path / "1.jsonl"))
        alone = server.stats()["requests"]
    out = tmp_path / "ray"
    with TestServer(max_seconds=300) as server:
        ray, _ = _evaluate(
            *base, "--api-base", server.api_base, "--out", str(out), "--ray", ADDRESS,
            "--block-rows", "8",
        )  # fmt: skip
        spread = server.stats()["requests"]
    _same_report(one, ray)
    assert _shards(out) == read_results(tmp_path / "1.jsonl")
    assert 0 < spread == alone < len(load_gold(str(sample_path)))
    assert one["lm_rows"] == ray["lm_rows"]
