"""The `ragjudge` command line: one module per subcommand.

User mistakes (bad files, bad options) print one line to stderr and exit with code 2.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence

from ragjudge._version import __version__


def _without_ipython() -> None:
    """Import DSPy without IPython (0.2-0.4 s of a CLI start): DSPy imports it only to show
    tables in notebooks, and a command-line process is never one. IPython stays importable."""
    if "IPython" in sys.modules or "dspy" in sys.modules:
        return
    sys.modules["IPython"] = None  # type: ignore[assignment]  # DSPy's optional import fails
    try:
        import dspy  # noqa: F401
    finally:
        del sys.modules["IPython"]


_without_ipython()

from ragjudge.cli import compile as compile_cmd  # noqa: E402
from ragjudge.cli import drift as drift_cmd  # noqa: E402
from ragjudge.cli import evaluate  # noqa: E402
from ragjudge.cli import report as report_cmd  # noqa: E402
from ragjudge.exceptions import RagJudgeError  # noqa: E402

__all__ = ["main"]

COMMANDS = [evaluate, compile_cmd, report_cmd, drift_cmd]


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand."""
    parser = argparse.ArgumentParser(
        prog="ragjudge",
        description="Build, run and compile RAG judges that agree with your labels.",
    )
    parser.add_argument("--version", action="version", version=f"ragjudge {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress to stderr")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in COMMANDS:
        module.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    try:
        return int(args.run(args))
    except RagJudgeError as exc:
        sys.stderr.write(f"ragjudge {args.command}: error: {exc}\n")
        return 2
    except KeyboardInterrupt:
        sys.stderr.write(f"ragjudge {args.command}: interrupted\n")
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
