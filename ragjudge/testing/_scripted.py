"""Test helpers for judges: a scripted LM that answers from a list and records every prompt."""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from typing import Any

import dspy
from dspy.lm15 import Message, Request, Response, Usage

__all__ = ["ScriptedEngine", "scripted_lm"]


class ScriptedEngine:
    """A DSPy engine that replies with scripted texts, in order, and records each request.

    A dict reply is rendered in ChatAdapter's format (`[[ ## field ## ]]` blocks); a str reply
    is sent as is (to script malformed output); an exception is raised (to script a reply cut
    at max_tokens, `ragjudge.lm.ReplyCutError`, or a failed request).
    """

    supports_response_schema = False

    def __init__(self, replies: Sequence[str | dict[str, Any] | Exception]) -> None:
        self.replies = list(replies)
        self.requests: list[Request] = []
        self._lock = threading.Lock()

    def complete(self, request: Request) -> Response:
        """Reply with the next scripted text."""
        with self._lock:
            self.requests.append(request)
            if not self.replies:
                raise RuntimeError("the scripted LM ran out of replies")
            reply = self.replies.pop(0)
        if isinstance(reply, Exception):
            raise reply
        text = reply if isinstance(reply, str) else render(reply)
        return Response(
            id=None,
            model=request.model,
            message=Message.assistant(text),
            finish_reason="stop",
            usage=Usage(input_tokens=10, output_tokens=5),
        )

    def prompt(self, index: int = -1) -> str:
        """The full text of a recorded request (system + messages)."""
        request = self.requests[index]
        return "\n".join([request.system or "", *(m.text or "" for m in request.messages)])


def render(outputs: dict[str, Any]) -> str:
    """Outputs in ChatAdapter's reply format."""
    blocks = [
        f"[[ ## {k} ## ]]\n{v if isinstance(v, str) else json.dumps(v)}" for k, v in outputs.items()
    ]
    return "\n\n".join([*blocks, "[[ ## completed ## ]]"])


def scripted_lm(
    replies: Sequence[str | dict[str, Any] | Exception], *, model: str = "scripted/test"
) -> tuple[dspy.LM, ScriptedEngine]:
    """A `dspy.LM` that replies from `replies`; returns the LM and its engine (for prompts).

    Example:
        >>> lm, engine = scripted_lm([{"statements": ["The sky is blue."]}])
    """
    engine = ScriptedEngine(replies)
    return dspy.LM(model, engine=engine, num_retries=0, cache=False), engine
