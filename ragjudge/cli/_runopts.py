"""Options for long runs: `--resume`, `--cache-dir`, `--max-retries`.

Also wires the shared LM options (`--api-base`, `--no-cache`, `--timeout`) into the judge's
`dspy.LM`, and `--max-tokens`, `--temperature`, `--timeout` into the judge's parameters.
"""

from __future__ import annotations

import argparse
import logging
import os
from typing import Any

from ragjudge.exceptions import ConfigurationError
from ragjudge.lm._cache import configure_cache
from ragjudge.lm._openai_engine import OpenAICompatibleEngine
from ragjudge.lm._resolve import CONNECTION_KEYS, is_offline_name, resolve_lm
from ragjudge.lm._retry import install_jitter, lm_options
from ragjudge.programs._base import GENERATION_PARAMS, Judge

__all__ = ["add_run_options", "configure_cache", "configure_run", "judge_with_lm_options"]

logger = logging.getLogger(__name__)


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
    and `--max-tokens`, `--temperature`, `--timeout` to its parameters (stored in a judge file).

    The offline judge (`--lm local`) makes no network calls, so the LM options do not apply.
    """
    bounds = {
        name: getattr(args, name)
        for name in GENERATION_PARAMS
        if getattr(args, name, None) is not None
    }
    if bounds and "max_tokens" in judge.get_params():
        judge = judge.clone(**bounds)
    options: dict[str, Any] = lm_options(
        max_retries=getattr(args, "max_retries", None), timeout=getattr(args, "timeout", None)
    )
    api_base = getattr(args, "api_base", None)
    name = judge.lm
    if name is None or is_offline_name(name):
        if api_base:
            raise ConfigurationError("--api-base needs --lm naming a model, e.g. openai/my-model")
        return judge
    if isinstance(name, str):
        if api_base:
            options.setdefault("api_key", _api_key(name))
        lm = resolve_lm(name, api_base=api_base, cache=not args.no_cache, **options)
        return judge.clone(lm=lm)
    if options or api_base or args.no_cache:  # an LM object from a saved judge / the API
        engine = getattr(name, "_engine_spec", None)
        if api_base or isinstance(engine, OpenAICompatibleEngine):
            # Rebuild it: a connection setting of an engine-backed LM cannot be copied over.
            base = api_base or getattr(engine, "api_base", None)
            kept = {k: v for k, v in name.kwargs.items() if k not in CONNECTION_KEYS}
            kept["num_retries"] = name.num_retries
            kept["api_key"] = name.kwargs.get("api_key") or _api_key(name.model)
            kept.update(options)
            cache = bool(name.cache) and not args.no_cache
            return judge.clone(lm=resolve_lm(name.model, api_base=base, cache=cache, **kept))
        updates: dict[str, Any] = dict(options)
        if args.no_cache:
            updates["cache"] = False
        return judge.clone(lm=name.copy(**updates))
    return judge


def _api_key(model: str) -> str:
    """The key for a self-hosted OpenAI-compatible server: $RAGJUDGE_API_KEY, the provider's
    usual variable (e.g. $OPENAI_API_KEY), else "EMPTY" (what vLLM and most proxies accept)."""
    provider = model.split("/", 1)[0].upper()
    for name in ("RAGJUDGE_API_KEY", f"{provider}_API_KEY"):
        value = os.environ.get(name)
        if value:
            return value
    logger.info("no API key in $RAGJUDGE_API_KEY or $%s_API_KEY; sending 'EMPTY'", provider)
    return "EMPTY"
