"""The local OpenAI-compatible test server: loopback only, bounded, sensible answers."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request

import pytest
from _reliability_helpers import make_rows, server_lm

from ragjudge.programs import Faithfulness
from ragjudge.testing._server import TestServer


def _post(url: str, body: dict[str, object]) -> tuple[int, dict[str, object]]:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_listens_on_loopback_only() -> None:
    with TestServer(delay=0.0) as server:
        assert server.api_base.startswith("http://127.0.0.1:")
        assert server._httpd is not None
        assert server._httpd.server_address[0] == "127.0.0.1"


def test_answers_like_the_offline_judge() -> None:
    row = make_rows(1)[0]
    with TestServer(delay=0.0) as server:
        served = Faithfulness(lm=server_lm(server))(
            question=row.question, contexts=row.contexts, answer=row.answer
        )
    local = Faithfulness(lm="local")(
        question=row.question, contexts=row.contexts, answer=row.answer
    )
    assert served.error is None and served.lm_calls == 2
    assert served.score == local.score and [s.verdict for s in served.statements] == [
        s.verdict for s in local.statements
    ]


def test_delay_and_faults_and_request_bound() -> None:
    with TestServer(delay=0.2, script=["429"], retry_after=1.5, max_requests=3) as server:
        url = f"{server.api_base}/chat/completions"
        start = time.perf_counter()
        status, body = _post(url, {"model": "m", "messages": [{"role": "user", "content": "x"}]})
        assert status == 429 and time.perf_counter() - start >= 0.2
        status, body = _post(url, {"model": "m", "messages": [{"role": "user", "content": "x"}]})
        assert status == 400 and "not a DSPy prompt" in str(body)  # sensible refusal
        status, _ = _post(url, {"model": "m", "messages": []})
        assert status == 400
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not server._stopped.is_set():
            time.sleep(0.05)
        assert server._stopped.is_set()  # stopped after max_requests
        assert server.stats()["requests"] == 3


def test_time_bound() -> None:
    server = TestServer(delay=0.0, max_seconds=0.3).start()
    server._stopped.wait(5)
    assert server._stopped.is_set()


def test_rejects_unknown_faults() -> None:
    with pytest.raises(ValueError, match="unknown faults"):
        TestServer(script=["418"])


def test_memo_answers_a_repeated_request_without_judging_it_again() -> None:
    row = make_rows(1)[0]
    inputs = {"question": row.question, "contexts": row.contexts, "answer": row.answer}
    with TestServer(delay=0.0, memo=True) as server:
        first = Faithfulness(lm=server_lm(server))(**inputs)
        calls = []
        judge = server._engine.complete
        server._engine.complete = lambda request: calls.append(request) or judge(request)  # type: ignore[method-assign]
        again = Faithfulness(lm=server_lm(server))(**inputs)
        other = Faithfulness(lm=server_lm(server))(**{**inputs, "answer": "Something else."})
    assert first.error is None and again.error is None and again.lm_calls == 2
    assert again.score == first.score
    assert other.error is None and other.lm_calls >= 1
    assert len(calls) == other.lm_calls  # only the new answer's calls were judged
