"""Bounded generation: max_tokens sized per signature, temperature and a per-call timeout.

Every LM call a judge makes carries these three settings, as per-call keyword arguments that
the adapter adds (`generation_kwargs`), so they are part of DSPy's response-cache key:

- `max_tokens`: the judge's option, else a budget sized for the signature and the row (a
  whole-answer verdict gets 480 tokens; judging statements gets room per statement; never
  more than `MAX_REPLY_TOKENS`).
- `temperature`: 0 unless the judge says otherwise.
- the timeout: seconds one call may take. Engines that ragjudge owns (the in-process llama.cpp
  engine, the OpenAI-compatible engine) read it from `metadata["ragjudge_timeout"]` (DSPy lets
  an engine-backed LM carry no connection settings); DSPy's own engines keep the `timeout`
  they were built with (the CLI's `--timeout` sets both).

A judge sets its options for the duration of a call with `generation_options(...)`.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import math
from collections.abc import Iterator, Mapping
from typing import Any, get_args, get_origin

import dspy
import pydantic
from dspy import lm15

from ragjudge.exceptions import ConfigurationError
from ragjudge.lm._parsing import MAX_LIST_ITEMS, shown_fields

__all__ = [
    "DEFAULT_TIMEOUT",
    "MAX_REPLY_TOKENS",
    "TIMEOUT_KEY",
    "GenerationOptions",
    "ReplyCutError",
    "check_generation",
    "current_options",
    "generation_kwargs",
    "generation_options",
    "text_tokens",
    "timeout_of",
    "token_budget",
]

#: Seconds one LM call may take by default.
DEFAULT_TIMEOUT = 120.0
#: The `metadata` key that carries a call's timeout to ragjudge's engines.
TIMEOUT_KEY = "ragjudge_timeout"


class ReplyCutError(lm15.InvalidRequestError):
    """A reply stopped by max_tokens or the timeout (DSPy does not retry it: it would stop
    again; the adapter reads a verdict from `partial` or asks once more without free text,
    `ragjudge.lm._cut`).

    Attributes:
        partial: The text generated before the cut.
        bound: What cut it: "max_tokens" or "timeout".
        max_tokens: The max_tokens of the cut call (None when unknown).
    """

    def __init__(
        self,
        message: str = "",
        *,
        partial: str = "",
        bound: str = "max_tokens",
        max_tokens: int | None = None,
    ) -> None:
        super().__init__(message)
        self.partial = partial
        self.bound = bound
        self.max_tokens = max_tokens


@dataclasses.dataclass(frozen=True)
class GenerationOptions:
    """How a judge's LM calls are bounded (None: the LM's own setting, else the default).

    Attributes:
        max_tokens: Tokens a reply may have; None sizes it per signature (`token_budget`).
        temperature: Sampling temperature; None keeps the LM's own, else 0 (greedy).
        timeout: Seconds one call may take; None means `DEFAULT_TIMEOUT`.
    """

    max_tokens: int | None = None
    temperature: float | None = None
    timeout: float | None = None


_current: contextvars.ContextVar[GenerationOptions | None] = contextvars.ContextVar(
    "ragjudge_generation", default=None
)


def check_generation(
    owner: str, *, max_tokens: int | None, temperature: float | None, timeout: float | None
) -> None:
    """Refuse impossible generation options with one house-style message."""
    if max_tokens is not None and (
        isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1
    ):
        raise ConfigurationError(
            f"The `max_tokens` parameter of {owner} must be a positive integer or None. "
            f"Got {max_tokens!r} instead."
        )
    if temperature is not None and not (
        isinstance(temperature, (int, float)) and 0.0 <= temperature <= 2.0
    ):
        raise ConfigurationError(
            f"The `temperature` parameter of {owner} must be in [0, 2] or None. "
            f"Got {temperature!r} instead."
        )
    if timeout is not None and not (isinstance(timeout, (int, float)) and timeout > 0):
        raise ConfigurationError(
            f"The `timeout` parameter of {owner} must be a positive number of seconds or None. "
            f"Got {timeout!r} instead."
        )


@contextlib.contextmanager
def generation_options(options: GenerationOptions) -> Iterator[None]:
    """Bound every LM call in the block by `options`."""
    token = _current.set(options)
    try:
        yield
    finally:
        _current.reset(token)


def current_options() -> GenerationOptions:
    """The options in force (the defaults outside any `generation_options` block)."""
    return _current.get() or GenerationOptions()


def _is_list(annotation: Any) -> bool:
    return get_origin(annotation) is list


#: The most tokens any reply is given by default: a budget sized from the input never exceeds
#: it (a judge's `max_tokens` option can).
MAX_REPLY_TOKENS = 2048
#: Tokens for one free-text output (a small model reasons at length; replies are ~70 tokens).
FREE_TEXT_TOKENS = 384
#: Tokens for one short typed value (a verdict, a number, a flag) with its JSON key.
SHORT_TOKENS = 24
#: Tokens for one sentence inside a list item (a statement's reason, or the statement).
SENTENCE_TOKENS = 48


def text_tokens(text: str) -> int:
    """A generous token count of `text`: one token per 3 characters (English runs ~4)."""
    return math.ceil(len(text) / 3)


def token_budget(signature: type[dspy.Signature], inputs: Mapping[str, Any]) -> int:
    """A max_tokens that fits a good reply to `signature` for these inputs, with room to spare.

    Free-text outputs get `FREE_TEXT_TOKENS` each, short typed ones `SHORT_TOKENS`. A list has
    as many items as the longest list input holds (the statements to judge), else one per 12
    words of the longest text input (statements to extract), at least 4. An item that is an
    object (a verdict) gets a sentence per free-text field (more when the input item it
    copies is longer) and 12 tokens per typed one; items of text (never more than the JSON
    schema's `MAX_LIST_ITEMS`) get 64 tokens each, and all of them together at most twice the
    longest text input (they restate it). The whole is at most
    `MAX_REPLY_TOKENS`: a verdict never gets room for thousands of tokens of a model that
    does not stop.
    """
    list_inputs = [v for v in inputs.values() if isinstance(v, (list, tuple))]
    texts = [str(v) for v in inputs.values() if isinstance(v, str)]
    longest_text = max((text_tokens(t) for t in texts), default=0)
    words = max((len(t.split()) for t in texts), default=0)
    items = max(len(v) for v in list_inputs) if list_inputs else max(4, math.ceil(words / 12))
    copied = max((text_tokens(str(x)) for v in list_inputs for x in v), default=0)
    budget = 48
    for info in signature.output_fields.values():
        annotation = info.annotation
        if _is_list(annotation):
            (item,) = get_args(annotation) or (str,)
            if item is str:
                n = min(items, MAX_LIST_ITEMS)
                budget += 16 + min(64 * n, 2 * longest_text + 16 * n)
            else:
                budget += 16 + items * (8 + max(0, copied - SENTENCE_TOKENS) + _object_tokens(item))
        elif annotation is str:
            budget += FREE_TEXT_TOKENS
        else:
            budget += SHORT_TOKENS
    return min(budget, MAX_REPLY_TOKENS)


def _object_tokens(model: Any) -> int:
    """Tokens for one object of `model` (a pydantic model): a sentence per free-text field
    the LM is asked for, 12 per typed one."""
    if not (isinstance(model, type) and issubclass(model, pydantic.BaseModel)):
        return SHORT_TOKENS
    fields = model.model_fields
    return sum(SENTENCE_TOKENS if fields[n].annotation is str else 12 for n in shown_fields(model))


def generation_kwargs(
    lm: Any, signature: type[dspy.Signature], inputs: Mapping[str, Any]
) -> dict[str, Any]:
    """The per-call keyword arguments that bound one call of `lm` for `signature`.

    A judge's explicit option wins; else a setting the LM was built with
    (`dspy.LM(..., max_tokens=...)`) stays; else the default (a budget sized for the signature,
    temperature 0). Engines that read ragjudge's timeout get it in `metadata`; DSPy's own
    engines keep the `timeout` they were built with (`--timeout` sets both).
    """
    options = current_options()
    own = {k: v for k, v in (getattr(lm, "kwargs", {}) or {}).items() if v is not None}
    kwargs: dict[str, Any] = {}
    if options.max_tokens is not None:
        kwargs["max_tokens"] = options.max_tokens
    elif "max_tokens" not in own and "max_completion_tokens" not in own:
        kwargs["max_tokens"] = token_budget(signature, inputs)
    if options.temperature is not None:
        kwargs["temperature"] = float(options.temperature)
    elif "temperature" not in own:
        kwargs["temperature"] = 0.0
    engine = getattr(lm, "_engine_spec", None)
    if getattr(engine, "reads_ragjudge_timeout", False):
        timeout = DEFAULT_TIMEOUT if options.timeout is None else options.timeout
        kwargs["metadata"] = {TIMEOUT_KEY: f"{timeout:g}"}
    return kwargs


def timeout_of(config: Any, default: float = DEFAULT_TIMEOUT) -> float:
    """The timeout an engine should apply to one request (from its `metadata`)."""
    extensions = getattr(config, "extensions", None) or {}
    metadata = extensions.get("metadata") or {}
    try:
        return float(metadata[TIMEOUT_KEY])
    except (KeyError, TypeError, ValueError):
        return default
