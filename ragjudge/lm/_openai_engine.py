"""A lean DSPy engine for OpenAI-compatible chat servers (vLLM, llama.cpp, proxies, test servers).

`dspy.LM("openai/<model>", api_base=...)` sends each call through DSPy's general router: it
resolves the provider, plans the request's capabilities, looks up proxies in the environment
and prices the response from OpenAI's price list (wrong for a self-hosted server) on every call.
At dozens of calls in flight that is most of the client's CPU. `OpenAICompatibleEngine` does
only what a `/chat/completions` call needs: one JSON body, one keep-alive HTTP connection per
thread, one JSON reply. DSPy keeps everything else (adapter, cache, usage, retries, history),
because the engine plugs in through the supported hook, `dspy.LM(model, engine=...)`.

Failures are raised as DSPy's engine errors, so DSPy's retry loop classifies them as it does
for its own engine: HTTP 429 (with `Retry-After`), 5xx, timeouts and connection failures are
retried; 400/401/403/404 are not.

Example:
    >>> engine = OpenAICompatibleEngine(api_base="http://127.0.0.1:8000/v1", api_key="EMPTY")
    >>> lm = dspy.LM("openai/my-model", engine=engine, num_retries=5)  # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import email.utils
import http.client
import logging
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator, Mapping
from typing import Any

import orjson
from dspy import lm15
from dspy.lm15 import Message, Request, Response, TokenLogprob, TopLogprob, Usage

from ragjudge.exceptions import ConfigurationError
from ragjudge.lm._generation import TIMEOUT_KEY, ReplyCutError, timeout_of

__all__ = ["OPENAI_COMPATIBLE_PREFIXES", "OpenAICompatibleEngine", "uses_proxy"]

logger = logging.getLogger(__name__)

# Model-string prefixes that name an OpenAI-compatible server when an api_base is given.
OPENAI_COMPATIBLE_PREFIXES = ("openai", "hosted_vllm", "openai_compatible")
_FINISH = {"stop": "stop", "length": "length", "tool_calls": "tool_call"}
_FINISH.update(content_filter="content_filter", function_call="tool_call")


def uses_proxy(api_base: str) -> bool:
    """Whether the environment routes `api_base` through an HTTP proxy."""
    parts = urllib.parse.urlsplit(api_base)
    proxies = urllib.request.getproxies()
    if parts.scheme not in proxies:
        return False
    return not urllib.request.proxy_bypass(parts.hostname or "")


class OpenAICompatibleEngine:
    """A `dspy.LM` engine that POSTs to `<api_base>/chat/completions`.

    Args:
        api_base: The server's base URL, e.g. `http://127.0.0.1:8000/v1`.
        api_key: Sent as `Authorization: Bearer <api_key>`.
        timeout: Seconds one attempt may take (connect and read).
        headers: Extra HTTP headers.

    Raises:
        ConfigurationError: If `api_base` is not an http(s) URL.
    """

    supports_response_schema = False  # JSON mode and schemas are passed through, not planned
    supports_json_schema = True  # ragjudge's adapter sends a JSON-schema response_format
    supports_logprobs = True  # and asks for the verdict token's top logprobs
    reads_ragjudge_timeout = True  # each call's timeout comes in its metadata

    def __init__(
        self,
        *,
        api_base: str,
        api_key: str = "EMPTY",
        timeout: float | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        parts = urllib.parse.urlsplit(api_base)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ConfigurationError(f"`api_base` {api_base!r} is not an http(s) URL")
        self.api_base = api_base
        self.timeout = 600.0 if timeout is None else float(timeout)
        self._https = parts.scheme == "https"
        self._host = parts.hostname
        self._port = parts.port
        self._path = parts.path.rstrip("/") + "/chat/completions"
        self._headers = {
            "Content-Type": "application/json",
            "Accept": "application/json",
            "Authorization": f"Bearer {api_key}",
            **dict(headers or {}),
        }
        self._local = threading.local()
        # What the server refuses is learnt once per endpoint per process and shared by every
        # engine and thread that talks to it (`_Endpoint`).
        self._endpoint = _endpoint(api_base)

    @property
    def _schema_as_json_object(self) -> bool:
        """llama-cpp-python's server takes `{"type": "json_object", "schema": ...}` only."""
        return self._endpoint.schema_as_json_object

    @property
    def _no_logprobs(self) -> bool:
        return self._endpoint.no_logprobs

    def __getstate__(self) -> dict[str, Any]:  # the connections stay behind
        state = dict(self.__dict__)
        state.pop("_local")
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._local = threading.local()

    def __deepcopy__(self, memo: dict[int, Any]) -> OpenAICompatibleEngine:
        return self  # stateless apart from per-thread connections: share it (dspy.LM.copy)

    # -- the engine hook -------------------------------------------------------------------
    def complete(self, request: Request) -> Response:
        """One chat completion, bounded by the call's max_tokens and timeout.

        Raises:
            ReplyCutError: When the reply stopped at max_tokens (`finish_reason == "length"`).
        """
        timeout = timeout_of(request.config, self.timeout)
        with self._endpoint.first_request(timeout):
            for _ in range(3):  # at most two refusals of an optional feature, each learnt once
                payload = self._body(request)
                status, headers, data = self._post(orjson.dumps(payload), timeout)
                if status < 400 or not self._learn_refusal(payload, status, data):
                    break
        if status >= 400:
            raise _http_error(status, headers, data)
        try:
            reply = orjson.loads(data)
            choice = reply["choices"][0]
            text = choice["message"].get("content") or ""
        except (orjson.JSONDecodeError, KeyError, IndexError, TypeError, AttributeError):
            raise lm15.ServerError(
                f"the server's reply is not a chat completion: {data[:200]!r}", status=status
            ) from None
        usage = reply.get("usage") or {}
        if choice.get("finish_reason") == "length":
            limit = payload.get("max_tokens")
            raise ReplyCutError(
                f"the reply reached max_tokens={limit} before it was complete "
                f"({usage.get('completion_tokens', '?')} tokens)",
                partial=text,
                max_tokens=limit if isinstance(limit, int) else None,
            )
        return Response(
            id=reply.get("id"),
            model=reply.get("model") or request.model,
            message=Message.assistant(text),
            finish_reason=_FINISH.get(choice.get("finish_reason") or "stop", "stop"),
            usage=Usage(
                input_tokens=int(usage.get("prompt_tokens") or 0),
                output_tokens=int(usage.get("completion_tokens") or 0),
                cache_read_tokens=_cached_tokens(reply),
            ),
            logprobs=_logprobs(choice.get("logprobs")),
        )

    def _learn_refusal(self, payload: dict[str, Any], status: int, data: bytes) -> bool:
        """Whether an error reply refuses a feature this engine can do without (then noted).

        llama-cpp-python's server refuses OpenAI's json_schema shape (it takes
        `{"type": "json_object", "schema": ...}`) and logprobs unless started with
        `--logits_all true`; the calls then go on without them.
        """
        # (llama-cpp-python 0.3.36 answers that refusal with HTTP 500, earlier ones with 422)
        if status in (400, 422, 500) and _refuses_schema(payload, data):
            if not self._endpoint.schema_as_json_object:
                logger.info(
                    "%s refuses the json_schema response format; sending the schema as json_object",
                    self.api_base,
                )
            self._endpoint.schema_as_json_object = True
            return True
        if "logprobs" in payload and b"logprobs" in data and not self._no_logprobs:
            logger.info("%s refuses logprobs; confidences are the stated ones", self.api_base)
            self._endpoint.no_logprobs = True
            return True
        return False

    # -- the request -----------------------------------------------------------------------
    def _body(self, request: Request) -> dict[str, Any]:
        if request.tools:
            raise lm15.UnsupportedFeatureError("tools are not supported", feature="tools")
        messages: list[dict[str, str]] = []
        if request.system:
            messages.append({"role": "system", "content": request.system})
        for message in request.messages:
            if any(part.type != "text" for part in message.parts):
                raise lm15.UnsupportedFeatureError(
                    "only text messages are supported", feature="media"
                )
            messages.append({"role": message.role, "content": message.text or ""})
        model = request.model.split("/", 1)[1] if "/" in request.model else request.model
        body: dict[str, Any] = {"model": model, "messages": messages}
        config = request.config
        for name in (
            "max_tokens",
            "temperature",
            "top_p",
            "seed",
            "frequency_penalty",
            "presence_penalty",
        ):
            value = getattr(config, name)
            if value is not None:
                body[name] = value
        if config.stop:
            body["stop"] = list(config.stop)
        if config.response_format is not None:
            body["response_format"] = _wire_format(
                dict(config.response_format), json_object=self._schema_as_json_object
            )
        if config.logprobs is not None and not self._no_logprobs:
            body["logprobs"] = True
            if config.logprobs > 0:
                body["top_logprobs"] = int(config.logprobs)
        extensions = dict(config.extensions or {})
        metadata = {k: v for k, v in (extensions.pop("metadata", None) or {}).items()}
        metadata.pop(TIMEOUT_KEY, None)  # ragjudge's own, not the server's
        if metadata:
            extensions["metadata"] = metadata
        body.update(extensions)
        return body

    # -- HTTP ------------------------------------------------------------------------------
    def _connection(
        self, fresh: bool = False, timeout: float | None = None
    ) -> http.client.HTTPConnection:
        connection: http.client.HTTPConnection | None = getattr(self._local, "connection", None)
        if connection is not None and fresh:
            connection.close()
            connection = None
        if connection is None:
            cls = http.client.HTTPSConnection if self._https else http.client.HTTPConnection
            connection = cls(self._host, self._port, timeout=self.timeout)
            self._local.connection = connection
        if timeout is not None:
            connection.timeout = timeout
            if connection.sock is not None:
                connection.sock.settimeout(timeout)
        return connection

    def _post(
        self, body: bytes, timeout: float | None = None
    ) -> tuple[int, http.client.HTTPMessage, bytes]:
        limit = self.timeout if timeout is None else timeout
        for attempt in (0, 1):
            connection = self._connection(fresh=attempt > 0, timeout=limit)
            reused = connection.sock is not None
            try:
                connection.request("POST", self._path, body, self._headers)
                response = connection.getresponse()
                data = response.read()
            except TimeoutError:
                self._connection(fresh=True)
                raise lm15.TimeoutError(f"no reply within the timeout of {limit:g} s") from None
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError) as exc:
                # A keep-alive connection the server closed while idle: reconnect once.
                if reused and attempt == 0:
                    continue
                self._connection(fresh=True)
                raise lm15.TransportError(f"{self.api_base}: connection lost ({exc})") from None
            except (OSError, http.client.HTTPException) as exc:
                self._connection(fresh=True)
                reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
                raise lm15.TransportError(f"{self.api_base}: {reason}") from None
            if response.will_close:
                self._connection(fresh=True)
            return response.status, response.headers, data
        raise AssertionError("unreachable")  # pragma: no cover


class _Endpoint:
    """What one server (an `api_base`) refuses, learnt once per process: until its first
    request has been answered, other requests to it wait, so a refusal is sent once however
    many threads start at once."""

    def __init__(self) -> None:
        self.schema_as_json_object = False
        self.no_logprobs = False
        self._lock = threading.Lock()
        self._answered = threading.Event()
        self._probing = False

    @contextlib.contextmanager
    def first_request(self, timeout: float) -> Iterator[None]:
        """Run the body alone when it is the endpoint's first request; wait for that one
        (at most `timeout` seconds) when another thread is sending it."""
        if self._answered.is_set():
            yield
            return
        with self._lock:
            probe = not self._probing
            self._probing = True
        if not probe:
            self._answered.wait(timeout)
            yield
            return
        try:
            yield
        finally:
            self._answered.set()


_ENDPOINTS: dict[str, _Endpoint] = {}
_ENDPOINTS_LOCK = threading.Lock()


def _endpoint(api_base: str) -> _Endpoint:
    """The shared knowledge about one server."""
    key = api_base.rstrip("/")
    with _ENDPOINTS_LOCK:
        if key not in _ENDPOINTS:
            _ENDPOINTS[key] = _Endpoint()
        return _ENDPOINTS[key]


def _wire_format(value: dict[str, Any], *, json_object: bool = False) -> dict[str, Any]:
    """lm15's canonical response_format as OpenAI's wire shape (or llama-cpp-python's)."""
    if value.get("type") != "json_schema":
        return value
    if json_object:
        return {"type": "json_object", "schema": value["schema"]}
    schema = {"name": value.get("name") or "response", "schema": value["schema"]}
    if "strict" in value:
        schema["strict"] = value["strict"]
    return {"type": "json_schema", "json_schema": schema}


def _refuses_schema(payload: dict[str, Any], data: bytes) -> bool:
    """Whether an error reply refuses OpenAI's json_schema response_format (llama-cpp-python's
    server answers it with HTTP 500 and a validation error naming `response_format`)."""
    fmt = payload.get("response_format") or {}
    return fmt.get("type") == "json_schema" and b"response_format" in data


def _cached_tokens(reply: dict[str, Any]) -> int | None:
    """Prompt tokens the server served from its prefix cache, where it reports them.

    OpenAI, vLLM and llama.cpp's server: `usage.prompt_tokens_details.cached_tokens`;
    llama.cpp's server also `timings.cache_n`.
    """
    usage = reply.get("usage") or {}
    details = usage.get("prompt_tokens_details") or {}
    if isinstance(details, dict) and details.get("cached_tokens") is not None:
        return int(details["cached_tokens"])
    timings = reply.get("timings") or {}
    if isinstance(timings, dict) and timings.get("cache_n") is not None:
        return int(timings["cache_n"])
    return None


def _logprobs(raw: Any) -> tuple[TokenLogprob, ...] | None:
    """OpenAI's `choices[0].logprobs.content` as lm15 token logprobs (None when absent)."""
    content = raw.get("content") if isinstance(raw, dict) else None
    if not isinstance(content, list):
        return None
    out = []
    for item in content:
        try:
            top = tuple(
                TopLogprob(token=str(t["token"]), logprob=float(t["logprob"]))
                for t in item.get("top_logprobs") or ()
                if t.get("logprob") is not None
            )
            out.append(
                TokenLogprob(token=str(item["token"]), logprob=float(item["logprob"]), top=top)
            )
        except (KeyError, TypeError, ValueError):
            return None
    return tuple(out)


def _retry_after(headers: http.client.HTTPMessage) -> float | None:
    raw = headers.get("Retry-After")
    if not raw:
        return None
    try:
        return max(0.0, float(raw))
    except ValueError:
        when = email.utils.parsedate_to_datetime(raw) if raw else None
        return None if when is None else max(0.0, when.timestamp() - time.time())


def _http_error(status: int, headers: http.client.HTTPMessage, data: bytes) -> lm15.LM15Error:
    try:
        detail = orjson.loads(data).get("error") or {}
        message = detail.get("message") if isinstance(detail, dict) else str(detail)
    except (orjson.JSONDecodeError, AttributeError):
        message = None
    text = f"HTTP {status}: {message or data[:200].decode('utf-8', 'replace')}"
    kwargs: dict[str, Any] = {"status": status, "retry_after": _retry_after(headers)}
    if status == 429:
        return lm15.RateLimitError(text, **kwargs)
    if status in (408, 504):
        return lm15.TimeoutError(text, **kwargs)
    if status >= 500:
        return lm15.ServerError(text, **kwargs)
    if status in (401, 403):
        return lm15.AuthError(text, **kwargs)
    if status == 404:
        return lm15.UnsupportedModelError(text, **kwargs)
    if message and "context length" in message.lower():
        return lm15.ContextLengthError(text, **kwargs)
    return lm15.InvalidRequestError(text, **kwargs)
