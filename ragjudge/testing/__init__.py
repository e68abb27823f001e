"""Test tools: `assert_faithful` for your own tests (with the pytest plugin
`ragjudge.pytest_plugin`), a scripted LM engine and an OpenAI-compatible test server on
127.0.0.1."""

from ragjudge.testing._assertions import assert_faithful, session_judge
from ragjudge.testing._scripted import ScriptedEngine, scripted_lm
from ragjudge.testing._server import FAULTS, TestServer

__all__ = [
    "FAULTS",
    "ScriptedEngine",
    "TestServer",
    "assert_faithful",
    "scripted_lm",
    "session_judge",
]
