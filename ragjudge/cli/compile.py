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
from ragjudge.evaluation._evaluate import UNSCORED_SCORE
from ragjudge.exceptions import ConfigurationError
from ragjudge.lm._resolve import is_offline_name
from ragjudge.optimize import OBJECTIVES, compile_judge
from ragjudge.optimize._select import SELECT_RULES
from ragjudge.programs import AnswerRelevancy, ContextRecall, Faithfulness, Judge
from ragjudge.programs._serialization import load
from ragjudge.programs.deterministic import DeterministicJudge
from ragjudge.stats._agreement import paired_difference

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
    parser.add_argument(
        "--select",
        choices=list(SELECT_RULES),
        default="one-se",
        help="which judge ships, among the study's best in each mode and the starting judge "
        "(uncompiled, or --init), all cross-validated on the same folds of the train rows: "
        "one-se ships a tuned judge only when it beats the start by more than one standard "
        "error; best ships the highest agreement (default: %(default)s)",
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
    modes = [m.strip() for m in args.modes.split(",") if m.strip()] if args.modes else None
    if modes is not None and (not modes or set(modes) - set(start.modes)):
        raise ConfigurationError(
            f"--modes {args.modes!r}: choose from {', '.join(start.modes) or 'none'}"
        )
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
        modes=modes,
        concurrency=concurrency,
        progress=progress_factory(),
        select=args.select,
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
    """The flat JSON summary (keys as in `evaluate`, plus `baseline` and `params`)."""
    v = report["validation"]
    errors = v.get("errors", 0)  # rows of the compiled judge that ended in an error
    return {
        "n": v["n"],
        "balanced_accuracy": v["balanced_accuracy"],
        "cohen_kappa": v["cohen_kappa"],
        "auroc": v["auroc"],
        "f1": v["f1"],
        "ci": v["ci"],
        "lm_calls": report["lm_calls"],
        "errors": errors,
        "baseline": report["baseline"],
        "gain": gain(report),
        "offline": report.get("offline"),
        "ablation": report.get("ablation", []),
        "init": report.get("init"),
        "params": report["params"],
        "sizes": report["sizes"],
        "study": {k: report["study"][k] for k in ("name", "n_trials", "best_value", "seed")},
        "pareto_front": report["study"]["pareto_front"],
        "selection": report.get("selection"),
        "seconds": report["seconds"],
        "lm": report["lm"],
    }


def gain(report: dict[str, Any], *, n_boot: int = 1000) -> dict[str, list[float | None]]:
    """Compiled minus uncompiled on the validation rows, with paired 95% bootstrap intervals
    (an unscored row fails and ranks lowest, as everywhere)."""
    rows = report["predictions"]

    def side(score: str, passed: str) -> tuple[list[bool], list[float]]:
        return (
            [bool(r[passed]) for r in rows],
            [UNSCORED_SCORE if r[score] is None else r[score] for r in rows],
        )

    return paired_difference(
        [r["gold"] for r in rows],
        side("score", "passed"),
        side("baseline_score", "baseline_passed"),
        n_boot=n_boot,
        seed=int(report.get("split", {}).get("seed", 0)),
    )


def format_compile(report: dict[str, Any], path: str) -> str:
    """The compile report as text for a person."""
    v, b = report["validation"], report["baseline"]

    def cell(a: dict[str, Any], key: str) -> str:
        value, ci = a.get(key), a.get("ci", {}).get(key) or [None, None]
        if value is None:
            return "n/a"
        if ci[0] is None:
            return f"{value:.3f}"
        return f"{value:.3f} [{ci[0]:.3f}, {ci[1]:.3f}]"

    lines = [
        f"compiled {report['metric']} judge with {report['lm']} -> {path}",
        f"  train {report['sizes']['train']} rows, validation {report['sizes']['validation']} "
        f"rows; {report['study']['n_trials']} trials in {report['seconds']['total']:.1f} s; "
        f"LM calls: {report['lm_calls']['raw_outputs']} for raw outputs, "
        f"{report['lm_calls']['trials_without_lm_calls']} trials made none",
        "  params: " + ", ".join(f"{k}={v}" for k, v in report["params"].items() if k != "lm"),
        f"  validation agreement (n={v['n']}):   compiled                  uncompiled default",
    ]
    gains = gain(report)
    lines[-1] += "   gain (paired bootstrap)"
    for key in ("balanced_accuracy", "cohen_kappa", "auroc", "f1"):
        d = gains[key]
        shown = "n/a" if d[0] is None else f"{d[0]:+.3f}"
        if d[0] is not None and d[1] is not None and d[2] is not None:
            shown += f" [{d[1]:+.3f}, {d[2]:+.3f}]"
        lines.append(f"    {key:<18} {cell(v, key):<26} {cell(b, key):<26} {shown}")
    if v.get("errors") or b.get("errors"):
        lines.append(
            f"    rows ending in an error    {v.get('errors', 0):<26} {b.get('errors', 0):<26} "
            "(counted as failed, ranked lowest)"
        )
    if report.get("offline"):
        lines.append(
            "    offline judge, same rows: balanced_accuracy "
            + cell(report["offline"], "balanced_accuracy")
            + ", auroc "
            + cell(report["offline"], "auroc")
        )
    if report.get("ablation"):
        lines.append("  which choice bought the gain (validation balanced accuracy):")
        for step in report["ablation"]:
            lines.append(
                f"    {step['step']:<24} {cell(step['validation'] or {}, 'balanced_accuracy')}"
            )
    budget = report["lm_calls"].get("budget") or {}
    if budget.get("limit") is not None:
        lines.append(
            f"  LM call budget: {budget['spent']} of {budget['limit']} spent"
            + (
                "; skipped (budget spent): "
                + ", ".join(
                    f"mode {s['mode']} demo set {s['demos']} "
                    f"({s['rows_judged']}/{s['rows']} rows judged)"
                    for s in budget["skipped"]
                )
                if budget.get("skipped")
                else "; nothing skipped"
            )
        )
    if report.get("init"):
        lines.append(
            "    --init judge, unchanged: balanced_accuracy "
            + cell(report["init"], "balanced_accuracy")
        )
    lines += selection_lines(report.get("selection"))
    return "\n".join(lines)


def selection_lines(selection: dict[str, Any] | None) -> list[str]:
    """The finalists' cross-validated agreement on the train rows, and the decision."""
    if not selection:
        return []
    lines = [
        f"  finalists, {selection['folds']}-fold cross-validated on {selection['rows']} train "
        f"rows (balanced accuracy, 95% interval; rule {selection['rule']}):"
    ]
    for f in selection["finalists"]:
        name = "starting judge" if f["name"] == "start" else f"tuned, {f['name']} mode"
        low, high = f["ci"]
        line = f"    {name:<24} {f['balanced_accuracy']:.3f} [{low:.3f}, {high:.3f}]"
        if f.get("difference") is not None:
            line += f"   {f['difference']:+.3f} vs start (se {f['se']:.3f})"
        if f["name"] == selection["chosen"]:
            line += "   <- ships"
        lines.append(line)
    lines.append(f"  decision: {selection['reason']}")
    return lines
