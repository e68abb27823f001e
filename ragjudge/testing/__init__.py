"""Test tools: a scripted LM engine and an OpenAI-compatible test server on 127.0.0.1."""

from ragjudge.testing._scripted import ScriptedEngine, scripted_lm
from ragjudge.testing._server import FAULTS, TestServer

__all__ = [
    "FAULTS",
    "ScriptedEngine",
    "TestServer",
    "scripted_lm",
]
