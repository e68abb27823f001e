"""A judge's file as written: the versioned JSON document, its checksum, the class registry
it names (`register_judge`), and `save_judge`. Reading a file back is `_serialization.load`.

This module imports no judge (it reads what it saves through `Saved`), so that `Judge.save`
can call it; the judge classes register themselves here.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import platform
from importlib import metadata
from pathlib import Path
from typing import Any, Protocol, TypeVar

import pydantic

from ragjudge._version import __version__
from ragjudge.exceptions import (
    SerializationError,
)

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "READABLE_VERSIONS",
    "JudgeFile",
    "Saved",
    "check_judge_path",
    "judge_document",
    "register_judge",
    "registered",
    "save_judge",
    "signature_fingerprints",
]

FORMAT = "ragjudge.judge"
FORMAT_VERSION = 2
#: Versions this release reads: 1 (before results carried raw outputs and compile recorded its
#: selection) has the same layout; its judges load with the parameters they were saved with.
READABLE_VERSIONS = (1, 2)
_REGISTRY: dict[str, type[Any]] = {}
C = TypeVar("C", bound=type)


def register_judge(cls: C) -> C:
    """Class decorator: let `load` rebuild judges of this class by name."""
    _REGISTRY[cls.__name__] = cls
    return cls


def registered() -> dict[str, type[Any]]:
    """The registered judge classes by name (`_serialization.registry` types them)."""
    return dict(_REGISTRY)


class Saved(Protocol):
    """What saving reads of a judge (`Judge` has it)."""

    def get_params(self) -> dict[str, Any]:
        """The constructor arguments."""
        ...

    def dump_state(self) -> Any:
        """DSPy's state of the judge's predictors (demos, instructions)."""
        ...

    def named_predictors(self) -> Any:
        """DSPy's `(name, predictor)` pairs."""
        ...


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


def signature_fingerprints(judge: Saved) -> dict[str, str]:
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


def judge_document(judge: Saved) -> dict[str, Any]:
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


def save_judge(judge: Saved, path: str | os.PathLike[str]) -> Path:
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
