"""`ragjudge drift`: has a compiled judge's agreement fallen on new labeled rows?"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ragjudge.cli._common import (
    HelpFormatter,
    add_data_options,
    add_lm_options,
    emit,
    examples,
    load_rows,
    progress,
)
from ragjudge.cli._runopts import add_run_options, configure_run, judge_with_lm_options
from ragjudge.data._labels import rows_for_metric
from ragjudge.data._paths import check_not_inputs
from ragjudge.evaluation._drift import DriftReport, drift_test, new_sample, reference_sample
from ragjudge.evaluation._runner import check_out_path, run_rows
from ragjudge.exceptions import ConfigurationError
from ragjudge.optimize._report import CompileReport
from ragjudge.programs._build import default_concurrency
from ragjudge.programs._serialization import load
from ragjudge.stats._agreement import Agreement

__all__ = ["add_parser", "run"]

#: `--figure` names -> the report's names.
FIGURES = {
    "balanced_accuracy": "balanced_accuracy",
    "kappa": "cohen_kappa",
    "auroc": "auroc",
    "f1": "f1",
}


def add_parser(sub: Any) -> None:
    """Register the subcommand."""
    parser = sub.add_parser(
        "drift",
        formatter_class=HelpFormatter,
        epilog=examples(
            "ragjudge drift --judge judge.json --gold this_week.jsonl",
            "ragjudge drift --judge judge.json --gold this_week.jsonl --report drift.html "
            "--format json",
        ),
        help="test whether a compiled judge's agreement fell on new labeled rows",
        description="Judge new labeled rows with a compiled judge, set the agreement beside "
        "the one its compile measured on validation rows, and test (one-sided permutation "
        "test) whether it fell beyond chance. Exit 1 when it did, 0 when not, 2 on bad input.",
    )
    add_data_options(parser)
    add_lm_options(parser)
    add_run_options(parser)
    parser.add_argument("--judge", required=True, help="a compiled judge file (.json)")
    parser.add_argument(
        "--figure",
        choices=list(FIGURES),
        default=None,
        help="the figure tested (default: the compile's objective, else balanced_accuracy)",
    )
    parser.add_argument("--alpha", type=float, default=0.05, help="the test's level (0.05)")
    parser.add_argument(
        "--permutations", type=int, default=2000, help="re-splits of the permutation test"
    )
    parser.add_argument("--report", default=None, help="also write an HTML report here")
    parser.add_argument("--out", default=None, help="write per-row results (.jsonl/.parquet)")
    parser.add_argument("--format", choices=["table", "json"], default="table")
    parser.add_argument("--concurrency", type=int, default=None, help="items in flight")
    parser.add_argument(
        "--trust-modified", action="store_true", help="load a hand-edited judge file"
    )
    parser.set_defaults(run=run)


def _figure(args: argparse.Namespace, report: CompileReport) -> str:
    if args.figure:
        return FIGURES[args.figure]
    objective = FIGURES.get(report.objective, report.objective)
    return objective if objective in FIGURES.values() else "balanced_accuracy"


def run(args: argparse.Namespace) -> int:
    """Run `ragjudge drift`."""
    if args.report:
        from ragjudge.cli.report import check_report_path

        check_report_path(args.report)
    if args.out:
        check_out_path(args.out)
    check_not_inputs(
        {"--out": args.out, "--report": args.report}, {"--gold": args.gold, "--judge": args.judge}
    )
    if args.permutations < 99:
        raise ConfigurationError("--permutations must be at least 99")
    if not 0 < args.alpha < 1:
        raise ConfigurationError(f"--alpha must be in (0, 1), got {args.alpha}")
    judge = load(args.judge, trust_modified=args.trust_modified)
    reference = reference_sample(judge.report_, path=args.judge)
    compile_report = CompileReport.model_validate(judge.report_)
    rows, _ = rows_for_metric(
        judge.metric, load_rows(args, require_labels=judge.metric == "faithfulness")
    )
    configure_run(args)
    report_ = judge.report_
    if args.lm is not None:
        judge = judge.clone(lm=args.lm)
    judge = judge_with_lm_options(judge, args)
    judge.report_ = report_
    concurrency = args.concurrency or default_concurrency(judge)
    if concurrency < 1:
        raise ConfigurationError("--concurrency must be at least 1")
    with progress(len(rows), f"judging ({judge.metric})") as bar:
        results = run_rows(
            judge,
            rows,
            concurrency=concurrency,
            out=args.out,
            resume=args.resume,
            on_result=lambda i, r: bar.update(1),
        )
    fitted = compile_report.fitted_rows
    new = new_sample(rows, results, metric=judge.metric, fitted_rows=fitted)
    if not new.n and new.fitted:
        raise ConfigurationError(
            f"every labeled row of {args.gold} ({new.fitted}) is one the judge was fitted on "
            "(its compile's train rows): drift needs rows the judge has not seen"
        )
    if not new.n:
        raise ConfigurationError(f"no row of {args.gold} has a label for {judge.metric}")
    drift = drift_test(
        reference,
        new,
        metric=judge.metric,
        figure=_figure(args, compile_report),
        alpha=args.alpha,
        permutations=args.permutations,
        reference_agreement=compile_report.validation,
    )
    notes = list(drift.notes)
    if fitted is None:
        notes.append(
            f"{args.judge} does not record the rows it was fitted on (compiled before ragjudge "
            "recorded them): new rows it was fitted on cannot be left out, and would flatter it"
        )
    drift = drift.model_copy(
        update={"gold": str(args.gold), "judge": str(args.judge), "notes": notes}
    )
    if args.report:
        from ragjudge.report._drift import write_drift_report

        write_drift_report(
            args.report,
            drift=drift,
            judge=judge,
            rows=rows,
            results=results,
            gold_name=str(args.gold),
            judge_name=str(args.judge),
        )
    if args.format == "json":
        emit(drift.summary())
    else:
        sys.stdout.write(format_drift(drift) + "\n")
    return 1 if drift.dropped else 0


def format_drift(drift: DriftReport) -> str:
    """The drift report as a table for a person."""

    def cell(a: Agreement, key: str) -> str:
        value = getattr(a, key)
        low, high = (a.ci.get(key) or [None, None])[:2]
        if value is None:
            return "n/a"
        ci = f" [{low:.3f}, {high:.3f}]" if low is not None and high is not None else ""
        return f"{value:.3f}{ci}"

    def diff(key: str) -> str:
        value = drift.difference.get(key)
        low, high = (drift.difference_ci.get(key) or [None, None])[:2]
        if value is None:
            return "n/a"
        ci = f" [{low:+.3f}, {high:+.3f}]" if low is not None and high is not None else ""
        return f"{value:+.3f}{ci}"

    lines = [
        f"{drift.metric} drift: {drift.judge} on {drift.gold}",
        f"  {'':<18} {'compile validation':<24} {'new rows':<24} new - compile",
        f"  {'n':<18} {drift.reference.n:<24} {drift.new.n:<24}",
    ]
    for key in FIGURES.values():
        mark = " *" if key == drift.figure else ""
        lines.append(
            f"  {key + mark:<18} {cell(drift.reference, key):<24} {cell(drift.new, key):<24} "
            f"{diff(key)}"
        )
    failing = [
        f"{n} {what}"
        for n, what in ((drift.errors, "ended in an error"), (drift.unscored, "unscored"))
        if n
    ]
    if failing:
        lines.append(f"  new rows {' and '.join(failing)}: counted as failing, ranked lowest")
    lines.append(
        f"  new - compile: {100 * drift.level:g}% bootstrap intervals (their upper end is the "
        f"one-sided {100 * (1 - drift.alpha):g}% bound the test matches)"
    )
    verdict = (
        "agreement FELL beyond chance" if drift.dropped else "no drop in agreement beyond chance"
    )
    lines.append(
        f"* one-sided permutation test on {drift.figure} ({drift.permutations} re-splits): "
        f"p = {drift.p_value:.4f}, alpha = {drift.alpha:g}: {verdict}"
    )
    lines += [f"note: {text}" for text in ([drift.disagreement] if drift.disagreement else [])]
    lines += [f"note: {text}" for text in drift.notes]
    return "\n".join(lines)
