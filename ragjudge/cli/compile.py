"""`ragjudge compile`: fit a judge to gold labels and save it with the evidence."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ragjudge.cli._common import (
    add_data_options,
    add_deterministic_options,
    add_lm_options,
    deterministic_options,
    emit,
    load_rows,
    progress_factory,
    uses_preset,
)
from ragjudge.cli._runopts import configure_run, judge_with_lm_options
from ragjudge.cli.report import add_report_option, check_report_path, write_compile_report
from ragjudge.data._gold import parse_mapping
from ragjudge.exceptions import ConfigurationError
from ragjudge.lm._resolve import is_offline_name
from ragjudge.optimize import OBJECTIVES, compile_judge
from ragjudge.optimize._report import CompileReport
from ragjudge.programs import AnswerRelevancy, ContextRecall, Faithfulness, Judge
from ragjudge.programs._serialization import load
from ragjudge.programs.deterministic import DeterministicJudge

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> None:
    """Register the subcommand."""
    parser = sub.add_parser(
        "compile",
        help="compile a judge against gold labels and save it",
        description="Split the gold rows (grouped, stratified), fit the judge on train with "
        "few-shot demos and an Optuna study, report agreement on validation, save the judge.",
    )
    add_data_options(parser)
    add_lm_options(parser)
    parser.add_argument("--out", required=True, help="where to save the compiled judge (.json)")
    parser.add_argument(
        "--metric",
        default="faithfulness",
        help="the metric to compile: faithfulness, deterministic",
    )
    add_deterministic_options(parser)
    parser.add_argument("--trials", type=int, default=60, help="Optuna trials (total)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--objective", choices=OBJECTIVES, default="balanced_accuracy")
    parser.add_argument(
        "--objectives",
        default="agreement",
        help="'agreement' or 'agreement,cost' (multi-objective: agreement vs LM calls per item)",
    )
    parser.add_argument("--valid-fraction", type=float, default=0.3)
    parser.add_argument(
        "--group-by",
        default="meta.group_id",
        help="dotted path of the group key; rows of a group stay on one side ('' = by row)",
    )
    parser.add_argument("--storage", default=None, help="Optuna storage URL or journal file")
    parser.add_argument("--study", default=None, help="study name in --storage")
    parser.add_argument("--init", default=None, help="warm-start from a compiled judge (.json)")
    parser.add_argument("--max-demos", type=int, default=4, help="largest few-shot demo count")
    parser.add_argument(
        "--max-lm-calls",
        type=int,
        default=None,
        help="most LM calls for the study's raw outputs (cache hits are free); demo sets and "
        "modes the rest cannot pay for are skipped and listed in the report",
    )
    parser.add_argument(
        "--modes",
        default=None,
        help="modes the study may choose, comma-separated (default: all of the judge's)",
    )
    parser.add_argument(
        "--head",
        choices=["auto", "on", "off"],
        default="auto",
        help="offline judge: train a tree head on the answer evidence; auto keeps it when "
        "cross-validation on the train rows says it ranks answers better",
    )
    parser.add_argument("--concurrency", type=int, default=None, help="items in flight")
    parser.add_argument("--format", choices=["table", "json"], default="table")
    add_report_option(parser)
    parser.set_defaults(run=run)


def _start_judge(args: argparse.Namespace) -> Judge:
    lm = args.lm or "local"
    if args.metric == "faithfulness":
        return Faithfulness(lm=lm)
    if args.metric == "deterministic":
        return DeterministicJudge(**deterministic_options(args))
    if args.metric == "answer_relevancy":
        return AnswerRelevancy(lm=lm)
    if args.metric == "context_recall":
        return ContextRecall(lm=lm)
    raise ConfigurationError(
        f"unknown --metric {args.metric!r}; choose from: faithfulness, answer_relevancy, "
        "context_recall, deterministic"
    )


def run(args: argparse.Namespace) -> int:
    """Run `ragjudge compile`."""
    if args.max_lm_calls is not None and args.max_lm_calls < 1:
        raise ConfigurationError(f"--max-lm-calls must be at least 1, got {args.max_lm_calls}")
    if args.report:
        check_report_path(args.report)
    configure_run(args)
    if args.init:
        start = load(args.init)
        if args.lm:
            start = start.clone(lm=args.lm)
    else:
        start = _start_judge(args)
    offline = is_offline_name(start.lm)
    start = judge_with_lm_options(start, args)
    concurrency = args.concurrency or (1 if offline else 8)
    # A ragas/deepeval/OpenTelemetry export (--preset, or detected) is read into rows first.
    rows = load_rows(args, require_labels=True) if uses_preset(args) else None
    compiled = compile_judge(
        start,
        gold=rows if rows is not None else args.gold,
        mapping=parse_mapping(args.map),
        n_trials=args.trials,
        seed=args.seed,
        objective=args.objective,
        objectives=[o.strip() for o in args.objectives.split(",") if o.strip()],
        valid_fraction=args.valid_fraction,
        group_by=args.group_by or None,
        storage=args.storage,
        study_name=args.study,
        init=args.init,
        max_demos=args.max_demos,
        max_lm_calls=args.max_lm_calls,
        head={"auto": None, "on": True, "off": False}[args.head],
        modes=[m.strip() for m in args.modes.split(",") if m.strip()] if args.modes else None,
        concurrency=concurrency,
        progress=progress_factory(),
    )
    compiled.save(args.out)
    if args.report:
        write_compile_report(
            args.report,
            compiled=compiled,
            gold=args.gold,
            mapping=args.map,
            concurrency=concurrency,
            gold_rows=rows,
        )
    report = compiled.report_ or {}
    if args.format == "json":
        emit(summary(report))
    else:
        sys.stdout.write(format_compile(report, args.out) + "\n")
    return 0


def summary(report: dict[str, Any]) -> dict[str, Any]:
    """The flat JSON summary (`CompileReport.summary`)."""
    return CompileReport.model_validate(report).summary()


def format_compile(report: dict[str, Any], path: str) -> str:
    """The compile report as text for a person (`CompileReport.table`)."""
    return CompileReport.model_validate(report).table(path)
