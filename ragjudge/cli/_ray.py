"""`ragjudge evaluate --ray ADDRESS`: the same evaluation, judged on a Ray cluster.

Kept apart from `evaluate.py` so that the single-process path never imports Ray: this module
imports `ragjudge.distributed` only when `--ray` is given.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Callable
from typing import Any

from ragjudge.cli._common import emit
from ragjudge.data._gold import parse_mapping
from ragjudge.evaluation._evaluate import EvaluationReport
from ragjudge.exceptions import ConfigurationError
from ragjudge.lm._retry import lm_options
from ragjudge.programs._base import Judge
from ragjudge.programs._build import default_concurrency

__all__ = ["add_ray_options", "run_ray"]


def add_ray_options(parser: argparse.ArgumentParser) -> None:
    """Register `--ray`, `--block-rows` and `--lm-limit`."""
    group = parser.add_argument_group("Ray (needs the ray extra: pip install 'ragjudge[ray]')")
    group.add_argument(
        "--ray",
        default=None,
        metavar="ADDRESS",
        help="judge on a Ray cluster: host:port of its head, 'auto' (the cluster `ray start` "
        "runs here, or $RAY_ADDRESS) or 'local' (start one in this process); --gold may then "
        "be a folder of .jsonl/.parquet shards or a glob, and --out a folder (Parquet "
        "shards) or a .jsonl file",
    )
    group.add_argument(
        "--block-rows",
        type=int,
        default=1000,
        help="rows per JSONL block, the unit of work and of --resume (Parquet: one row group)",
    )
    group.add_argument(
        "--lm-limit",
        type=int,
        default=None,
        help="rows in flight across the whole cluster for an LM judge (default: --concurrency "
        "times the cluster's CPUs)",
    )


def run_ray(
    args: argparse.Namespace,
    *,
    build_judge: Callable[[argparse.Namespace], Judge],
    format_report: Callable[[EvaluationReport], str],
) -> int:
    """Run `ragjudge evaluate --ray` (one metric or judge file; see docs/ray.md)."""
    from ragjudge.distributed._run import evaluate_on_ray

    lms = list(args.lm or []) if isinstance(args.lm, list) else [args.lm] if args.lm else []
    if len(lms) > 1 or args.repeat != 1:
        raise ConfigurationError("--ray judges with one LM: drop --repeat and the extra --lm")
    args.lm = lms[0] if lms else None
    if args.limit is not None:
        raise ConfigurationError("--ray judges every row of --gold; drop --limit")
    if getattr(args, "fail_under", None):
        raise ConfigurationError(
            "--fail-under is not supported with --ray yet; gate a single-process run"
        )
    if getattr(args, "preset", None):
        raise ConfigurationError("--preset is not supported with --ray yet; use --map")
    if not args.out:
        raise ConfigurationError("--ray needs --out: a folder (Parquet shards) or a .jsonl file")
    if "," in str(args.metric):
        raise ConfigurationError("--ray judges one metric per run; drop the --metric list")
    if args.no_cache and args.cache_dir:
        raise ConfigurationError("--no-cache and --cache-dir contradict each other; pick one")
    if args.block_rows < 1:
        raise ConfigurationError("--block-rows must be at least 1")
    if args.concurrency is not None and args.concurrency < 1:
        raise ConfigurationError("--concurrency must be at least 1")
    judge = build_judge(args)
    concurrency = args.concurrency or default_concurrency(judge)
    lm: dict[str, Any] = {
        "cache": not args.no_cache,
        **lm_options(max_retries=args.max_retries, timeout=args.timeout),
    }
    if args.api_base:
        lm["api_base"] = args.api_base
    # Ray's driver prints cluster events (a worker died, ...) to stdout: keep stdout the report.
    with contextlib.redirect_stdout(sys.stderr):
        _, report = evaluate_on_ray(
            judge,
            args.gold,
            out=args.out,
            address=args.ray,
            mapping=parse_mapping(args.map),
            block_rows=args.block_rows,
            concurrency=concurrency,
            lm_limit=args.lm_limit,
            lm=lm,
            cache_dir=args.cache_dir,
            cache=not args.no_cache,
            resume=args.resume,
        )
    if args.format == "json":
        emit(report.summary())
    else:
        sys.stdout.write(format_report(report) + "\n")
    return 0
