"""A reply cut at max_tokens: its verdict read from what it wrote, else one retry that stops.

A small model at temperature 0 sometimes never stops: it writes its reasoning over and over
until max_tokens cuts it (SmolLM2-135M: 6 of 151 replies of a compile, mid-JSON). Asking again
the same way gets the same reply. `CachedChatAdapter` handles such a reply in this order:

1. **read**: when what the reply wrote already holds every output but free text (a verdict
   written before the reasoning ran on), those outputs are taken (`read_partial`).
2. **retry**: one more call of the signature without its free-text outputs
   (`tight_signature`: no reasoning; a statement's verdict without its copy of the statement
   and its reason), with a max_tokens sized for what is left and, where the engine takes a
   JSON schema (ragjudge's llama.cpp and OpenAI-compatible engines, so llama.cpp's server),
   that schema as a grammar: a verdict, a number, a fixed count of items; nothing in it can
   run on. The outputs left out come back empty (a statement's copy from the input).
   A signature whose every output is needed (statements to extract) is retried with each
   string bounded (`maxLength`) where the engine takes a schema, and not at all elsewhere.
3. Otherwise the row's error says what was tried (`CutReplyError`).

A reply cut by the timeout is neither read nor retried: it carries no sign of running on, and
a slow machine would time out again. What happened is counted in `ParseStats` (`cut_read`,
`cut_retried`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from typing import Any, get_args, get_origin

import dspy
import pydantic

from ragjudge.lm._generation import ReplyCutError
from ragjudge.lm._parsing import salvage, shown_fields

__all__ = [
    "RETRY_STRING_CHARS",
    "CutReplyError",
    "cut_of",
    "read_partial",
    "restore",
    "tight_demos",
    "tight_signature",
]

#: The longest string the retry of a signature without free text to leave out may write
#: (a statement: about 40 tokens).
RETRY_STRING_CHARS = 160


class CutReplyError(ReplyCutError):
    """A reply cut at max_tokens that neither its partial text nor one retry could answer;
    the message says what was tried."""


def cut_of(exc: BaseException) -> ReplyCutError | None:
    """The `ReplyCutError` behind `exc` (DSPy re-raises an engine's error as its own type,
    from the original), or None."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, ReplyCutError):
            return seen
        seen = seen.__cause__
    return None


def _item_model(annotation: Any) -> type[pydantic.BaseModel] | None:
    """The pydantic model of a `list[Model]` annotation, else None."""
    if get_origin(annotation) is not list:
        return None
    (item,) = get_args(annotation) or (str,)
    return item if isinstance(item, type) and issubclass(item, pydantic.BaseModel) else None


def _is_text_list(annotation: Any) -> bool:
    return get_origin(annotation) is list and (get_args(annotation) or (str,))[0] is str


@functools.lru_cache(maxsize=64)
def _tight_model(model: type[pydantic.BaseModel]) -> type[pydantic.BaseModel] | None:
    """`model` without its free-text fields (None when it has none to leave out)."""
    shown = shown_fields(model)
    kept = {n: model.model_fields[n] for n in shown if model.model_fields[n].annotation is not str}
    if len(kept) == len(shown):
        return None
    fields: dict[str, Any] = {n: (info.annotation, info) for n, info in kept.items()}
    return pydantic.create_model(f"{model.__name__}Only", __doc__=model.__doc__, **fields)


@functools.lru_cache(maxsize=64)
def tight_signature(signature: type[dspy.Signature]) -> type[dspy.Signature] | None:
    """`signature` without its free-text outputs, or None when it has none to leave out.

    A `str` output is left out; a list of objects keeps each object's typed fields only.
    None also when nothing but free text is asked (nothing would be left to ask for).
    """
    tight = signature
    for name, info in signature.output_fields.items():
        model = _item_model(info.annotation)
        if info.annotation is str:
            tight = tight.delete(name)
        elif model is not None and (small := _tight_model(model)) is not None:
            tight = tight.with_updated_fields(name, type_=list[small])  # type: ignore[valid-type]
    if tight is signature or not tight.output_fields:
        return None
    return tight


def restore(
    signature: type[dspy.Signature], inputs: Mapping[str, Any], values: Mapping[str, Any]
) -> dict[str, Any]:
    """The outputs of `signature` from a tight retry's `values`: free text left out is "",
    and a verdict item's `statement` is the statement it judges (the list input's item).
    Other keys of `values` (where a confidence came from) are kept."""
    items = next((list(v) for v in inputs.values() if isinstance(v, (list, tuple))), [])
    out: dict[str, Any] = dict(values)  # with what the adapter added (confidence sources)
    for name, info in signature.output_fields.items():
        model = _item_model(info.annotation)
        value = values.get(name)
        if info.annotation is str and name not in values:
            out[name] = ""
        elif model is not None and isinstance(value, list):
            out[name] = [_full_item(model, v, items, i) for i, v in enumerate(value)]
        else:
            out[name] = value
    return out


def _full_item(
    model: type[pydantic.BaseModel], value: Any, items: Sequence[Any], index: int
) -> pydantic.BaseModel:
    data = value.model_dump() if isinstance(value, pydantic.BaseModel) else dict(value)
    for field in shown_fields(model):
        if model.model_fields[field].annotation is str and field not in data:
            copied = field == "statement" and index < len(items)
            data[field] = str(items[index]) if copied else ""
    return model.model_validate(data)


def tight_demos(
    signature: type[dspy.Signature], tight: type[dspy.Signature], demos: Sequence[Any]
) -> list[dict[str, Any]]:
    """The demos as the tight signature asks: free-text outputs left out, verdict items cut
    to their typed fields (so a model without a grammar does not copy the long form)."""
    out = []
    for demo in demos:
        data = dict(demo.items()) if hasattr(demo, "items") else dict(demo)
        for name, info in signature.output_fields.items():
            if name not in tight.output_fields:
                data.pop(name, None)
                continue
            small = _item_model(tight.output_fields[name].annotation)
            if small is not None and small is not _item_model(info.annotation):
                data[name] = [_cut_item(small, v) for v in data.get(name) or []]
        out.append(data)
    return out


def _cut_item(small: type[pydantic.BaseModel], value: Any) -> Any:
    data = value.model_dump() if isinstance(value, pydantic.BaseModel) else value
    if not isinstance(data, dict):
        return value
    return small.model_validate({k: v for k, v in data.items() if k in small.model_fields})


_ENDS_IN_NUMBER = re.compile(r"\d(?:\.|[eE][-+]?)?\s*$")


def read_partial(
    signature: type[dspy.Signature], inputs: Mapping[str, Any], partial: str
) -> dict[str, Any] | None:
    """The outputs of `signature` read from a cut reply, when it already holds every one but
    free text; else None.

    Not read: a reply cut inside a number (its last digits may be missing), a list of
    verdicts shorter than the statements it judges, and any list of text (its last item may
    be cut short).
    """
    if not partial.strip() or _ENDS_IN_NUMBER.search(partial):
        return None
    outputs = signature.output_fields
    if any(_is_text_list(info.annotation) for info in outputs.values()):
        return None
    try:
        fields = salvage(signature, partial)
    except (ValueError, pydantic.ValidationError):
        return None
    lists = [len(v) for v in inputs.values() if isinstance(v, (list, tuple))]
    for name, info in outputs.items():
        value = fields.get(name)
        if _item_model(info.annotation) is not None and (
            not isinstance(value, list) or (lists and len(value) != max(lists))
        ):
            return None
    return fields
