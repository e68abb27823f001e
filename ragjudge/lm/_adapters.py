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

Judges use it when no adapter was configured (`dspy.configure(adapter=...)` wins).
"""

from __future__ import annotations

import ast
import enum
import functools
import json
import threading
import types
from collections.abc import Hashable
from typing import Any, Literal, Union, get_args, get_origin

import dspy
import json_repair
import pydantic
from dspy.adapters.chat_adapter import field_header_pattern
from dspy.adapters.types.base_type import Type as DspyType
from dspy.adapters.utils import apply_output_field_defaults, format_field_value, parse_value
from dspy.utils.exceptions import AdapterParseError

from ragjudge.lm._safety import fence_value

__all__ = ["CachedChatAdapter", "default_adapter"]

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

    def parse(self, signature: type[dspy.Signature], completion: str) -> dict[str, Any]:
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
        fields = apply_output_field_defaults(signature, fields)
        if fields.keys() != signature.output_fields.keys():
            raise AdapterParseError(
                adapter_name="ChatAdapter",
                signature=signature,
                lm_response=completion,
                parsed_result=fields,
            )
        return fields

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


_DEFAULT: CachedChatAdapter | None = None
_DEFAULT_LOCK = threading.Lock()


def default_adapter() -> dspy.Adapter:
    """The adapter judges use: the configured one, else a shared `CachedChatAdapter`."""
    configured = dspy.settings.adapter
    if configured is not None:
        return configured
    global _DEFAULT
    with _DEFAULT_LOCK:
        if _DEFAULT is None:
            _DEFAULT = CachedChatAdapter()
        return _DEFAULT
