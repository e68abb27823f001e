"""Two `ragjudge compile` workers share one Optuna study on a real PostgreSQL server.

One worker is killed (SIGKILL) while a trial is running. Checked: no completed trial is lost,
every trial is evaluated by one worker only, the killed trial is failed (stale heartbeat) and
retried once with the same parameters, the study reaches its trial count, and the surviving
worker writes the best judge once the study is complete.

Needs `RAGJUDGE_TEST_POSTGRES_URL` (`.ci/run` starts a server and sets it) and a PostgreSQL
driver for SQLAlchemy (`pip install 'ragjudge[postgres]'`); skipped otherwise.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections import defaultdict
from pathlib import Path

import pytest

URL = os.environ.get("RAGJUDGE_TEST_POSTGRES_URL", "")
REPO = Path(__file__).resolve().parents[2]
WORKER = Path(__file__).with_name("_worker.py")
TRIALS = 24

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not URL, reason="set RAGJUDGE_TEST_POSTGRES_URL (see .ci/run)"),
]

FACTS = [
    ("Where was Einstein born?", "Albert Einstein was born in Ulm, Germany, in 1879."),
    ("What is the capital of France?", "Paris is the capital and largest city of France."),
    ("When did the Berlin Wall fall?", "The Berlin Wall fell on 9 November 1989."),
    ("What do pandas eat?", "Giant pandas eat almost only bamboo leaves and shoots."),
    ("Who wrote Hamlet?", "Hamlet is a tragedy written by William Shakespeare around 1600."),
]
WRONG = ["Munich", "Lyon", "1991", "fish", "Marlowe"]
RIGHT = ["Ulm", "Paris", "1989", "bamboo", "Shakespeare"]


def _gold(path: Path, n: int = 40) -> Path:
    lines = []
    for i in range(n):
        question, context = FACTS[i % len(FACTS)]
        faithful = (i // len(FACTS)) % 2
        k = i % len(FACTS)
        answer = context if faithful else context.replace(RIGHT[k], WRONG[k])
        row = {
            "id": f"g{i}",
            "question": question,
            "contexts": [context],
            "answer": answer,
            "faithful": faithful,
            "meta": {"group_id": f"grp{i}"},
        }
        lines.append(json.dumps(row))
    path.write_text("\n".join(lines) + "\n")
    return path


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    env["PYTHONWARNINGS"] = "ignore"
    return env


def _events(log: Path) -> list[tuple[int, str, int]]:
    if not log.exists():
        return []
    out = []
    for line in log.read_text().splitlines():
        pid, event, number = line.split()
        out.append((int(pid), event, int(number)))
    return out


def _wait_for(predicate: object, timeout: float, what: str, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():  # type: ignore[operator]
            return
        if proc.poll() is not None:  # it died: show why instead of waiting out the clock
            _, err = proc.communicate()
            raise AssertionError(
                f"worker exited ({proc.returncode}) before {what}: {err.decode()[-2000:]}"
            )
        time.sleep(0.05)
    proc.kill()
    raise AssertionError(f"timed out waiting for {what}")


def test_two_workers_one_killed_mid_trial(tmp_path: Path) -> None:
    optuna = pytest.importorskip("optuna")
    try:
        import sqlalchemy

        sqlalchemy.create_engine(URL).connect().close()
    except Exception as exc:  # no driver or no server: say so instead of failing obscurely
        pytest.skip(f"cannot connect to {URL.split('@')[-1]}: {exc}")
    gold = _gold(tmp_path / "gold.jsonl")
    study = f"ragjudge-test-{uuid.uuid4().hex[:10]}"
    log = tmp_path / "trials.log"

    def worker(name: str, sleep: str) -> subprocess.Popen[bytes]:
        cmd = [
            sys.executable,
            str(WORKER),
            str(log),
            sleep,
            "--",
            "compile",
            "--gold",
            str(gold),
            "--trials",
            str(TRIALS),
            "--storage",
            URL,
            "--study",
            study,
            "--out",
            str(tmp_path / f"{name}.json"),
            "--format",
            "json",
        ]
        return subprocess.Popen(
            cmd, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path
        )

    # The victim finishes one trial and then stays inside its second one (see _worker.py); the
    # survivor starts once the victim is there, so neither can take all the trials before the
    # other is up, however slow the machine. The survivor keeps working for longer than the
    # storage's heartbeat grace period (20 s) after the kill, so it sees the victim's trial go
    # stale, fails it and retries it.
    victim = worker("victim", "hang")
    survivor: subprocess.Popen[bytes] | None = None
    try:

        def victim_mid_trial() -> bool:
            mine = [(e, n) for pid, e, n in _events(log) if pid == victim.pid]
            finished = [n for e, n in mine if e == "finish"]
            return bool(finished) and mine[-1][0] == "mid"

        _wait_for(victim_mid_trial, 300, "the victim to start a second trial", victim)
        survivor = worker("survivor", "1.5")
        started = survivor

        def survivor_finished_one() -> bool:
            return any(pid == started.pid and e == "finish" for pid, e, _ in _events(log))

        _wait_for(survivor_finished_one, 300, "the survivor to finish a trial", survivor)
        victim.send_signal(signal.SIGKILL)  # it waits at "mid": killed mid-trial
        victim.wait(timeout=30)
        last_event, killed_trial = [(e, n) for pid, e, n in _events(log) if pid == victim.pid][-1]
        assert last_event == "mid"
        # What was complete when the victim died (it cannot complete anything after that).
        before = optuna.load_study(study_name=study, storage=optuna.storages.RDBStorage(URL))
        completed_before = {
            t.number: t.params for t in before.get_trials(states=[optuna.trial.TrialState.COMPLETE])
        }
        assert completed_before
        out, err = survivor.communicate(timeout=600)
        assert survivor.returncode == 0, err.decode()[-2000:]
    finally:
        for proc in (victim, survivor):
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.wait()

    events = _events(log)
    starts: dict[int, set[int]] = defaultdict(set)
    finishes: dict[int, list[int]] = defaultdict(list)
    for pid, event, number in events:
        if event == "start":
            starts[number].add(pid)
        elif event == "finish":
            finishes[number].append(pid)
    # Each trial was handed to one worker only, and finished at most once.
    assert all(len(pids) == 1 for pids in starts.values())
    assert all(len(pids) == 1 for pids in finishes.values())
    assert killed_trial not in finishes  # it really was killed mid-trial

    final = optuna.load_study(study_name=study, storage=optuna.storages.RDBStorage(URL))
    trials = {t.number: t for t in final.get_trials()}
    complete = {n for n, t in trials.items() if t.state == optuna.trial.TrialState.COMPLETE}
    # No completed trial lost, none evaluated twice, and the study reached its size.
    for number, params in completed_before.items():
        assert number in complete and trials[number].params == params
    assert complete == set(finishes)
    assert len(complete) >= TRIALS
    # The killed trial never completed: its heartbeat went stale, it was failed and retried
    # once, as a new trial with the same parameters, which completed.
    assert trials[killed_trial].state == optuna.trial.TrialState.FAIL, (
        "the killed trial was not failed by the heartbeat check"
    )
    retries = [t for t in trials.values() if t.system_attrs.get("failed_trial") == killed_trial]
    assert len(retries) == 1
    assert retries[0].params == trials[killed_trial].params
    assert retries[0].state == optuna.trial.TrialState.COMPLETE

    # The survivor wrote the best judge once the study was complete; the victim wrote nothing.
    assert not (tmp_path / "victim.json").exists()
    judge_file = json.loads((tmp_path / "survivor.json").read_text())
    assert judge_file["compile"]["study"]["name"] == study
    assert judge_file["compile"]["study"]["n_trials"] >= TRIALS
    summary = json.loads(out)
    assert summary["study"]["n_trials"] >= TRIALS
    best = max(trials[n].value for n in complete)  # type: ignore[type-var]
    assert summary["study"]["best_value"] == pytest.approx(best)
