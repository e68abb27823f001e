"""`ragjudge evaluate`: judge every row, write results, report agreement with the labels."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ragjudge.cli._common import add_data_options, add_lm_options, emit, load_rows, progress
from ragjudge.cli._runopts import add_run_options, configure_run, judge_with_lm_options
from ragjudge.evaluation import EvaluationReport, evaluate
from ragjudge.exceptions import ConfigurationError
from ragjudge.programs import Faithfulness, Judge
from ragjudge.serialization import load

__all__ = ["add_parser", "build_judge", "run"]


def add_parser(sub: Any) -> None:
    """Register the subcommand."""
    parser = sub.add_parser(
        "evaluate",
        help="judge rows and report agreement with their labels",
        description="Judge every row of a file and, where rows carry labels, report agreement.",
    )
    add_data_options(parser)
    add_lm_options(parser)
    add_run_options(parser)
    parser.add_argument("--judge", default=None, help="a saved or compiled judge (.json)")
    parser.add_argument("--metric", default="faithfulness", help="the metric to judge")
    parser.add_argument("--mode", default=None, choices=["statement", "whole"], help="judge mode")
    parser.add_argument("--threshold", type=float, default=None, help="pass threshold in [0, 1]")
    parser.add_argument("--out", default=None, help="write per-row results (.jsonl or .parquet)")
    parser.add_argument("--format", choices=["table", "json"], default="table")
    parser.add_argument(
        "--concurrency",
        type=int,
        default=None,
        help="items in flight (default 1 offline, 8 with an LM)",
    )
    parser.add_argument(
        "--trust-modified", action="store_true", help="load a hand-edited judge file"
    )
    parser.set_defaults(run=run)


def build_judge(args: argparse.Namespace) -> Judge:
    """The judge the options describe."""
    overrides: dict[str, Any] = {}
    if args.mode is not None:
        overrides["mode"] = args.mode
    if args.threshold is not None:
        overrides["threshold"] = args.threshold
    if args.lm is not None:
        overrides["lm"] = args.lm
    if args.judge:
        judge = load(args.judge, trust_modified=args.trust_modified)
        return judge.clone(**overrides) if overrides else judge
    if args.metric != "faithfulness":
        raise ConfigurationError(f"unknown --metric {args.metric!r}; choose from: faithfulness")
    overrides.setdefault("lm", "local")
    return Faithfulness(**overrides)


def run(args: argparse.Namespace) -> int:
    """Run `ragjudge evaluate`."""
    rows = load_rows(args)
    configure_run(args)
    judge = judge_with_lm_options(build_judge(args), args)
    offline = judge.lm in (None, "local")
    concurrency = args.concurrency or (1 if offline else 8)
    if concurrency < 1:
        raise ConfigurationError("--concurrency must be at least 1")
    with progress(len(rows), f"judging ({judge.metric})") as bar:
        _results, report = evaluate(
            judge,
            rows,
            concurrency=concurrency,
            on_result=lambda i, r: bar.update(1),
            out=args.out,
            resume=args.resume,
        )
    if args.format == "json":
        emit(report.summary())
    else:
        sys.stdout.write(format_report(report) + "\n")
    return 0


def format_report(report: EvaluationReport) -> str:
    """The report as a table for a person."""
    lines = [
        f"{report.metric} [{report.mode}] with {report.lm}: {report.rows} rows in "
        f"{report.seconds:.1f} s, {report.lm_calls} LM calls, {report.tokens} tokens, "
        f"{report.errors} errors, {report.unscored} unscored",
    ]
    a = report.agreement
    if a is None:
        lines.append("no labeled rows: agreement not measured")
        return "\n".join(lines)

    def cell(value: float | None, ci: list[float | None] | None = None) -> str:
        if value is None:
            return "n/a"
        if ci and ci[0] is not None and ci[1] is not None:
            return f"{value:.3f} [{ci[0]:.3f}, {ci[1]:.3f}]"
        return f"{value:.3f}"

    lines.append(f"agreement with labels (n={a.n}, 95% bootstrap intervals):")
    for key in ("balanced_accuracy", "cohen_kappa", "auroc", "f1"):
        lines.append(f"  {key:<18} {cell(getattr(a, key), a.ci.get(key))}")
    if report.by_source:
        lines.append(f"  {'source':<18} {'n':>5} {'bal.acc':>8} {'auroc':>7}")
        for source, s in report.by_source.items():
            lines.append(
                f"  {source:<18} {s.n:>5} {cell(s.balanced_accuracy):>8} {cell(s.auroc):>7}"
            )
    return "\n".join(lines)
