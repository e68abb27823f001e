"""`ragjudge evaluate`: judge every row, write results, report agreement with the labels."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ragjudge.cli._common import (
    DETERMINISTIC_SCORES,
    HelpFormatter,
    add_cascade_option,
    add_data_options,
    add_deterministic_options,
    add_lm_options,
    allow_several_lms,
    deterministic_options,
    emit,
    examples,
    load_rows,
    progress,
)
from ragjudge.cli._gate import add_gate_option, gate_bounds, gate_exit
from ragjudge.cli._ray import add_ray_options, run_ray
from ragjudge.cli._runopts import add_run_options, configure_run
from ragjudge.cli.report import add_report_option, check_report_path, write_evaluate_report
from ragjudge.data._gold import GoldRecord
from ragjudge.data._labels import rows_for_metric
from ragjudge.data._paths import check_not_inputs
from ragjudge.evaluation._evaluate import EvaluationReport, evaluate
from ragjudge.evaluation._gate import GateCheck, check_bounds
from ragjudge.evaluation._runner import check_out_path
from ragjudge.exceptions import ConfigurationError, RagJudgeError
from ragjudge.programs import Judge
from ragjudge.programs._build import build_judge as library_build_judge
from ragjudge.programs._build import default_concurrency
from ragjudge.programs._serialization import judge_class, load, metric_names

__all__ = ["add_parser", "build_judge", "run"]


def add_parser(sub: Any) -> None:
    """Register the subcommand."""
    parser = sub.add_parser(
        "evaluate",
        formatter_class=HelpFormatter,
        epilog=examples(
            "ragjudge evaluate --gold rows.jsonl --out results.jsonl",
            "ragjudge evaluate --gold export.csv --map contexts=context --lm openai/gpt-4o-mini "
            "--metric faithfulness,answer_relevancy --fail-under pass_rate=0.9",
        ),
        help="judge rows and report agreement with their labels",
        description="Judge every row of a file and, where rows carry labels, report agreement.",
    )
    add_data_options(parser)
    add_lm_options(parser)
    allow_several_lms(parser)
    add_run_options(parser)
    add_ray_options(parser)
    parser.add_argument("--judge", default=None, help="a saved or compiled judge (.json)")
    parser.add_argument(
        "--metric",
        default="faithfulness",
        help="the metric(s) to judge, comma-separated: " + ", ".join(metric_names()),
    )
    parser.add_argument(
        "--mode",
        default=None,
        choices=["statement", "whole", "rubric", "questions", *DETERMINISTIC_SCORES],
        help="judge mode; 'statement' means 'questions' for answer_relevancy; for "
        "--metric deterministic the per-sentence score (rouge, token_overlap, bleu, mean)",
    )
    add_cascade_option(parser)
    add_deterministic_options(parser)
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="ask each LM N times (distinct cache keys) and aggregate: median of rubric "
        "ratings, share of yes verdicts, mean of ratios; the aggregate passes at --threshold",
    )
    parser.add_argument("--threshold", type=float, default=None, help="pass threshold in [0, 1]")
    parser.add_argument(
        "--out",
        default=None,
        help="write per-row results (.jsonl or .parquet; any other name, or a folder, is refused "
        "before any work)",
    )
    parser.add_argument(
        "--format", choices=["table", "json"], default="table", help="how to print the result"
    )
    add_report_option(parser)
    add_gate_option(parser)
    parser.add_argument(
        "--concurrency",
        type=int,
        default=None,
        help="items in flight (default: 1 for a judge that runs here, 8 for an LM server)",
    )
    parser.add_argument(
        "--trust-modified", action="store_true", help="load a hand-edited judge file"
    )
    parser.set_defaults(run=run)


def _lms(args: argparse.Namespace) -> list[str]:
    lm = args.lm
    return list(lm) if isinstance(lm, list) else [lm] if lm else []


def build_judge(args: argparse.Namespace, metric: str | None = None) -> Judge:
    """The judge the options describe (for `metric`, default the only `--metric`): the
    library's `build_judge` with the command line's values."""
    lms = _lms(args)
    return library_build_judge(
        metric=metric or args.metric,
        judge=args.judge,
        mode=args.mode,
        threshold=args.threshold,
        lm=lms or None,
        repeat=getattr(args, "repeat", 1),
        max_tokens=args.max_tokens,
        temperature=args.temperature,
        timeout=args.timeout,
        api_base=args.api_base,
        cache=not args.no_cache,
        max_retries=getattr(args, "max_retries", None),
        trust_modified=args.trust_modified,
        cascade=getattr(args, "cascade", False),
        **(deterministic_options(args) if (metric or args.metric) == "deterministic" else {}),
    )


def _required_fields(args: argparse.Namespace) -> dict[str, str]:
    """Fields every row must carry for the judges the options name: `contexts` for judges
    that read the retrieved passages (a row without them would be judged as unsupported)."""
    metrics = [m.strip() for m in str(args.metric).split(",") if m.strip()]
    needing = []
    for m in metrics[:1] if args.judge else metrics:
        cls = type(load(args.judge, trust_modified=args.trust_modified)) if args.judge else None
        if (cls or judge_class(m)).needs_contexts:
            needing.append(m)
    return {"contexts": ", ".join(needing)} if needing else {}


def rows_for(metric: str, rows: list[GoldRecord]) -> tuple[list[GoldRecord], str]:
    """The rows to judge for `metric` and where their labels come from (`rows_for_metric`)."""
    return rows_for_metric(metric, rows)


def _out_path(out: str | None, metric: str, several: bool) -> str | None:
    if out is None or not several:
        return out
    path = Path(out)
    return str(path.with_name(f"{path.stem}.{metric}{path.suffix}"))


def run(args: argparse.Namespace) -> int:
    """Run `ragjudge evaluate`."""
    metrics = [m.strip() for m in str(args.metric).split(",") if m.strip()]
    if not metrics:
        raise ConfigurationError("--metric names no metric")
    several = len(metrics) > 1
    check_not_inputs(  # before any work, --ray too: no output over the rows or the judge read
        {
            **{
                f"--out ({m})" if several else "--out": _out_path(args.out, m, several)
                for m in metrics
            },
            **{
                f"--report ({m})" if several else "--report": _out_path(args.report, m, several)
                for m in metrics
            },
        },
        {"--gold": args.gold, "--judge": args.judge},
    )
    if args.ray:
        return run_ray(args, build_judge=build_judge, format_report=format_report)
    if args.judge and len(metrics) > 1:
        raise ConfigurationError("--judge evaluates one saved judge; drop the --metric list")
    if args.concurrency is not None and args.concurrency < 1:
        raise ConfigurationError("--concurrency must be at least 1")
    if args.repeat < 1:
        raise ConfigurationError("--repeat must be at least 1")
    for metric in metrics:  # every --out and --report path, before any work
        if args.out:
            check_out_path(str(_out_path(args.out, metric, len(metrics) > 1)))
        if args.report:
            check_report_path(str(_out_path(args.report, metric, len(metrics) > 1)))
    rows = load_rows(args, require=_required_fields(args))
    judged = (
        [load(args.judge, trust_modified=args.trust_modified).metric] if args.judge else metrics
    )
    bounds = gate_bounds(args, rows, judged)
    configure_run(args)
    summaries: dict[str, Any] = {}
    tables: list[str] = []
    checks: list[GateCheck] = []
    judged_none: list[str] = []
    for metric in metrics:
        judge = build_judge(args, metric)
        metric_rows, labels = rows_for(judge.metric, rows)
        concurrency = args.concurrency or default_concurrency(judge)
        with progress(len(metric_rows), f"judging ({judge.metric})") as bar:
            results, report = evaluate(
                judge,
                metric_rows,
                concurrency=concurrency,
                on_result=lambda i, r: bar.update(1),
                out=_out_path(args.out, judge.metric, len(metrics) > 1),
                resume=args.resume,
                retry_errors=args.retry_errors,
            )
        if args.report:
            write_evaluate_report(
                str(_out_path(args.report, judge.metric, len(metrics) > 1)),
                rows=metric_rows,
                results=results,
                judge=judge,
                evaluation=report,
                gold_name=args.gold,
            )
        if labels and report.labels != "none":
            report = report.model_copy(update={"labels": labels})
        if report.judged_none():
            judged_none.append(f"{judge.metric}: {report.rows} of {report.rows} rows failed")
        summaries[metric] = report.summary()
        tables.append(format_report(report))
        if bounds:
            checks += check_bounds(bounds, results=results, report=report)
            summaries[metric]["fail_under"] = [c.model_dump() for c in checks[-len(bounds) :]]
    if args.format == "json":
        emit(summaries[metrics[0]] if len(metrics) == 1 else {"metrics": summaries})
    else:
        sys.stdout.write("\n\n".join(tables) + "\n")
    if judged_none:
        sys.stdout.flush()
        raise RagJudgeError(
            f"no row could be judged ({', '.join(judged_none)}); see the errors above"
        )
    return gate_exit(checks)


def format_report(report: EvaluationReport) -> str:
    """The report as a table for a person (`EvaluationReport.table`)."""
    return report.table()
