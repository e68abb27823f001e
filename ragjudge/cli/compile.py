"""`ragjudge compile`: fit a judge to gold labels and save it with the evidence."""

from __future__ import annotations

import argparse
import sys
import warnings
from typing import Any

from tqdm import tqdm

from ragjudge.cli._common import (
    HelpFormatter,
    add_cascade_option,
    add_data_options,
    add_deterministic_options,
    add_lm_options,
    deterministic_options,
    emit,
    examples,
    load_rows,
    progress_factory,
)
from ragjudge.cli._runopts import configure_run
from ragjudge.cli.report import add_report_option, check_report_path, write_compile_report
from ragjudge.data._paths import check_not_inputs
from ragjudge.exceptions import ConfigurationError, UngroupedRowsWarning
from ragjudge.lm._meter import CallMeter, metering
from ragjudge.optimize import OBJECTIVES, compile_judge
from ragjudge.optimize._report import CompileReport
from ragjudge.optimize._select import COSTLIER_SE, SELECT_RULES
from ragjudge.optimize._study import storage_file
from ragjudge.programs import Judge
from ragjudge.programs._build import build_judge, default_concurrency
from ragjudge.programs._serialization import check_judge_path, load

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> None:
    """Register the subcommand."""
    parser = sub.add_parser(
        "compile",
        formatter_class=HelpFormatter,
        epilog=examples(
            "ragjudge compile --gold labeled.jsonl --out judge.json",
            "ragjudge compile --gold pairs.jsonl --group-by question --trials 100 --out judge.json "
            "--report compile.html",
        ),
        help="compile a judge against gold labels and save it",
        description="Split the gold rows (grouped, stratified), fit the judge on train with "
        "few-shot demos and an Optuna study, report agreement on validation, save the judge.",
    )
    add_data_options(parser)
    add_lm_options(parser)
    parser.add_argument(
        "--out",
        required=True,
        help="where to save the compiled judge (.json; checked before any work)",
    )
    parser.add_argument(
        "--metric",
        default="faithfulness",
        help="the metric to compile: faithfulness, deterministic",
    )
    add_cascade_option(parser, compiling=True)
    add_deterministic_options(parser)
    parser.add_argument("--trials", type=int, default=60, help="Optuna trials (total)")
    parser.add_argument("--seed", type=int, default=0, help="seeds the split, demos and study")
    parser.add_argument(
        "--objective",
        choices=OBJECTIVES,
        default="balanced_accuracy",
        help="the agreement figure the study maximizes",
    )
    parser.add_argument(
        "--objectives",
        default="agreement",
        help="'agreement' or 'agreement,cost' (multi-objective: agreement vs LM calls per "
        "row; for --cascade, the calls its route and band cost)",
    )
    parser.add_argument(
        "--valid-fraction", type=float, default=0.3, help="share of rows held out for validation"
    )
    parser.add_argument(
        "--group-by",
        default="meta.group_id",
        help="dotted path of the group key; rows of a group stay on one side of the split. "
        "'question' keeps rows that share a question together (HaluEval's right/hallucinated "
        "answer pairs, say); '' = each row alone. compile warns when rows share a question "
        "across groups",
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
        "--max-lm-calls-per-row",
        type=float,
        default=None,
        metavar="CALLS",
        help="most LM calls a row may cost the judge that ships, measured on the train rows "
        "(default: any); e.g. 0.2 with --cascade: the best route and band that send about a "
        "fifth of the rows to a one-call LM judge, or the offline judge alone (0 calls)",
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
    parser.add_argument(
        "--select",
        choices=list(SELECT_RULES),
        default="one-se",
        help="which judge ships, among the study's best in each mode and the starting judge "
        "(uncompiled, or --init), all cross-validated on the same folds of the train rows, "
        "on --objective. one-se: the most agreeing tuned judge that beats the start by more "
        "than one standard error of the paired difference "
        f"({COSTLIER_SE:g} for one that makes more LM calls a row than the start) and, where "
        "the rows come from several sources, agrees less than the start on none of them by "
        "more than that source's bar (1 standard error for one source, 1.75 for four, so that "
        "a loss by chance is no likelier with more sources); else the start. best: the "
        "highest agreement",
    )
    parser.add_argument(
        "--concurrency",
        type=int,
        default=None,
        help="items in flight (default: 1 for a judge that runs here, 8 for an LM server)",
    )
    parser.add_argument(
        "--format", choices=["table", "json"], default="table", help="how to print the result"
    )
    add_report_option(parser)
    parser.add_argument(
        "--trust-modified", action="store_true", help="load a hand-edited --init judge file"
    )
    parser.set_defaults(run=run)


def _init_judge(args: argparse.Namespace) -> Judge | None:
    """The `--init` judge, read once (`--trust-modified` accepts a hand-edited file)."""
    return load(args.init, trust_modified=args.trust_modified) if args.init else None


def _start_judge(args: argparse.Namespace, init: Judge | None) -> Judge:
    """The judge to compile: `--init`'s, else a new one of `--metric` (the library's
    `build_judge` with the command line's values)."""
    return build_judge(
        metric=args.metric,
        judge=init,
        lm=args.lm,
        max_tokens=args.max_tokens,
        temperature=args.temperature,
        timeout=args.timeout,
        api_base=args.api_base,
        cache=not args.no_cache,
        max_retries=getattr(args, "max_retries", None),
        cascade=args.cascade,
        **(deterministic_options(args) if args.metric == "deterministic" and not args.init else {}),
    )


def run(args: argparse.Namespace) -> int:
    """Run `ragjudge compile`."""
    if args.max_lm_calls is not None and args.max_lm_calls < 1:
        raise ConfigurationError(f"--max-lm-calls must be at least 1, got {args.max_lm_calls}")
    per_row = args.max_lm_calls_per_row
    if per_row is not None and not 0 <= per_row < float("inf"):  # NaN too
        raise ConfigurationError(f"--max-lm-calls-per-row must be 0 or more, got {per_row}")
    if args.concurrency is not None and args.concurrency < 1:
        raise ConfigurationError("--concurrency must be at least 1")
    check_judge_path(args.out)  # before any work: a folder or a wrong suffix loses nothing
    storage = storage_file(args.storage)  # the study's file is read and written
    check_not_inputs(
        {"--out": args.out, "--report": args.report},
        {"--gold": args.gold, "--init": args.init, "--storage": storage},
    )
    check_not_inputs({"--storage": storage}, {"--gold": args.gold, "--init": args.init})
    if args.report:
        check_report_path(args.report)
    configure_run(args)
    init = _init_judge(args)
    start = _start_judge(args, init)
    concurrency = args.concurrency or default_concurrency(start)
    rows = load_rows(
        args,
        require_labels=start.metric == "faithfulness",
        require={"contexts": start.metric} if start.needs_contexts else None,
    )
    group_by = args.group_by or None
    # the most LM calls it will make, said before the first and kept, with progress lines
    meter = CallMeter(report=lambda line: tqdm.write(f"ragjudge {line}", file=sys.stderr))
    with metering(meter), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UngroupedRowsWarning)
        compiled = compile_judge(
            start,
            gold=rows,
            n_trials=args.trials,
            seed=args.seed,
            objective=args.objective,
            objectives=[o.strip() for o in args.objectives.split(",") if o.strip()],
            valid_fraction=args.valid_fraction,
            group_by=group_by,
            storage=args.storage,
            study_name=args.study,
            init=init,
            max_demos=args.max_demos,
            max_lm_calls=args.max_lm_calls,
            head={"auto": None, "on": True, "off": False}[args.head],
            modes=[m.strip() for m in args.modes.split(",") if m.strip()] if args.modes else None,
            concurrency=concurrency,
            progress=progress_factory(),
            select=args.select,
            max_lm_calls_per_row=per_row,
        )
    for warning in caught:
        if isinstance(warning.message, UngroupedRowsWarning):
            sys.stderr.write(
                f"ragjudge compile: warning: {warning.message.rows} of {len(rows)} rows share "
                f"their question with a row of another group (--group-by {group_by or chr(39) * 2})"
                ": validation rows may have near-copies in train and the figures read too "
                "high; keep them together with --group-by question\n"
            )
        else:
            warnings.showwarning(
                warning.message, warning.category, warning.filename, warning.lineno
            )
    assert compiled.report_ is not None
    compiled.report_["gold"]["path"] = args.gold
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
