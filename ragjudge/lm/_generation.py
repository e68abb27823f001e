"""Bounded generation: max_tokens sized per signature, temperature and a per-call timeout.

Every LM call a judge makes carries these three settings, as per-call keyword arguments that
the adapter adds (`generation_kwargs`), so they are part of DSPy's response-cache key:

- `max_tokens`: the judge's option, else a budget sized for the signature and the row (a
  whole-answer verdict gets 480 tokens; judging statements gets room per statement).
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
from dspy import lm15

from ragjudge.exceptions import ConfigurationError

__all__ = [
    "DEFAULT_TIMEOUT",
    "TIMEOUT_KEY",
    "GenerationOptions",
    "ReplyCutError",
    "check_generation",
    "current_options",
    "generation_kwargs",
    "generation_options",
    "timeout_of",
    "token_budget",
]

#: Seconds one LM call may take by default.
DEFAULT_TIMEOUT = 120.0
#: The `metadata` key that carries a call's timeout to ragjudge's engines.
TIMEOUT_KEY = "ragjudge_timeout"


class ReplyCutError(lm15.InvalidRequestError):
    """A reply stopped by max_tokens or the timeout (not retried: it would stop again)."""


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


def token_budget(signature: type[dspy.Signature], inputs: Mapping[str, Any]) -> int:
    """A max_tokens that fits a good reply to `signature` for these inputs, with room to spare.

    Free-text outputs get 384 tokens each (small models reason at length), short typed ones
    24; a list output gets 64 tokens per string item and 160 per verdict item, for as many
    items as the longest list input holds (statements to judge), else one item per 12 words
    of the longest text input (statements to extract), at least 4.
    """
    list_inputs = [len(v) for v in inputs.values() if isinstance(v, (list, tuple))]
    words = max((len(str(v).split()) for v in inputs.values() if isinstance(v, str)), default=0)
    items = max(list_inputs) if list_inputs else max(4, math.ceil(words / 12))
    budget = 48
    for info in signature.output_fields.values():
        annotation = info.annotation
        if _is_list(annotation):
            (item,) = get_args(annotation) or (str,)
            per_item = 64 if item is str else 160
            budget += 16 + per_item * min(items, 64)
        elif annotation is str:
            budget += 384
        else:
            budget += 24
    return min(budget, 4096)


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
