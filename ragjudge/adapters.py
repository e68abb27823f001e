"""DSPy's ChatAdapter with the per-signature parts of the prompt rendered once.

DSPy 3.4.1 re-renders the whole prompt on every call: the system message (field list, output
JSON schemas built through pydantic) and the few-shot demos, although both depend only on the
signature and the demos. At 2 LM calls per judged row that is most of the library's own time
per call (about 2 ms of 4). `CachedChatAdapter` memoizes those two parts; the messages it
produces are byte-identical to `dspy.ChatAdapter`'s (so DSPy's response cache keys do not
change), and parsing, the JSON-adapter fallback for unparseable output and everything else are
ChatAdapter's own.

It also fences every input and demo value (`ragjudge.safety.fence_value`): judged text cannot
forge a `[[ ## field ## ]]` header, whichever field it reaches (statements an LM extracted
included). For text without such headers the prompt is unchanged.

Judges use it when no adapter was configured (`dspy.configure(adapter=...)` wins).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Hashable
from typing import Any

import dspy
from dspy.adapters.utils import format_field_value

from ragjudge.safety import fence_value

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
