"""`ragjudge probe`: behavioral tests of a judge, kind by kind, made from the user's rows."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import orjson

from ragjudge.cli._common import (
    HelpFormatter,
    add_cascade_option,
    add_data_options,
    add_lm_options,
    allow_several_lms,
    emit,
    examples,
    load_rows,
    progress,
)
from ragjudge.cli._runopts import add_run_options, configure_run
from ragjudge.cli.report import check_report_path
from ragjudge.data._paths import check_not_inputs
from ragjudge.evaluation._runner import check_out_path
from ragjudge.exceptions import ConfigurationError
from ragjudge.probing._gate import SIDES, check_probe_bounds, parse_probe_bounds
from ragjudge.probing._generate import ProbeSet, generate_probes
from ragjudge.probing._registry import kinds as all_kinds
from ragjudge.probing._run import probe
from ragjudge.programs._build import build_judge, default_concurrency

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> None:
    """Register the subcommand."""
    parser = sub.add_parser(
        "probe",
        formatter_class=HelpFormatter,
        epilog=examples(
            "ragjudge probe --gold examples/faithfulness/test.jsonl",
            "ragjudge probe --gold rows.jsonl --judge judges/faithfulness.json --per-kind 50 "
            "--fail-under must_fail=0.9,negation=0.95",
            "ragjudge probe --gold rows.jsonl --lm gguf/smollm2 --mode whole --per-kind 3 "
            "--max-lm-calls 100 --out probes.results.jsonl",
        ),
        help="behavioral tests of a judge, kind by kind, made from your rows",
        description="Make probes from your rows (a number, date or unit changed, a negation, "
        "a swapped name, a dropped condition, ... that the judge must fail; the context's own "
        "sentence, another number format, arithmetic, ... that it must pass), judge them, and "
        "print per kind how many the judge caught or kept. Kinds: " + ", ".join(all_kinds()),
    )
    add_data_options(parser)
    add_lm_options(parser)
    allow_several_lms(parser)
    add_run_options(parser)
    parser.add_argument("--judge", default=None, help="a saved or compiled judge (.json)")
    parser.add_argument(
        "--metric",
        default="faithfulness",
        choices=["faithfulness", "deterministic"],
        help="the judge's metric",
    )
    parser.add_argument("--mode", default=None, choices=["statement", "whole"], help="judge mode")
    add_cascade_option(parser)
    parser.add_argument("--threshold", type=float, default=None, help="pass threshold in [0, 1]")
    parser.add_argument(
        "--kinds",
        default=None,
        help="comma-separated kinds to make (default all), or must_fail / must_pass",
    )
    parser.add_argument("--per-kind", type=int, default=None, help="at most N probes of each kind")
    parser.add_argument(
        "--per-source", type=int, default=None, help="at most N probes of each kind from one source"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of generation")
    parser.add_argument(
        "--max-lm-calls",
        type=int,
        default=None,
        help="the most LM calls the run may make; the kinds are taken in turn until it is "
        "spent (the judge's most calls a row tell how many probes that is)",
    )
    parser.add_argument(
        "--fail-under",
        action="append",
        default=[],
        metavar="KIND=RATE",
        help="exit 1 when the judge holds a smaller share of a kind's probes, e.g. "
        f"negation=0.95,must_pass=0.9 ({', '.join(SIDES)} name many kinds)",
    )
    parser.add_argument(
        "--out",
        default=None,
        help="stream per-probe results to this .jsonl (resumable with --resume)",
    )
    parser.add_argument(
        "--probes",
        default=None,
        help="also write the probes made (context, answer, edit, expected verdict) as .jsonl",
    )
    parser.add_argument("--report", default=None, metavar="FILE", help="also write an HTML report")
    parser.add_argument(
        "--format", choices=["table", "json"], default="table", help="how to print the result"
    )
    parser.add_argument("--concurrency", type=int, default=None, help="probes judged at once")
    parser.add_argument(
        "--trust-modified", action="store_true", help="load a hand-edited judge file"
    )
    parser.set_defaults(run=run)


def _kinds(args: argparse.Namespace) -> list[str] | None:
    if not args.kinds:
        return None
    return [k.strip() for k in str(args.kinds).split(",") if k.strip()]


def _check(args: argparse.Namespace) -> dict[str, float]:
    """Every option checked before any work; returns the --fail-under bounds."""
    check_not_inputs(
        {"--out": args.out, "--probes": args.probes, "--report": args.report},
        {"--gold": args.gold, "--judge": args.judge},
    )
    for flag, cap in (("--per-kind", args.per_kind), ("--per-source", args.per_source)):
        if cap is not None and cap < 1:
            raise ConfigurationError(f"{flag} must be at least 1, got {cap}")
    if args.max_lm_calls is not None and args.max_lm_calls < 1:
        raise ConfigurationError(f"--max-lm-calls must be at least 1, got {args.max_lm_calls}")
    if args.concurrency is not None and args.concurrency < 1:
        raise ConfigurationError("--concurrency must be at least 1")
    if args.out:
        check_out_path(args.out)
    if args.probes and Path(args.probes).suffix != ".jsonl":
        raise ConfigurationError(f"--probes writes .jsonl, got {args.probes}")
    if args.report:
        check_report_path(args.report)
    return parse_probe_bounds(args.fail_under, kinds=all_kinds()) if args.fail_under else {}


def run(args: argparse.Namespace) -> int:
    """Run `ragjudge probe`."""
    bounds = _check(args)
    lms = list(args.lm) if isinstance(args.lm, list) else [args.lm] if args.lm else []
    judge = build_judge(
        metric=args.metric,
        judge=args.judge,
        mode=args.mode,
        threshold=args.threshold,
        lm=lms or None,
        max_tokens=args.max_tokens,
        temperature=args.temperature,
        timeout=args.timeout,
        api_base=args.api_base,
        cache=not args.no_cache,
        max_retries=args.max_retries,
        trust_modified=args.trust_modified,
        cascade=args.cascade,
    )
    rows = load_rows(args, require={"contexts": "probes"})
    made = generate_probes(
        rows,
        kinds=_kinds(args),
        per_kind=args.per_kind,
        per_source=args.per_source,
        seed=args.seed,
    )
    if args.probes:
        _write_probes(args.probes, made)
    if not made.probes:
        raise ConfigurationError(
            f"no probe could be made from the {len(rows)} rows of {args.gold}: "
            + "; ".join(f"{c.kind}: {', '.join(c.skipped) or 'no row'}" for c in made.counts[:3])
        )
    configure_run(args)
    with progress(len(made.probes), "probing") as bar:
        report = probe(
            judge,
            made,
            max_lm_calls=args.max_lm_calls,
            concurrency=args.concurrency or default_concurrency(judge),
            out=args.out,
            on_result=lambda i, r: bar.update(1),
        )
    if args.report:
        from ragjudge.report._build import write_report

        write_report(args.report, probes=report, gold_name=args.gold, title="probe report")
    checks = check_probe_bounds(bounds, report) if bounds else []
    if args.format == "json":
        data = report.summary()
        data["fail_under"] = [c.model_dump() for c in checks]
        emit(data)
    else:
        sys.stdout.write(report.table() + "\n")
    failed = [c for c in checks if not c.passed]
    for check in failed:
        sys.stderr.write(f"ragjudge probe: fail-under: {check.line()}\n")
    return 1 if failed else 0


def _write_probes(path: str, made: ProbeSet) -> None:
    with open(path, "wb") as f:
        for p in made.probes:
            f.write(orjson.dumps(p.model_dump(), option=orjson.OPT_APPEND_NEWLINE))
