"""Faults: 429/5xx/timeouts retried with jittered backoff honouring Retry-After, unparseable
output retried once, then the row carries `error` and the run goes on."""

from __future__ import annotations

import math
import random
import time
from pathlib import Path

import pytest
from _reliability_helpers import make_rows, server_lm
from hypothesis import given
from hypothesis import strategies as st

from ragjudge.evaluation._evaluate import evaluate
from ragjudge.lm._retry import backoff_delay, install_jitter, lm_options
from ragjudge.programs import Faithfulness
from ragjudge.testing._server import TestServer


@pytest.fixture
def sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The delays DSPy's retry loop waits (recorded, then slept for real but capped)."""
    from dspy.clients import execution

    recorded: list[float] = []
    real_sleep = time.sleep

    def fake_sleep(seconds: float) -> None:
        recorded.append(seconds)
        real_sleep(min(seconds, 0.01))

    monkeypatch.setattr(execution.time, "sleep", fake_sleep)
    return recorded


@pytest.fixture(params=["ragjudge", "dspy"])
def stack(request: pytest.FixtureRequest) -> str:
    """Both client stacks: ragjudge's OpenAI-compatible engine and DSPy's default one."""
    return str(request.param)


def _one(judge: Faithfulness) -> object:
    row = make_rows(1)[0]
    return judge(question=row.question, contexts=row.contexts, answer=row.answer)


@given(attempt=st.integers(0, 40), base=st.floats(0.01, 5), cap=st.floats(5, 120))
def test_backoff_is_bounded_exponential_with_jitter(attempt: int, base: float, cap: float) -> None:
    delay = backoff_delay(attempt, base=base, cap=cap)
    ceiling = min(cap, base * 2**attempt)
    assert ceiling / 2 <= delay <= ceiling


@given(hint=st.floats(0, 3600, allow_nan=False), attempt=st.integers(0, 10))
def test_retry_after_is_never_shortened(hint: float, attempt: int) -> None:
    delay = backoff_delay(attempt, retry_after=hint)
    assert hint <= delay <= hint + min(1.0, 0.1 * hint) + 1e-9


def test_jitter_spreads_workers_apart() -> None:
    rng = random.Random(1)
    delays = {round(backoff_delay(3, rng=rng), 6) for _ in range(20)}
    assert len(delays) > 15  # N workers do not retry in lockstep


def test_429_with_retry_after_is_retried_after_that_long(sleeps: list[float], stack: str) -> None:
    install_jitter()
    with TestServer(delay=0.0, script=["429", "429"], retry_after=0.3) as server:
        result = _one(Faithfulness(lm=server_lm(server, stack=stack)))
        stats = server.stats()
    assert result.error is None and result.lm_calls == 2  # type: ignore[attr-defined]
    assert stats["outcomes"]["429"] == 2
    assert len(sleeps) == 2
    assert all(0.3 <= s <= 0.33 for s in sleeps)


def test_5xx_without_hint_backs_off_exponentially_with_jitter(
    sleeps: list[float], stack: str
) -> None:
    install_jitter(base=0.2, cap=10)
    with TestServer(delay=0.0, script=["500", "500", "503"], retry_after=None) as server:
        result = _one(Faithfulness(lm=server_lm(server, stack=stack, num_retries=4)))
    assert result.error is None  # type: ignore[attr-defined]
    assert len(sleeps) == 3
    for attempt, slept in enumerate(sleeps):
        ceiling = 0.2 * 2**attempt
        assert ceiling / 2 <= slept <= ceiling


def test_timeout_is_retried(sleeps: list[float], stack: str) -> None:
    install_jitter(base=0.01, cap=0.05)
    with TestServer(delay=0.0, script=["timeout"], timeout_delay=3.0) as server:
        start = time.perf_counter()
        result = _one(Faithfulness(lm=server_lm(server, stack=stack, **lm_options(timeout=0.5))))
        took = time.perf_counter() - start
    assert result.error is None  # type: ignore[attr-defined]
    assert len(sleeps) == 1
    assert took < 2.5  # did not wait for the slow answer


def test_exhausted_retries_leave_an_error_and_the_run_goes_on(
    sleeps: list[float], stack: str
) -> None:
    install_jitter(base=0.01, cap=0.05)
    rows = make_rows(4)
    # The first row's first call fails 3 times (1 try + 2 retries), the rest succeed.
    with TestServer(delay=0.0, script=["429", "429", "429"], retry_after=None) as server:
        judge = Faithfulness(lm=server_lm(server, stack=stack, num_retries=2))
        results, report = evaluate(judge, rows, concurrency=1, n_boot=50)
    assert results[0].error is not None and "RateLimit" in results[0].error
    assert math.isnan(results[0].score) and results[0].passed is None
    assert all(r.error is None for r in results[1:])
    assert report.errors == 1
    assert report.agreement is not None and report.agreement.n == 3  # never averaged in


def test_unparseable_output_is_retried_once_via_the_json_fallback(stack: str) -> None:
    with TestServer(delay=0.0, script=["garbage"]) as server:
        result = _one(Faithfulness(lm=server_lm(server, stack=stack)))
        stats = server.stats()
    assert result.error is None  # type: ignore[attr-defined]
    assert stats["outcomes"] == {"garbage": 1, "ok": 2}


def test_unparseable_twice_gives_an_error_row(stack: str) -> None:
    rows = make_rows(3)
    with TestServer(delay=0.0, script=["garbage", "garbage"]) as server:
        results, report = evaluate(
            Faithfulness(lm=server_lm(server, stack=stack)), rows, concurrency=1, n_boot=50
        )
    assert results[0].error is not None and "AdapterParseError" in results[0].error
    assert all(r.error is None for r in results[1:])
    assert report.errors == 1


def test_random_faults_at_scale_lose_no_row(
    tmp_path: Path, sleeps: list[float], stack: str
) -> None:
    install_jitter(base=0.01, cap=0.05)
    rows = make_rows(30)
    with TestServer(delay=0.0, rate_429=0.15, rate_5xx=0.1, retry_after=None, seed=3) as server:
        judge = Faithfulness(lm=server_lm(server, stack=stack, num_retries=6))
        results, report = evaluate(judge, rows, concurrency=4, out=tmp_path / "o.jsonl")
        stats = server.stats()
    assert stats["outcomes"].get("429", 0) + stats["outcomes"].get("503", 0) > 3
    assert [r.id for r in results] == [r.id for r in rows]
    assert report.errors == 0
