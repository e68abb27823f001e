"""`ragjudge evaluate`: judge every row, write results, report agreement with the labels."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ragjudge.cli._common import (
    DETERMINISTIC_SCORES,
    add_data_options,
    add_deterministic_options,
    add_lm_options,
    deterministic_options,
    emit,
    load_rows,
    progress,
)
from ragjudge.cli._gate import add_gate_option, gate_bounds, gate_exit
from ragjudge.cli._ray import add_ray_options, run_ray
from ragjudge.cli._runopts import add_run_options, configure_run, judge_with_lm_options
from ragjudge.cli.report import add_report_option, write_evaluate_report
from ragjudge.data._derived import derive_gold, derived_label, is_derived
from ragjudge.data._gold import GoldRecord
from ragjudge.evaluation._evaluate import EvaluationReport, evaluate
from ragjudge.evaluation._gate import GateCheck, check_bounds
from ragjudge.exceptions import ConfigurationError, RagJudgeError
from ragjudge.lm._resolve import is_offline_name
from ragjudge.programs import AnswerRelevancy, ContextRecall, Ensemble, Faithfulness, Judge
from ragjudge.programs._serialization import load
from ragjudge.programs.deterministic import DeterministicJudge

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
    _allow_several_lms(parser)
    add_run_options(parser)
    add_ray_options(parser)
    parser.add_argument("--judge", default=None, help="a saved or compiled judge (.json)")
    parser.add_argument(
        "--metric",
        default="faithfulness",
        help="the metric(s) to judge, comma-separated: " + ", ".join(METRICS),
    )
    parser.add_argument(
        "--mode",
        default=None,
        choices=["statement", "whole", "rubric", "questions", *DETERMINISTIC_SCORES],
        help="judge mode; 'statement' means 'questions' for answer_relevancy; for "
        "--metric deterministic the per-sentence score (rouge, token_overlap, bleu, mean)",
    )
    add_deterministic_options(parser)
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="ask each LM N times (distinct cache keys) and aggregate: median of rubric "
        "ratings, majority of verdicts, mean of ratios",
    )
    parser.add_argument("--threshold", type=float, default=None, help="pass threshold in [0, 1]")
    parser.add_argument("--out", default=None, help="write per-row results (.jsonl or .parquet)")
    parser.add_argument("--format", choices=["table", "json"], default="table")
    add_report_option(parser)
    add_gate_option(parser)
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


METRICS: dict[str, type[Judge]] = {
    "faithfulness": Faithfulness,
    "answer_relevancy": AnswerRelevancy,
    "context_recall": ContextRecall,
    "deterministic": DeterministicJudge,
}


def _allow_several_lms(parser: argparse.ArgumentParser) -> None:
    """Make `--lm` repeatable: several `--lm` form an ensemble."""
    for action in parser._actions:
        if action.dest == "lm":
            action.__class__ = argparse._AppendAction
            action.help = (action.help or "") + "; repeat --lm to form an ensemble"


def _mode_for(metric: str, mode: str | None) -> str | None:
    if mode is None:
        return None
    cls = METRICS[metric]
    if metric == "answer_relevancy" and mode == "statement":
        return "questions"
    if mode not in cls.modes:
        raise ConfigurationError(
            f"--mode {mode} does not apply to {metric}; choose from: {', '.join(cls.modes)}"
        )
    return mode


def build_judge(args: argparse.Namespace, metric: str | None = None) -> Judge:
    """The judge the options describe (for `metric`, default the only `--metric`)."""
    metric = metric or args.metric
    overrides: dict[str, Any] = {}
    if args.mode is not None:
        overrides["mode"] = args.mode if args.judge else _mode_for(metric, args.mode)
    if args.threshold is not None:
        overrides["threshold"] = args.threshold
    if args.lm is not None:
        overrides["lm"] = args.lm
    if metric == "deterministic" and not args.judge:
        return DeterministicJudge(
            **{k: v for k, v in overrides.items() if k != "lm"}, **deterministic_options(args)
        )
    if args.judge:
        judge = load(args.judge, trust_modified=args.trust_modified)
        return judge.clone(**overrides) if overrides else judge
    if metric not in METRICS:
        raise ConfigurationError(f"unknown --metric {metric!r}; choose from: {', '.join(METRICS)}")
    overrides.setdefault("lm", "local")
    return METRICS[metric](**overrides)


def _required_fields(args: argparse.Namespace) -> dict[str, str]:
    """Fields every row must carry for the judges the options name: `contexts` for judges
    that read the retrieved passages (a row without them would be judged as unsupported)."""
    metrics = [m.strip() for m in str(args.metric).split(",") if m.strip()]
    needing = [
        m for m in (metrics[:1] if args.judge else metrics) if build_judge(args, m).needs_contexts
    ]
    return {"contexts": ", ".join(needing)} if needing else {}


def _with_repeats(judge: Judge, args: argparse.Namespace, lms: list[str]) -> Judge:
    """Wrap the judge in an `Ensemble` for `--repeat N` or several `--lm`."""
    if args.repeat < 1:
        raise ConfigurationError("--repeat must be at least 1")
    if args.repeat == 1 and len(lms) <= 1:
        return judge
    members = [judge_with_lm_options(judge.clone(lm=name), args).lm for name in lms] or None
    return Ensemble.of(judge, repeat=args.repeat, lms=members)


def rows_for(metric: str, rows: list[GoldRecord]) -> tuple[list[GoldRecord], str]:
    """The rows to judge for `metric` and where their labels come from.

    Faithfulness uses the rows' human labels (derived rows are left out). Relevancy and recall
    use the rows' derived labels for that metric when the file carries them, else gold derived
    from the rows by `ragjudge.data._derived` (documented in docs/derived-gold.md).
    """
    if metric == "faithfulness":
        own = [r for r in rows if not is_derived(r)]
        return (own or rows), "human"
    carried = [r for r in rows if derived_label(r, metric)[0] is not None]
    if carried:
        return carried, "derived (from the file)"
    built = derive_gold([r for r in rows if not is_derived(r)])[metric]
    if built:
        return built, "derived (built from the rows' faithfulness gold, see docs/derived-gold.md)"
    unlabeled = [r for r in rows if not is_derived(r)]
    return unlabeled, "none"


def _out_path(out: str | None, metric: str, several: bool) -> str | None:
    if out is None or not several:
        return out
    path = Path(out)
    return str(path.with_name(f"{path.stem}.{metric}{path.suffix}"))


def run(args: argparse.Namespace) -> int:
    """Run `ragjudge evaluate`."""
    if args.ray:
        return run_ray(args, build_judge=build_judge, format_report=format_report)
    rows = load_rows(args, require=_required_fields(args))
    bounds = gate_bounds(args, rows)
    configure_run(args)
    lms = list(args.lm or []) if isinstance(args.lm, list) else [args.lm] if args.lm else []
    args.lm = lms[0] if len(lms) == 1 else None
    metrics = [m.strip() for m in str(args.metric).split(",") if m.strip()]
    if not metrics:
        raise ConfigurationError("--metric names no metric")
    if args.judge and len(metrics) > 1:
        raise ConfigurationError("--judge evaluates one saved judge; drop the --metric list")
    summaries: dict[str, Any] = {}
    tables: list[str] = []
    checks: list[GateCheck] = []
    judged_none: list[str] = []
    for metric in metrics:
        judge = judge_with_lm_options(build_judge(args, metric), args)
        judge = _with_repeats(judge, args, lms)
        metric_rows, labels = rows_for(judge.metric, rows) if not args.judge else (rows, "")
        offline = is_offline_name(judge.lm) and not lms
        concurrency = args.concurrency or (1 if offline else 8)
        if concurrency < 1:
            raise ConfigurationError("--concurrency must be at least 1")
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
