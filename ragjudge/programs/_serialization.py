"""Judges on disk: one versioned JSON file, never pickle; loading never runs code.

The file names its judge class, which is looked up in an explicit registry (never imported
from a dotted path), records a fingerprint of every signature and a checksum of its own
content, and is validated whole before any object is touched. Writing it is
`ragjudge.programs._document` (which `Judge.save` calls); this module reads it back.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pydantic

from ragjudge._version import __version__
from ragjudge.exceptions import (
    ConfigurationError,
    ModifiedJudgeError,
    SerializationError,
    UnsupportedFormatVersionError,
)
from ragjudge.programs._document import FORMAT as FORMAT
from ragjudge.programs._document import FORMAT_VERSION as FORMAT_VERSION
from ragjudge.programs._document import READABLE_VERSIONS as READABLE_VERSIONS
from ragjudge.programs._document import JudgeFile as JudgeFile
from ragjudge.programs._document import _checksum as _checksum
from ragjudge.programs._document import _versions as _versions
from ragjudge.programs._document import check_judge_path as check_judge_path
from ragjudge.programs._document import judge_document as judge_document
from ragjudge.programs._document import register_judge as register_judge
from ragjudge.programs._document import registered
from ragjudge.programs._document import save_judge as save_judge
from ragjudge.programs._document import signature_fingerprints as signature_fingerprints

if TYPE_CHECKING:
    from ragjudge.programs._base import Judge

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "check_judge_path",
    "judge_class",
    "load",
    "metric_names",
    "register_judge",
    "save_judge",
    "signature_fingerprints",
]


def load(path: str | os.PathLike[str], *, trust_modified: bool = False) -> Judge:
    """Load a judge saved with `judge.save(path)`.

    Args:
        path: The JSON file.
        trust_modified: Accept a file whose checksum does not match (edited by hand).

    Returns:
        The judge, with its parameters, demos and learned state.

    Raises:
        SerializationError: If the file is not a readable judge, names an unknown class, was
            written by an unknown format version, or its signatures changed.
        ModifiedJudgeError: If the file was modified after saving (see `trust_modified`).

    Example:
        >>> judge = load("judges/faithfulness.json")  # doctest: +SKIP
    """
    # The judges register themselves when `ragjudge.programs` (this module's package) is imported.
    name = os.fspath(path)
    try:
        raw = Path(name).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SerializationError(f"{name}: file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SerializationError(f"{name}: cannot be read ({exc})") from None
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise SerializationError(f"{name}: not valid JSON ({exc.msg}, line {exc.lineno})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise SerializationError(f"{name}: not a ragjudge judge file (format is not {FORMAT!r})")
    version = data.get("format_version")
    if version not in READABLE_VERSIONS:
        raise UnsupportedFormatVersionError(
            f"{name}: format version {version!r} is not supported; this release reads versions "
            f"{', '.join(map(str, READABLE_VERSIONS))} (ragjudge {__version__})"
        )
    try:
        document = JudgeFile.model_validate(data)
    except pydantic.ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise SerializationError(f"{name}: damaged judge file ({where}: {first['msg']})") from None
    if _checksum(data) != document.checksum and not trust_modified:
        raise ModifiedJudgeError(
            f"{name}: the file was modified after it was saved (checksum mismatch); "
            "pass trust_modified=True if you edited it on purpose"
        )
    cls = registered().get(document.judge)
    if cls is None:
        known = ", ".join(sorted(registered()))
        raise SerializationError(f"{name}: unknown judge class {document.judge!r} (known: {known})")
    return _build(cls, document, name)


#: The keys DSPy writes for one predictor; DSPy's `Predict.load_state` sets any other key as
#: an attribute of the predictor, so a file may carry no others.
_PREDICTOR_KEYS = frozenset({"traces", "train", "demos", "signature", "lm", "fields"})


def _check_data_only(cls: type[Judge], document: JudgeFile, name: str) -> None:
    """Refuse content that would make loading do more than restore data.

    Parameters are checked against the constructor; `lm` must be a model name (never an LM
    object to rebuild, whose class DSPy would import); each predictor's state may hold only
    DSPy's own keys, with no saved LM and demos that are plain JSON objects.
    """
    unknown = set(document.params) - set(cls._param_names())
    if unknown:
        raise SerializationError(
            f"{name}: unknown parameters for {cls.__name__}: {sorted(unknown)}"
        )
    lm = document.params.get("lm")
    if lm is not None and not isinstance(lm, str):
        raise SerializationError(
            f"{name}: the `lm` parameter must be a model name or null, not "
            f"{type(lm).__name__}; judge files never rebuild LM objects"
        )
    for key, value in document.state.items():
        if key == "ragjudge":
            continue
        if not isinstance(value, dict):
            raise SerializationError(f"{name}: damaged judge state ({key!r} is not an object)")
        extra = set(value) - _PREDICTOR_KEYS
        if extra:
            raise SerializationError(
                f"{name}: predictor {key!r} carries unexpected entries {sorted(extra)}; "
                "a judge file holds data only"
            )
        if value.get("lm") is not None:
            raise SerializationError(
                f"{name}: predictor {key!r} carries a saved LM; judge files name their LM in "
                "params.lm only (set it to null, or pass `lm`)"
            )
        demos = value.get("demos", [])
        if not isinstance(demos, list) or not all(isinstance(d, dict) for d in demos):
            raise SerializationError(
                f"{name}: predictor {key!r} has demos that are not JSON objects"
            )


def _build(cls: type[Judge], document: JudgeFile, name: str) -> Judge:
    _check_data_only(cls, document, name)
    try:
        judge = cls(**document.params)
    except (TypeError, ValueError) as exc:
        raise SerializationError(f"{name}: invalid parameters ({exc})") from None
    current = signature_fingerprints(judge)
    if current != document.signatures:
        changed = sorted(
            k
            for k in set(current) | set(document.signatures)
            if current.get(k) != document.signatures.get(k)
        )
        raise SerializationError(
            f"{name}: the signatures of {', '.join(changed)} changed since the judge was saved; "
            "re-compile the judge with this release"
        )
    try:
        judge.load_state(document.state)
    except (KeyError, TypeError, ValueError, pydantic.ValidationError) as exc:
        raise SerializationError(f"{name}: damaged judge state ({exc})") from None
    if document.compile is not None:
        judge.report_ = document.compile
    return judge


def registry() -> dict[str, Callable[..., Judge]]:
    """The registered judge classes, by name."""
    return dict(registered().items())


def _metric_of(cls: type[Judge]) -> str | None:
    """The metric name a class is built for (`metric_option`, else its `metric`); None for
    classes that wrap another judge (an ensemble)."""
    return cls.__dict__.get("metric_option", cls.metric)


def metric_names() -> list[str]:
    """The metric names the registered judge classes stand for, in registration order."""
    names = [_metric_of(cls) for cls in registered().values()]
    return sorted({n for n in names if n}, key=lambda n: (n != "faithfulness", n))


def judge_class(metric: str) -> type[Judge]:
    """The registered judge class of a metric name (`faithfulness`, `deterministic`, ...): the
    one metric-to-class map.

    Raises:
        ConfigurationError: For an unknown metric, listing the known ones.

    Example:
        >>> judge_class("faithfulness").__name__
        'Faithfulness'
    """
    for cls in registered().values():
        if _metric_of(cls) == metric:
            return cls
    raise ConfigurationError(
        f"The `metric` parameter must be one of {', '.join(map(repr, metric_names()))}. "
        f"Got {metric!r} instead."
    )
