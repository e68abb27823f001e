"""Judges on disk: one versioned JSON file, never pickle; loading never runs code.

The file names its judge class, which is looked up in an explicit registry (never imported
from a dotted path), records a fingerprint of every signature and a checksum of its own
content, and is validated whole before any object is touched.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import platform
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import pydantic

from ragjudge._version import __version__
from ragjudge.exceptions import (
    ConfigurationError,
    ModifiedJudgeError,
    SerializationError,
    UnsupportedFormatVersionError,
)

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

FORMAT = "ragjudge.judge"
FORMAT_VERSION = 2
#: Versions this release reads: 1 (before results carried raw outputs and compile recorded its
#: selection) has the same layout; its judges load with the parameters they were saved with.
READABLE_VERSIONS = (1, 2)
_REGISTRY: dict[str, type[Judge]] = {}
J = TypeVar("J", bound="type[Judge]")


def register_judge(cls: J) -> J:
    """Class decorator: let `load` rebuild judges of this class by name."""
    _REGISTRY[cls.__name__] = cls
    return cls


class JudgeFile(pydantic.BaseModel):
    """The schema of a saved judge."""

    model_config = pydantic.ConfigDict(extra="forbid")

    format: str
    format_version: int
    judge: str
    params: dict[str, Any]
    state: dict[str, Any]
    signatures: dict[str, str]
    provenance: dict[str, Any]
    compile: dict[str, Any] | None = None
    checksum: str


def signature_fingerprints(judge: Judge) -> dict[str, str]:
    """A short hash of each predictor's signature fields (names, roles and types)."""
    prints = {}
    for name, predictor in judge.named_predictors():
        fields = [
            (
                field,
                info.json_schema_extra.get("__dspy_field_type") if info.json_schema_extra else "",
                str(info.annotation),
            )
            for field, info in predictor.signature.fields.items()
        ]
        prints[name] = hashlib.sha256(json.dumps(fields).encode()).hexdigest()[:16]
    return prints


def _versions() -> dict[str, str]:
    out = {"ragjudge": __version__, "python": platform.python_version()}
    for dist in ("dspy", "pydantic", "optuna", "numpy", "datasets"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = "not installed"
    return out


def _checksum(document: dict[str, Any]) -> str:
    body = {k: v for k, v in document.items() if k != "checksum"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(text.encode()).hexdigest()


def _jsonable(value: Any) -> Any:
    """NaN and infinities become None so the file is strict JSON."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, pydantic.BaseModel):
        return _jsonable(value.model_dump(mode="json"))
    return value


def judge_document(judge: Judge) -> dict[str, Any]:
    """The JSON document of a judge (what `save_judge` writes)."""
    name = type(judge).__name__
    if _REGISTRY.get(name) is not type(judge):
        raise SerializationError(
            f"{name} is not a registered judge class; decorate it with `@register_judge`"
        )
    params = dict(judge.get_params())
    lm = params.get("lm")
    if lm is not None and not isinstance(lm, str):
        params["lm"] = str(getattr(lm, "model", None) or "")
    report = getattr(judge, "report_", None)
    document: dict[str, Any] = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "judge": name,
        "params": _jsonable(params),
        "state": _jsonable(judge.dump_state()),
        "signatures": signature_fingerprints(judge),
        "provenance": _versions(),
        "compile": _jsonable(report) if report is not None else None,
    }
    document["checksum"] = _checksum(document)
    return document


def check_judge_path(path: str | os.PathLike[str]) -> Path:
    """Refuse, before any work, a path a judge cannot be saved to: an existing folder, a
    pickle, a suffix other than `.json`.

    Raises:
        SerializationError: Naming the path and the fix.

    Example:
        >>> check_judge_path("judges/faithfulness.json").name
        'faithfulness.json'
    """
    target = Path(path)
    if target.is_dir():
        raise SerializationError(
            f"{target}: is a folder; name a .json file for the judge (e.g. {target / 'judge.json'})"
        )
    if target.suffix.lower() in {".pkl", ".pickle"}:
        raise SerializationError(f"{target}: judges are saved as JSON only; use a .json path")
    if target.suffix and target.suffix.lower() != ".json":
        raise SerializationError(f"{target}: a judge file is JSON; name a file ending in .json")
    return target


def save_judge(judge: Judge, path: str | os.PathLike[str]) -> Path:
    """Write a judge to `path` as versioned JSON.

    Args:
        judge: The judge to save.
        path: A `.json` file; parent folders are created.

    Returns:
        The path written.

    Raises:
        SerializationError: For a pickle path or an unregistered judge class.
    """
    target = check_judge_path(path)
    document = judge_document(judge)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(target.name + ".tmp")
    try:
        tmp.write_text(json.dumps(document, indent=1, allow_nan=False) + "\n", encoding="utf-8")
        os.replace(tmp, target)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise SerializationError(f"{target}: cannot be written ({exc.strerror or exc})") from None
    return target


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
    cls = _REGISTRY.get(document.judge)
    if cls is None:
        known = ", ".join(sorted(_REGISTRY))
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
    return dict(_REGISTRY)


def _metric_of(cls: type[Judge]) -> str | None:
    """The metric name a class is built for (`metric_option`, else its `metric`); None for
    classes that wrap another judge (an ensemble)."""
    return cls.__dict__.get("metric_option", cls.metric)


def metric_names() -> list[str]:
    """The metric names the registered judge classes stand for, in registration order."""
    names = [_metric_of(cls) for cls in _REGISTRY.values()]
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
    for cls in _REGISTRY.values():
        if _metric_of(cls) == metric:
            return cls
    raise ConfigurationError(
        f"The `metric` parameter must be one of {', '.join(map(repr, metric_names()))}. "
        f"Got {metric!r} instead."
    )
