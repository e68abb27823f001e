"""DSPy's ChatAdapter with the per-signature parts of the prompt rendered once.

DSPy 3.4.1 re-renders the whole prompt on every call: the system message (field list, output
JSON schemas built through pydantic) and the few-shot demos, although both depend only on the
signature and the demos. At 2 LM calls per judged row that is most of the library's own time
per call (about 2 ms of 4). `CachedChatAdapter` memoizes those two parts; the messages it
produces are byte-identical to `dspy.ChatAdapter`'s (so DSPy's response cache keys do not
change), and parsing, the JSON-adapter fallback for unparseable output and everything else are
ChatAdapter's own.

It also fences every input and demo value (`ragjudge.lm._safety.fence_value`): judged text cannot
forge a `[[ ## field ## ]]` header, whichever field it reaches (statements an LM extracted
included). For text without such headers the prompt is unchanged.

For real LMs it also makes replies parse (`ragjudge.lm._parsing`): every call is bounded
(`ragjudge.lm._generation`); a reply that is nearly right is repaired instead of re-asked (the
JSON-adapter fallback call is spent only on a reply nothing can be read from); where the LM's
engine offers structured output (ragjudge's OpenAI-compatible and llama.cpp engines),
`StructuredChatAdapter` asks for JSON and sends the outputs' JSON schema; where it offers
logprobs, each verdict's confidence is P(yes) / (P(yes) + P(no)) at the verdict token
(`ragjudge.lm._logprobs`). What happened to each reply is counted in `parse_stats()`.

Judges use it when no adapter was configured (`dspy.configure(adapter=...)` wins).
"""

from __future__ import annotations

import ast
import contextlib
import contextvars
import dataclasses
import enum
import functools
import json
import threading
import types
from collections.abc import Hashable, Iterator
from typing import Any, Literal, Union, get_args, get_origin

import dspy
import json_repair
import pydantic
from dspy.adapters.chat_adapter import field_header_pattern
from dspy.adapters.types.base_type import Type as DspyType
from dspy.adapters.utils import apply_output_field_defaults, format_field_value, parse_value
from dspy.utils.exceptions import AdapterParseError

from ragjudge.lm._cut import (
    RETRY_STRING_CHARS,
    CutReplyError,
    cut_of,
    read_partial,
    restore,
    tight_demos,
    tight_signature,
)
from ragjudge.lm._generation import ReplyCutError, generation_kwargs, token_budget
from ragjudge.lm._logprobs import verdict_probabilities
from ragjudge.lm._parsing import output_schema, salvage
from ragjudge.lm._safety import fence_value

__all__ = [
    "CachedChatAdapter",
    "ParseStats",
    "StructuredChatAdapter",
    "default_adapter",
    "parse_stats",
]

#: Alternatives asked for per generated token when the LM offers logprobs.
TOP_LOGPROBS = 10


@dataclasses.dataclass
class ParseStats:
    """What happened to the replies of predictor calls (one adapter call each).

    Attributes:
        predictor_calls: Adapter calls (one per predictor call).
        first_try: Replies that parsed as asked, without repair.
        salvaged: First replies that parsed only after repair (`ragjudge.lm._parsing.salvage`).
        fallback: Calls that needed a second LM call (DSPy's JSON fallback) and got an answer.
        failed: Calls that ended in a parse error.
        lm_errors: LM calls that raised instead of replying: a reply cut at max_tokens or
            the timeout, or a request that failed after its retries. DSPy's usage tracking
            never sees them, yet a cut reply is the costliest call there is, so a judge counts
            them among its LM calls (and a compile budget charges them).
        logprob_verdicts: Verdicts whose confidence came from logprobs.
        stated_verdicts: Verdicts whose confidence is the one the LM stated (or none).
        cut_read: Replies cut at max_tokens whose outputs were read from what they wrote
            (`ragjudge.lm._cut`; the cut call is among `lm_errors`).
        cut_retried: Replies cut at max_tokens answered by one retry without free text
            (the cut call is among `lm_errors`).
    """

    predictor_calls: int = 0
    first_try: int = 0
    salvaged: int = 0
    fallback: int = 0
    failed: int = 0
    lm_errors: int = 0
    logprob_verdicts: int = 0
    stated_verdicts: int = 0
    cut_read: int = 0
    cut_retried: int = 0

    def as_dict(self) -> dict[str, int]:
        """The counts as a plain dict."""
        return dataclasses.asdict(self)


_stats: contextvars.ContextVar[ParseStats | None] = contextvars.ContextVar(
    "ragjudge_parse_stats", default=None
)


@contextlib.contextmanager
def parse_stats() -> Iterator[ParseStats]:
    """Count what happens to the replies of the predictor calls made in the block."""
    stats = ParseStats()
    token = _stats.set(stats)
    try:
        yield stats
    finally:
        _stats.reset(token)


def lm_errors_so_far() -> int:
    """Calls that raised so far in the current `parse_stats()` block (0 outside one)."""
    stats = _stats.get()
    return 0 if stats is None else stats.lm_errors


def _count(**increments: int) -> None:
    stats = _stats.get()
    if stats is not None:
        for name, value in increments.items():
            setattr(stats, name, getattr(stats, name) + value)


class _ParseState(threading.local):
    repaired: bool = False
    failed: bool = False


def _has_verdict(signature: type[dspy.Signature]) -> bool:
    text = " ".join(repr(info.annotation) for info in signature.output_fields.values())
    return "verdict" in signature.output_fields or "Verdict" in text


_MAX_ENTRIES = 512


class CachedChatAdapter(dspy.ChatAdapter):
    """A `dspy.ChatAdapter` that renders system messages and demos once per signature.

    A demo list is reused only while it holds the same demo objects with the same fields and
    values (compared shallowly); anything else renders afresh.

    Example:
        >>> import dspy
        >>> with dspy.context(adapter=CachedChatAdapter()):  # doctest: +SKIP
        ...     judge(question="...", contexts=["..."], answer="...")
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._lock = threading.Lock()
        self._system: dict[Hashable, str] = {}
        self._demos: dict[Hashable, tuple[list[Any], list[dict[str, Any]], list[Any]]] = {}
        self._state = _ParseState()

    #: Whether this adapter asks for JSON with a JSON-schema response_format.
    structured: bool = False

    def __call__(
        self,
        lm: Any,
        lm_kwargs: dict[str, Any],
        signature: type[dspy.Signature],
        demos: list[dict[str, Any]],
        inputs: dict[str, Any],
    ) -> list[dict[str, Any]]:
        """ChatAdapter's call, bounded and made to parse (see the module docstring)."""
        extra = generation_kwargs(lm, signature, inputs)
        if self._schemas(lm):
            extra["response_format"] = _response_format(signature, output_schema(signature, inputs))
        if getattr(getattr(lm, "_engine_spec", None), "supports_logprobs", False) and _has_verdict(
            signature
        ):
            extra.update(logprobs=True, top_logprobs=TOP_LOGPROBS)
        lm_kwargs = {**extra, **lm_kwargs}
        state = self._state
        state.repaired = state.failed = False
        _count(predictor_calls=1)
        try:
            values = super().__call__(lm, lm_kwargs, signature, demos, inputs)
        except AdapterParseError:
            _count(failed=1)
            raise
        except Exception as exc:
            _count(lm_errors=1)
            cut = cut_of(exc)
            if cut is None or cut.bound != "max_tokens" or state.failed:
                raise  # (after a failed parse the cut call was DSPy's JSON fallback)
            return self._after_cut(cut, lm, lm_kwargs, signature, demos, inputs)
        if state.failed:
            _count(fallback=1)
        elif state.repaired:
            _count(salvaged=1)
        else:
            _count(first_try=1)
        return values

    def _schemas(self, lm: Any) -> bool:
        """Whether calls of `lm` carry their outputs' JSON schema (a grammar)."""
        engine = getattr(lm, "_engine_spec", None)
        return self.structured and bool(getattr(engine, "supports_json_schema", False))

    def _after_cut(
        self,
        cut: ReplyCutError,
        lm: Any,
        lm_kwargs: dict[str, Any],
        signature: type[dspy.Signature],
        demos: list[dict[str, Any]],
        inputs: dict[str, Any],
    ) -> list[dict[str, Any]]:
        """The outputs of a call whose reply was cut at max_tokens: read from what it wrote,
        else from one retry that cannot run on (`ragjudge.lm._cut`).

        Raises:
            CutReplyError: When neither answered; its message says what was tried.
        """
        said = str(cut.message if hasattr(cut, "message") else cut).rstrip(". ")
        read = read_partial(signature, inputs, getattr(cut, "partial", "") or "")
        if read is not None:
            _count(cut_read=1)
            if _has_verdict(signature):
                _apply_logprobs(read, "", None)
            return [read]
        tight = tight_signature(signature)  # type: ignore[arg-type]  # classes hash
        schema = self._schemas(lm)
        if tight is None and not schema:
            raise CutReplyError(
                f"{said}; no verdict in what it wrote; not retried (every "
                f"output of {signature.__name__} is needed and this LM takes no "
                "JSON schema to bound them)"
            ) from None
        asked = tight or signature
        budget = token_budget(asked, inputs)
        if cut.max_tokens is not None:
            budget = min(budget, cut.max_tokens)
        kwargs = {**lm_kwargs, "max_tokens": budget}
        kwargs.pop("response_format", None)
        if schema:
            bound = RETRY_STRING_CHARS if tight is None else None
            kwargs["response_format"] = _response_format(
                asked, output_schema(asked, inputs, max_chars=bound)
            )
        how = (
            f"one more try without free text (max_tokens={budget}"
            if tight is not None
            else f"one more try with strings of at most {RETRY_STRING_CHARS} characters "
            f"(max_tokens={budget}"
        ) + (", JSON schema)" if schema else ")")
        retry_demos = tight_demos(signature, tight, demos) if tight is not None else demos
        try:
            values = dspy.Adapter.__call__(self, lm, kwargs, asked, retry_demos, inputs)
        except AdapterParseError as exc:
            _count(failed=1)
            raise CutReplyError(
                f"{said}; no verdict in what it wrote; {how}: its reply did "
                f"not parse ({_first_line(exc)})"
            ) from None
        except Exception as exc:
            _count(lm_errors=1)
            again = cut_of(exc)
            what = "was cut too" if again is not None else f"failed ({_first_line(exc)})"
            raise CutReplyError(f"{said}; no verdict in what it wrote; {how} {what}") from None
        _count(cut_retried=1)
        return [restore(signature, inputs, v) for v in values] if tight is not None else values

    def _strict_parse(self, signature: type[dspy.Signature], completion: str) -> dict[str, Any]:
        """The parse of the format this adapter asks for, without repair."""
        return self._parse_sections(signature, completion)

    def parse(self, signature: type[dspy.Signature], completion: str) -> dict[str, Any]:
        """The reply's outputs: as asked, else repaired (`ragjudge.lm._parsing.salvage`).

        Raises:
            AdapterParseError: When nothing can be read (DSPy then tries its JSON fallback).
        """
        try:
            return self._strict_parse(signature, completion)
        except AdapterParseError as exc:
            try:
                fields = salvage(signature, completion)
            except ValueError:
                self._state.failed = True
                raise exc from None
            self._state.repaired = True
            return fields

    def _call_postprocess(
        self,
        processed_signature: type[dspy.Signature],
        original_signature: type[dspy.Signature],
        outputs: list[dict[str, Any] | str],
        lm: Any,
        lm_kwargs: dict[str, Any],
    ) -> list[dict[str, Any]]:
        """ChatAdapter's, with verdict confidences read from logprobs where there are any."""
        values = super()._call_postprocess(
            processed_signature, original_signature, outputs, lm, lm_kwargs
        )
        if not _has_verdict(original_signature):
            return values
        for value, output in zip(values, outputs, strict=False):
            text = output.get("text") if isinstance(output, dict) else output
            _apply_logprobs(value, str(text or ""), value.pop("logprobs", None))
        return values

    @staticmethod
    def _signature_key(signature: type[dspy.Signature]) -> Hashable:
        fields = tuple((name, id(info)) for name, info in signature.fields.items())
        return (signature, signature.instructions, fields)

    def format_system_message(self, signature: type[dspy.Signature]) -> str:
        """The system message, rendered once per signature."""
        key = self._signature_key(signature)
        with self._lock:
            cached = self._system.get(key)
        if cached is not None:
            return cached
        text = super().format_system_message(signature)
        with self._lock:
            if len(self._system) >= _MAX_ENTRIES:
                self._system.clear()
            self._system[key] = text
        return text

    def format_demos(
        self, signature: type[dspy.Signature], demos: list[dict[str, Any]]
    ) -> list[dict[str, Any]]:
        """The demo messages, rendered once per signature and demo list."""
        key = (self._signature_key(signature), tuple(id(d) for d in demos))
        snapshot = [_snapshot(d) for d in demos]
        with self._lock:
            hit = self._demos.get(key)
        if hit is not None:
            kept, messages, seen = hit
            if all(a is b for a, b in zip(kept, demos, strict=True)) and seen == snapshot:
                return [dict(m) for m in messages]
        messages = super().format_demos(signature, demos)
        with self._lock:
            if len(self._demos) >= _MAX_ENTRIES:
                self._demos.clear()
            self._demos[key] = (list(demos), [dict(m) for m in messages], snapshot)
        return messages

    def format_user_message_content(
        self,
        signature: type[dspy.Signature],
        inputs: dict[str, Any],
        prefix: str = "",
        suffix: str = "",
        main_request: bool = False,
    ) -> str:
        """ChatAdapter's user message, with every input value fenced.

        The same text as `ChatAdapter.format_user_message_content`; strings and lists of
        strings are rendered directly instead of through a new pydantic `TypeAdapter` per value.
        """
        messages = [prefix]
        for name, info in signature.input_fields.items():
            if name in inputs:
                value = fence_value(inputs[name])
                messages.append(f"[[ ## {name} ## ]]\n{_format_value(info, value)}")
        if main_request:
            requirements = self.user_message_output_requirements(signature)
            if requirements is not None:
                messages.append(requirements)
        messages.append(suffix)
        return "\n\n".join(messages).strip()

    def _parse_sections(self, signature: type[dspy.Signature], completion: str) -> dict[str, Any]:
        """`ChatAdapter.parse`, reusing one pydantic `TypeAdapter` per output type."""
        sections: list[tuple[str | None, list[str]]] = [(None, [])]
        for line in completion.splitlines():
            match = field_header_pattern.match(line.strip())
            if match:
                rest = line[match.end() :].strip()
                sections.append((match.group(1), [rest] if rest else []))
            else:
                sections[-1][1].append(line)
        fields: dict[str, Any] = {}
        for name, lines in sections:
            text = "\n".join(lines).strip()
            if name is not None and name not in fields and name in signature.output_fields:
                try:
                    fields[name] = _parse_value(text, signature.output_fields[name].annotation)
                except ValueError as exc:
                    raise AdapterParseError(
                        adapter_name="ChatAdapter",
                        signature=signature,
                        lm_response=completion,
                        message=f"Failed to parse field {name} with value {text} from the LM "
                        f"response. Error message: {exc}",
                    ) from exc
        return _complete_fields(signature, fields, completion, adapter_name="ChatAdapter")

    def format_assistant_message_content(
        self,
        signature: type[dspy.Signature],
        outputs: dict[str, Any],
        missing_field_message: str | None = None,
    ) -> str:
        """ChatAdapter's assistant message (demos), with every output value fenced."""
        fenced = {k: fence_value(v) for k, v in outputs.items()}
        return super().format_assistant_message_content(
            signature, fenced, missing_field_message=missing_field_message
        )


class StructuredChatAdapter(CachedChatAdapter):
    """`CachedChatAdapter` asking for a JSON object (`dspy.JSONAdapter`'s prompt format).

    With an engine that offers structured output, each call also carries the outputs' JSON
    schema as its `response_format` (a grammar in process), so the reply is valid JSON of it.
    The system message and demos are the stable prefix of every prompt; the row's own fields
    come last, in the final user message, so a server's prefix cache reuses the rest.
    """

    structured = True

    def format_field_structure(self, signature: type[dspy.Signature]) -> str:
        """JSONAdapter's description of the reply: a JSON object."""
        return dspy.JSONAdapter.format_field_structure(self, signature)

    def user_message_output_requirements(self, signature: type[dspy.Signature]) -> str:
        """JSONAdapter's reminder: respond with a JSON object, fields in order."""
        return dspy.JSONAdapter.user_message_output_requirements(self, signature)

    def format_field_with_value(self, fields_with_values: Any, role: str = "user") -> str:
        """JSONAdapter's rendering (a JSON object for the assistant's demo replies)."""
        return dspy.JSONAdapter.format_field_with_value(self, fields_with_values, role=role)

    def format_assistant_message_content(
        self,
        signature: type[dspy.Signature],
        outputs: dict[str, Any],
        missing_field_message: str | None = None,
    ) -> str:
        """A demo reply as the JSON object the LM is asked for."""
        fenced = {k: fence_value(v) for k, v in outputs.items()}
        return dspy.JSONAdapter.format_assistant_message_content(
            self,
            signature,
            fenced,
            missing_field_message=missing_field_message,
        )

    def _strict_parse(self, signature: type[dspy.Signature], completion: str) -> dict[str, Any]:
        """`dspy.JSONAdapter.parse`, reusing one pydantic `TypeAdapter` per output type."""
        fields = json_repair.loads(completion)
        if not isinstance(fields, dict):  # an object inside other text: DSPy's search for it
            return dspy.JSONAdapter.parse(self, signature, completion)
        outputs = signature.output_fields
        fields = {k: v for k, v in fields.items() if k in outputs}
        for name, value in fields.items():
            try:
                fields[name] = _parse_value(value, outputs[name].annotation)
            except ValueError as exc:
                raise AdapterParseError(
                    adapter_name=type(self).__name__,
                    signature=signature,
                    lm_response=completion,
                    message=f"Failed to parse field {name}: {exc}",
                    parsed_result=fields,
                ) from exc
        return _complete_fields(signature, fields, completion, adapter_name="JSONAdapter")


def _response_format(signature: type[dspy.Signature], schema: dict[str, Any]) -> dict[str, Any]:
    """A JSON-schema `response_format` (a grammar in process) for `signature`'s outputs."""
    return {"type": "json_schema", "json_schema": {"name": signature.__name__, "schema": schema}}


def _first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0][:200] if lines else type(exc).__name__


def _complete_fields(
    signature: type[dspy.Signature], fields: dict[str, Any], completion: str, *, adapter_name: str
) -> dict[str, Any]:
    """The parsed fields with the signature's defaults, or DSPy's error if any is missing."""
    fields = apply_output_field_defaults(signature, fields)
    if fields.keys() != signature.output_fields.keys():
        raise AdapterParseError(
            adapter_name=adapter_name,
            signature=signature,
            lm_response=completion,
            parsed_result=fields,
        )
    return fields


def _apply_logprobs(value: dict[str, Any], text: str, logprobs: Any) -> None:
    """Replace stated verdict confidences by logprob ones; record which was used."""
    probabilities = verdict_probabilities(text, logprobs) if logprobs else []
    used = 0
    if "verdict" in value:
        p = probabilities[0] if probabilities else None
        if p is not None and "confidence" in value:
            value["stated_confidence"] = value["confidence"]  # kept to compare the two
            value["confidence"] = p
            used = 1
        value["confidence_source"] = "logprobs" if used else "stated"
        _count(logprob_verdicts=used, stated_verdicts=1 - used)
        return
    for name, items in list(value.items()):
        if not isinstance(items, list) or not items or not hasattr(items[0], "verdict"):
            continue
        for index, item in enumerate(items):
            p = probabilities[index] if index < len(probabilities) else None
            if p is not None and len(probabilities) == len(items):
                items[index] = item.model_copy(update={"confidence": p})
                used += 1
        value[f"{name}_confidence_source"] = "logprobs" if used == len(items) else "stated"
        _count(logprob_verdicts=used, stated_verdicts=len(items) - used)


@functools.lru_cache(maxsize=256)
def _type_adapter(annotation: Any) -> pydantic.TypeAdapter[Any]:
    return pydantic.TypeAdapter(annotation)


def _parse_value(value: Any, annotation: Any) -> Any:
    """`dspy.adapters.utils.parse_value` with one pydantic `TypeAdapter` per annotation.

    The special cases (str, enums, Literal, optional-str unions, DSPy types) go to DSPy's own
    function; the rest follows its steps (JSON repair, then a Python literal, then validation).
    """
    origin = get_origin(annotation)
    special = (
        annotation is str
        or isinstance(annotation, enum.EnumMeta)
        or origin is Literal
        or (origin in (Union, types.UnionType) and str in get_args(annotation))
        or (isinstance(annotation, type) and issubclass(annotation, DspyType))
    )
    try:
        adapter = None if special else _type_adapter(annotation)
    except TypeError:  # an unhashable annotation
        adapter = None
    if adapter is None:
        return parse_value(value, annotation)
    if not isinstance(value, str):
        return adapter.validate_python(value)
    candidate = json_repair.loads(value)
    if candidate == "" and value != "":
        try:
            candidate = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            candidate = value
    return adapter.validate_python(candidate)


def _format_value(info: Any, value: Any) -> str:
    """`dspy.adapters.utils.format_field_value`, with fast paths that give the same text."""
    if isinstance(value, str):
        return value
    if (
        isinstance(value, list)
        and info.annotation is not str
        and all(isinstance(v, str) for v in value)
    ):
        return json.dumps(value, ensure_ascii=False)
    return str(format_field_value(field_info=info, value=value))


def _snapshot(demo: Any) -> Any:
    items = demo.items() if hasattr(demo, "items") else ()
    return dict(items)


_DEFAULTS: dict[bool, CachedChatAdapter] = {}
_DEFAULT_LOCK = threading.Lock()


def default_adapter(lm: Any = None) -> dspy.Adapter:
    """The adapter judges use: the configured one, else a shared `CachedChatAdapter`.

    Args:
        lm: The LM the judge calls: one whose engine offers structured output (ragjudge's
            OpenAI-compatible and llama.cpp engines) gets the shared `StructuredChatAdapter`.
    """
    configured = dspy.settings.adapter
    if configured is not None:
        return configured
    structured = bool(getattr(getattr(lm, "_engine_spec", None), "supports_json_schema", False))
    with _DEFAULT_LOCK:
        if structured not in _DEFAULTS:
            _DEFAULTS[structured] = StructuredChatAdapter() if structured else CachedChatAdapter()
        return _DEFAULTS[structured]
