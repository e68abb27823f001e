"""No output over an input: the one rule every command and `evaluate(out=)` apply before any
work, so a run never writes its results over the rows (or the judge) it reads."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from ragjudge.exceptions import ConfigurationError

__all__ = ["check_not_inputs", "same_file"]

PathLike = str | os.PathLike[str]


def same_file(a: PathLike, b: PathLike) -> bool:
    """Whether two names are one file: the same path once resolved (`..`, symlinks), or, when
    both exist, the same file on disk (a hard link, another spelling on a case-insensitive
    file system).

    Example:
        >>> same_file("rows.jsonl", "./rows.jsonl")
        True
    """
    first, second = Path(os.fspath(a)).expanduser(), Path(os.fspath(b)).expanduser()
    if first.resolve() == second.resolve():
        return True
    try:
        return os.path.samefile(first, second)
    except OSError:  # one of them does not exist (yet): then they are not one file
        return False


def check_not_inputs(
    outputs: Mapping[str, PathLike | None], inputs: Mapping[str, PathLike | None]
) -> None:
    """Refuse an output that names one of the inputs.

    Args:
        outputs: What each output is called (an option, `--out`, or a parameter) -> its path
            (None: not written).
        inputs: What each input is called -> its path (None: not given; a name that is not a
            local file, such as a hub dataset, is never an output's file).

    Raises:
        ConfigurationError: One line naming the output, the input and the fix.

    Example:
        >>> check_not_inputs({"--out": "results.jsonl"}, {"--gold": "rows.jsonl"})
        >>> check_not_inputs({"--out": "rows.jsonl"}, {"--gold": "./rows.jsonl"})
        Traceback (most recent call last):
        ...
        ragjudge.exceptions.ConfigurationError: --out rows.jsonl is the --gold file ...
    """
    for out_name, out in outputs.items():
        if out is None:
            continue
        for in_name, source in inputs.items():
            if source is not None and same_file(out, source):
                raise ConfigurationError(
                    f"{out_name} {os.fspath(out)} is the {in_name} file ({os.fspath(source)}): "
                    "writing there would overwrite what it reads; name another file"
                )
