"""Helpers shared by the reliability tests (rows, subprocess environment, server LMs)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import dspy

from ragjudge.data._gold import GoldRecord
from ragjudge.lm._resolve import resolve_lm
from ragjudge.testing._server import TestServer

REPO = Path(__file__).resolve().parents[2]

FACTS = [
    ("Where was Einstein born?", "Albert Einstein was born in Ulm, Germany, in 1879.", True),
    ("What is the capital of France?", "Paris is the capital and largest city of France.", True),
    ("When did the Berlin Wall fall?", "The Berlin Wall fell on 9 November 1989.", True),
    ("What do pandas eat?", "Giant pandas eat almost only bamboo leaves and shoots.", True),
]


def make_rows(n: int) -> list[GoldRecord]:
    """`n` small labeled rows: supported answers and a contradicted variant of each."""
    rows = []
    for i in range(n):
        question, context, supported = FACTS[i % len(FACTS)]
        answer = context if i % 2 == 0 else context.replace("1", "7").replace("a", "o", 1)
        rows.append(
            GoldRecord(
                id=f"r{i:04d}",
                question=f"{question} (#{i})",
                contexts=[context],
                answer=answer,
                faithful=1 if (i % 2 == 0 and supported) else 0,
                source="toy",
            )
        )
    return rows


def write_rows(path: Path, rows: list[GoldRecord]) -> Path:
    """Write rows as JSONL."""
    path.write_text("".join(r.model_dump_json() + "\n" for r in rows), encoding="utf-8")
    return path


def cli_env() -> dict[str, str]:
    """Environment for `python -m ragjudge` subprocesses: this checkout first, no network."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    env.pop("OPENAI_API_KEY", None)
    return env


PYTHON = sys.executable


def server_lm(srv: TestServer, *, stack: str = "dspy", **kwargs: Any) -> dspy.LM:
    """A real `dspy.LM` pointed at the test server.

    `stack="dspy"`: DSPy's default (its router and native OpenAI-chat engine);
    `stack="ragjudge"`: what the CLI builds (`resolve_lm`: ragjudge's OpenAI-compatible engine).
    """
    options: dict[str, Any] = {"num_retries": 3, "cache": False, "temperature": 0.0}
    options.update(kwargs)
    if stack == "ragjudge":
        return resolve_lm("openai/gpt-4o-mini", api_base=srv.api_base, api_key="x", **options)
    return dspy.LM("openai/gpt-4o-mini", api_base=srv.api_base, api_key="x", **options)
