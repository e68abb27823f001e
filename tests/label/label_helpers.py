"""Helpers of the label tests: the `ragjudge label` server as a real process, the gold file's
lines."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "faithfulness" / "train.jsonl"


def gold_lines(path: Path) -> list[dict[str, Any]]:
    """Every line of a gold file, parsed."""
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


class Server:
    """`ragjudge label` as a process: its URL, and how to stop it."""

    def __init__(self, proc: subprocess.Popen[str], url: str, line: str = "") -> None:
        self.proc, self.url, self.line = proc, url, line

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self, *, by_itself: bool = False) -> tuple[int, str]:
        """Stop it (Ctrl-C), or with `by_itself` wait for it to exit; its code and stderr."""
        if by_itself:
            self.proc.wait(timeout=20)
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
        try:
            _, err = self.proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            _, err = self.proc.communicate()
        return self.proc.returncode, err


def free_port() -> int:
    """A port free on 127.0.0.1 now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_label(*args: str, cwd: Path, port: int = 0) -> Server:
    """Start `ragjudge label ... --port PORT --no-browser` and wait for the URL it prints (the
    line it printed is `Server.line`)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), RAGJUDGE_NO_COLOR="1")
    proc = subprocess.Popen(
        [sys.executable, "-m", "ragjudge", "label", *args, "--port", str(port), "--no-browser"],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    deadline = time.monotonic() + 120
    line = proc.stdout.readline()
    while not line and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.1)
        line = proc.stdout.readline()
    found = re.search(r"http://127\.0\.0\.1:\d+/", line)
    if not found:
        proc.kill()
        _, err = proc.communicate()
        raise AssertionError(f"the server did not start: {line!r} {err}")
    return Server(proc, found.group(0), line)
