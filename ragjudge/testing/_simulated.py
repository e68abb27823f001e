"""A simulated LM judge: verdicts that agree with the gold label with a set probability.

For studying a cascade's mechanism without a strong LM at hand: the simulated LM is right on a
row with probability `accuracy`, decided by a hash of the row's answer and the seed, so its
errors are independent of the offline judge's. Its confidence P(yes) leans toward its verdict.
It answers faithfulness in whole mode (one call) and statement mode (the answer as one
statement, then its verdict). It is a simulation: figures made with it say so.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

import dspy
from dspy.lm15 import Request, Response

from ragjudge.offline.engine import _render, parse_prompt
from ragjudge.testing._scripted import ScriptedEngine

__all__ = ["SimulatedJudgeEngine", "simulated_lm"]


class SimulatedJudgeEngine(ScriptedEngine):
    """A DSPy engine whose faithfulness verdicts agree with `labels` with probability
    `accuracy`, independently across rows.

    Args:
        labels: The gold label (1 faithful, 0 not) of each answer, keyed by the answer text.
        accuracy: The probability that a verdict agrees with the label.
        seed: Which rows it gets wrong.
    """

    def __init__(self, labels: Mapping[str, int], *, accuracy: float, seed: int = 0) -> None:
        super().__init__([])
        if not 0.0 <= accuracy <= 1.0:
            raise ValueError(f"accuracy must be in [0, 1], got {accuracy!r}")
        self.labels = {_key(k): int(v) for k, v in labels.items()}
        self.accuracy = accuracy
        self.seed = seed

    def complete(self, request: Request) -> Response:
        """Reply as a judge that is right with probability `accuracy`."""
        parsed = parse_prompt(request)
        with self._lock:
            self.replies.append(_render(self._outputs(parsed), parsed.outputs, json_mode=False))
        return super().complete(request)

    def verdict(self, answer: str) -> tuple[str, float]:
        """The simulated verdict on an answer and the confidence P(yes) that goes with it."""
        key = _key(answer)
        label = self.labels.get(key)
        right = _unit(self.seed, "right", key) < self.accuracy
        says_yes = bool(label) if right or label is None else not label
        lean = 0.5 + 0.5 * (0.2 + 0.8 * _unit(self.seed, "lean", key))
        return ("yes", lean) if says_yes else ("no", 1.0 - lean)

    def _outputs(self, parsed: Any) -> dict[str, Any]:
        inputs, names = parsed.inputs, set(parsed.outputs)
        if names == {"statements"}:
            return {"statements": [str(inputs.get("answer", ""))]}
        if names == {"verdicts"}:
            verdicts = []
            for statement in inputs.get("statements") or []:
                verdict, p_yes = self.verdict(str(statement))
                verdicts.append(
                    {
                        "statement": statement,
                        "reason": "simulated",
                        "verdict": verdict,
                        "confidence": round(p_yes, 4),
                    }
                )
            return {"verdicts": verdicts}
        if "verdict" in names:
            verdict, p_yes = self.verdict(str(inputs.get("answer", "")))
            return {"reasoning": "simulated", "verdict": verdict, "confidence": round(p_yes, 4)}
        raise ValueError(f"the simulated judge answers faithfulness only, not {sorted(names)}")


def simulated_lm(
    labels: Mapping[str, int], *, accuracy: float, seed: int = 0
) -> tuple[dspy.LM, SimulatedJudgeEngine]:
    """A `dspy.LM` on a `SimulatedJudgeEngine`; returns the LM and its engine.

    Example:
        >>> lm, engine = simulated_lm({"Paris is in France.": 1}, accuracy=1.0)
        >>> engine.verdict("Paris is in France.")[0]
        'yes'
    """
    engine = SimulatedJudgeEngine(labels, accuracy=accuracy, seed=seed)
    model = f"simulated/judge-{accuracy:g}-s{seed}"
    return dspy.LM(model, engine=engine, num_retries=0, cache=False), engine


def _key(text: str) -> str:
    return " ".join(str(text).split())


def _unit(*parts: Any) -> float:
    digest = hashlib.sha256(repr(parts).encode()).hexdigest()
    return int(digest[:12], 16) / float(16**12)
