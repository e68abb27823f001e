"""The offline judge as a DSPy engine: `dspy.LM(model, engine=OfflineEngine(...))`.

DSPy renders the prompt exactly as for a real LM; the engine reads the signature's fields and
the inputs back from the request, answers with the offline model and renders the reply in the
adapter's format. So demos, caching, retries and parsing run unchanged; the engine reports no
token usage, so a judge on it counts no LM call and no token.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from dspy.lm15 import Message, Request, Response, Usage

from ragjudge.offline.model import OfflineModel, OfflineParams

__all__ = ["OfflineEngine", "ParsedPrompt", "parse_prompt", "register_task"]

_FIELD_LINE = re.compile(r"^\d+\. `(\w+)` \(([^)]*)\)", re.M)
# The reminders that end the last input block (ChatAdapter's, JSONAdapter's).
_REMINDERS = (
    "\n\nRespond with the corresponding output fields",
    "\n\nRespond with a JSON object in the following order of fields",
)

TaskHandler = Callable[[OfflineModel, dict[str, Any]], dict[str, Any]]
_TASKS: dict[frozenset[str], TaskHandler] = {}


def register_task(outputs: frozenset[str] | set[str], handler: TaskHandler) -> None:
    """Teach the engine a signature: the handler answers requests with these output fields.

    Args:
        outputs: The signature's output field names.
        handler: `(model, inputs) -> outputs`, a dict with every output field.
    """
    _TASKS[frozenset(outputs)] = handler


@dataclass(frozen=True)
class ParsedPrompt:
    """What the engine recovered from a DSPy request."""

    inputs: dict[str, Any]
    input_types: dict[str, str]
    outputs: list[str]
    instructions: str
    json_mode: bool


def parse_prompt(request: Request) -> ParsedPrompt:
    """Recover field names, instructions and the final inputs from a rendered DSPy prompt.

    Args:
        request: The request DSPy's adapter built.

    Returns:
        The parsed prompt.

    Raises:
        ValueError: If the request was not rendered by a DSPy adapter.
    """
    system = request.system or ""
    if "Your input fields are:" not in system or "Your output fields are:" not in system:
        raise ValueError("not a DSPy prompt: the system message lists no fields")
    _, _, rest = system.partition("Your input fields are:")
    in_part, _, out_part = rest.partition("Your output fields are:")
    out_part = out_part.split("All interactions will be structured", 1)[0]
    input_types = {name: kind for name, kind in _FIELD_LINE.findall(in_part)}
    outputs = [name for name, _ in _FIELD_LINE.findall(out_part)]
    instructions = system.rsplit("your objective is:", 1)[-1].strip()
    json_mode = "Outputs will be a JSON object" in system
    users = [m for m in request.messages if m.role == "user"]
    if not users:
        raise ValueError("not a DSPy prompt: no user message")
    text = users[-1].text or ""
    return ParsedPrompt(
        inputs=_parse_blocks(text, list(input_types), input_types),
        input_types=input_types,
        outputs=outputs,
        instructions=instructions,
        json_mode=json_mode,
    )


def _parse_blocks(text: str, names: list[str], types: dict[str, str]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    end = len(text)
    reminder = max(text.rfind(r) for r in _REMINDERS)
    for name in reversed(names):
        header = f"[[ ## {name} ## ]]"
        start = text.rfind(header, 0, end)
        if start < 0:
            values[name] = ""
            continue
        stop = reminder if name == names[-1] and reminder > start else end
        raw = text[start + len(header) : stop].strip()
        values[name] = raw if types.get(name) == "str" else _loads(raw)
        end = start
    return values


def _loads(raw: str) -> Any:
    try:
        return json.loads(raw)
    except json.JSONDecodeError:
        return raw


class OfflineEngine:
    """A DSPy engine that answers ragjudge's signatures with the offline model.

    Args:
        params: The offline model's weights and thresholds; `None` for the defaults.

    Example:
        >>> import dspy
        >>> engine = OfflineEngine()
        >>> lm = dspy.LM(engine.model_name, engine=engine)
    """

    supports_response_schema = False

    def __init__(self, params: OfflineParams | None = None) -> None:
        self.model = OfflineModel(params)
        self.calls = 0
        self._lock = threading.Lock()

    @property
    def model_name(self) -> str:
        """A model string versioned by the parameters, so cache keys differ when they do."""
        return f"local/ragjudge-offline@{self.model.fingerprint()}"

    def complete(self, request: Request) -> Response:
        """Answer one DSPy request."""
        with self._lock:
            self.calls += 1
        parsed = parse_prompt(request)
        handler = _TASKS.get(frozenset(parsed.outputs))
        if handler is None:
            raise ValueError(
                f"the offline judge does not implement a signature with outputs {parsed.outputs}"
            )
        result = handler(self.model, parsed.inputs)
        text = _render(result, parsed.outputs, json_mode=parsed.json_mode)
        # No usage: the offline judge is not a language model, so DSPy's usage tracker records
        # nothing and a judge counts no LM call and no token for it (`JudgeResult.lm_calls`).
        return Response(
            id=None,
            model=request.model,
            message=Message.assistant(text),
            finish_reason="stop",
            usage=Usage(),
        )

    def dump_state(self) -> dict[str, Any]:
        """The engine's state (its parameters), JSON-serializable."""
        return {"params": self.model.params.model_dump(mode="json")}

    @classmethod
    def load_state(cls, state: dict[str, Any]) -> OfflineEngine:
        """Rebuild an engine from `dump_state()`."""
        return cls(OfflineParams.model_validate(state["params"]))


def _render(result: dict[str, Any], outputs: list[str], *, json_mode: bool) -> str:
    ordered = {name: result[name] for name in outputs}
    if json_mode:
        return json.dumps(ordered)
    blocks = [
        f"[[ ## {name} ## ]]\n{value if isinstance(value, str) else json.dumps(value)}"
        for name, value in ordered.items()
    ]
    return "\n\n".join([*blocks, "[[ ## completed ## ]]"])


def _extract(model: OfflineModel, inputs: dict[str, Any]) -> dict[str, Any]:
    return {
        "statements": model.extract_statements(
            question=str(inputs.get("question", "")), answer=str(inputs.get("answer", ""))
        )
    }


def _judge(model: OfflineModel, inputs: dict[str, Any]) -> dict[str, Any]:
    statements = inputs.get("statements") or []
    if not isinstance(statements, list):
        statements = [str(statements)]
    verdicts = model.judge_statements(
        context=str(inputs.get("context", "")), statements=[str(s) for s in statements]
    )
    return {"verdicts": verdicts}


def _whole(model: OfflineModel, inputs: dict[str, Any]) -> dict[str, Any]:
    return model.judge_answer(
        question=str(inputs.get("question", "")),
        context=str(inputs.get("context", "")),
        answer=str(inputs.get("answer", "")),
    )


register_task({"statements"}, _extract)
register_task({"verdicts"}, _judge)
register_task({"reasoning", "verdict", "confidence"}, _whole)
