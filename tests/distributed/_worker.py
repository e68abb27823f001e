"""Run `ragjudge compile` as a worker that logs the trials it evaluates (test scaffolding).

Usage: python _worker.py LOGFILE SLEEP -- <ragjudge compile arguments>

Each trial this process evaluates is logged as `<pid> start <number>` before its objective runs,
`<pid> mid <number>` once the objective has chosen the trial's parameters and scored them (its
first `set_user_attr`), then SLEEP seconds pass, and `<pid> finish <number>` after it returns;
so a test can kill the process while a trial with known parameters is running. SLEEP `hang`
finishes one trial (pausing 0.5 s) and then stays at the "mid" point of the next one until the
process is killed, so the test does not race the other worker for trials.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from typing import Any

import optuna

from ragjudge.cli import main


def _log(path: str, event: str, number: int) -> None:
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(f"{os.getpid()} {event} {number}\n")
        handle.flush()
        os.fsync(handle.fileno())


def run(argv: list[str]) -> int:
    """Patch `Study.optimize` to log trials, then run the CLI."""
    log, hang = argv[0], argv[1] == "hang"
    sleep = 0.5 if hang else float(argv[1])
    args = argv[argv.index("--") + 1 :]
    original = optuna.study.Study.optimize

    def optimize(self: optuna.Study, func: Callable[..., Any], *a: Any, **k: Any) -> None:
        def objective(trial: optuna.Trial) -> Any:
            _log(log, "start", trial.number)
            value = func(trial)
            _log(log, "finish", trial.number)
            return value

        original(self, objective, *a, **k)

    optuna.study.Study.optimize = optimize  # type: ignore[method-assign]
    original_set = optuna.trial.Trial.set_user_attr
    paused: set[int] = set()

    def set_user_attr(self: optuna.Trial, key: str, value: Any) -> None:
        original_set(self, key, value)
        if self.number not in paused:
            paused.add(self.number)
            _log(log, "mid", self.number)
            time.sleep(sleep)
            while hang and len(paused) > 1:  # inside its second trial: wait to be killed
                time.sleep(1)

    optuna.trial.Trial.set_user_attr = set_user_attr  # type: ignore[method-assign]
    return main(args)


if __name__ == "__main__":
    raise SystemExit(run(sys.argv[1:]))
