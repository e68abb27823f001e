"""Retrying LM calls: DSPy's own retry loop, with jitter added to its backoff.

DSPy 3.4.1 already retries inside `dspy.LM` (`num_retries=N`), for both the native lm15 engine
(which `openai/...` models with an `api_base` use) and the LiteLLM engine: it classifies the
failure (`is_retryable_lm_error`: rate limits (429), timeouts, 5xx server errors, transport
errors), never replays a call whose output was already streamed, and waits `Retry-After`
seconds when the server sent that header, else `2**attempt` seconds (1, 2, 4, ... capped at 60).
What it lacks is jitter: N workers that hit a rate limit together retry together.

`install_jitter()` keeps that loop and replaces only its delay function with "equal jitter"
exponential backoff (half the backoff fixed, half random); a `Retry-After` hint is honoured
(never retried earlier) and spread by up to 10 %. Timeouts come from `dspy.LM(timeout=...)`
(a number of seconds per attempt). Unparseable output is a separate matter: ChatAdapter
retries it once through its JSON fallback; after that the row carries `error`.

Example:
    >>> from ragjudge.lm._retry import install_jitter, lm_options
    >>> install_jitter()
    True
    >>> lm_options(max_retries=5, timeout=30)
    {'num_retries': 5, 'timeout': 30.0}
"""

from __future__ import annotations

import logging
import math
import random
import threading
from collections.abc import Callable
from typing import Any

from ragjudge.exceptions import ConfigurationError

__all__ = ["backoff_delay", "install_jitter", "lm_options", "uninstall_jitter"]

logger = logging.getLogger(__name__)

_lock = threading.Lock()
_original: Callable[[Any, int], float] | None = None
_settings = {"base": 1.0, "cap": 60.0}
_rng = random.Random()


def backoff_delay(
    attempt: int,
    *,
    retry_after: float | None = None,
    base: float = 1.0,
    cap: float = 60.0,
    rng: random.Random | None = None,
) -> float:
    """Seconds to wait before retry number `attempt + 1`.

    Args:
        attempt: How many attempts failed before this one, minus one (0 after the first).
        retry_after: The server's `Retry-After` hint in seconds, if any: waited in full, plus
            up to 10 % (at most 1 s) of jitter.
        base: The first backoff, in seconds.
        cap: The longest backoff, in seconds (does not shorten a `Retry-After`).
        rng: The random source (for tests).

    Returns:
        The delay: without a hint, uniform in `[b/2, b]` where `b = min(cap, base * 2**attempt)`.

    Example:
        >>> 0.5 <= backoff_delay(0) <= 1.0
        True
        >>> 3.0 <= backoff_delay(5, retry_after=3.0) <= 3.3
        True
    """
    draw = (rng or _rng).random()
    if retry_after is not None and math.isfinite(retry_after) and retry_after >= 0:
        return retry_after + draw * min(1.0, 0.1 * retry_after)
    ceiling = min(cap, base * 2 ** min(max(attempt, 0), 30))
    return ceiling / 2 + draw * ceiling / 2


def _jittered_delay(exc: Any, attempt: int) -> float:
    from dspy.clients._http import finite_seconds

    hint = finite_seconds(getattr(exc, "retry_after", None))
    delay = backoff_delay(attempt, retry_after=hint, base=_settings["base"], cap=_settings["cap"])
    logger.info("LM call failed (%s); retry %d in %.2f s", type(exc).__name__, attempt + 1, delay)
    return delay


def install_jitter(*, base: float = 1.0, cap: float = 60.0) -> bool:
    """Make DSPy's retry loop wait with jittered exponential backoff (idempotent).

    Args:
        base: The first backoff in seconds.
        cap: The longest backoff in seconds.

    Returns:
        True if installed; False (with a warning) when this DSPy version has no such hook,
        in which case DSPy's own un-jittered backoff stays in place.

    Example:
        >>> install_jitter(base=0.5, cap=30)
        True
    """
    global _original
    if not (base > 0 and cap >= base):
        raise ConfigurationError(f"need 0 < base <= cap, got base={base!r}, cap={cap!r}")
    try:
        from dspy.clients import execution
    except ImportError:  # pragma: no cover - other DSPy versions
        logger.warning("this DSPy version has no retry hook; keeping its own backoff")
        return False
    with _lock:
        _settings.update(base=float(base), cap=float(cap))
        current = getattr(execution, "_delay", None)
        if current is None:  # pragma: no cover - other DSPy versions
            logger.warning("this DSPy version has no retry delay hook; keeping its own backoff")
            return False
        if current is not _jittered_delay:
            _original = current
            execution._delay = _jittered_delay
    return True


def uninstall_jitter() -> None:
    """Restore DSPy's own backoff."""
    global _original
    from dspy.clients import execution

    with _lock:
        if _original is not None:
            execution._delay = _original
            _original = None


def lm_options(*, max_retries: int | None = None, timeout: float | None = None) -> dict[str, Any]:
    """`dspy.LM` keyword arguments for a retry budget and a per-attempt timeout.

    Args:
        max_retries: Retries after the first attempt (`num_retries`); None keeps the default.
        timeout: Seconds each attempt may take; None keeps the engine's default.

    Returns:
        Keyword arguments for `dspy.LM` / `ragjudge.lm._resolve.resolve_lm`.

    Raises:
        ConfigurationError: For a negative retry count or a non-positive timeout.

    Example:
        >>> lm_options(max_retries=3)
        {'num_retries': 3}
    """
    options: dict[str, Any] = {}
    if max_retries is not None:
        if max_retries < 0:
            raise ConfigurationError(f"`max_retries` must be >= 0, got {max_retries}")
        options["num_retries"] = int(max_retries)
    if timeout is not None:
        if not (math.isfinite(timeout) and timeout > 0):
            raise ConfigurationError(
                f"`timeout` must be a positive number of seconds, got {timeout}"
            )
        options["timeout"] = float(timeout)
    return options
