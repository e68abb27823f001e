"""`--preset ragas|deepeval|otel`: the exports users already have, read as rows."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ragjudge.data._gold import GoldRecord, load_gold
from ragjudge.data._presets import detect_preset, load_spans, preset_mapping
from ragjudge.exceptions import GoldDataError

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def rows(gold_dir: Path) -> list[GoldRecord]:
    return load_gold(gold_dir / "halueval" / "dev.jsonl", limit=40)


def write_jsonl(path: Path, objs: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(o) + "\n" for o in objs))
    return path


def ragas(rows: list[GoldRecord]) -> list[dict[str, Any]]:
    return [
        {
            "user_input": r.question,
            "retrieved_contexts": r.contexts,
            "response": r.answer,
            "reference": "ref",
            "faithful": r.faithful,
        }
        for r in rows
    ]


def openinference_spans(r: GoldRecord, trace: str) -> list[dict[str, Any]]:
    """One RAG request as the OpenTelemetry SDK writes spans (`span.to_json()`), with
    OpenInference attributes: a chain, a retriever, an LLM call."""
    ctx = {"trace_id": trace, "span_id": "0x1"}
    retriever = {"openinference.span.kind": "RETRIEVER", "input.value": r.question}
    for i, text in enumerate(r.contexts):
        retriever[f"retrieval.documents.{i}.document.content"] = text
        retriever[f"retrieval.documents.{i}.document.score"] = 0.9
    llm = {
        "openinference.span.kind": "LLM",
        "llm.input_messages.0.message.role": "system",
        "llm.input_messages.0.message.content": "Answer from the context.",
        "llm.input_messages.1.message.role": "user",
        "llm.input_messages.1.message.content": r.question,
        "llm.output_messages.0.message.role": "assistant",
        "llm.output_messages.0.message.content": r.answer,
        "input.value": json.dumps({"messages": "..."}),
    }
    return [
        {
            "name": "rag",
            "context": ctx,
            "parent_id": None,
            "attributes": {
                "openinference.span.kind": "CHAIN",
                "input.value": r.question,
                "faithful": r.faithful,
            },
        },
        {"name": "retrieve", "context": ctx, "parent_id": "0x1", "attributes": retriever},
        {"name": "ChatCompletion", "context": ctx, "parent_id": "0x1", "attributes": llm},
    ]


def otlp_genai_line(r: GoldRecord, trace: str) -> dict[str, Any]:
    """One OTLP/JSON batch: a retriever span (nested OpenInference documents) and an LLM span
    with OTel GenAI `gen_ai.input.messages` / `gen_ai.output.messages`."""

    def kv(key: str, value: Any) -> dict[str, Any]:
        if isinstance(value, int):
            return {"key": key, "value": {"intValue": str(value)}}
        return {"key": key, "value": {"stringValue": value}}

    docs = [kv(f"retrieval.documents.{i}.document.content", c) for i, c in enumerate(r.contexts)]
    messages_in = [{"role": "user", "parts": [{"type": "text", "content": r.question}]}]
    messages_out = [
        {
            "role": "assistant",
            "parts": [{"type": "text", "content": r.answer}],
            "finish_reason": "stop",
        }
    ]
    spans = [
        {
            "traceId": trace,
            "spanId": "a1",
            "name": "retrieve",
            "attributes": [kv("openinference.span.kind", "RETRIEVER"), *docs],
        },
        {
            "traceId": trace,
            "spanId": "a2",
            "name": "chat",
            "attributes": [
                kv("gen_ai.operation.name", "chat"),
                kv("gen_ai.input.messages", json.dumps(messages_in)),
                kv("gen_ai.output.messages", json.dumps(messages_out)),
                kv("faithful", int(r.faithful or 0)),
            ],
        },
    ]
    return {"resourceSpans": [{"resource": {}, "scopeSpans": [{"spans": spans}]}]}


def same_rows(got: list[GoldRecord], want: list[GoldRecord]) -> None:
    assert [(g.question, g.contexts, g.answer, g.faithful) for g in got] == [
        (w.question, w.contexts, w.answer, w.faithful) for w in want
    ]


def test_column_presets_and_detection(tmp_path: Path, rows: list[GoldRecord]) -> None:
    path = write_jsonl(tmp_path / "ragas.jsonl", ragas(rows))
    assert detect_preset(str(path)) == "ragas"
    same_rows(load_gold(path, mapping=preset_mapping("ragas")), rows)
    deepeval = [
        {
            "input": r.question,
            "actual_output": r.answer,
            "retrieval_context": r.contexts,
            "faithful": r.faithful,
        }
        for r in rows
    ]
    path = write_jsonl(tmp_path / "deepeval.jsonl", deepeval)
    assert detect_preset(str(path)) == "deepeval"
    same_rows(load_gold(path, mapping=preset_mapping("deepeval", deepeval[0])), rows)
    # Both sets of columns: ambiguous, so nothing is detected; native columns: no preset.
    both = [{**a, **b} for a, b in zip(ragas(rows), deepeval, strict=True)]
    assert detect_preset(str(write_jsonl(tmp_path / "both.jsonl", both))) is None
    native = [r.model_dump() for r in rows]
    assert detect_preset(str(write_jsonl(tmp_path / "native.jsonl", native))) is None


def test_openinference_spans_one_row_per_trace(tmp_path: Path, rows: list[GoldRecord]) -> None:
    spans = [s for i, r in enumerate(rows) for s in openinference_spans(r, f"0x{i:032x}")]
    spans.append({"name": "health", "context": {"trace_id": "0xfff"}, "attributes": {}})
    path = write_jsonl(tmp_path / "spans.jsonl", spans)
    assert detect_preset(str(path)) == "otel"
    got = load_spans(str(path))
    same_rows(got, rows)
    assert got[0].id == f"0x{0:032x}"


def test_otlp_json_with_genai_messages(tmp_path: Path, rows: list[GoldRecord]) -> None:
    path = write_jsonl(
        tmp_path / "otlp.jsonl", [otlp_genai_line(r, f"t{i}") for i, r in enumerate(rows)]
    )
    assert detect_preset(str(path)) == "otel"
    same_rows(load_spans(str(path), limit=10), rows[:10])


def test_genai_indexed_attributes_and_events(tmp_path: Path) -> None:
    spans = [
        {
            "context": {"trace_id": "t1"},
            "attributes": {
                "gen_ai.system": "openai",
                "gen_ai.prompt.0.role": "user",
                "gen_ai.prompt.0.content": "Who wrote Hamlet?",
                "gen_ai.completion.0.role": "assistant",
                "gen_ai.completion.0.content": "Shakespeare wrote Hamlet.",
            },
        },
        {
            "context": {"trace_id": "t1"},
            "attributes": {
                "openinference.span.kind": "RETRIEVER",
                "retrieval": {
                    "documents": [{"document": {"content": "Hamlet is by Shakespeare."}}]
                },
            },
        },
        {
            "context": {"trace_id": "t2"},
            "attributes": {"gen_ai.operation.name": "chat"},
            "events": [
                {"name": "gen_ai.user.message", "attributes": {"content": "Capital of Peru?"}},
                {"name": "gen_ai.choice", "attributes": {"message.content": "Lima."}},
            ],
        },
    ]
    got = load_spans(str(write_jsonl(tmp_path / "genai.jsonl", spans)))
    assert [(g.id, g.question, g.contexts, g.answer) for g in got] == [
        ("t1", "Who wrote Hamlet?", ["Hamlet is by Shakespeare."], "Shakespeare wrote Hamlet."),
        ("t2", "Capital of Peru?", [], "Lima."),
    ]


def test_span_errors_name_file_and_line(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "bad.jsonl",
        [
            {
                "context": {"trace_id": "t1"},
                "attributes": {"openinference.span.kind": "LLM", "input.value": "q"},
            },
        ],
    )
    with pytest.raises(GoldDataError, match=r"bad\.jsonl, row 1: trace t1: its LLM span has no"):
        load_spans(str(path))
    path = write_jsonl(tmp_path / "noid.jsonl", [{"name": "x", "attributes": {}}] * 2)
    with pytest.raises(GoldDataError, match=r"row 1: is a span without a trace id"):
        load_spans(str(path))
    path = write_jsonl(
        tmp_path / "unlabeled.jsonl",
        [
            {
                "context": {"trace_id": "t1"},
                "attributes": {"openinference.span.kind": "LLM", "output.value": "a"},
            }
        ],
    )
    with pytest.raises(GoldDataError, match="trace t1 has no label"):
        load_spans(str(path), require_labels=True)


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [sys.executable, "-m", "ragjudge", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=120,
    )


def test_cli_detects_and_evaluates_exports(tmp_path: Path, rows: list[GoldRecord]) -> None:
    native = write_jsonl(tmp_path / "native.jsonl", [r.model_dump() for r in rows])
    ragas_file = write_jsonl(tmp_path / "ragas.jsonl", ragas(rows))
    spans = write_jsonl(
        tmp_path / "spans.jsonl",
        [s for i, r in enumerate(rows) for s in openinference_spans(r, f"trace-{i}")],
    )
    want = json.loads(run_cli("evaluate", "--gold", str(native), "--format", "json").stdout)
    for path, preset in ((ragas_file, "ragas"), (spans, "otel")):
        out = run_cli("evaluate", "--gold", str(path), "--format", "json")
        assert out.returncode == 0, out.stderr
        assert out.stderr.splitlines() == [
            f"ragjudge: {path}: the columns are a {preset} export's; reading it as "
            f"--preset {preset}"
        ]
        got = json.loads(out.stdout)
        assert (got["n"], got["balanced_accuracy"], got["auroc"]) == (
            want["n"],
            want["balanced_accuracy"],
            want["auroc"],
        )
    # An explicit preset says nothing; a broken span line is one line and exit 2.
    out = run_cli("evaluate", "--gold", str(spans), "--preset", "otel", "--format", "json")
    assert out.returncode == 0 and out.stderr == ""
    broken = tmp_path / "broken.jsonl"
    broken.write_text(spans.read_text() + "{not json\n")
    out = run_cli("evaluate", "--gold", str(broken), "--preset", "otel")
    assert out.returncode == 2
    assert out.stderr.strip() == (
        f"ragjudge evaluate: error: {broken}, row {3 * len(rows) + 1}: is not valid JSON "
        "(Expecting property name enclosed in double quotes at column 2)"
    )
