"""`ragjudge report`: judge labeled rows and write one self-contained HTML report.

Also the `--report FILE` option of `evaluate` and `compile` (`add_report_option`,
`write_evaluate_report`, `write_compile_report`). `ragjudge.report` (plotly, scikit-learn) is
imported only when a report is written, so the other subcommands start fast.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ragjudge.cli._common import (
    HelpFormatter,
    add_data_options,
    add_lm_options,
    examples,
    load_rows,
    progress,
)
from ragjudge.cli._runopts import configure_run, judge_with_lm_options
from ragjudge.data._gold import GoldRecord, load_gold, parse_mapping
from ragjudge.data._labels import labeled_rows, rows_for_metric
from ragjudge.data._paths import check_not_inputs
from ragjudge.evaluation._evaluate import EvaluationReport, evaluate
from ragjudge.exceptions import ConfigurationError
from ragjudge.programs import Faithfulness, Judge
from ragjudge.programs._build import default_concurrency
from ragjudge.programs._results import JudgeResult
from ragjudge.programs._serialization import load

__all__ = [
    "add_parser",
    "add_report_option",
    "check_report_path",
    "run",
    "write_compile_report",
    "write_evaluate_report",
]

logger = logging.getLogger(__name__)


def add_parser(sub: Any) -> None:
    """Register the subcommand."""
    parser = sub.add_parser(
        "report",
        formatter_class=HelpFormatter,
        epilog=examples(
            "ragjudge report --gold labeled.jsonl --judge judge.json --out report.html",
            "ragjudge report --gold labeled.jsonl --lm openai/gpt-4o-mini --out report.html",
        ),
        help="judge labeled rows and write an HTML report",
        description="Judge labeled rows with a (compiled) judge and write one self-contained "
        "HTML file: agreement with intervals (compiled vs uncompiled, per source), confusion "
        "matrix, score histograms, ROC curve, reliability diagram, the Optuna study, the worst "
        "disagreements with the judge's verdicts and reasons, LM calls, tokens and time.",
    )
    add_data_options(parser)
    add_lm_options(parser)
    parser.add_argument(
        "--judge",
        default=None,
        help="a saved or compiled judge (.json); default: the uncompiled offline judge",
    )
    parser.add_argument("--out", required=True, help="the HTML file to write")
    parser.add_argument(
        "--no-baseline",
        action="store_true",
        help="do not also judge the rows with the uncompiled judge (saves its LM calls)",
    )
    parser.add_argument("--title", default=None, help="the report's title")
    parser.add_argument(
        "--max-disagreements", type=int, default=20, help="disagreements to show (default 20)"
    )
    parser.add_argument("--concurrency", type=int, default=None, help="items in flight")
    parser.add_argument(
        "--trust-modified", action="store_true", help="load a hand-edited judge file"
    )
    parser.set_defaults(run=run)


def add_report_option(parser: argparse.ArgumentParser) -> None:
    """`--report FILE` for `evaluate` and `compile`."""
    parser.add_argument(
        "--report",
        default=None,
        metavar="FILE",
        help="also write a self-contained HTML report (see `ragjudge report`)",
    )


def check_report_path(path: str) -> None:
    """Refuse a report path that is not an .html file (before any work is done)."""
    _check_out(path)


def _check_out(path: str) -> None:
    target = Path(path)
    if target.suffix.lower() not in (".html", ".htm"):
        raise ConfigurationError(f"the report is HTML; name an .html file, not {path!r}")
    if target.exists() and target.is_dir():
        raise ConfigurationError(f"{path} is a folder; name an .html file")


def _judge(args: argparse.Namespace) -> Judge:
    if args.judge:
        judge = load(args.judge, trust_modified=args.trust_modified)
    else:
        judge = Faithfulness(lm="local")
    report = getattr(judge, "report_", None)
    if args.lm is not None:
        judge = judge.clone(lm=args.lm)
    judge = judge_with_lm_options(judge, args)
    if report is not None:  # a clone does not carry the compile report
        judge.report_ = report
    return judge


def _agreement_line(name: str, evaluation: EvaluationReport | None) -> str:
    a = evaluation.agreement if evaluation else None
    if a is None or a.balanced_accuracy is None:
        return f"{name}: no agreement measured"
    low, high = (a.ci.get("balanced_accuracy") or [None, None])[:2]
    ci = f" [{low:.3f}, {high:.3f}]" if low is not None and high is not None else ""
    return f"{name}: balanced accuracy {a.balanced_accuracy:.3f}{ci} on {a.n} rows"


def run(args: argparse.Namespace) -> int:
    """Run `ragjudge report`."""
    from ragjudge.report import baseline_of, write_report  # plotly and scikit-learn: lazily

    _check_out(args.out)
    check_not_inputs({"--out": args.out}, {"--gold": args.gold, "--judge": args.judge})
    if args.max_disagreements < 0:
        raise ConfigurationError("--max-disagreements must be 0 or more")
    judge = _judge(args)
    rows, _ = rows_for_metric(
        judge.metric, load_rows(args, require_labels=judge.metric == "faithfulness")
    )
    if not labeled_rows(rows, judge.metric):
        raise ConfigurationError(
            f"no row of {args.gold} has a label for {judge.metric}; a report measures agreement "
            "with labels"
        )
    configure_run(args)
    concurrency = args.concurrency or default_concurrency(judge)
    if concurrency < 1:
        raise ConfigurationError("--concurrency must be at least 1")
    baseline = None if args.no_baseline else baseline_of(judge)
    if baseline is not None:
        baseline = judge_with_lm_options(baseline, args)
    compiled = getattr(judge, "report_", None) is not None
    name = "compiled" if compiled else "judge"
    with progress(len(rows), f"judging ({name})") as bar:
        results, evaluation = evaluate(
            judge, rows, concurrency=concurrency, on_result=lambda i, r: bar.update(1)
        )
    base_results: list[JudgeResult] | None = None
    base_eval = None
    if baseline is not None:
        with progress(len(rows), "judging (uncompiled)") as bar:
            base_results, base_eval = evaluate(
                baseline, rows, concurrency=concurrency, on_result=lambda i, r: bar.update(1)
            )
    write_report(
        args.out,
        rows=rows,
        results=results,
        judge=judge,
        evaluation=evaluation,
        baseline_results=base_results,
        baseline_evaluation=base_eval,
        title=args.title,
        gold_name=args.gold,
        max_disagreements=args.max_disagreements,
    )
    lines = [f"wrote {args.out}", "  " + _agreement_line(name, evaluation)]
    if base_eval is not None:
        lines.append("  " + _agreement_line("uncompiled", base_eval))
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


def write_evaluate_report(
    path: str,
    *,
    rows: Sequence[GoldRecord],
    results: Sequence[JudgeResult],
    judge: Judge,
    evaluation: EvaluationReport,
    gold_name: str,
) -> None:
    """`evaluate --report FILE`: the report of the rows just judged (no extra LM calls), for
    every metric with labels (`ragjudge.data._labels`: human for faithfulness, derived for
    answer relevancy and context recall)."""
    from ragjudge.report import write_report

    _check_out(path)
    if not labeled_rows(rows, judge.metric):
        raise ConfigurationError(
            f"--report needs rows labeled for {judge.metric} (faithfulness: a `faithful` column "
            "of 0/1; the other metrics: labels derived from it) to measure agreement"
        )
    write_report(
        path,
        rows=rows,
        results=results,
        judge=judge,
        evaluation=evaluation,
        gold_name=gold_name,
    )


def write_compile_report(
    path: str,
    *,
    compiled: Judge,
    gold: str,
    mapping: Sequence[str] = (),
    concurrency: int = 1,
    gold_rows: Sequence[GoldRecord] | None = None,
) -> None:
    """`compile --report FILE`: the compiled and uncompiled judge on the validation rows.

    The validation rows are judged again to show per-statement verdicts; with DSPy's cache on,
    an LM answers those calls from the cache (the compile made them already).
    """
    from ragjudge.report import baseline_of, write_report

    _check_out(path)
    report = getattr(compiled, "report_", None)
    if report is None:
        raise ConfigurationError("the judge was not compiled; there is no compile report")
    valid_ids = {p["id"] for p in report.get("predictions", [])}
    rows = [
        r
        for r in (
            gold_rows
            if gold_rows is not None
            else load_gold(gold, mapping=parse_mapping(mapping), require_labels=True)
        )
        if r.id in valid_ids
    ]
    if not rows:  # the gold is not a file we can read back: the compile's own figures only
        write_report(path, judge=compiled, gold_name=gold)
        return
    results, evaluation = evaluate(compiled, rows, concurrency=concurrency)
    baseline = baseline_of(compiled)
    base_results = base_eval = None
    if baseline is not None:
        base_results, base_eval = evaluate(baseline, rows, concurrency=concurrency)
    write_report(
        path,
        rows=rows,
        results=results,
        judge=compiled,
        evaluation=evaluation,
        baseline_results=base_results,
        baseline_evaluation=base_eval,
        gold_name=f"{gold} (validation rows)",
    )
