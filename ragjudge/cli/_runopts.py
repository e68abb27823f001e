"""Options for long runs: `--resume`, `--cache-dir`, `--max-retries`.

Also hands the shared LM options (`--api-base`, `--no-cache`, `--timeout`, `--max-tokens`,
`--temperature`) to the library's `with_lm_options`.
"""

from __future__ import annotations

import argparse

from ragjudge.exceptions import ConfigurationError
from ragjudge.lm._cache import configure_cache
from ragjudge.lm._retry import install_jitter
from ragjudge.programs._base import GENERATION_PARAMS, Judge
from ragjudge.programs._build import with_lm_options

__all__ = ["add_run_options", "configure_cache", "configure_run", "judge_with_lm_options"]


def add_run_options(parser: argparse.ArgumentParser) -> None:
    """Register `--resume` and `--max-retries` (`--cache-dir`, `--timeout` are LM options)."""
    group = parser.add_argument_group("long runs")
    group.add_argument(
        "--resume",
        action="store_true",
        help="keep the rows already in --out and judge only the others (after a crash or Ctrl-C)",
    )
    group.add_argument(
        "--retry-errors",
        action="store_true",
        help="with --resume: judge again the rows whose result in --out is an error",
    )
    group.add_argument(
        "--max-retries",
        type=int,
        default=None,
        help="retries of an LM call after a timeout, HTTP 429 or 5xx (default 5)",
    )


def configure_run(args: argparse.Namespace) -> None:
    """Set up caching and jittered retries for a CLI run."""
    if getattr(args, "resume", False) and not getattr(args, "out", None):
        raise ConfigurationError("--resume needs --out (the file to resume)")
    if getattr(args, "retry_errors", False) and not getattr(args, "resume", False):
        raise ConfigurationError("--retry-errors needs --resume (it retries rows of --out)")
    if getattr(args, "no_cache", False) and getattr(args, "cache_dir", None):
        raise ConfigurationError("--no-cache and --cache-dir contradict each other; pick one")
    configure_cache(cache_dir=getattr(args, "cache_dir", None), enabled=not args.no_cache)
    install_jitter()


def judge_with_lm_options(judge: Judge, args: argparse.Namespace) -> Judge:
    """The judge with `--api-base`, `--no-cache`, `--max-retries`, `--timeout` applied to its LM
    and `--max-tokens`, `--temperature`, `--timeout` to its parameters (the library's
    `with_lm_options` with the command line's values)."""
    bounds = {
        name: getattr(args, name)
        for name in GENERATION_PARAMS
        if getattr(args, name, None) is not None
    }
    return with_lm_options(
        judge,
        bounds=bounds,
        api_base=getattr(args, "api_base", None),
        cache=not getattr(args, "no_cache", False),
        max_retries=getattr(args, "max_retries", None),
    )
