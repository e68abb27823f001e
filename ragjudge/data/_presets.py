"""The data users already have: column presets for ragas and deepeval exports, and
OpenTelemetry span exports (OpenInference / OTel GenAI semantic conventions) read as rows.

* `ragas`: `user_input`, `retrieved_contexts`, `response`, `reference` (ragas'
  `SingleTurnSample` / `EvaluationDataset.to_jsonl`).
* `deepeval`: `input`, `actual_output`, `retrieval_context`, `expected_output` (an
  `LLMTestCase` as a dict).
* `otel`: one span per line (the OpenTelemetry SDK's JSON, e.g. `ConsoleSpanExporter` or
  Phoenix / Langfuse exports), or OTLP/JSON lines (`{"resourceSpans": [...]}`). Spans are
  grouped by trace id; each trace becomes one row (id = trace id): the documents of its
  retriever spans (`retrieval.documents.N.document.content`, in order) are the contexts, and its
  last LLM span's last user message and output are the question and the answer
  (OpenInference `llm.input_messages.N.message.*` / `llm.output_messages.N.message.*`, else
  `input.value` / `output.value`; OTel GenAI `gen_ai.prompt.N.*` / `gen_ai.completion.N.*`,
  `gen_ai.input.messages` / `gen_ai.output.messages`, or the `gen_ai.user.message` /
  `gen_ai.choice` events). A `faithful` attribute on any span of the trace is its label.

A label column (`faithful`) is read where present, under its own name.
"""

from __future__ import annotations

import csv
import json
import logging
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Literal

from ragjudge.data._gold import GoldRecord, _read_jsonl, _validate
from ragjudge.exceptions import GoldDataError

__all__ = ["PRESETS", "Preset", "detect_preset", "load_spans", "preset_mapping"]

logger = logging.getLogger(__name__)

Preset = Literal["ragas", "deepeval", "otel"]
PRESETS: tuple[Preset, ...] = ("ragas", "deepeval", "otel")

#: ragjudge field -> the preset's column.
_COLUMNS: dict[str, dict[str, str]] = {
    "ragas": {
        "question": "user_input",
        "contexts": "retrieved_contexts",
        "answer": "response",
        "reference": "reference",
    },
    "deepeval": {
        "question": "input",
        "contexts": "retrieval_context",
        "answer": "actual_output",
        "reference": "expected_output",
    },
}
_OTEL_KEYS = {
    "resourceSpans",
    "context",
    "trace_id",
    "traceId",
    "context.trace_id",
    "span_id",
    "spanId",
}


def preset_mapping(preset: str, columns: Iterable[str] | None = None) -> dict[str, str]:
    """The `--map` a column preset stands for (only the columns present, when `columns` is
    given: `reference` is optional).

    Example:
        >>> preset_mapping("deepeval")["answer"]
        'actual_output'
    """
    if preset not in _COLUMNS:
        raise GoldDataError(f"unknown preset {preset!r}; choose from {', '.join(PRESETS)}")
    mapping = dict(_COLUMNS[preset])
    if columns is not None:
        present = set(columns)
        mapping = {f: c for f, c in mapping.items() if c in present or f != "reference"}
    return mapping


def _first_columns(path: Path) -> set[str] | None:
    """The keys of the first row of a local JSONL or CSV file; None when it cannot tell."""
    try:
        if path.suffix == ".csv":
            with path.open(newline="", encoding="utf-8-sig") as handle:
                return set(next(csv.reader(handle), []))
        if path.suffix in (".jsonl", ".json"):
            with path.open("rb") as handle:
                for line in handle:
                    if line.strip():
                        obj = json.loads(line)
                        return set(obj) if isinstance(obj, dict) else None
    except (OSError, ValueError, UnicodeDecodeError, RecursionError):
        return None
    return None


def _matches(columns: set[str]) -> list[Preset]:
    found: list[Preset] = []
    if {"user_input", "response"} <= columns and "retrieved_contexts" in columns:
        found.append("ragas")
    if {"input", "actual_output"} <= columns and "retrieval_context" in columns:
        found.append("deepeval")
    if columns & _OTEL_KEYS and (
        "attributes" in columns
        or "resourceSpans" in columns
        or any(c.startswith("attributes.") for c in columns)
    ):
        found.append("otel")
    return found


def detect_preset(source: str) -> Preset | None:
    """The preset a local file's columns match, when exactly one does and the file does not
    already have ragjudge's own columns (`answer`); else None.

    Example:
        >>> detect_preset("../shared/gold/sample.jsonl") is None  # doctest: +SKIP
        True
    """
    path = Path(source)
    if not path.is_file():
        return None
    columns = _first_columns(path)
    if not columns or "answer" in columns:
        return None
    found = _matches(columns)
    return found[0] if len(found) == 1 else None


# -- OpenTelemetry spans -----------------------------------------------------------------------
def _otlp_value(value: Any) -> Any:
    """An OTLP/JSON `AnyValue` as a plain value."""
    if not isinstance(value, dict):
        return value
    for key in ("stringValue", "boolValue", "doubleValue"):
        if key in value:
            return value[key]
    if "intValue" in value:
        return int(value["intValue"])
    if "arrayValue" in value:
        return [_otlp_value(v) for v in value["arrayValue"].get("values", [])]
    if "kvlistValue" in value:
        return {kv["key"]: _otlp_value(kv.get("value")) for kv in value["kvlistValue"]["values"]}
    return None


def _flatten(value: Any, prefix: str, out: dict[str, Any]) -> None:
    """Nested attribute dicts and lists as dotted keys (`retrieval.documents.0.document...`)."""
    if isinstance(value, dict):
        for key, item in value.items():
            _flatten(item, f"{prefix}.{key}" if prefix else str(key), out)
    elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        for index, item in enumerate(value):
            _flatten(item, f"{prefix}.{index}", out)
    else:
        out[prefix] = value


def _attributes(raw: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if isinstance(raw, list):  # OTLP: [{"key": ..., "value": {...}}]
        for kv in raw:
            if isinstance(kv, dict) and "key" in kv:
                _flatten(_otlp_value(kv.get("value")), str(kv["key"]), out)
    elif isinstance(raw, dict):
        _flatten(raw, "", out)
    return out


class _Span:
    """What the reader needs of one span."""

    def __init__(self, obj: Mapping[str, Any], row: int) -> None:
        self.row = row
        raw_context = obj.get("context")
        context: dict[str, Any] = raw_context if isinstance(raw_context, dict) else {}
        self.trace_id = str(
            obj.get("trace_id")
            or obj.get("traceId")
            or obj.get("context.trace_id")
            or context.get("trace_id")
            or context.get("traceId")
            or ""
        )
        attrs = _attributes(obj.get("attributes"))
        for key, value in obj.items():  # Phoenix dataframe exports: "attributes.input.value"
            if key.startswith("attributes."):
                _flatten(value, key[len("attributes.") :], attrs)
        self.attributes = attrs
        kind = attrs.get("openinference.span.kind") or obj.get("span_kind") or ""
        self.kind = str(kind).upper()
        self.events = [
            (str(e.get("name", "")), _attributes(e.get("attributes")))
            for e in obj.get("events") or []
            if isinstance(e, dict)
        ]


def _spans(path: Path) -> Iterable[_Span]:
    for row, obj in _read_jsonl(path):
        if "resourceSpans" in obj:  # OTLP/JSON: a batch of spans on one line
            for resource in obj.get("resourceSpans") or []:
                for scope in (
                    resource.get("scopeSpans") or resource.get("instrumentationLibrarySpans") or []
                ):
                    for span in scope.get("spans") or []:
                        yield _Span(span, row)
        else:
            yield _Span(obj, row)


def _indexed(attrs: Mapping[str, Any], prefix: str, suffix: str) -> list[tuple[int, Any]]:
    """`prefix.N.suffix` values in N order."""
    pattern = re.compile(re.escape(prefix) + r"\.(\d+)\." + re.escape(suffix) + "$")
    found = [(int(m.group(1)), v) for k, v in attrs.items() if (m := pattern.match(k))]
    return sorted(found)


def _messages(
    attrs: Mapping[str, Any], prefix: str, role_key: str, content_key: str
) -> list[tuple[str, str]]:
    roles = dict(_indexed(attrs, prefix, role_key))
    return [(str(roles.get(i, "")), str(c)) for i, c in _indexed(attrs, prefix, content_key) if c]


def _json_messages(value: Any) -> list[tuple[str, str]]:
    """OTel GenAI `gen_ai.input.messages` / `gen_ai.output.messages`: JSON lists of
    `{"role", "parts": [{"type": "text", "content": ...}]}` (or `content`)."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return []
    out = []
    for message in value if isinstance(value, list) else []:
        if not isinstance(message, dict):
            continue
        parts = message.get("parts")
        if isinstance(parts, list):
            text = " ".join(str(p.get("content", "")) for p in parts if isinstance(p, dict))
        else:
            text = str(message.get("content") or "")
        if text:
            out.append((str(message.get("role", "")), text))
    return out


def _question_answer(span: _Span) -> tuple[str | None, str | None]:
    a = span.attributes
    inputs = (
        _messages(a, "llm.input_messages", "message.role", "message.content")
        or _messages(a, "gen_ai.prompt", "role", "content")
        or _json_messages(a.get("gen_ai.input.messages"))
        or [
            ("user", str(e.get("content") or e.get("gen_ai.event.content") or ""))
            for name, e in span.events
            if name == "gen_ai.user.message"
        ]
    )
    outputs = (
        _messages(a, "llm.output_messages", "message.role", "message.content")
        or _messages(a, "gen_ai.completion", "role", "content")
        or _json_messages(a.get("gen_ai.output.messages"))
        or [
            ("assistant", str(e.get("message.content") or e.get("content") or ""))
            for name, e in span.events
            if name == "gen_ai.choice"
        ]
    )
    users = [text for role, text in inputs if role in ("user", "") and text]
    question = users[-1] if users else _text(a.get("input.value"))
    answers = [text for _, text in outputs if text]
    answer = answers[-1] if answers else _text(a.get("output.value"))
    return question, answer


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def _is_llm(span: _Span) -> bool:
    return span.kind == "LLM" or any(k.startswith("gen_ai.") for k in span.attributes)


def load_spans(
    source: str, *, require_labels: bool = False, limit: int | None = None
) -> list[GoldRecord]:
    """Rows from an OpenTelemetry span export (JSONL): one row per trace.

    Args:
        source: The `.jsonl` file.
        require_labels: Refuse traces without a `faithful` attribute.
        limit: Keep at most this many rows.

    Returns:
        One record per trace that has an LLM span with an answer, in order of first appearance.

    Raises:
        GoldDataError: Naming the file, the line and the attribute of the first problem.
    """
    path = Path(source)
    if not path.is_file():
        raise GoldDataError("file not found", file=source)
    traces: dict[str, list[_Span]] = {}
    for span in _spans(path):
        if not span.trace_id:
            raise GoldDataError(
                "is a span without a trace id (trace_id, traceId or context.trace_id)",
                file=source,
                row=span.row,
            )
        traces.setdefault(span.trace_id, []).append(span)
    records: list[GoldRecord] = []
    skipped = 0
    for trace_id, spans in traces.items():
        llm = [s for s in spans if _is_llm(s)]
        if not llm:
            skipped += 1
            continue
        question, answer = _question_answer(llm[-1])
        if not answer:
            raise GoldDataError(
                f"trace {trace_id}: its LLM span has no output (llm.output_messages, "
                "output.value or gen_ai.completion)",
                file=source,
                row=llm[-1].row,
            )
        contexts = [
            str(text)
            for s in spans
            if s.kind == "RETRIEVER"
            or any(k.startswith("retrieval.documents.") for k in s.attributes)
            for _, text in _indexed(s.attributes, "retrieval.documents", "document.content")
        ]
        label = next((s.attributes["faithful"] for s in spans if "faithful" in s.attributes), None)
        row = {"id": trace_id, "question": question or "", "contexts": contexts, "answer": answer}
        if label is not None:
            row["faithful"] = label
        record = _validate(row, {}, file=source, row=llm[-1].row)
        if require_labels and record.faithful is None:
            raise GoldDataError(
                f"trace {trace_id} has no label; add a `faithful` attribute (0 or 1) to one of "
                "its spans",
                file=source,
                row=llm[-1].row,
                field="faithful",
            )
        records.append(record)
        if limit is not None and len(records) >= limit:
            break
    if skipped:
        logger.info("%s: %d traces without an LLM span were skipped", source, skipped)
    if not records:
        raise GoldDataError(
            "holds no trace with an LLM span (openinference.span.kind LLM or gen_ai.* attributes)",
            file=source,
        )
    return records
