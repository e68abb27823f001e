"""llama-cpp-python's OpenAI server with two of its costs fixed, for the real-LM benchmark.

    python benchmarks/_patched_llama_server.py --model m.gguf --logits_all True ...  # server args

**Logprobs by numpy.** For a non-streaming request with `logprobs`, llama-cpp-python 0.3.x
(`Llama._create_completion`) computes a log-softmax over the logits of *every* token of the
prompt and the reply, then sorts the whole vocabulary in Python, as a list of (logprob, id)
tuples, once per generated token, to take its top few. With Qwen2.5's 151,936-token vocabulary
that is about 0.14 s per generated token and 1.8 s per 1,200-token call on this machine, more
than the model itself; Gemma 3's vocabulary is 262,144 tokens. Here the two give the same values
from less work: the log-softmax of only the rows that are read, and the top 64 (logprob, id)
pairs by `argpartition`, in the order Python's `sorted(..., reverse=True)` gives them (logprob,
then id, descending). Requests may ask for at most 20 top logprobs (OpenAI's limit), so 64
covers every slice the server takes. The streaming path, which works on lists, is left as is.

**A RAM cache that counts what it holds.** With `--cache True`, each cached prompt state also
keeps a copy of its logits (`LlamaState.scores`: tokens x vocabulary x 4 bytes with
`--logits_all`, about 0.9 GB for a 1,500-token Qwen2.5 prompt), but `LlamaRAMCache` counts only
the model state (about 15 MB) against its capacity, so it never evicts: a 112-row statement-mode
run with Qwen2.5 grew the server to 23 GB and the kernel killed it. Here the cache counts both.

`tests/local_lm/test_patched_llama_server.py` checks the patches against the originals.
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

TOP = 64  # more than any request's top_logprobs (at most 20)


class _RowSoftmax:
    """`logits_to_logprobs(scores)` that computes only the rows a slice reads."""

    def __init__(self, logits: np.ndarray, original: Any) -> None:
        self._logits = logits
        self._original = original

    def __getitem__(self, key: Any) -> Any:
        return self._original(self._logits[key])

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        out = self._original(self._logits)
        return out if dtype is None else out.astype(dtype)


class _Ranked:
    """`zip(logprobs, range(n))` for a numpy row: iterates as zip does; `sorted` takes the top."""

    def __init__(self, values: np.ndarray, ids: range) -> None:
        self.values = values
        self.ids = ids

    def __iter__(self) -> Any:
        return builtins.zip(self.values, self.ids, strict=True)

    def top(self) -> list[tuple[Any, int]]:
        values = self.values
        k = min(TOP, len(values))
        part = np.argpartition(values, len(values) - k)[len(values) - k :]
        # descending by value, then by id, as sorted(reverse=True) orders (value, id) tuples
        order = np.lexsort((part, values[part]))[::-1]
        chosen = part[order]
        return [(values[i], int(i)) for i in chosen]


def _zip(*iterables: Any, **kwargs: Any) -> Any:
    if (
        len(iterables) == 2
        and not kwargs
        and isinstance(iterables[0], np.ndarray)
        and iterables[0].ndim == 1
        and isinstance(iterables[1], range)
        and len(iterables[1]) == len(iterables[0])
    ):
        return _Ranked(iterables[0], iterables[1])
    return builtins.zip(*iterables, **kwargs)  # noqa: B905 (the caller's own call)


def _sorted(iterable: Any, /, *, key: Any = None, reverse: bool = False) -> list[Any]:
    if isinstance(iterable, _Ranked) and key is None and reverse:
        return iterable.top()
    return builtins.sorted(iterable, key=key, reverse=reverse)


def _held_bytes(cache: Any) -> int:
    """What a RAM cache's states hold: the model state and the logits kept beside it."""
    return sum(
        state.llama_state_size + getattr(state.scores, "nbytes", 0)
        for state in cache.cache_state.values()
    )


def patch() -> None:
    """Patch `llama_cpp.llama` in this process (idempotent)."""
    from llama_cpp import llama, llama_cache

    if getattr(llama, "_ragjudge_patched", False):
        return
    original = llama.Llama.logits_to_logprobs

    def logits_to_logprobs(logits: Any, axis: int = -1) -> Any:
        if isinstance(logits, np.ndarray) and logits.ndim == 2 and axis == -1:
            return _RowSoftmax(logits, original)
        return original(logits, axis=axis)

    llama.Llama.logits_to_logprobs = staticmethod(logits_to_logprobs)  # type: ignore[method-assign]
    llama.zip = _zip  # type: ignore[attr-defined]
    llama.sorted = _sorted  # type: ignore[attr-defined]
    llama_cache.LlamaRAMCache.cache_size = property(_held_bytes)  # type: ignore[assignment]
    llama._ragjudge_patched = True  # type: ignore[attr-defined]


def main() -> None:
    patch()
    from llama_cpp.server.__main__ import main as serve

    serve()


if __name__ == "__main__":
    main()
