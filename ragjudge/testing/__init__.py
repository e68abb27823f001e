"""Test tools: `assert_faithful` for your own tests (with the pytest plugin
`ragjudge.testing._pytest`), a scripted LM engine and an OpenAI-compatible test server on
127.0.0.1.

The names load on first use (PEP 562), so the pytest plugin, which pytest imports in every
session, costs nothing until a test asks for a judge.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS = {
    "FAULTS": "ragjudge.testing._server",
    "FunctionEngine": "ragjudge.testing._function",
    "ScriptedEngine": "ragjudge.testing._scripted",
    "SimulatedJudgeEngine": "ragjudge.testing._simulated",
    "TestServer": "ragjudge.testing._server",
    "assert_faithful": "ragjudge.testing._assertions",
    "function_lm": "ragjudge.testing._function",
    "scripted_lm": "ragjudge.testing._scripted",
    "simulated_lm": "ragjudge.testing._simulated",
    "session_judge": "ragjudge.testing._assertions",
}

__all__ = [
    "FAULTS",
    "FunctionEngine",
    "ScriptedEngine",
    "SimulatedJudgeEngine",
    "TestServer",
    "assert_faithful",
    "function_lm",
    "scripted_lm",
    "session_judge",
    "simulated_lm",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'ragjudge.testing' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})


if TYPE_CHECKING:
    from ragjudge.testing._assertions import assert_faithful, session_judge
    from ragjudge.testing._function import FunctionEngine, function_lm
    from ragjudge.testing._scripted import ScriptedEngine, scripted_lm
    from ragjudge.testing._server import FAULTS, TestServer
    from ragjudge.testing._simulated import SimulatedJudgeEngine, simulated_lm
