"""A DSPy engine that runs a GGUF model in process through llama-cpp-python (`ragjudge[local]`).

`dspy.LM("gguf/smollm2", engine=LlamaCppEngine(path))` plugs in through DSPy's supported
engine hook, so the adapter, the response cache, usage tracking and retries are DSPy's as for
any LM. The engine adds what a local model needs:

- **bounds**: every call stops at its `max_tokens` and at its timeout (a stopping criterion
  that checks the clock after each token); a reply cut by either is an error, never a hang.
- **structured output**: a JSON-schema `response_format` becomes a llama.cpp grammar, so the
  reply is valid JSON of that schema.
- **verdict probabilities**: with `logprobs`, the top alternatives of every generated token are
  read from the logits (log-softmax), without llama-cpp-python's `logits_all` buffers.
- **prefix reuse**: llama-cpp-python keeps the previous prompt's KV cache and evaluates only what
  differs, and saved states (a `LlamaRAMCache`) let each of several alternating prompts resume
  from its own prefix; the reused prefix is reported as `cache_read_tokens`.
- **one call at a time per model**: the model is loaded once per process and calls on it are
  serialized (threads wait on a lock).
"""

from __future__ import annotations

import atexit
import functools
import logging
import os
import threading
import time
from pathlib import Path
from typing import Any

import orjson
from dspy import lm15
from dspy.lm15 import Message, Request, Response, TokenLogprob, TopLogprob, Usage

from ragjudge.exceptions import ConfigurationError
from ragjudge.lm._generation import ReplyCutError, timeout_of

__all__ = ["LlamaCppEngine"]

logger = logging.getLogger(__name__)

_TOP = 10  # alternatives recorded per generated token
_STATE_CACHE_BYTES = 1 << 30  # saved model states (about 100 MB each at n_ctx 4096)
# Loading a model or building a grammar: one thread at a time. llama-cpp-python silences them by
# pointing the process's stdout/stderr at /dev/null and back; two threads doing so at once
# restore each other's /dev/null, and a command's output (say, compile's JSON) is lost.
_SETUP_LOCK = threading.Lock()


def _default_threads() -> int:
    configured = os.environ.get("RAGJUDGE_LLAMA_THREADS", "").strip()
    if configured.isdigit() and int(configured) > 0:
        return int(configured)
    return max(1, (os.cpu_count() or 1) // 2)


@functools.lru_cache(maxsize=4)
def _load(path: str, n_ctx: int, n_threads: int) -> tuple[Any, threading.Lock]:
    try:
        import llama_cpp
    except ImportError as exc:
        raise ConfigurationError(
            "gguf/... models need llama-cpp-python: pip install 'ragjudge[local]'"
        ) from exc
    logger.info("loading %s (n_ctx=%d, %d threads)", path, n_ctx, n_threads)
    llm = llama_cpp.Llama(model_path=path, n_ctx=n_ctx, n_threads=n_threads, seed=0, verbose=False)
    # Saved states keyed by their tokens: a prompt resumes from the longest stored prefix, so
    # the two prompts of statement mode (extract, judge) each reuse their own instruction and
    # demos instead of evicting each other's.
    llm.set_cache(llama_cpp.LlamaRAMCache(capacity_bytes=_STATE_CACHE_BYTES))
    atexit.register(_close, llm)
    return llm, threading.Lock()


def _close(llm: Any) -> None:
    """Free a model while the interpreter still works. Left to garbage collection at shutdown,
    llama-cpp-python's finalizer points stdout at /dev/null and fails half-way (its C functions
    are already gone), so what a command had buffered for stdout never arrived."""
    try:
        llm.close()
    except Exception:  # best effort at exit
        logger.debug("closing %s failed", llm, exc_info=True)


@functools.lru_cache(maxsize=64)
def _grammar(schema_json: str) -> Any:
    from llama_cpp import LlamaGrammar

    return LlamaGrammar.from_json_schema(schema_json, verbose=False)


class _Watch:
    """A llama-cpp-python stopping criterion: the deadline, and top logprobs per token."""

    def __init__(self, llm: Any, deadline: float, logprobs: bool) -> None:
        self.llm = llm
        self.deadline = deadline
        self.logprobs = logprobs
        self.timed_out = False
        self.steps: list[tuple[Any, Any]] = []  # (top token ids, their logprobs) per token
        self._seen = -1

    def __call__(self, input_ids: Any, _logits: Any) -> bool:
        if self.logprobs and len(input_ids) != self._seen:
            self._seen = len(input_ids)
            self._record()
        if time.monotonic() > self.deadline:
            self.timed_out = True
            return True
        return False

    def _record(self) -> None:
        import numpy as np

        llm = self.llm
        logits = np.ctypeslib.as_array(llm._ctx.get_logits(), shape=(llm.n_vocab(),))
        top = np.argpartition(logits, -_TOP)[-_TOP:]
        top = top[np.argsort(-logits[top])]
        peak = float(logits.max())
        log_z = peak + float(np.log(np.exp(logits - peak).sum()))
        self.steps.append((top.tolist(), (logits[top] - log_z).tolist()))


class LlamaCppEngine:
    """A `dspy.LM` engine for a GGUF model, run in process.

    Args:
        model_path: The GGUF file.
        n_ctx: Context window in tokens (prompt and reply).
        n_threads: CPU threads; 0 (default) takes `$RAGJUDGE_LLAMA_THREADS`, else half the
            cores (at least one): llama.cpp's threads spin-wait, and on a machine shared with
            other work fewer threads run faster (measured here: 1 thread 22 s, 2 threads 40 s
            for the same call on a loaded 2-core machine).

    Example:
        >>> engine = LlamaCppEngine(model_path="smollm2.gguf")  # doctest: +SKIP
        >>> lm = dspy.LM("gguf/smollm2", engine=engine, num_retries=0)  # doctest: +SKIP
    """

    supports_response_schema = False  # DSPy plans no capabilities; ragjudge's adapter asks
    supports_json_schema = True
    supports_logprobs = True
    reads_ragjudge_timeout = True

    def __init__(self, *, model_path: str | Path, n_ctx: int = 4096, n_threads: int = 0) -> None:
        self.model_path = str(model_path)
        self.n_ctx = int(n_ctx)
        self.n_threads = int(n_threads) or _default_threads()

    def __deepcopy__(self, memo: dict[int, Any]) -> LlamaCppEngine:
        return self  # the model is shared per process

    def complete(self, request: Request) -> Response:
        """One chat completion, bounded by max_tokens and the timeout."""
        with _SETUP_LOCK:  # one load per process (lru_cache alone lets threads race)
            llm, lock = _load(self.model_path, self.n_ctx, self.n_threads)
        config = request.config
        messages = self._messages(request)
        timeout = timeout_of(config)
        max_tokens = int(config.max_tokens or 512)
        kwargs: dict[str, Any] = {
            "max_tokens": max_tokens,
            "temperature": float(config.temperature or 0.0),
            "seed": int(config.seed or 0),
        }
        if config.stop:
            kwargs["stop"] = list(config.stop)
        schema = _schema(config.response_format)
        if schema is not None:
            with _SETUP_LOCK:
                kwargs["grammar"] = _grammar(
                    orjson.dumps(schema, option=orjson.OPT_SORT_KEYS).decode()
                )
        from llama_cpp import StoppingCriteriaList

        with lock:  # waiting for the model is not part of the call's time
            prompt, stop, stops = _render(llm, messages)
            kwargs["prompt"] = prompt
            kwargs["stop"] = [*kwargs.get("stop", []), *stop]
            watch = _Watch(llm, time.monotonic() + timeout, config.logprobs is not None)
            kwargs["stopping_criteria"] = StoppingCriteriaList([watch, *stops])
            reused = _reusable_prefix(llm, prompt)
            try:
                reply = llm.create_completion(**kwargs)
            except ValueError as exc:  # "Requested tokens (...) exceed context window of ..."
                raise lm15.ContextLengthError(f"{self.model_path}: {exc}") from None
            usage = reply.get("usage") or {}
            prompt_tokens = len(prompt)
            generated = llm.input_ids[prompt_tokens : llm.n_tokens].tolist()
            logprobs = self._logprobs(llm, watch, generated) if watch.logprobs else None
        choice = reply["choices"][0]
        text = (choice.get("text") or "").strip()
        if watch.timed_out:
            raise ReplyCutError(
                f"no complete reply within the timeout of {timeout:g} s "
                f"({usage.get('completion_tokens', 0)} tokens generated)",
                partial=text,
                bound="timeout",
                max_tokens=max_tokens,
            )
        if choice.get("finish_reason") == "length":
            raise ReplyCutError(
                f"the reply reached max_tokens={max_tokens} before it was complete",
                partial=text,
                max_tokens=max_tokens,
            )
        return Response(
            id=reply.get("id"),
            model=request.model,
            message=Message.assistant(text),
            finish_reason="stop",
            usage=Usage(
                input_tokens=prompt_tokens,
                output_tokens=int(usage.get("completion_tokens") or 0),
                cache_read_tokens=reused,
            ),
            logprobs=logprobs,
        )

    @staticmethod
    def _messages(request: Request) -> list[dict[str, str]]:
        if request.tools:
            raise lm15.UnsupportedFeatureError("tools are not supported", feature="tools")
        messages: list[dict[str, str]] = []
        if request.system:
            messages.append({"role": "system", "content": request.system})
        for message in request.messages:
            messages.append({"role": message.role, "content": message.text or ""})
        return messages

    @staticmethod
    def _logprobs(llm: Any, watch: _Watch, generated: list[int]) -> tuple[TokenLogprob, ...]:
        def text(token_id: int) -> str:
            return bytes(llm.detokenize([token_id])).decode("utf-8", "replace")

        out = []
        for index, (ids, values) in enumerate(watch.steps):
            chosen = generated[index] if index < len(generated) else ids[0]
            top = tuple(
                TopLogprob(token=text(i), logprob=float(v))
                for i, v in zip(ids, values, strict=True)
            )
            chosen_lp = next(
                (float(v) for i, v in zip(ids, values, strict=True) if i == chosen), None
            )
            out.append(
                TokenLogprob(
                    token=text(chosen),
                    logprob=chosen_lp if chosen_lp is not None else float(values[-1]),
                    top=top,
                )
            )
        return tuple(out)


@functools.lru_cache(maxsize=4)
def _formatter(llm: Any) -> Any:
    """The model's own chat template (GGUF metadata), as llama-cpp-python renders it."""
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    template = llm.metadata.get("tokenizer.chat_template")
    if not template:
        return None
    eos_id, bos_id = llm.token_eos(), llm.token_bos()
    return Jinja2ChatFormatter(
        template=template,
        eos_token=llm._model.token_get_text(eos_id) if eos_id != -1 else "",
        bos_token=llm._model.token_get_text(bos_id) if bos_id != -1 else "",
        stop_token_ids=[eos_id],
    )


def _render(llm: Any, messages: list[dict[str, str]]) -> tuple[list[int], list[str], list[Any]]:
    """The prompt tokens, stop strings and stopping criteria for a chat, in the model's format.

    A model without a chat template (a base model) gets plain `Role: text` turns.
    """
    formatter = _formatter(llm)
    if formatter is None:
        turns = [f"{m['role'].capitalize()}: {m['content']}" for m in messages]
        text, stop, stops, added = "\n\n".join([*turns, "Assistant:"]), ["\nUser:"], [], False
    else:
        result = formatter(messages=messages)
        text, added = result.prompt, result.added_special
        stop = (
            []
            if result.stop is None
            else [result.stop]
            if isinstance(result.stop, str)
            else list(result.stop)
        )
        stops = list(result.stopping_criteria or [])
    tokens = llm.tokenize(text.encode("utf-8"), add_bos=not added, special=True)
    return tokens, stop, stops


def _schema(response_format: Any) -> dict[str, Any] | None:
    """The JSON schema of a canonical `json_schema` response format, if any."""
    if not response_format:
        return None
    value = dict(response_format)
    if value.get("type") != "json_schema":
        return None
    schema = value.get("schema") or (value.get("json_schema") or {}).get("schema")
    return dict(schema) if schema else None


def _reusable_prefix(llm: Any, prompt: list[int]) -> int:
    """Prompt tokens llama-cpp-python will not evaluate again: the longest prefix shared with
    the model's current state or with a saved state (it resumes from whichever is longer)."""
    reused = _common_prefix(llm.input_ids[: llm.n_tokens].tolist(), prompt)
    if llm.cache is not None:
        try:
            state = llm.cache[prompt]
        except KeyError:
            return reused
        reused = max(reused, _common_prefix(state.input_ids.tolist(), prompt))
    return min(reused, max(0, len(prompt) - 1))  # the last prompt token is always evaluated


def _common_prefix(a: Any, b: Any) -> int:
    n = min(len(a), len(b))
    for i in range(n):
        if a[i] != b[i]:
            return i
    return n
