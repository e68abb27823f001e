"""`ragjudge estimate`: the faithful rate of a system's rows, from the judge and a few labels."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ragjudge.cli._common import HelpFormatter, add_lm_options, emit, examples, progress
from ragjudge.cli._runopts import configure_run
from ragjudge.data._gold import parse_mapping
from ragjudge.data._paths import check_not_inputs
from ragjudge.estimation._estimate import (
    Comparison,
    Estimate,
    compare_systems,
    estimate,
    is_results_file,
)
from ragjudge.exceptions import ConfigurationError
from ragjudge.programs._base import Judge
from ragjudge.programs._build import build_judge

__all__ = ["add_parser", "format_comparison", "format_estimate", "run"]


def add_parser(sub: Any) -> None:
    """Register the subcommand."""
    parser = sub.add_parser(
        "estimate",
        formatter_class=HelpFormatter,
        epilog=examples(
            "ragjudge estimate --judge judges/f.json --rows traffic.jsonl --gold labeled.jsonl",
            "ragjudge estimate --rows week1.jsonl --gold week1-labels.jsonl --rows week2.jsonl "
            "--gold week2-labels.jsonl --fail-under-diff 0.02",
        ),
        help="the faithful rate of a system's rows, from the judge and a few labels (PPI++)",
        description="Estimate what share of a system's answers are faithful: the judge's "
        "verdict on every row, corrected by the labeled rows (prediction-powered inference, "
        "PPI++), with an interval valid whatever the judge's quality (10 labels at least); beside "
        "it the labels-only "
        "estimate and the judge's raw (biased) pass rate. Two --rows compare two systems. "
        "Exit 1 when --fail-under-diff finds B worse, 0 otherwise, 2 on bad input.",
    )
    parser.add_argument(
        "--rows",
        action="append",
        required=True,
        help="the system's rows (.jsonl, .csv, .parquet) or an `evaluate --out` results file "
        "(nothing judged twice); give it twice (A, then B) to compare two systems",
    )
    parser.add_argument(
        "--gold",
        action="append",
        default=[],
        help="labeled rows of the same system (any subset a person labeled); one per --rows. "
        "Without it, the labels the rows carry",
    )
    parser.add_argument(
        "--judge", default=None, help="a judge file (.json); default: the offline judge"
    )
    parser.add_argument(
        "--by", default=None, help="stratify on a field: source, task or a meta key (domain)"
    )
    parser.add_argument("--level", type=float, default=0.95, help="the intervals' level (0.95)")
    parser.add_argument(
        "--target-width",
        type=float,
        default=None,
        help="say how many labels give an interval this wide (e.g. 0.04)",
    )
    parser.add_argument(
        "--fail-under-diff",
        type=float,
        default=None,
        metavar="BOUND",
        help="with two --rows: exit 1 when B's faithful rate is below A's by more than BOUND "
        "(e.g. 0.02) beyond chance: the interval of B - A lies wholly below -BOUND",
    )
    parser.add_argument(
        "--paired",
        action="store_true",
        help="with two --rows: both systems answered the same questions and were labeled on "
        "the same ids; estimate the difference per question",
    )
    parser.add_argument(
        "--cross-fit",
        type=int,
        default=None,
        metavar="K",
        help="compile the offline judge once per fold of the labels (K folds) and correct each "
        "fold with the judge that did not see it: for when your only labels are the rows "
        "you compiled on",
    )
    parser.add_argument(
        "--trials", type=int, default=30, help="Optuna trials per fold with --cross-fit (30)"
    )
    parser.add_argument("--seed", type=int, default=0, help="seeds the folds and compiles")
    parser.add_argument(
        "--predict",
        choices=["score", "passed"],
        default="score",
        help="what PPI takes from a verdict: the judge's score (default) or pass/fail",
    )
    parser.add_argument(
        "--map",
        action="append",
        default=[],
        metavar="FIELD=COLUMN",
        help="read FIELD (question, contexts, answer, faithful, id) from COLUMN",
    )
    parser.add_argument("--format", choices=["table", "json"], default="table")
    parser.add_argument("--report", default=None, help="also write an HTML report here")
    parser.add_argument("--concurrency", type=int, default=None, help="items in flight")
    parser.add_argument(
        "--trust-modified", action="store_true", help="load a hand-edited judge file"
    )
    add_lm_options(parser)
    parser.set_defaults(run=run)


def _judge(args: argparse.Namespace) -> Judge | None:
    """The judge the options name (None: the offline default, loaded when needed): the
    library's `build_judge` with the command line's values (a compiled judge keeps its report,
    so its fitted rows are known)."""
    if args.judge is None and args.lm is None:
        return None
    return build_judge(
        judge=args.judge,
        lm=args.lm,
        max_tokens=args.max_tokens,
        temperature=args.temperature,
        timeout=args.timeout,
        api_base=args.api_base,
        cache=not args.no_cache,
        max_retries=getattr(args, "max_retries", None),
        trust_modified=args.trust_modified,
    )


def _check(args: argparse.Namespace) -> None:
    if len(args.rows) > 2:
        raise ConfigurationError("--rows takes one system, or two to compare (A, then B)")
    if args.gold and len(args.gold) != len(args.rows):
        raise ConfigurationError(
            f"{len(args.gold)} --gold for {len(args.rows)} --rows: give one --gold per --rows "
            "(each system's labeled rows), or none to use the labels the rows carry"
        )
    if len(args.rows) == 1 and (args.paired or args.fail_under_diff is not None):
        raise ConfigurationError("--paired and --fail-under-diff compare two --rows (A, then B)")
    if args.cross_fit is not None and (args.judge or args.lm):
        raise ConfigurationError(
            "--cross-fit compiles the offline judge once per fold; drop --judge / --lm"
        )
    if args.cross_fit is not None and args.cross_fit < 2:
        raise ConfigurationError("--cross-fit needs at least 2 folds")
    if args.concurrency is not None and args.concurrency < 1:
        raise ConfigurationError("--concurrency must be at least 1")
    if args.report:
        from ragjudge.cli.report import check_report_path

        check_report_path(args.report)
        inputs = {"--judge": args.judge}
        for i, (rows, gold) in enumerate(
            zip(args.rows, args.gold or [None] * len(args.rows), strict=True)
        ):
            tag = "" if i == 0 else " (B)"
            inputs.update({f"--rows{tag}": rows, f"--gold{tag}": gold})
        check_not_inputs({"--report": args.report}, inputs)


def run(args: argparse.Namespace) -> int:
    """Run `ragjudge estimate`."""
    _check(args)
    if not all(is_results_file(r) for r in args.rows) or args.cross_fit or args.judge:
        configure_run(args)
    judge = _judge(args)
    mapping = parse_mapping(args.map)
    estimates: list[Estimate] = []
    for i, rows in enumerate(args.rows):
        with progress(0, "judging") as bar:
            estimates.append(
                estimate(
                    rows=rows,
                    gold=args.gold[i] if args.gold else None,
                    judge=judge,
                    by=args.by,
                    level=args.level,
                    target_width=args.target_width,
                    cross_fit=args.cross_fit,
                    n_trials=args.trials,
                    seed=args.seed,
                    concurrency=args.concurrency or 1,
                    predictions=args.predict,
                    mapping=mapping,
                    trust_modified=args.trust_modified,
                    on_result=lambda _i, _r: bar.update(1),
                )
            )
        if judge is not None and not estimates[-1].verdicts_from_file:
            estimates[-1].judge_name = str(args.judge or args.lm)
    for est in estimates:
        for note in est.notes:
            sys.stderr.write(f"ragjudge estimate: note: {est.rows}: {note}\n")
    comparison = None
    if len(estimates) == 2:
        comparison = compare_systems(
            a=estimates[0],
            b=estimates[1],
            paired=args.paired,
            fail_under_diff=args.fail_under_diff,
        )
    if args.report:
        from ragjudge.report._estimate import write_estimate_report

        write_estimate_report(args.report, estimates=estimates, comparison=comparison)
    if args.format == "json":
        if comparison is None:
            emit(estimates[0].summary())
        else:
            emit(
                {
                    "a": estimates[0].summary(),
                    "b": estimates[1].summary(),
                    "difference": comparison.summary(),
                }
            )
    else:
        text = "\n\n".join(format_estimate(e) for e in estimates)
        if comparison is not None:
            text += "\n\n" + format_comparison(comparison)
        sys.stdout.write(text + "\n")
    return 1 if comparison is not None and comparison.worse else 0


def _interval(ci: list[float]) -> str:
    return f"[{ci[0]:.3f}, {ci[1]:.3f}]"


def format_estimate(est: Estimate) -> str:
    """The estimate as a table for a person."""
    pct = f"{est.level:.0%}"
    lines = [
        f"faithful rate of {est.rows}: {est.n_rows} rows, {est.n_labeled} labeled "
        f"({est.gold}); judge: {est.judge_name}" + (f"; stratified by {est.by}" if est.by else ""),
        f"  {'':<30} {'rate':>6}  {pct + ' interval':<18} {'width':>6}",
    ]

    def row(name: str, value: float, ci: list[float], tail: str = "") -> str:
        return f"  {name:<30} {value:>6.3f}  {_interval(ci):<18} {ci[1] - ci[0]:>6.3f}{tail}"

    lines.append(row("PPI++ (judge + labels)", est.ppi.estimate, est.ppi.ci))
    lines.append(row("labels alone", est.classical.estimate, est.classical.ci))
    lines.append(
        row(
            "judge's raw pass rate (BIASED)",
            est.judge.estimate,
            est.judge.ci,
            "  the judge's own errors shift it; its interval ignores them",
        )
    )
    effective = "n/a" if est.effective_labels is None else f"{est.effective_labels:.0f}"
    lines.append(
        f"  effective number of labels: {effective} (PPI++ with {est.n_labeled} labels is as "
        f"narrow as labels alone with {effective}); judge weight lambda = {est.lam:.2f}"
    )
    if est.dropped_fitted:
        lines.append(f"  {est.dropped_fitted} labeled rows left out: the judge was fitted on them")
    if est.cross_fit:
        lines.append(f"  cross-fitted: the offline judge compiled on {est.cross_fit} folds")
    if est.labeled_errors or est.row_errors:
        lines.append(
            f"  judge errors: {est.labeled_errors} labeled, {est.row_errors} other rows "
            "(counted as failing)"
        )
    if est.labeled_unscored or est.row_unscored:
        lines.append(
            f"  unscored (no score, no error): {est.labeled_unscored} labeled, "
            f"{est.row_unscored} other rows (counted as failing)"
        )
    if est.strata:
        lines.append(
            f"  {est.by:<18} {'rows':>6} {'labeled':>7}  {'PPI++':<22} {'labels alone':<22} "
            f"{'judge (biased)':<8}"
        )
        for s in est.strata:
            lines.append(
                f"  {s.value[:18]:<18} {s.n_rows:>6} {s.n_labeled:>7}  "
                f"{s.ppi.estimate:.3f} {_interval(s.ppi.ci):<16} "
                f"{s.classical.estimate:.3f} {_interval(s.classical.ci):<16} "
                f"{s.judge.estimate:.3f}"
            )
        lines.append("  pooled: each stratum weighted by its share of the rows")
    if est.target is not None:
        t = est.target

        def need(total: int | None, more: int | None) -> str:
            if total is None:
                return "out of reach by labels alone (the judge's part is wider)"
            return f"{total} labels ({more} more)"

        lines.append(
            f"  for a {pct} interval {t.width:g} wide: PPI++ needs {need(t.ppi, t.ppi_more)}; "
            f"labels alone need {need(t.classical, t.classical_more)}"
        )
    return "\n".join(lines)


def format_comparison(c: Comparison) -> str:
    """The comparison of two systems as a table for a person."""
    how = f"paired on {c.a.n_labeled} labeled questions" if c.paired else "independent samples"
    pct = f"{c.level:.0%}"
    lines = [
        f"B - A in faithful rate (A: {c.a.rows}, B: {c.b.rows}; {how})",
        f"  {'':<30} {'B - A':>7}  {pct + ' interval':<20} p-value",
    ]
    for name, d in (
        ("PPI++ (judge + labels)", c.ppi),
        ("labels alone", c.classical),
    ):
        lines.append(
            f"  {name:<30} {d['estimate']:>+7.3f}  [{d['ci'][0]:+.3f}, {d['ci'][1]:+.3f}]     "
            f"{d['p_value']:.4f}"
        )
    j = c.judge
    lines.append(
        f"  {'judge raw rates (BIASED)':<30} {j['estimate']:>+7.3f}  "
        f"[{j['ci'][0]:+.3f}, {j['ci'][1]:+.3f}]     (the judges' errors need not cancel)"
    )
    if c.effective_labels is not None:
        lines.append(f"  effective number of labels per system: {c.effective_labels:.0f}")
    if c.bound is not None:
        verdict = (
            f"B is WORSE than A by more than {c.bound:g} beyond chance"
            if c.worse
            else f"no evidence that B is worse than A by more than {c.bound:g}"
        )
        lines.append(f"gate --fail-under-diff {c.bound:g}: {verdict}")
    return "\n".join(lines)
