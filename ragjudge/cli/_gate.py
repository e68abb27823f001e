"""`--fail-under` for `ragjudge evaluate`: the option, the early checks and the exit code."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from ragjudge.data._gold import GoldRecord
from ragjudge.data._labels import labeled_rows
from ragjudge.evaluation._gate import FIGURES, LABEL_FIGURES, GateCheck, parse_bounds
from ragjudge.exceptions import ConfigurationError

__all__ = ["add_gate_option", "gate_bounds", "gate_exit"]


def add_gate_option(parser: argparse.ArgumentParser) -> None:
    """`--fail-under figure=bound,...`."""
    parser.add_argument(
        "--fail-under",
        action="append",
        default=[],
        metavar="FIGURE=BOUND",
        help="exit 1 when a figure is below its bound, e.g. pass_rate=0.9,balanced_accuracy=0.8 "
        f"(figures: {', '.join(FIGURES)}; all but pass_rate need labeled rows)",
    )


def gate_bounds(
    args: argparse.Namespace, rows: Sequence[GoldRecord], metrics: Sequence[str]
) -> dict[str, float]:
    """The bounds given, checked before any row is judged (an empty dict without the option).

    Raises:
        ConfigurationError: For a malformed spec, or a label figure when no row has a label
            for one of `metrics` (`labeled_rows`: the rule evaluate measures agreement by).
    """
    if not args.fail_under:
        return {}
    bounds = parse_bounds(args.fail_under)
    wanted = [f for f in bounds if f in LABEL_FIGURES]
    unlabeled = next((m for m in metrics if not labeled_rows(rows, m)), None) if wanted else None
    if unlabeled is not None:
        raise ConfigurationError(
            f"--fail-under {wanted[0]} needs labeled rows, and no row of {args.gold} has a "
            f"label for {unlabeled}; use pass_rate, or add labels"
        )
    return bounds


def gate_exit(checks: Sequence[GateCheck]) -> int:
    """Write one line per failed bound to stderr; 1 if any failed, else 0."""
    failed = [c for c in checks if not c.passed]
    for check in failed:
        sys.stderr.write(f"ragjudge evaluate: fail-under: {check.line()}\n")
    return 1 if failed else 0
