"""A local OpenAI-compatible test server that answers ragjudge's prompts with the offline judge.

It lets the real client stack (`dspy.LM("openai/...")`, DSPy's adapters, cache and retries) run
against a server with a known latency and known faults, without any network:

- listens on 127.0.0.1 only, on a free port by default;
- `POST /v1/chat/completions`: parses the DSPy prompt and answers it with the offline model
  (`ragjudge.offline.engine`), so the faithfulness signatures get sensible replies;
- waits so that every answer takes at least `delay` seconds;
- injects faults: HTTP 429 (with `Retry-After`), 500/503, timeouts (a reply slower than the
  client's timeout) and unparseable output, from a fixed script and/or at random rates;
- bounded: it stops after `max_requests` requests or `max_seconds` seconds;
- `GET /stats` returns the request counters as JSON.

Run it as a process (`python -m ragjudge.testing --delay 0.1`; it prints
`{"port": N, ...}` on its first stdout line) or in-process with `TestServer`.

Example:
    >>> with TestServer(delay=0.0) as server:  # doctest: +SKIP
    ...     lm = dspy.LM("openai/fake", api_base=server.api_base, api_key="x")
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import random
import sys
import threading
import time
from collections import Counter
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

from dspy.lm15 import Message, Request

from ragjudge.offline.engine import OfflineEngine

__all__ = ["FAULTS", "TestServer", "main"]

logger = logging.getLogger(__name__)

#: The faults a request can be answered with ("ok" = a normal answer).
FAULTS = ("ok", "429", "500", "503", "timeout", "garbage")
_LOOPBACK = "127.0.0.1"


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out in separate writes
    server: _HTTPServer

    def log_message(self, format: str, *args: Any) -> None:
        logger.debug("%s " + format, self.address_string(), *args)

    def do_GET(self) -> None:
        if self.path.rstrip("/") in ("/stats", "/v1/stats"):
            self._send_json(200, self.server.owner.stats())
        elif self.path.rstrip("/") in ("/v1/models", "/models"):
            self._send_json(200, {"object": "list", "data": [{"id": "fake", "object": "model"}]})
        else:
            self._send_json(404, {"error": {"message": f"no route {self.path}"}})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send_json(404, {"error": {"message": f"no route {self.path}"}})
            return
        status, payload, headers = self.server.owner.handle_completion(body)
        self._send_json(status, payload, headers)

    def _send_json(
        self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None
    ) -> None:
        data = json.dumps(payload).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (its timeout)
            self.close_connection = True


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256
    owner: TestServer


class TestServer:
    """An OpenAI-compatible chat server on 127.0.0.1 backed by the offline judge.

    Args:
        port: The port; 0 picks a free one (see `port` after `start()`).
        delay: Minimum seconds each completion takes (the simulated LM latency).
        script: Faults for the first requests, in order (each one of `FAULTS`); later requests
            follow the rates.
        rate_429: Probability that a request gets HTTP 429.
        rate_5xx: Probability that a request gets HTTP 503.
        rate_timeout: Probability that a request is answered only after `timeout_delay`.
        rate_garbage: Probability that a request gets text no adapter can parse.
        retry_after: The `Retry-After` header of 429/503 answers, in seconds (None: omitted).
        timeout_delay: How long a "timeout" answer is held back, in seconds.
        max_requests: Stop serving (answer 503 and shut down) after this many requests.
        max_seconds: Shut down after this many seconds.
        seed: Seed of the random faults.
        memo: Remember each answer by its request: a repeated request is answered without
            judging it again (still after `delay`). A benchmark that runs the same rows
            several times warms it up once, so that the server's own CPU (the offline
            judge, about 3 ms a request) stops competing with the client's on a small
            machine: a real LM server runs elsewhere.

    Example:
        >>> with TestServer(delay=0.05, script=["429", "ok"]) as server:  # doctest: +SKIP
        ...     print(server.api_base)
        http://127.0.0.1:40123/v1
    """

    __test__ = False  # not a pytest test class

    def __init__(
        self,
        *,
        port: int = 0,
        delay: float = 0.1,
        script: Sequence[str] = (),
        rate_429: float = 0.0,
        rate_5xx: float = 0.0,
        rate_timeout: float = 0.0,
        rate_garbage: float = 0.0,
        retry_after: float | None = 0.05,
        timeout_delay: float = 5.0,
        max_requests: int = 100_000,
        max_seconds: float = 900.0,
        seed: int = 0,
        memo: bool = False,
    ) -> None:
        unknown = [f for f in script if f not in FAULTS]
        if unknown:
            raise ValueError(f"unknown faults {unknown}; choose from {', '.join(FAULTS)}")
        for name, rate in (
            ("rate_429", rate_429),
            ("rate_5xx", rate_5xx),
            ("rate_timeout", rate_timeout),
            ("rate_garbage", rate_garbage),
        ):
            if not 0.0 <= rate <= 1.0:
                raise ValueError(f"{name} must be in [0, 1], got {rate!r}")
        if delay < 0 or max_seconds <= 0 or max_requests < 1:
            raise ValueError("delay must be >= 0, max_seconds > 0 and max_requests >= 1")
        self.delay = delay
        self.script = list(script)
        self.rates = {
            "429": rate_429,
            "503": rate_5xx,
            "timeout": rate_timeout,
            "garbage": rate_garbage,
        }
        self.retry_after = retry_after
        self.timeout_delay = timeout_delay
        self.max_requests = max_requests
        self.max_seconds = max_seconds
        self._port = port
        self._rng = random.Random(seed)
        self._lock = threading.Lock()
        self._engine = OfflineEngine()
        self._memo: dict[bytes, str] | None = {} if memo else None
        self.counts: Counter[str] = Counter()
        self.requests = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._timer: threading.Timer | None = None
        self._stopped = threading.Event()

    # -- lifecycle ------------------------------------------------------------------------
    @property
    def port(self) -> int:
        """The port the server listens on (after `start()`)."""
        if self._httpd is None:
            raise RuntimeError("the server is not started; call start() first")
        return int(self._httpd.server_address[1])

    @property
    def api_base(self) -> str:
        """The base URL to give `dspy.LM(..., api_base=...)`."""
        return f"http://{_LOOPBACK}:{self.port}/v1"

    def start(self) -> TestServer:
        """Start serving in a background thread."""
        httpd = _HTTPServer((_LOOPBACK, self._port), _Handler)
        httpd.owner = self
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        self._timer = threading.Timer(self.max_seconds, self.stop)
        self._timer.daemon = True
        self._timer.start()
        return self

    def stop(self) -> None:
        """Stop serving (idempotent)."""
        if self._stopped.is_set():
            return
        self._stopped.set()
        if self._timer is not None:
            self._timer.cancel()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()

    def wait(self) -> None:
        """Block until the server stops (its limits or `stop()`)."""
        self._stopped.wait()

    def __enter__(self) -> TestServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def stats(self) -> dict[str, Any]:
        """Request counters: total, per outcome, and the most requests in flight at once."""
        with self._lock:
            return {
                "requests": self.requests,
                "outcomes": dict(self.counts),
                "max_in_flight": self.max_in_flight,
            }

    # -- serving --------------------------------------------------------------------------
    def _next_fault(self) -> str:
        if self.script:
            return self.script.pop(0)
        draw = self._rng.random()
        edge = 0.0
        for fault, rate in self.rates.items():
            edge += rate
            if draw < edge:
                return fault
        return "ok"

    def handle_completion(self, body: bytes) -> tuple[int, dict[str, Any], dict[str, str]]:
        """Answer one chat completion request body: `(status, json, headers)`."""
        start = time.perf_counter()
        with self._lock:
            self.requests += 1
            number = self.requests
            fault = "503" if number > self.max_requests else self._next_fault()
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            status, payload, headers = self._answer(body, fault)
            outcome = fault if status == 200 or fault != "ok" else str(status)
            wait = self.timeout_delay if fault == "timeout" else self.delay
            remaining = wait - (time.perf_counter() - start)
            if remaining > 0:
                time.sleep(remaining)
            with self._lock:
                self.counts[outcome] += 1
            return status, payload, headers
        finally:
            with self._lock:
                self.in_flight -= 1
            if number == self.max_requests:
                threading.Thread(target=self.stop, daemon=True).start()

    def _answer(self, body: bytes, fault: str) -> tuple[int, dict[str, Any], dict[str, str]]:
        headers: dict[str, str] = {}
        if fault in ("429", "500", "503"):
            if fault != "500" and self.retry_after is not None:
                headers["Retry-After"] = f"{self.retry_after:g}"
            kind = "rate_limit_exceeded" if fault == "429" else "server_error"
            return int(fault), {"error": {"message": f"injected {fault}", "type": kind}}, headers
        try:
            data = json.loads(body)
            request = _request_from_openai(data)
        except (ValueError, KeyError, TypeError) as exc:
            return 400, {"error": {"message": f"bad request: {exc}", "type": "invalid"}}, headers
        if fault == "garbage":
            text = "I cannot answer in the requested format, sorry."
        else:
            memo = self._memo if self._memo is not None else {}
            key = hashlib.sha256(body).digest() if self._memo is not None else b""
            if key not in memo:
                try:
                    memo[key] = self._engine.complete(request).message.text or ""
                except ValueError as exc:  # not a ragjudge prompt
                    message = {"message": str(exc), "type": "invalid_request"}
                    return 400, {"error": message}, headers
            text = memo[key]
        prompt_chars = len(request.system or "") if isinstance(request.system, str) else 0
        prompt_chars += sum(len(m.text or "") for m in request.messages)
        usage = {
            "prompt_tokens": prompt_chars // 4,
            "completion_tokens": max(1, len(text) // 4),
        }
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        return (
            200,
            {
                "id": f"chatcmpl-{self.requests}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": str(data.get("model", "fake")),
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": text},
                        "finish_reason": "stop",
                    }
                ],
                "usage": usage,
            },
            headers,
        )


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return ""


def _request_from_openai(data: dict[str, Any]) -> Request:
    system_parts: list[str] = []
    messages: list[Message] = []
    for message in data["messages"]:
        role, text = message["role"], _text(message.get("content"))
        if role in ("system", "developer"):
            system_parts.append(text)
        elif role == "assistant":
            messages.append(Message.assistant(text))
        else:
            messages.append(Message.user(text))
    return Request(
        model=str(data.get("model", "fake")),
        messages=tuple(messages),
        system="\n\n".join(system_parts) or None,
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Run the server until its limits are reached; print its port as JSON first."""
    parser = argparse.ArgumentParser(
        prog="python -m ragjudge.testing",
        description="A local OpenAI-compatible test server (127.0.0.1 only).",
    )
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--delay", type=float, default=0.1, help="seconds per completion")
    parser.add_argument("--script", default="", help="comma-separated faults for the first calls")
    parser.add_argument("--rate-429", type=float, default=0.0)
    parser.add_argument("--rate-5xx", type=float, default=0.0)
    parser.add_argument("--rate-timeout", type=float, default=0.0)
    parser.add_argument("--rate-garbage", type=float, default=0.0)
    parser.add_argument("--retry-after", type=float, default=0.05)
    parser.add_argument("--timeout-delay", type=float, default=5.0)
    parser.add_argument("--max-requests", type=int, default=100_000)
    parser.add_argument("--max-seconds", type=float, default=900.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--memo", action="store_true", help="answer a repeated request from memory")
    args = parser.parse_args(argv)
    server = TestServer(
        port=args.port,
        delay=args.delay,
        script=[f for f in args.script.split(",") if f],
        rate_429=args.rate_429,
        rate_5xx=args.rate_5xx,
        rate_timeout=args.rate_timeout,
        rate_garbage=args.rate_garbage,
        retry_after=args.retry_after,
        timeout_delay=args.timeout_delay,
        max_requests=args.max_requests,
        max_seconds=args.max_seconds,
        seed=args.seed,
        memo=args.memo,
    ).start()
    sys.stdout.write(json.dumps({"port": server.port, "api_base": server.api_base}) + "\n")
    sys.stdout.flush()
    try:
        server.wait()
    except KeyboardInterrupt:
        server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
