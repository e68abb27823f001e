"""Replies that parse, verdict probabilities and bounded calls, with scripted LMs (no model)."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import dspy
import pytest
from dspy.lm15 import Message, Request, Response, TokenLogprob, TopLogprob, Usage

from ragjudge import load
from ragjudge.exceptions import ConfigurationError
from ragjudge.lm._adapters import CachedChatAdapter, StructuredChatAdapter, default_adapter
from ragjudge.lm._generation import ReplyCutError, generation_kwargs, token_budget
from ragjudge.lm._logprobs import verdict_probabilities, yes_probability
from ragjudge.lm._parsing import output_schema, read_verdict, salvage
from ragjudge.programs import Faithfulness
from ragjudge.signatures import ExtractStatements, JudgeAnswer, JudgeStatements
from ragjudge.testing import scripted_lm

GOLD = Path(
    os.environ.get("RAGJUDGE_GOLD", Path(__file__).resolve().parents[2].parent / "shared" / "gold")
)
CONTEXT = ["Albert Einstein was born in Ulm, Germany, in 1879."]


@pytest.mark.parametrize(
    ("said", "allowed", "read"),
    [
        ("Yes", ("yes", "no"), "yes"),
        ("YES.", ("yes", "no"), "yes"),
        ('"yes"', ("yes", "no"), "yes"),
        ("Supported", ("yes", "no"), "yes"),
        ("true", ("yes", "no"), "yes"),
        (True, ("yes", "no"), "yes"),
        ("Not supported", ("yes", "no"), "no"),
        ("unsupported", ("yes", "no", "unsure"), "no"),
        ("false", ("yes", "no"), "no"),
        ("No, it is not.", ("yes", "no"), "no"),
        ("unsure", ("yes", "no", "unsure"), "unsure"),
        ("Not enough information", ("yes", "no", "unsure"), "unsure"),
        ("not enough information", ("yes", "no"), "no"),
        ("banana", ("yes", "no"), None),
        ("", ("yes", "no"), None),
    ],
)
def test_verdicts_are_read_as_a_person_would(
    said: Any, allowed: tuple[str, ...], read: str
) -> None:
    assert read_verdict(said, allowed) == read


def test_salvage_repairs_near_misses_in_either_format() -> None:
    sections = "[[ ## reasoning ## ]]\nok\n[[ ## verdict ## ]]\nYES.\n[[ ## confidence ## ]]\n95"
    assert salvage(JudgeAnswer, sections) == {
        "reasoning": "ok",
        "verdict": "yes",
        "confidence": 0.95,
    }
    as_json = 'Sure! {"reasoning": "no", "verdict": "Not supported"'  # cut JSON, no confidence
    assert salvage(JudgeAnswer, as_json) == {"reasoning": "no", "verdict": "no", "confidence": None}
    verdicts = salvage(
        JudgeStatements,
        '{"verdicts": [{"statement": "A.", "verdict": "Supported", "confidence": "80%"}]}',
    )["verdicts"]
    assert (
        verdicts[0].verdict == "yes" and verdicts[0].reason == "" and verdicts[0].confidence == 0.8
    )
    assert salvage(ExtractStatements, "[[ ## statements ## ]]\n- A.\n- B.") == {
        "statements": ["A.", "B."]
    }
    with pytest.raises(ValueError, match="no `verdict` field"):
        salvage(JudgeAnswer, "I think the answer is fine.")


def test_output_schema_bounds_text_and_asks_one_verdict_per_statement() -> None:
    whole = output_schema(JudgeAnswer, {})
    assert whole["required"] == ["reasoning", "verdict", "confidence"]
    assert whole["properties"]["verdict"] == {"type": "string", "enum": ["yes", "no"]}
    judge = output_schema(JudgeStatements, {"context": "c", "statements": ["a", "b", "c"]})
    verdicts = judge["properties"]["verdicts"]
    assert verdicts["minItems"] == verdicts["maxItems"] == 3
    assert verdicts["items"]["properties"]["verdict"]["enum"] == ["yes", "no", "unsure"]


def test_yes_probability_is_the_mass_on_yes_against_no() -> None:
    top = [(" Yes", math.log(0.6)), ('"no', math.log(0.2)), ("maybe", math.log(0.1))]
    assert yes_probability(top) == pytest.approx(0.75)
    assert yes_probability([("maybe", -0.1)]) is None
    text = '{"reasoning": "r", "verdict": "yes", "confidence": 0.9}'
    tokens = ['{"', "reason", 'ing": "', "r", '", "', "verdict", '":', ' "', "yes", '",', "..."]
    assert "".join(tokens[:-1]) == text[: len("".join(tokens[:-1]))]
    content = [{"token": t, "logprob": -0.1, "top_logprobs": []} for t in tokens]
    content[8]["top_logprobs"] = [
        {"token": "yes", "logprob": math.log(0.7)},
        {"token": "no", "logprob": math.log(0.3)},
    ]
    assert verdict_probabilities(text, {"content": content}) == [pytest.approx(0.7)]
    sections = "[[ ## verdict ## ]]\nno"
    pieces = ["[[ ## verdict ## ]]\n", "no"]
    content = [
        {"token": pieces[0], "logprob": -0.1},
        {
            "token": "no",
            "logprob": math.log(0.9),
            "top_logprobs": [
                {"token": "no", "logprob": math.log(0.9)},
                {"token": "yes", "logprob": math.log(0.1)},
            ],
        },
    ]
    assert verdict_probabilities(sections, {"content": content}) == [pytest.approx(0.1)]


def test_token_budget_grows_with_the_statements_to_judge() -> None:
    whole = token_budget(JudgeAnswer, {"question": "q", "context": "c", "answer": "a"})
    few = token_budget(JudgeStatements, {"context": "c", "statements": ["a"]})
    many = token_budget(JudgeStatements, {"context": "c", "statements": ["a"] * 10})
    assert whole == 480 and few < many <= 4096


class LogprobEngine:
    """Replies with fixed texts and, for the verdict token, fixed top logprobs."""

    supports_response_schema = False
    supports_json_schema = True
    supports_logprobs = True
    reads_ragjudge_timeout = True

    def __init__(self, replies: list[str], p_yes: float | None) -> None:
        self.replies = replies
        self.p_yes = p_yes
        self.requests: list[Request] = []
        self.lock = threading.Lock()

    def complete(self, request: Request) -> Response:
        with self.lock:
            self.requests.append(request)
            text = self.replies.pop(0)
        logprobs = None
        if self.p_yes is not None and request.config.logprobs:
            tokens = []
            for piece in _split_at_verdicts(text):
                top: tuple[TopLogprob, ...] = ()
                if piece in ("yes", "no"):
                    top = (
                        TopLogprob(token="yes", logprob=math.log(self.p_yes)),
                        TopLogprob(token="no", logprob=math.log(1 - self.p_yes)),
                    )
                tokens.append(TokenLogprob(token=piece, logprob=-0.1, top=top))
            logprobs = tuple(tokens)
        return Response(
            id=None,
            model=request.model,
            message=Message.assistant(text),
            finish_reason="stop",
            usage=Usage(input_tokens=100, output_tokens=10, cache_read_tokens=60),
            logprobs=logprobs,
        )


def _split_at_verdicts(text: str) -> list[str]:
    pieces, rest = [], text
    while rest:
        cut = min((i for i in (rest.find('"yes"'), rest.find('"no"')) if i >= 0), default=-1)
        if cut < 0:
            pieces.append(rest)
            break
        word = "yes" if rest[cut:].startswith('"yes"') else "no"
        pieces += [rest[: cut + 1], word]
        rest = rest[cut + 1 + len(word) :]
    return [p for p in pieces if p]


def _engine_lm(engine: Any) -> dspy.LM:
    return dspy.LM("gguf/test", engine=engine, num_retries=0, cache=False)


def test_whole_mode_confidence_comes_from_logprobs_and_scores_continuously() -> None:
    reply = '{"reasoning": "Ulm is in the context.", "verdict": "yes", "confidence": 0.2}'
    engine = LogprobEngine([reply], p_yes=0.8)
    judge = Faithfulness(mode="whole", aggregation="mean", lm=_engine_lm(engine))
    result = judge(question="Where?", contexts=CONTEXT, answer="Ulm.")
    assert result.error is None
    assert result.confidence == pytest.approx(0.8) and result.score == pytest.approx(0.8)
    assert result.confidence_source == "logprobs"
    config = engine.requests[0].config
    assert config.logprobs and config.temperature == 0.0 and config.max_tokens
    assert config.response_format["type"] == "json_schema"
    assert config.extensions["metadata"]["ragjudge_timeout"] == "120"
    assert result.lm_stats is not None
    assert result.lm_stats["first_try"] == 1 and result.lm_stats["cached_tokens"] == 60
    assert "Outputs will be a JSON object" in (engine.requests[0].system or "")


def test_without_logprobs_the_stated_confidence_is_used() -> None:
    reply = '{"reasoning": "r", "verdict": "yes", "confidence": 0.3}'
    judge = Faithfulness(
        mode="whole", aggregation="mean", lm=_engine_lm(LogprobEngine([reply], p_yes=None))
    )
    result = judge(question="Where?", contexts=CONTEXT, answer="Ulm.")
    assert result.confidence == pytest.approx(0.3) and result.confidence_source == "stated"


def test_statement_verdicts_get_logprob_confidences() -> None:
    extract = '{"statements": ["Einstein was born in Ulm.", "He was born in 1879."]}'
    judged = json.dumps(
        {
            "verdicts": [
                {"statement": "a", "reason": "r", "verdict": "yes", "confidence": 1.0},
                {"statement": "b", "reason": "r", "verdict": "no", "confidence": 1.0},
            ]
        }
    )
    engine = LogprobEngine([extract, judged], p_yes=0.9)
    judge = Faithfulness(mode="statement", aggregation="mean", lm=_engine_lm(engine))
    result = judge(question="Where?", contexts=CONTEXT, answer="Einstein was born in Ulm in 1879.")
    assert [s.confidence for s in result.statements] == [pytest.approx(0.9)] * 2
    assert result.confidence_source == "logprobs" and result.score == pytest.approx(0.9)
    schema = engine.requests[1].config.response_format["schema"]
    assert schema["properties"]["verdicts"]["maxItems"] == 2


def test_a_repairable_reply_costs_no_second_call() -> None:
    lm, engine = scripted_lm(
        ["[[ ## reasoning ## ]]\nfine\n[[ ## verdict ## ]]\nSupported.\n[[ ## confidence ## ]]\n90"]
    )
    result = Faithfulness(mode="whole", lm=lm)(question="q", contexts=CONTEXT, answer="Ulm.")
    assert result.error is None and result.passed is True
    assert result.lm_calls == 1 and len(engine.requests) == 1
    assert result.lm_stats is not None
    assert result.lm_stats["salvaged"] == 1 and result.lm_stats["first_try"] == 0


def test_an_unreadable_reply_is_asked_once_more_then_is_the_rows_error() -> None:
    lm, engine = scripted_lm(["I cannot say.", "Still nothing."])
    result = Faithfulness(mode="whole", lm=lm)(question="q", contexts=CONTEXT, answer="Ulm.")
    assert result.error and "AdapterParseError" in result.error
    assert len(engine.requests) == 2
    assert result.lm_stats is not None and result.lm_stats["failed"] == 1


class CutEngine(LogprobEngine):
    def complete(self, request: Request) -> Response:
        raise ReplyCutError(f"the reply reached max_tokens={request.config.max_tokens}")


def test_a_cut_reply_is_the_rows_error_and_options_reach_the_call() -> None:
    engine = CutEngine([], p_yes=None)
    judge = Faithfulness(mode="whole", lm=_engine_lm(engine), max_tokens=7, timeout=3)
    result = judge(question="q", contexts=CONTEXT, answer="Ulm.")
    assert result.error and "max_tokens=7" in result.error
    # the cut reply and its one retry (cut too) were calls (the costliest kind), though
    # DSPy's usage tracking never saw them
    assert result.lm_calls == 2
    assert result.lm_stats is not None and result.lm_stats["lm_errors"] == 2


def test_generation_options_are_checked_stored_and_keyed(tmp_path: Any) -> None:
    with pytest.raises(ConfigurationError, match="`max_tokens` parameter of Faithfulness"):
        Faithfulness(max_tokens=0)
    with pytest.raises(ConfigurationError, match="`timeout` parameter"):
        Faithfulness(timeout=-1)
    judge = Faithfulness(mode="whole", max_tokens=64, temperature=0.5, timeout=9)
    judge.save(tmp_path / "j.json")
    loaded = load(tmp_path / "j.json")
    assert (loaded.max_tokens, loaded.temperature, loaded.timeout) == (64, 0.5, 9)
    lm = _engine_lm(LogprobEngine([], p_yes=None))
    from ragjudge.lm._generation import generation_options

    options = loaded.generation()
    assert options is not None
    with generation_options(options):
        kwargs = generation_kwargs(lm, JudgeAnswer, {})
    assert kwargs == {"max_tokens": 64, "temperature": 0.5, "metadata": {"ragjudge_timeout": "9"}}


def test_default_adapter_asks_for_json_only_where_the_engine_offers_schemas() -> None:
    assert type(default_adapter(_engine_lm(LogprobEngine([], p_yes=None)))) is StructuredChatAdapter
    lm, _ = scripted_lm([])
    assert type(default_adapter(lm)) is CachedChatAdapter


def test_cli_options_reach_the_judge_and_bad_values_exit_2(tmp_path: Any) -> None:
    from ragjudge.cli import build_parser
    from ragjudge.cli._runopts import judge_with_lm_options

    args = build_parser().parse_args(
        "evaluate --gold x.jsonl --max-tokens 300 --temperature 0.2 --timeout 30 --lm local".split()
    )
    judge = judge_with_lm_options(Faithfulness(lm="local"), args)
    assert (judge.max_tokens, judge.temperature, judge.timeout) == (300, 0.2, 30.0)
    gold = tmp_path / "g.jsonl"
    gold.write_text(json.dumps({"id": "1", "question": "q", "contexts": ["c"], "answer": "a"}))
    bad = subprocess.run(
        [sys.executable, "-m", "ragjudge", "evaluate", "--gold", str(gold), "--max-tokens", "0"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    # the CLI names the option that sets the parameter (issue 32)
    assert bad.returncode == 2 and "--max-tokens" in bad.stderr and "Traceback" not in bad.stderr


def test_a_slow_server_reply_ends_at_the_judges_timeout() -> None:
    import time

    from ragjudge.lm._resolve import resolve_lm
    from ragjudge.testing._server import TestServer

    with TestServer(delay=0.0, script=["timeout"], timeout_delay=5.0) as server:
        lm = resolve_lm("openai/slow", api_base=server.api_base, api_key="x", num_retries=0)
        judge = Faithfulness(mode="whole", lm=lm, timeout=0.5)
        start = time.monotonic()
        result = judge(question="q", contexts=CONTEXT, answer="Einstein was born in Ulm.")
        elapsed = time.monotonic() - start
    assert result.error and "timeout of 0.5 s" in result.error
    assert elapsed < 4.0  # the 5-second reply was not waited for
