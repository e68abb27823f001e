"""A reply cut at max_tokens: its verdict read from what it wrote, else one retry that cannot run
on, and the row's error says which was tried (scripted engines, no model)."""

from __future__ import annotations

import json
from typing import Any, Literal

import dspy
import pytest
from dspy.lm15 import Request, Response

from ragjudge.lm._generation import MAX_REPLY_TOKENS, ReplyCutError, token_budget
from ragjudge.lm._parsing import output_schema
from ragjudge.programs import Faithfulness
from ragjudge.signatures import ExtractStatements, JudgeAnswer, JudgeStatements
from ragjudge.testing import ScriptedEngine, scripted_lm

CONTEXT = ["Albert Einstein was born in Ulm, Germany, in 1879."]
RUNS_ON = '{"reasoning": "' + "The answer says Ulm. " * 40


def _cut(partial: str, limit: int = 480) -> ReplyCutError:
    return ReplyCutError(
        f"the reply reached max_tokens={limit} before it was complete",
        partial=partial,
        max_tokens=limit,
    )


class SchemaEngine(ScriptedEngine):
    """A scripted engine that takes JSON schemas (as llama.cpp's does): replies or raises, in
    order."""

    supports_json_schema = True
    supports_logprobs = False
    reads_ragjudge_timeout = True


def _lm(engine: Any) -> dspy.LM:
    return dspy.LM("gguf/test", engine=engine, num_retries=0, cache=False)


def _schema(request: Request) -> dict[str, Any]:
    return dict(request.config.response_format)["schema"]


def test_a_cut_verdict_is_asked_once_more_without_its_reasoning_under_a_schema() -> None:
    engine = SchemaEngine([_cut(RUNS_ON), '{"verdict": "no", "confidence": 0.1}'])
    judge = Faithfulness(mode="whole", lm=_lm(engine))
    result = judge(question="Where?", contexts=CONTEXT, answer="Einstein was born in Bern.")
    assert result.error is None and result.passed is False
    assert result.lm_calls == 2 and len(engine.requests) == 2
    assert result.lm_stats is not None and result.lm_stats["cut_retried"] == 1
    retry = engine.requests[1]
    assert set(_schema(retry)["properties"]) == {"verdict", "confidence"}
    assert retry.config.max_tokens is not None and retry.config.max_tokens <= 96


def test_a_verdict_already_written_is_read_from_the_cut_reply_without_another_call() -> None:
    partial = '{"verdict": "yes", "confidence": 0.9, "reasoning": "' + "Ulm. " * 90
    engine = SchemaEngine([_cut(partial)])
    result = Faithfulness(mode="whole", lm=_lm(engine))(
        question="Where?", contexts=CONTEXT, answer="Ulm."
    )
    assert result.error is None and result.passed is True
    assert result.lm_calls == 1 and len(engine.requests) == 1
    assert result.lm_stats is not None and result.lm_stats["cut_read"] == 1


def test_a_reply_cut_inside_a_number_is_not_read() -> None:
    engine = SchemaEngine([_cut('{"verdict": "yes", "confidence": 0.'), '{"verdict": "yes"}'])
    result = Faithfulness(mode="whole", lm=_lm(engine))(
        question="Where?", contexts=CONTEXT, answer="Ulm."
    )
    assert result.error is None and len(engine.requests) == 2
    assert result.lm_stats is not None and result.lm_stats["cut_retried"] == 1


def test_a_retry_cut_too_is_the_rows_error_and_says_what_was_tried() -> None:
    engine = SchemaEngine([_cut(RUNS_ON), _cut('{"verdict": "', 96)])
    result = Faithfulness(mode="whole", lm=_lm(engine))(
        question="Where?", contexts=CONTEXT, answer="Ulm."
    )
    assert result.error is not None
    assert "max_tokens=480" in result.error and "no verdict in what it wrote" in result.error
    assert "one more try without free text" in result.error and "was cut too" in result.error
    assert result.lm_calls == 2 and len(engine.requests) == 2


def test_cut_statement_verdicts_are_retried_without_copies_and_reasons() -> None:
    statements = ["Einstein was born in Ulm.", "Einstein was born in 1879."]
    engine = SchemaEngine(
        [
            json.dumps({"statements": statements}),
            _cut('{"verdicts": [{"statement": "' + "Einstein " * 200),
            json.dumps({"verdicts": [{"verdict": "yes", "confidence": 0.9}, {"verdict": "no"}]}),
        ]
    )
    judge = Faithfulness(mode="statement", aggregation="mean", lm=_lm(engine))
    result = judge(question="Who?", contexts=CONTEXT, answer="Einstein was born in Ulm in 1879.")
    assert result.error is None, result.error
    assert [s.text for s in result.statements] == statements
    assert [s.verdict for s in result.statements] == ["yes", "no"]
    items = _schema(engine.requests[2])["properties"]["verdicts"]
    assert set(items["items"]["properties"]) == {"verdict", "confidence"}
    assert items["minItems"] == items["maxItems"] == 2
    assert result.lm_calls == 3


def test_without_a_schema_the_retry_asks_for_the_verdict_alone() -> None:
    lm, engine = scripted_lm([_cut(RUNS_ON), {"verdict": "no", "confidence": 0.2}])
    result = Faithfulness(mode="whole", lm=lm)(question="q", contexts=CONTEXT, answer="Bern.")
    assert result.error is None and result.passed is False and len(engine.requests) == 2
    retry = engine.prompt(1)
    assert "[[ ## verdict ## ]]" in retry and "[[ ## reasoning ## ]]" not in retry
    assert engine.requests[1].config.max_tokens <= 96


def test_statements_to_extract_without_a_schema_are_not_retried_and_the_error_says_so() -> None:
    lm, engine = scripted_lm([_cut('[[ ## statements ## ]]\n["Einstein ' + "was " * 300)])
    result = Faithfulness(mode="statement", lm=lm)(question="q", contexts=CONTEXT, answer="Ulm.")
    assert result.error is not None and "not retried" in result.error
    assert len(engine.requests) == 1 and result.lm_calls == 1


def test_statements_to_extract_are_retried_with_bounded_strings_under_a_schema() -> None:
    engine = SchemaEngine(
        [
            _cut('{"statements": ["Einstein ' + "was " * 300),
            '{"statements": ["Einstein was born in Ulm."]}',
            '{"verdicts": [{"statement": "s", "reason": "r", "verdict": "yes", "confidence": 1}]}',
        ]
    )
    result = Faithfulness(mode="statement", lm=_lm(engine))(
        question="q", contexts=CONTEXT, answer="Einstein was born in Ulm."
    )
    assert result.error is None and result.passed is True
    items = _schema(engine.requests[1])["properties"]["statements"]["items"]
    assert items == {"type": "string", "maxLength": 160}


def test_a_timeout_is_not_retried() -> None:
    cut = ReplyCutError("no complete reply within the timeout of 5 s", partial="{", bound="timeout")
    engine = SchemaEngine([cut])
    result = Faithfulness(mode="whole", lm=_lm(engine))(question="q", contexts=CONTEXT, answer="a")
    assert result.error is not None and "timeout" in result.error and len(engine.requests) == 1


def test_a_verdict_never_gets_room_for_thousands_of_tokens() -> None:
    long_answer = "Einstein was a physicist who was born in Ulm. " * 300
    statements = ["Einstein was a physicist who was born in the city of Ulm."] * 60
    assert token_budget(JudgeAnswer, {"question": "q", "context": "c", "answer": "a"}) == 480
    assert token_budget(ExtractStatements, {"question": "q", "answer": long_answer}) <= 1600
    assert token_budget(JudgeStatements, {"context": "c", "statements": statements}) <= 2048
    assert MAX_REPLY_TOKENS == 2048
    # a few short statements: about what they need, not 160 tokens each
    few = token_budget(JudgeStatements, {"context": "c", "statements": statements[:3]})
    assert few <= 450


def test_the_grammar_asks_only_for_fields_the_prompt_shows() -> None:
    schema = output_schema(JudgeStatements, {"statements": ["a", "b"]})
    item = schema["properties"]["verdicts"]["items"]
    assert set(item["properties"]) == {"statement", "reason", "verdict", "confidence"}


@pytest.mark.parametrize("mode", ["whole", "statement"])
def test_a_reply_that_stops_is_one_call_as_before(mode: Literal["whole", "statement"]) -> None:
    replies: list[str | Exception] = (
        ['{"reasoning": "r", "verdict": "yes", "confidence": 0.9}']
        if mode == "whole"
        else [
            '{"statements": ["Ulm."]}',
            '{"verdicts": [{"statement": "Ulm.", "reason": "r", "verdict": "yes", '
            '"confidence": 0.9}]}',
        ]
    )
    engine = SchemaEngine(replies)
    result = Faithfulness(mode=mode, lm=_lm(engine))(question="q", contexts=CONTEXT, answer="Ulm.")
    assert result.error is None and result.lm_calls == len(replies)
    assert result.lm_stats is not None and result.lm_stats["cut_retried"] == 0


def test_the_retrys_verdict_confidence_comes_from_its_logprobs() -> None:
    from test_replies import LogprobEngine  # the scripted engine that offers logprobs

    class CutThenLogprobs(LogprobEngine):
        def complete(self, request: Request) -> Response:
            if not self.requests:
                self.requests.append(request)
                raise _cut(RUNS_ON)
            return super().complete(request)

    engine = CutThenLogprobs(['{"verdict": "yes", "confidence": 0.2}'], p_yes=0.8)
    judge = Faithfulness(mode="whole", aggregation="mean", lm=_lm(engine))
    result = judge(question="Where?", contexts=CONTEXT, answer="Ulm.")
    assert result.error is None and result.confidence_source == "logprobs"
    assert result.confidence == pytest.approx(0.8)
