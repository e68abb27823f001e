"""Replies that parse: verdicts read as a person would, and replies repaired instead of re-asked.

A small model often answers in nearly the right shape: `"Yes."` for a `Literal["yes", "no"]`
verdict, a confidence of `95` for a probability, a missing `confidence` field, JSON where the
prompt asked for `[[ ## field ## ]]` sections (or the reverse). DSPy's adapters reject all of
these, and the ChatAdapter then spends a second LM call on its JSON fallback. `salvage` repairs
them from the reply already in hand:

- verdicts: "Yes", "YES.", "Supported", "true" -> yes; "Not supported", "false" -> no;
  "unsure", "not enough information" -> unsure (or no, where unsure is not an allowed verdict);
- numbers in [0, 1] given as percentages are scaled, others clipped;
- missing free-text fields become "", a missing optional confidence None;
- either reply format is read, whichever the prompt asked for.

`output_schema` gives the JSON schema of a signature's outputs for structured output (a
`response_format` for servers, a grammar in process), with as many verdicts as there are statements.
"""

from __future__ import annotations

import enum
import functools
import math
import re
import types
from collections.abc import Mapping
from typing import Any, Literal, Union, get_args, get_origin

import dspy
import json_repair
import pydantic
from dspy.adapters.chat_adapter import field_header_pattern

__all__ = ["MAX_LIST_ITEMS", "output_schema", "read_verdict", "salvage"]

_YES = ("yes", "y", "true", "supported", "faithful", "correct", "entailed", "pass", "1")
_NO = ("no", "n", "false", "unsupported", "unfaithful", "incorrect", "contradicted", "fail", "0")
_NOT = ("not ", "not-", "non ", "non-", "never ")
_UNSURE = (
    "unsure",
    "uncertain",
    "unknown",
    "ambiguous",
    "maybe",
    "partially",
    "partly",
    "not enough information",
    "not enough info",
    "insufficient",
    "cannot be determined",
    "cannot determine",
    "can't tell",
    "cannot tell",
    "not sure",
    "neutral",
    "n/a",
)
#: The most items a list output may have (the JSON schema's maxItems; `token_budget`).
MAX_LIST_ITEMS = 24


def read_verdict(value: Any, allowed: tuple[str, ...]) -> str | None:
    """The allowed verdict a person would read in `value`, or None if there is none.

    Args:
        value: What the LM wrote, e.g. `"YES."`, `"Not supported"`, `True`, `1`.
        allowed: The verdicts the field allows, e.g. `("yes", "no", "unsure")`.

    Returns:
        One of `allowed`, or None. "unsure"-like answers become "no" when "unsure" is not allowed.

    Example:
        >>> read_verdict("Not supported.", ("yes", "no"))
        'no'
    """
    if isinstance(value, bool):
        text = "true" if value else "false"
    else:
        text = str(value)
    text = re.sub(r"[\s\"'`*_.,;:!()\[\]]+", " ", text.lower()).strip()
    if not text:
        return None
    if text in allowed:
        return text
    first = text.split(" ", 1)[0]
    if any(text.startswith(u) for u in _UNSURE):
        kind = "unsure"
    elif text.startswith(_NOT) or first in _NO:
        kind = "no"
    elif first in _YES:
        kind = "yes"
    else:
        return None
    if kind in allowed:
        return kind
    if kind == "unsure" and "no" in allowed:
        return "no"
    return None


# -- the schema ----------------------------------------------------------------------------


def output_schema(
    signature: type[dspy.Signature],
    inputs: Mapping[str, Any] | None = None,
    *,
    max_chars: int | None = None,
) -> dict[str, Any]:
    """The JSON schema of `signature`'s outputs, for structured output.

    A list of verdicts has exactly as many items as the list input it answers (the
    statements); other lists 1 to 24 (judges ask only for statements of a non-empty answer).
    Free text is not bounded by length here (a `maxLength` makes llama.cpp's grammar slow
    enough to time out): max_tokens bounds it.

    Args:
        signature: The signature.
        inputs: The call's inputs (sizes the lists).
        max_chars: The longest any string may be (`maxLength`); None: unbounded. Only for
            the retry of a reply cut at max_tokens (`ragjudge.lm._cut`), where a slow grammar
            is better than a reply that runs on.

    Returns:
        An object schema with every output field required, in signature order.
    """
    lists = [len(v) for v in (inputs or {}).values() if isinstance(v, (list, tuple))]
    items = max(lists) if lists else None
    properties = {
        name: _schema_of(info.annotation, name, items)
        for name, info in signature.output_fields.items()
    }
    if max_chars is not None:
        _bound_strings(properties, max_chars)
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def _schema_of(annotation: Any, name: str, items: int | None) -> dict[str, Any]:
    origin = get_origin(annotation)
    if annotation is str:
        return {"type": "string"}
    if origin is Literal:
        return {"type": "string", "enum": [str(a) for a in get_args(annotation)]}
    if annotation is float:
        return {"type": "number"}
    if annotation is int:
        return {"type": "integer"}
    if annotation is bool:
        return {"type": "boolean"}
    if origin in (Union, types.UnionType):
        kept = [a for a in get_args(annotation) if a is not type(None)]
        if len(kept) == 1:
            return _schema_of(kept[0], name, items)
    if origin is list:
        (item,) = get_args(annotation) or (str,)
        schema: dict[str, Any] = {"type": "array", "items": _schema_of(item, "statement", None)}
        if items is not None and isinstance(item, type) and issubclass(item, pydantic.BaseModel):
            schema.update(minItems=items, maxItems=items)
        else:  # statements extracted from a non-empty answer: at least one (a small model
            # under a grammar otherwise takes the empty list as the easy way out)
            schema.update(minItems=1, maxItems=MAX_LIST_ITEMS)
        return schema
    if isinstance(annotation, type) and issubclass(annotation, pydantic.BaseModel):
        properties = {
            field: _schema_of(info.annotation, field, None)
            for field, info in annotation.model_fields.items()
            if field in shown_fields(annotation)
        }
        return {
            "type": "object",
            "properties": properties,
            "required": list(properties),
            "additionalProperties": False,
        }
    if isinstance(annotation, enum.EnumMeta):
        return {"type": "string", "enum": [str(m.value) for m in annotation]}  # type: ignore[var-annotated]
    return pydantic.TypeAdapter(annotation).json_schema()


def _bound_strings(node: Any, max_chars: int) -> None:
    """Give every free string in a schema (no enum) a `maxLength`, in place."""
    if isinstance(node, dict):
        if node.get("type") == "string" and "enum" not in node:
            node["maxLength"] = max_chars
        for value in node.values():
            _bound_strings(value, max_chars)
    elif isinstance(node, list):
        for value in node:
            _bound_strings(value, max_chars)


@functools.lru_cache(maxsize=64)
def shown_fields(model: type[pydantic.BaseModel]) -> tuple[str, ...]:
    """The fields of `model` an LM is asked for: those in its JSON schema (a field marked
    `SkipJsonSchema`, such as the offline judge's `support` and `rules`, is not: a grammar that
    demanded it would make the model write a list of free text no prompt asked for)."""
    properties = model.model_json_schema().get("properties") or {}
    return tuple(f for f in model.model_fields if f in properties)


# -- salvage -------------------------------------------------------------------------------


def salvage(signature: type[dspy.Signature], completion: str) -> dict[str, Any]:
    """The outputs of `signature` read from `completion` as leniently as is safe.

    Reads `[[ ## field ## ]]` sections or a JSON object, whichever the reply holds, and repairs
    each value (`read_verdict`, numbers, missing optional fields).

    Args:
        signature: The signature whose output fields to read.
        completion: The LM's reply.

    Returns:
        One validated value per output field.

    Raises:
        ValueError: When a required field is missing or cannot be read.
    """
    raw = _sections(signature, completion)
    if len(raw) < len(signature.output_fields):
        found = _json_object(completion)
        raw = {**found, **raw} if found else raw
    fields: dict[str, Any] = {}
    for name, info in signature.output_fields.items():
        fields[name] = _repair(info.annotation, raw.get(name, _MISSING), name)
    return fields


_MISSING = object()


def _sections(signature: type[dspy.Signature], completion: str) -> dict[str, Any]:
    sections: dict[str, list[str]] = {}
    current: str | None = None
    for line in completion.splitlines():
        match = field_header_pattern.match(line.strip())
        if match:
            name = match.group(1)
            current = name if name in signature.output_fields and name not in sections else None
            if current is not None:
                rest = line.strip()[match.end() :].strip()
                sections[current] = [rest] if rest else []
        elif current is not None:
            sections[current].append(line)
    return {name: "\n".join(lines).strip() for name, lines in sections.items()}


def _json_object(completion: str) -> dict[str, Any]:
    start = completion.find("{")
    if start < 0:
        return {}
    try:
        value = json_repair.loads(completion[start:])
    except Exception:  # json_repair gives up on some inputs with assorted errors
        return {}
    return value if isinstance(value, dict) else {}


def _is_optional(annotation: Any) -> bool:
    origin = get_origin(annotation)
    return origin in (Union, types.UnionType) and type(None) in get_args(annotation)


def _repair(annotation: Any, value: Any, name: str) -> Any:
    """One field's value, repaired to fit `annotation` (ValueError when it cannot be)."""
    if value is _MISSING or value is None:
        if annotation is str:
            return ""
        if _is_optional(annotation) or annotation is float:
            return None
        raise ValueError(f"the reply has no `{name}` field")
    origin = get_origin(annotation)
    if _is_optional(annotation):
        kept = [a for a in get_args(annotation) if a is not type(None)]
        try:
            return _repair(kept[0], value, name) if len(kept) == 1 else value
        except ValueError:
            return None
    if annotation is str:
        return value if isinstance(value, str) else str(value)
    if origin is Literal:
        allowed = tuple(str(a) for a in get_args(annotation))
        verdict = read_verdict(value, allowed)
        if verdict is None:
            raise ValueError(f"`{name}`: cannot read {str(value)[:40]!r} as one of {allowed}")
        return verdict
    if annotation is float:
        return _probability(value)
    if origin is list:
        (item,) = get_args(annotation) or (str,)
        values = _as_list(value)
        return [_repair(item, v, name) for v in values if not (item is str and v in ("", None))]
    if isinstance(annotation, type) and issubclass(annotation, pydantic.BaseModel):
        if not isinstance(value, dict):
            raise ValueError(f"`{name}`: expected an object, got {str(value)[:40]!r}")
        data: dict[str, Any] = {}
        for field, info in annotation.model_fields.items():
            repaired = _repair(info.annotation, value.get(field, _MISSING), field)
            if repaired is not None or info.is_required():
                data[field] = repaired
        return annotation.model_validate(data)
    return pydantic.TypeAdapter(annotation).validate_python(
        json_repair.loads(value) if isinstance(value, str) else value
    )


def _as_list(value: Any) -> list[Any]:
    if isinstance(value, list):
        return value
    if isinstance(value, str):
        parsed = json_repair.loads(value) if value.strip() else []
        if isinstance(parsed, list):
            return parsed
        if isinstance(parsed, dict):
            return [parsed]
        lines = [re.sub(r"^\s*(?:[-*•]|\d+[.)])\s*", "", s).strip() for s in value.splitlines()]
        return [s for s in lines if s]
    if isinstance(value, dict):
        return [value]
    raise ValueError(f"expected a list, got {str(value)[:40]!r}")


def _probability(value: Any) -> float | None:
    """A number read as a probability in [0, 1]: 95 and "95%" become 0.95; None if unreadable."""
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, str):
        match = re.search(r"-?\d+(?:\.\d+)?", value)
        if match is None:
            return None
        number = float(match.group(0))
        if "%" in value:
            number /= 100.0
    elif isinstance(value, (int, float)):
        number = float(value)
    else:
        return None
    if math.isnan(number):
        return None
    if 1.0 < number <= 100.0:
        number /= 100.0
    return min(1.0, max(0.0, number))
