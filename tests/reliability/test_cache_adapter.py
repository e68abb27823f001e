"""The disk cache makes re-runs free; the memoizing adapter renders the exact same prompts."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import dspy
import pytest
from _reliability_helpers import PYTHON, cli_env, make_rows, server_lm, write_rows

from ragjudge.evaluation._runner import run_rows
from ragjudge.lm._adapters import CachedChatAdapter
from ragjudge.lm._parsing import salvage
from ragjudge.programs import Faithfulness
from ragjudge.signatures import ExtractStatements, JudgeAnswer, JudgeStatements, default_demos
from ragjudge.testing._server import TestServer


@pytest.mark.parametrize(
    ("signature", "key", "inputs"),
    [
        (ExtractStatements, "extract", {"question": "Q?", "answer": "A. B."}),
        (JudgeStatements, "judge", {"context": "C.", "statements": ["A.", "B."]}),
        (JudgeAnswer, "whole", {"question": "Q?", "context": "C.", "answer": "A."}),
    ],
)
def test_cached_adapter_renders_chat_adapter_prompts_exactly(
    signature: type[dspy.Signature], key: str, inputs: dict[str, object]
) -> None:
    demos = default_demos()[key]
    adapter = CachedChatAdapter()
    for _ in range(3):  # first render, then from the memo
        assert adapter.format(signature, demos, inputs) == dspy.ChatAdapter().format(
            signature, demos, inputs
        )
    changed = signature.with_instructions("Judge strictly.")
    assert adapter.format(changed, demos, inputs) == dspy.ChatAdapter().format(
        changed, demos, inputs
    )
    fewer = demos[:1]
    assert adapter.format(signature, fewer, inputs) == dspy.ChatAdapter().format(
        signature, fewer, inputs
    )


def test_cached_adapter_notices_an_edited_demo() -> None:
    demos = [d.copy() for d in default_demos()["extract"]]
    adapter = CachedChatAdapter()
    inputs = {"question": "Q?", "answer": "A."}
    adapter.format(ExtractStatements, demos, inputs)
    demos[0]["answer"] = "Something else entirely."
    assert adapter.format(ExtractStatements, demos, inputs) == dspy.ChatAdapter().format(
        ExtractStatements, demos, inputs
    )


def test_a_configured_adapter_wins() -> None:
    from ragjudge.lm._adapters import default_adapter

    assert isinstance(default_adapter(), CachedChatAdapter)
    with dspy.context(adapter=dspy.JSONAdapter()):
        assert isinstance(default_adapter(), dspy.JSONAdapter)


def test_rerun_makes_no_lm_call(disk_cache: Path, server: TestServer) -> None:
    rows = make_rows(10)
    lm = server_lm(server, cache=True)
    first = run_rows(Faithfulness(lm=lm), rows, concurrency=4)
    calls = server.stats()["requests"]
    assert calls == sum(r.lm_calls for r in first) > 0
    again = run_rows(Faithfulness(lm=server_lm(server, cache=True)), rows, concurrency=4)
    assert server.stats()["requests"] == calls
    assert sum(r.lm_calls for r in again) == 0
    assert [r.score for r in again] == [r.score for r in first]
    # Other sampling settings are other cache keys.
    run_rows(Faithfulness(lm=server_lm(server, cache=True, temperature=0.7)), rows[:2])
    assert server.stats()["requests"] > calls


def test_cli_cache_dir_and_no_cache(tmp_path: Path, server: TestServer) -> None:
    gold = write_rows(tmp_path / "rows.jsonl", make_rows(6))
    base = [
        PYTHON,
        "-m",
        "ragjudge",
        "evaluate",
        "--gold",
        str(gold),
        "--lm",
        "openai/gpt-4o-mini",
        "--api-base",
        server.api_base,
        "--format",
        "json",
    ]
    cache = ["--cache-dir", str(tmp_path / "cache")]

    def run(*extra: str) -> dict[str, object]:
        done = subprocess.run(
            [*base, *extra], env=cli_env(), capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)  # type: ignore[no-any-return]

    before = server.stats()["requests"]
    first = run(*cache)["lm_calls"]
    # 12 prompts, two pairs of them identical (rows 0 and 4): each pair is one call or two,
    # by timing (the second of a pair is a cache hit only if the first has finished).
    assert first == server.stats()["requests"] - before in (10, 11, 12)
    assert run(*cache)["lm_calls"] == 0
    assert server.stats()["requests"] - before == first
    assert (tmp_path / "cache").is_dir()
    assert run("--no-cache")["lm_calls"] == 12
    both = subprocess.run(
        [*base, "--no-cache", *cache], env=cli_env(), capture_output=True, text=True, timeout=60
    )
    assert both.returncode == 2 and "contradict" in both.stderr


_VERDICT = {"statement": "A.", "reason": "r", "verdict": "yes", "confidence": 0.9}
COMPLETIONS = [
    (JudgeStatements, f"[[ ## verdicts ## ]]\n{json.dumps([_VERDICT])}\n\n[[ ## completed ## ]]"),
    (
        JudgeStatements,
        "[[ ## verdicts ## ]]\n[{'statement': 'A.', 'reason': 'r', 'verdict': 'no'}]",
    ),
    (JudgeStatements, "[[ ## verdicts ## ]]\n" + json.dumps([{**_VERDICT, "verdict": "maybe"}])),
    (JudgeStatements, "[[ ## verdicts ## ]]\n[" + json.dumps(_VERDICT) + ", {broken"),
    (JudgeStatements, "no fields at all"),
    (ExtractStatements, '[[ ## statements ## ]]\n["A.", "B."]\n[[ ## completed ## ]]'),
    (ExtractStatements, "[[ ## statements ## ]] A. B."),
    (
        JudgeAnswer,
        "[[ ## reasoning ## ]]\nok\n[[ ## verdict ## ]]\nyes\n[[ ## confidence ## ]]\n0.8",
    ),
    (
        JudgeAnswer,
        "[[ ## reasoning ## ]]\nok\n[[ ## verdict ## ]]\n'no'\n[[ ## confidence ## ]]\nx",
    ),
]


@pytest.mark.parametrize(("signature", "completion"), COMPLETIONS)
def test_cached_adapter_parses_like_chat_adapter(
    signature: type[dspy.Signature], completion: str
) -> None:
    def outcome(adapter: dspy.ChatAdapter) -> object:
        try:
            return adapter.parse(signature, completion)
        except dspy.utils.exceptions.AdapterParseError as exc:
            return ("AdapterParseError", type(exc.__cause__).__name__ if exc.__cause__ else None)

    ours, theirs = outcome(CachedChatAdapter()), outcome(dspy.ChatAdapter())
    if isinstance(theirs, tuple):
        # Where DSPy gives up, ours repairs what a person could read, or gives up too.
        if not isinstance(ours, tuple):
            assert ours == salvage(signature, completion)
            assert set(ours) == set(signature.output_fields)
    else:
        assert ours == theirs
