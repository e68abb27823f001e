"""Which LM a judge talks to: the offline judge or any model DSPy reaches."""

from __future__ import annotations

import functools
import os
from typing import Any

import dspy

from ragjudge.exceptions import ConfigurationError
from ragjudge.lm._llama_engine import LlamaCppEngine
from ragjudge.lm._models import gguf_path
from ragjudge.lm._openai_engine import (
    OPENAI_COMPATIBLE_PREFIXES,
    OpenAICompatibleEngine,
    uses_proxy,
)
from ragjudge.offline.engine import OfflineEngine
from ragjudge.offline.model import OfflineParams

__all__ = [
    "CONNECTION_KEYS",
    "GGUF",
    "LOCAL",
    "LOCAL_MINILM",
    "OFFLINE_MODEL_PREFIX",
    "describe_lm",
    "gguf_lm",
    "is_offline_lm",
    "is_offline_name",
    "offline_lm",
    "resolve_lm",
]

LOCAL = "local"
#: The offline judge with MiniLM paraphrase evidence (extra `ragjudge[paraphrase]`).
LOCAL_MINILM = "local/minilm"
#: The prefix of LM strings that name a local GGUF model (`gguf/smollm2`, `gguf/path/m.gguf`).
GGUF = "gguf"
#: `dspy.LM` keyword arguments that say where to connect, not what to ask.
CONNECTION_KEYS = frozenset({"api_base", "base_url", "api_key"})

# Never fetch LiteLLM's price map from the network: the bundled copy is enough.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


@functools.lru_cache(maxsize=32)
def _offline_lm_cached(params_json: str, cache: bool) -> dspy.LM:
    params = OfflineParams.model_validate_json(params_json)
    engine = OfflineEngine(params)
    return dspy.LM(engine.model_name, engine=engine, num_retries=0, cache=cache)


def offline_lm(params: OfflineParams | None = None, *, cache: bool = False) -> dspy.LM:
    """The offline judge as a `dspy.LM`, versioned by its parameters.

    Args:
        params: The offline model's parameters; `None` for the defaults.
        cache: Use DSPy's response cache. Off by default: the offline judge is deterministic
            and recomputing an answer is cheaper than a disk-cache round trip.

    Returns:
        A `dspy.LM` whose engine is the offline judge; one object per distinct parameters.
    """
    params = params or OfflineEngine().model.params
    return _offline_lm_cached(params.model_dump_json(), cache)


#: The start of the offline judge's model string (`local/ragjudge-offline@<fingerprint>`).
OFFLINE_MODEL_PREFIX = "local/ragjudge-offline"


def is_offline_lm(lm: object) -> bool:
    """Whether a resolved LM (or its model string, as reports keep it) is the offline judge:
    pure-Python rules, no language model.

    Example:
        >>> is_offline_lm("local/ragjudge-offline@7d6672915df6"), is_offline_lm("openai/gpt-4o")
        (True, False)
    """
    model = lm if isinstance(lm, str) else getattr(lm, "model", "")
    return str(model).startswith(OFFLINE_MODEL_PREFIX)


def is_offline_name(lm: object) -> bool:
    """Whether an `lm` option names the offline judge (`None` counts: it is the default).

    Args:
        lm: A judge's `lm`: a string, a `dspy.LM` or None.

    Returns:
        True for None, `"local"` and `"local/minilm"`.
    """
    return lm is None or lm in (LOCAL, LOCAL_MINILM)


def gguf_lm(name: str, *, cache: bool = True, **kwargs: Any) -> dspy.LM:
    """A local GGUF model, run in process (`ragjudge.lm._llama_engine.LlamaCppEngine`).

    Args:
        name: `gguf/<short name>` (see `ragjudge.lm._models.MODELS`) or `gguf/<path>.gguf`.
        cache: Use DSPy's response cache.
        **kwargs: Passed to `dspy.LM` (temperature, max_tokens, num_retries, ...); a
            `timeout` is not: the judge's `timeout` option bounds each call.

    Returns:
        The LM; the model file is loaded on the first call, once per process.
    """
    path = gguf_path(name.split("/", 1)[1])
    kwargs.pop("timeout", None)
    kwargs.pop("api_key", None)
    options: dict[str, Any] = {"num_retries": 0, "cache": cache, "temperature": 0.0}
    options.update(kwargs)
    return dspy.LM(name, engine=LlamaCppEngine(model_path=path), **options)


def resolve_lm(
    lm: str | dspy.LM | None,
    *,
    offline_params: OfflineParams | None = None,
    api_base: str | None = None,
    cache: bool = True,
    **kwargs: Any,
) -> dspy.LM:
    """Turn what the user named into a `dspy.LM`.

    Args:
        lm: `"local"` for the offline judge (`"local/minilm"`: with MiniLM paraphrase
            evidence), `"gguf/<name or path>"` for a local model run in
            process, a model string such as `"openai/gpt-4o-mini"`,
            a ready `dspy.LM`, or None: the LM from `dspy.configure` if any, else the offline judge.
        offline_params: Fitted parameters for the offline judge.
        api_base: Base URL of a server. For an OpenAI-compatible one (vLLM, llama.cpp, a
            proxy) named `openai/<model>` or `hosted_vllm/<model>`, calls go through
            `OpenAICompatibleEngine` (unless an HTTP proxy applies); else through DSPy's router.
        cache: Use DSPy's response cache.
        **kwargs: Passed to `dspy.LM` (temperature, max_tokens, num_retries, ...).

    Returns:
        The LM to use.
    """
    if isinstance(lm, dspy.BaseLM):
        return lm
    if lm is None:
        configured = dspy.settings.lm
        if configured is not None:
            return configured
        lm = LOCAL
    if lm in (LOCAL, LOCAL_MINILM):
        params = offline_params or OfflineParams()
        if lm == LOCAL_MINILM and not params.paraphrase:
            params = params.model_copy(update={"paraphrase": True})
        return offline_lm(params, cache=False)
    if lm.split("/", 1)[0] == GGUF and "/" in lm:
        if api_base:
            raise ConfigurationError(f"`lm` {lm} runs in process: drop `api_base`")
        return gguf_lm(lm, cache=cache, **kwargs)
    options: dict[str, Any] = {"num_retries": 5, "cache": cache, "temperature": 0.0}
    options.update(kwargs)
    if api_base and lm.split("/", 1)[0] in OPENAI_COMPATIBLE_PREFIXES and not uses_proxy(api_base):
        # A self-hosted OpenAI-compatible server: the lean engine (DSPy still does the rest).
        engine = OpenAICompatibleEngine(
            api_base=api_base,
            api_key=options.pop("api_key", None) or "EMPTY",
            timeout=options.pop("timeout", None),
            headers=options.pop("extra_headers", None),
        )
        return dspy.LM(lm, engine=engine, **options)
    if api_base:
        options["api_base"] = api_base
    return dspy.LM(lm, **options)


def describe_lm(lm: dspy.BaseLM) -> str:
    """The model string of an LM, for reports."""
    return str(getattr(lm, "model", type(lm).__name__))
