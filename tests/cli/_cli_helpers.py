"""Helpers of the command-line tests: run `ragjudge` in process, check a one-line refusal."""

from __future__ import annotations

import pytest

from ragjudge.cli import main


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, list[str]]:
    """`ragjudge <args>` in process: the exit code, stdout, and stderr's non-blank lines."""
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, [line for line in err.splitlines() if line.strip()]


def refused(err: list[str], *parts: str) -> None:
    """One line on stderr, naming every part, no traceback."""
    assert len(err) == 1, err
    assert "Traceback" not in err[0]
    for part in parts:
        assert part in err[0], (part, err[0])
