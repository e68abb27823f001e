"""The `ragjudge` command line: one module per subcommand.

User mistakes (bad files, bad options) print one line to stderr and exit with code 2.
"""

from __future__ import annotations

import argparse
import difflib
import gc
import importlib
import logging
import sys
from collections.abc import Sequence
from types import ModuleType

from ragjudge._version import __version__
from ragjudge.exceptions import RagJudgeError

__all__ = ["COMMANDS", "build_parser", "load_command", "main"]


def _without_ipython() -> None:
    """Import DSPy without IPython (0.2-0.4 s of a CLI start): DSPy imports it only to show
    tables in notebooks, and a command-line process is never one. IPython stays importable."""
    if "IPython" in sys.modules or "dspy" in sys.modules:
        return
    sys.modules["IPython"] = None  # type: ignore[assignment]  # DSPy's optional import fails
    try:
        import dspy  # noqa: F401
    finally:
        del sys.modules["IPython"]


#: Subcommand -> (module, one-line help). A run imports only its own subcommand's module (and
#: so DSPy, Optuna, ... only as far as that command needs them); `ragjudge --help` imports none.
COMMANDS: dict[str, tuple[str, str]] = {
    "evaluate": ("ragjudge.cli.evaluate", "judge rows and report agreement with their labels"),
    "compile": ("ragjudge.cli.compile", "compile a judge against gold labels and save it"),
    "report": ("ragjudge.cli.report", "judge labeled rows and write an HTML report"),
    "drift": ("ragjudge.cli.drift", "test whether a compiled judge's agreement fell on new rows"),
    "estimate": (
        "ragjudge.cli.estimate",
        "the faithful rate of a system's rows, from the judge and a few labels (PPI++)",
    ),
    "label": ("ragjudge.cli.label", "a local review page: label the rows that teach the most"),
    "probe": (
        "ragjudge.cli.probe",
        "behavioral tests of a judge, kind by kind, made from your rows",
    ),
}


def load_command(name: str) -> ModuleType:
    """The module of subcommand `name` (imported now; DSPy without IPython)."""
    _without_ipython()
    return importlib.import_module(COMMANDS[name][0])


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The argument parser: every subcommand listed, `command`'s (or, if None, every
    subcommand's) arguments registered."""
    parser = argparse.ArgumentParser(
        prog="ragjudge",
        description="Build, run and compile RAG judges that agree with your labels.",
    )
    parser.add_argument("--version", action="version", version=f"ragjudge {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress to stderr")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (_, summary) in COMMANDS.items():
        if command is None or name == command:
            load_command(name).add_parser(sub)
        else:
            sub.add_parser(name, help=summary)
    return parser


def _command_of(argv: Sequence[str]) -> str | None:
    """The subcommand named on the command line, if any (the first non-option word)."""
    for word in argv:
        if not word.startswith("-"):
            return word if word in COMMANDS else None
    return None


def _subparser(parser: argparse.ArgumentParser, command: str) -> argparse.ArgumentParser:
    """The parser of subcommand `command` within `parser`."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action.choices[command]
    raise KeyError(command)


def _check_options(parser: argparse.ArgumentParser, command: str, words: Sequence[str]) -> None:
    """Refuse an option the subcommand does not take with the subcommand's usage and the
    nearest option it does take ("did you mean --gold?"), before any other complaint (a
    mistyped `--gld` is not a missing `--gold`). Exits 2, as argparse does."""
    sub = _subparser(parser, command)
    known = [s for a in sub._actions for s in a.option_strings if s.startswith("--")]
    after = list(words)[list(words).index(command) + 1 :]
    for word in after:
        if word == "--":
            break
        if not word.startswith("--") or len(word) < 3:
            continue
        name = word.split("=", 1)[0]
        if any(k == name or (sub.allow_abbrev and k.startswith(name)) for k in known):
            continue
        near = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
        hint = f"; did you mean {near[0]}?" if near else f"; see ragjudge {command} --help"
        sub.error(f"unrecognized option {name}{hint}")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code."""
    words = list(sys.argv[1:] if argv is None else argv)
    command = _command_of(words)
    parser = build_parser(command) if command else build_parser("")
    if command:
        _check_options(parser, command, words)
    args = parser.parse_args(words)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    import dspy  # imported with the command's module; the run keeps no DSPy call history

    try:
        with dspy.context(disable_history=True):
            code = int(args.run(args))
        sys.stdout.flush()  # before any finalizer at exit can touch the stdout descriptor
        return code
    except RagJudgeError as exc:
        sys.stderr.write(f"ragjudge {args.command}: error: {_in_flags(exc)}\n")
        return 2
    except KeyboardInterrupt:
        sys.stderr.write(f"ragjudge {args.command}: interrupted\n")
        return 130
    finally:
        if argv is None:  # a whole process, about to exit
            _skip_exit_collections()


#: Library parameter -> the option that sets it: library errors name parameters
#: (`max_retries`), the command line says them as its options (--max-retries).
#: Library phrases the command line says with its options.
PHRASE_FLAGS = {
    "trust_modified=True": "--trust-modified",
    "judging on Ray needs": "--ray needs",
}

PARAM_FLAGS = {
    "address": "--ray",
    "alpha": "--alpha",
    "block_rows": "--block-rows",
    "api_base": "--api-base",
    "cascade": "--cascade",
    "fail_under": "--fail-under",
    "group_by": "--group-by",
    "lm": "--lm",
    "mapping": "--map",
    "max_lm_calls": "--max-lm-calls",
    "max_lm_calls_per_row": "--max-lm-calls-per-row",
    "max_retries": "--max-retries",
    "max_tokens": "--max-tokens",
    "metric": "--metric",
    "mode": "--mode",
    "kinds": "--kinds",
    "modes": "--modes",
    "out": "--out",
    "overlap": "--overlap",
    "per_kind": "--per-kind",
    "port": "--port",
    "repeat": "--repeat",
    "resume": "--resume",
    "source": "--gold",
    "storage": "--storage",
    "strategy": "--strategy",
    "target_width": "--target-width",
    "temperature": "--temperature",
    "threshold": "--threshold",
    "timeout": "--timeout",
}


def _in_flags(exc: RagJudgeError) -> str:
    """A library error as the command line says it: each `parameter` as its option, and a
    suggested column mapping as the `--map` that applies it."""
    text = str(exc)
    for field, column in (getattr(exc, "suggestion", None) or {}).items():
        for said in (f"to map {field}={column}", f"map {field}={column}"):
            if said in text:
                text = text.replace(said, f"`--map {field}={column}`")
                break
    for said, flag in PHRASE_FLAGS.items():
        text = text.replace(said, flag)
    for param, flag in PARAM_FLAGS.items():
        text = text.replace(f"The `{param}` parameter", f"The {flag} option")
        text = text.replace(f"`{param}`", flag)
    return text


def _skip_exit_collections() -> None:
    """Leave what the run made to the process exit instead of the interpreter's garbage
    collections at shutdown, which walk every object still alive (0.3 s after 1,000 rows)."""
    gc.freeze()


if __name__ == "__main__":
    raise SystemExit(main())
