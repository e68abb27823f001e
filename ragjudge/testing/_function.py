"""A scripted LM whose reply is a fixed function of the prompt: for tests that judge the same
row several ways (judging again, rescoring, after a save) and need the same LM each time."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import dspy

from ragjudge.offline.engine import _render, parse_prompt
from ragjudge.testing._scripted import ScriptedEngine

__all__ = ["FunctionEngine", "function_lm"]


def _unit(*parts: Any) -> float:
    """A number in [0, 1] that is a fixed function of `parts`."""
    digest = hashlib.sha256(json.dumps(parts, default=str).encode()).hexdigest()
    return int(digest[:8], 16) / 0xFFFFFFFF


def _passages(context: Any) -> list[str]:
    """The passages of a rendered context, in the order the prompt gives them: like a real
    LM's, what the scripted LM replies depends on that order (a judge whose verdict must not
    depend on it has to show the passages in one order, `ragjudge.programs._base`)."""
    return [p.strip() for p in str(context or "").split("\n\n") if p.strip()]


class FunctionEngine(ScriptedEngine):
    """A scripted LM whose reply is a fixed function of the prompt's inputs (the passages in
    the order shown) and of the sampling temperature: the same request always gets the same
    verdicts, confidences and ratings, so judging again, rescoring and judging after a save
    all see the same LM, while a sample at a non-zero temperature answers differently from a
    greedy one (as an ensemble's repeats do). Every request is recorded (`requests`): the LM
    calls a compile really made."""

    def __init__(self) -> None:
        super().__init__([])

    def complete(self, request: Any) -> Any:
        parsed = parse_prompt(request)
        salt = request.config.temperature or None  # a sample differs from the greedy reply
        outputs = self._outputs(parsed, salt)
        with self._lock:
            self.replies.append(_render(outputs, parsed.outputs, json_mode=False))
        return super().complete(request)

    @staticmethod
    def _outputs(parsed: Any, salt: float | None = None) -> dict[str, Any]:
        inputs, names = parsed.inputs, set(parsed.outputs)
        context: Any = _passages(inputs.get("context"))
        if salt is not None:
            context = [context, salt]
        if names == {"statements"}:
            answer = str(inputs.get("answer", ""))
            return {"statements": [s.strip() + "." for s in answer.split(".") if s.strip()][:3]}
        if names in ({"verdicts"}, {"attributions"}):
            key = "statements" if names == {"verdicts"} else "reference_statements"
            verdicts = []
            for s in inputs.get(key) or []:
                u = _unit(s, context)
                verdict = "yes" if u > 0.45 else ("unsure" if u > 0.3 else "no")
                verdicts.append(
                    {"statement": s, "reason": "scripted", "verdict": verdict, "confidence": u}
                )
            return {next(iter(names)): verdicts}
        if names == {"reference_statements"}:
            text = str(inputs.get("reference", ""))
            return {"reference_statements": [s.strip() for s in text.split(".") if s.strip()][:3]}
        if names == {"questions", "noncommittal"}:
            u = _unit(inputs.get("answer"), *([] if salt is None else [salt]))
            return {"questions": [f"What about {u:.3f}?", "What is it?"], "noncommittal": u < 0.1}
        u = _unit(inputs.get("question"), inputs.get("answer"), inputs.get("reference"), context)
        if "verdict" in names:
            return {"reasoning": "scripted", "verdict": "yes" if u > 0.5 else "no", "confidence": u}
        rating = next(n for n in parsed.outputs if n.endswith("_score"))
        return {"reasoning": "scripted", rating: 1 + int(u * 4.999)}


def function_lm() -> tuple[dspy.LM, FunctionEngine]:
    """A fresh scripted LM (`FunctionEngine`) and its engine.

    Example:
        >>> lm, engine = function_lm()
        >>> engine.requests
        []
    """
    engine = FunctionEngine()
    return dspy.LM("scripted/function", engine=engine, num_retries=0, cache=False), engine
