"""Verdict probabilities from token logprobs: P(yes) / (P(yes) + P(no)) at each verdict token.

Where an LM returns the top alternatives of every generated token (OpenAI-compatible servers'
`logprobs`/`top_logprobs`, the in-process llama.cpp engine), the confidence of a verdict is read
from the distribution the model had at the verdict's first token, not from the number it wrote:
the mass on tokens that begin "yes" against the mass on tokens that begin "no". That makes a
whole-answer verdict a continuous score a threshold can be put on.

The verdict tokens are found by position: the reply's text is the concatenation of its tokens,
and the value after each `"verdict":` key (JSON) or `[[ ## verdict ## ]]` header (sections) is
the verdict, in order.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

__all__ = ["verdict_offsets", "verdict_probabilities", "yes_probability"]

_JSON_VERDICT = re.compile(r'"verdict"\s*:\s*"?')
_SECTION_VERDICT = re.compile(r"\[\[ ## verdict ## \]\]\s*")
_STRIP = " \t\n\"'`*_.,:;"


def verdict_offsets(text: str) -> list[int]:
    """Character offsets where each verdict value starts in a reply (JSON or sections)."""
    offsets = [m.end() for m in _JSON_VERDICT.finditer(text)]
    if not offsets:
        offsets = [m.end() for m in _SECTION_VERDICT.finditer(text)]
    return offsets


def _side(token: str) -> str | None:
    word = token.strip(_STRIP).lower()
    if not word:
        return None
    if "yes".startswith(word):
        return "yes"
    if "no".startswith(word):
        return "no"
    return None


def yes_probability(top: Sequence[tuple[str, float]]) -> float | None:
    """P(yes) / (P(yes) + P(no)) over one token's alternatives `(token, logprob)`.

    Tokens are matched after stripping quotes, spaces and punctuation, case-insensitively, as
    prefixes of "yes" / "no" ("Y", " yes", '"Yes' count for yes). None when neither appears.

    Example:
        >>> round(yes_probability([("yes", math.log(0.6)), ("no", math.log(0.2))]), 2)
        0.75
    """
    mass = {"yes": 0.0, "no": 0.0}
    for token, logprob in top:
        side = _side(token)
        if side is not None and logprob is not None and math.isfinite(logprob):
            mass[side] += math.exp(logprob)
    total = mass["yes"] + mass["no"]
    return None if total <= 0.0 else mass["yes"] / total


def verdict_probabilities(text: str, logprobs: Any) -> list[float | None]:
    """P(yes) for each verdict in `text`, from OpenAI-shaped logprobs.

    Args:
        text: The reply.
        logprobs: `{"content": [{"token", "logprob", "top_logprobs": [{"token", "logprob"}]}]}`
            as DSPy returns them (or the list under "content").

    Returns:
        One probability (or None where the verdict's token has neither yes nor no among its
        alternatives) per verdict, in order; empty when the tokens do not spell out `text`.
    """
    content = logprobs.get("content") if isinstance(logprobs, dict) else logprobs
    if not content:
        return []
    starts: list[int] = []
    pieces: list[str] = []
    position = 0
    for item in content:
        token = str(item.get("token", ""))
        starts.append(position)
        pieces.append(token)
        position += len(token)
    spelled = "".join(pieces)
    shift = spelled.find(text[:32]) if text else 0
    if shift < 0:
        shift = len(spelled) - len(spelled.lstrip())
    results: list[float | None] = []
    for offset in verdict_offsets(text):
        at = offset + shift
        index = _token_at(starts, pieces, at)
        if index is None:
            results.append(None)
            continue
        item = content[index]
        if not pieces[index][at - starts[index] :].strip(_STRIP) and index + 1 < len(content):
            item = content[index + 1]  # the token ends with the quote: the verdict is the next one
        top = [(str(t.get("token", "")), t.get("logprob")) for t in item.get("top_logprobs") or ()]
        if not top:
            top = [(str(item.get("token", "")), item.get("logprob"))]
        results.append(yes_probability(top))
    return results


def _token_at(starts: list[int], pieces: list[str], at: int) -> int | None:
    for index in range(len(starts)):
        if starts[index] <= at < starts[index] + max(1, len(pieces[index])):
            return index
    return None
