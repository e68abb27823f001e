"""ragjudge's OpenAI-compatible engine: the wire format, keep-alive, and error classes that DSPy's
retry loop classifies (429/5xx/timeouts retried; 4xx not)."""

from __future__ import annotations

import json
import subprocess
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import dspy
import pytest
from _reliability_helpers import PYTHON, cli_env, make_rows, write_rows
from dspy import lm15
from dspy.lm15 import Message, Request

from ragjudge.exceptions import ConfigurationError
from ragjudge.lm._generation import ReplyCutError
from ragjudge.lm._openai_engine import OpenAICompatibleEngine
from ragjudge.lm._resolve import resolve_lm
from ragjudge.programs import Faithfulness
from ragjudge.testing._server import TestServer

OK = {
    "id": "c1",
    "model": "m",
    "choices": [{"message": {"role": "assistant", "content": "hello"}, "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 7, "completion_tokens": 2},
}


class Stub:
    """A one-route HTTP server replying with scripted (status, headers, body) and recording
    what it was sent."""

    def __init__(self, replies: list[tuple[int, dict[str, str], bytes]]) -> None:
        self.replies = replies
        self.seen: list[dict[str, Any]] = []
        self.connections: set[int] = set()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                stub.seen.append(
                    {"path": self.path, "auth": self.headers["Authorization"], **json.loads(body)}
                )
                stub.connections.add(self.client_address[1])
                status, headers, data = stub.replies.pop(0) if stub.replies else (200, {}, b"")
                self.send_response(status)
                for key, value in headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def stub() -> Iterator[Stub]:
    server = Stub([])
    yield server
    server.close()


def _request(**config: Any) -> Request:
    return Request(
        model="openai/org/model-7b",
        messages=(Message.user("question?"),),
        system="be brief",
        config=lm15.Config(**config),
    )


def test_wire_format_and_reply(stub: Stub) -> None:
    stub.replies = [(200, {}, json.dumps(OK).encode())] * 2
    engine = OpenAICompatibleEngine(api_base=stub.api_base, api_key="secret")
    response = engine.complete(
        _request(
            temperature=0.0,
            max_tokens=50,
            stop=("END",),
            response_format={"type": "json_schema", "schema": {"type": "object"}, "name": "r"},
        )
    )
    assert response.message.text == "hello" and response.finish_reason == "stop"
    assert response.usage.input_tokens == 7 and response.usage.output_tokens == 2
    sent = stub.seen[0]
    assert sent["path"] == "/v1/chat/completions" and sent["auth"] == "Bearer secret"
    assert sent["model"] == "org/model-7b"  # only the provider prefix is dropped
    assert sent["messages"] == [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "question?"},
    ]
    assert sent["temperature"] == 0.0 and sent["max_tokens"] == 50 and sent["stop"] == ["END"]
    assert sent["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "r", "schema": {"type": "object"}},
    }
    engine.complete(_request())
    assert len(stub.connections) == 1  # the connection is kept alive and reused


def test_a_reply_cut_by_max_tokens_is_an_error_not_a_retry(stub: Stub) -> None:
    cut = {**OK, "choices": [{**OK["choices"][0], "finish_reason": "length"}]}
    stub.replies = [(200, {}, json.dumps(cut).encode())]
    engine = OpenAICompatibleEngine(api_base=stub.api_base)
    with pytest.raises(ReplyCutError, match="max_tokens=5 before it was complete"):
        engine.complete(_request(max_tokens=5))


@pytest.mark.parametrize(
    ("status", "headers", "body", "error", "retry_after"),
    [
        (429, {"Retry-After": "3"}, b'{"error": {"message": "slow down"}}', lm15.RateLimitError, 3),
        (503, {}, b"overloaded", lm15.ServerError, None),
        (504, {}, b"", lm15.TimeoutError, None),
        (401, {}, b'{"error": {"message": "bad key"}}', lm15.AuthError, None),
        (404, {}, b'{"error": "no such model"}', lm15.UnsupportedModelError, None),
        (
            400,
            {},
            b'{"error": {"message": "maximum context length is 8192 tokens"}}',
            lm15.ContextLengthError,
            None,
        ),
        (400, {}, b'{"error": {"message": "bad"}}', lm15.InvalidRequestError, None),
        (200, {}, b"<html>not json</html>", lm15.ServerError, None),
    ],
)
def test_http_failures_become_dspy_engine_errors(
    stub: Stub,
    status: int,
    headers: dict[str, str],
    body: bytes,
    error: type[Exception],
    retry_after: float | None,
) -> None:
    stub.replies = [(status, headers, body)]
    engine = OpenAICompatibleEngine(api_base=stub.api_base)
    with pytest.raises(error) as caught:
        engine.complete(_request())
    assert getattr(caught.value, "retry_after", None) == retry_after
    if status >= 400:
        assert f"HTTP {status}" in str(caught.value)


def test_connection_refused_is_a_transport_error() -> None:
    engine = OpenAICompatibleEngine(api_base="http://127.0.0.1:9/v1", timeout=2)
    with pytest.raises(lm15.TransportError):
        engine.complete(_request())


def test_bad_api_base_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match="not an http"):
        OpenAICompatibleEngine(api_base="127.0.0.1:8000")


def test_resolve_lm_uses_it_for_openai_compatible_servers_only() -> None:
    lm = resolve_lm("openai/m", api_base="http://127.0.0.1:8000/v1", api_key="k", timeout=5)
    engine = lm._engine_spec
    assert isinstance(engine, OpenAICompatibleEngine) and engine.timeout == 5
    assert not isinstance(resolve_lm("openai/m")._engine_spec, OpenAICompatibleEngine)
    other = resolve_lm("anthropic/claude", api_base="http://127.0.0.1:8000")
    assert not isinstance(other._engine_spec, OpenAICompatibleEngine)


def test_a_proxy_in_the_environment_keeps_dspys_transport(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("http_proxy", "http://proxy.example:3128")
    monkeypatch.setenv("no_proxy", "")
    lm = resolve_lm("openai/m", api_base="http://10.0.0.5:8000/v1", api_key="k")
    assert not isinstance(lm._engine_spec, OpenAICompatibleEngine)


def test_judges_through_it_with_threads_and_the_offline_answers() -> None:
    rows = make_rows(12)
    with TestServer(delay=0.01) as server:
        lm = resolve_lm("openai/gpt-4o-mini", api_base=server.api_base, api_key="x", cache=False)
        results = Faithfulness(lm=lm).batch(rows, concurrency=6)
        requests = server.stats()["requests"]
    assert [r.error for r in results] == [None] * 12
    assert sum(r.lm_calls for r in results) == requests == 24
    reference = Faithfulness().batch(rows)  # the offline judge in-process
    assert [r.score for r in results] == [r.score for r in reference]
    assert isinstance(lm, dspy.LM)


def test_cli_compile_uses_api_base_and_shares_the_cache_with_evaluate(tmp_path: Path) -> None:
    gold = write_rows(tmp_path / "rows.jsonl", make_rows(24))
    judge = str(tmp_path / "judge.json")

    def cli(command: str, *args: str) -> dict[str, Any]:
        lm = ["--lm", "openai/gpt-4o-mini", "--api-base", server.api_base]
        done = subprocess.run(
            [
                PYTHON,
                "-m",
                "ragjudge",
                command,
                "--gold",
                str(gold),
                "--format",
                "json",
                *lm,
                "--cache-dir",
                str(tmp_path / "cache"),
                *args,
            ],
            env=cli_env(),
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)  # type: ignore[no-any-return]

    with TestServer(delay=0.0) as server:
        compiled = cli("compile", "--trials", "4", "--group-by", "", "--out", judge)
        calls = server.stats()["requests"]
        assert calls > 0 and compiled["lm"] == "openai/gpt-4o-mini"
        # Compile judged every row but its demo pool's (kept out of the tuning rows) with the
        # chosen mode: evaluate finds those calls in the shared cache.
        fresh_calls = cli("evaluate", "--judge", judge)["lm_calls"]
        assert fresh_calls < 12  # of 24-48 calls without the cache
        assert server.stats()["requests"] == calls + fresh_calls


def test_llama_cpp_server_refusals_are_learnt_and_logprobs_and_cache_are_read(stub: Stub) -> None:
    schema_refused = b'{"error": {"message": "1 validation error: response_format.type"}}'
    logprobs_refused = b'{"error": {"message": "logprobs is not supported"}}'
    answer = {
        **OK,
        "choices": [
            {
                **OK["choices"][0],
                "logprobs": {
                    "content": [
                        {
                            "token": "yes",
                            "logprob": -0.2,
                            "top_logprobs": [
                                {"token": "yes", "logprob": -0.2},
                                {"token": "no", "logprob": -1.7},
                            ],
                        }
                    ]
                },
            }
        ],
        "usage": {"prompt_tokens": 7, "completion_tokens": 2, "prompt_tokens_details": {}},
        "timings": {"cache_n": 5},
    }
    stub.replies = [
        (500, {}, schema_refused),
        (200, {}, json.dumps(answer).encode()),
        (400, {}, logprobs_refused),
        (200, {}, json.dumps(OK).encode()),
    ]
    engine = OpenAICompatibleEngine(api_base=stub.api_base)
    schema = {"type": "json_schema", "schema": {"type": "object"}, "name": "r"}
    first = engine.complete(_request(response_format=schema, logprobs=5))
    assert stub.seen[0]["response_format"]["type"] == "json_schema"
    assert stub.seen[1]["response_format"] == {"type": "json_object", "schema": {"type": "object"}}
    assert stub.seen[1]["logprobs"] is True and stub.seen[1]["top_logprobs"] == 5
    assert first.logprobs is not None and first.logprobs[0].top[1].token == "no"
    assert first.usage.cache_read_tokens == 5
    engine.complete(_request(response_format=schema, logprobs=5))
    assert "logprobs" in stub.seen[2] and "logprobs" not in stub.seen[3]
    assert stub.seen[3]["response_format"]["type"] == "json_object"  # remembered


def test_the_timeout_travels_in_metadata_and_is_not_sent(stub: Stub) -> None:
    stub.replies = [(200, {}, json.dumps(OK).encode())]
    engine = OpenAICompatibleEngine(api_base=stub.api_base)
    engine.complete(_request(extensions={"metadata": {"ragjudge_timeout": "7"}}))
    assert "metadata" not in stub.seen[0]


def test_a_refusal_is_learnt_once_per_endpoint_whatever_the_threads_and_engines(
    stub: Stub,
) -> None:
    # llama.cpp's server refuses OpenAI's json_schema shape: eight threads starting at once,
    # and a second engine for the same server later, send it once in all (the first request
    # goes alone; the others wait for its answer and use the json_object form it taught).
    refused = b'{"error": {"message": "1 validation error: response_format.type"}}'
    stub.replies = [(500, {}, refused)] + [(200, {}, json.dumps(OK).encode())] * 9
    schema = {"type": "json_schema", "schema": {"type": "object"}, "name": "r"}
    engine = OpenAICompatibleEngine(api_base=stub.api_base)
    with ThreadPoolExecutor(max_workers=8) as pool:
        replies = list(
            pool.map(lambda _: engine.complete(_request(response_format=schema)), range(8))
        )
    assert [r.message.text for r in replies] == ["hello"] * 8
    OpenAICompatibleEngine(api_base=stub.api_base).complete(_request(response_format=schema))
    shapes = [s["response_format"]["type"] for s in stub.seen]
    assert shapes.count("json_schema") == 1 and len(shapes) == 10
    assert shapes[1:] == ["json_object"] * 9
