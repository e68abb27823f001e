"""Bad input through the real CLI: a defined result, or one line naming file, row and field with
exit code 2 and no traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
OK = {
    "id": "a",
    "question": "Where is Paris?",
    "contexts": ["Paris is the capital of France."],
    "answer": "Paris is the capital of France.",
    "faithful": 1,
}


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    return env


def _write(path: Path, lines: list[Any]) -> Path:
    with path.open("wb") as handle:
        for line in lines:
            if isinstance(line, bytes):
                handle.write(line + b"\n")
            elif isinstance(line, str):
                handle.write(line.encode() + b"\n")
            else:
                handle.write(json.dumps(line).encode() + b"\n")
    return path


def _evaluate(gold: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ragjudge", "evaluate", "--gold", str(gold), *extra],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=300,
    )


ERRORS = {
    "malformed_json": ([OK, '{"id": "b", "answer": "x"'], "row 2", None, "not valid JSON"),
    "not_an_object": ([OK, "[1, 2]"], "row 2", None, "JSON object"),
    "contexts_wrong_type": ([OK, {**OK, "id": "b", "contexts": 5}], "row 2", "contexts", "list"),
    "context_item_wrong_type": (
        [OK, {**OK, "id": "b", "contexts": ["ok", 7]}],
        "row 2",
        "contexts",
        "string",
    ),
    "answer_wrong_type": ([OK, {**OK, "id": "b", "answer": ["x"]}], "row 2", "answer", "string"),
    "question_wrong_type": ([{**OK, "question": {"q": 1}}], "row 1", "question", "string"),
    "id_wrong_type": ([OK, {**OK, "id": 1.5}], "row 2", "id", "string"),
    "missing_answer": ([OK, {"id": "b", "question": "Q?"}], "row 2", "answer", "missing"),
    "answer_null": ([OK, {**OK, "id": "b", "answer": None}], "row 2", "answer", "missing"),
    "missing_contexts": (
        [OK, {k: v for k, v in OK.items() if k != "contexts"}],
        "row 2",
        "contexts",
        "is missing (faithfulness needs it)",
    ),
    "contexts_null": ([OK, {**OK, "id": "b", "contexts": None}], "row 2", "contexts", "missing"),
    "label_out_of_range": ([OK, {**OK, "id": "b", "faithful": 2}], "row 2", "faithful", "0, 1"),
    "label_text": ([{**OK, "faithful": "maybe"}], "row 1", "faithful", "0, 1"),
    "non_utf8": ([OK, b'{"id": "b", "answer": "caf\xe9"}'], "row 2", None, "UTF-8"),
    "duplicate_ids": ([OK, {**OK, "answer": "Paris."}], "row 2", "id", "duplicate id 'a'"),
    "nested_too_deep": (["[" * 50_000 + "]" * 50_000], "row 1", None, "nested"),
    "spans_wrong_type": (
        [{**OK, "hallucinated_spans": "oops"}],
        "row 1",
        "hallucinated_spans",
        "list",
    ),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_bad_rows_give_one_line_with_file_row_field_and_exit_2(tmp_path: Path, case: str) -> None:
    lines, row, field, words = ERRORS[case]
    gold = _write(tmp_path / f"{case}.jsonl", lines)
    done = _evaluate(gold)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    message = done.stderr.strip()
    assert len(message.splitlines()) == 1, message
    assert str(gold) in message and row in message and words in message
    if field is not None:
        assert f"field '{field}'" in message
    assert done.stdout == ""


def test_contexts_only_where_the_metric_reads_them(tmp_path: Path) -> None:
    no_contexts = {k: v for k, v in OK.items() if k != "contexts"}
    gold = _write(tmp_path / "g.jsonl", [OK, {**no_contexts, "id": "b"}])
    out = tmp_path / "out.jsonl"
    done = _evaluate(gold, "--metric", "answer_relevancy", "--out", str(out))
    assert done.returncode == 0, done.stderr  # relevancy reads no context
    assert set(_results(out)) == {"a", "b"}
    done = _evaluate(gold, "--metric", "answer_relevancy,context_recall")
    assert done.returncode == 2 and "field 'contexts'" in done.stderr
    assert "context_recall needs it" in done.stderr and "Traceback" not in done.stderr
    compiled = subprocess.run(
        [
            sys.executable,
            "-m",
            "ragjudge",
            "compile",
            "--gold",
            str(gold),
            "--out",
            str(tmp_path / "j.json"),
        ],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=300,
    )
    assert compiled.returncode == 2 and "row 2, field 'contexts': is missing" in compiled.stderr


def test_a_string_contexts_is_one_passage() -> None:
    from ragjudge.data._gold import GoldRecord

    row = GoldRecord.model_validate({**OK, "contexts": "One passage. Two sentences."})
    assert row.contexts == ["One passage. Two sentences."]


def test_empty_file_and_missing_file(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n\n")
    for gold, words in ((empty, "holds no rows"), (tmp_path / "nope.jsonl", "file not found")):
        done = _evaluate(gold)
        assert done.returncode == 2 and words in done.stderr
        assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr


def _results(path: Path) -> dict[str, dict[str, Any]]:
    records = [json.loads(line) for line in path.read_text().splitlines()]
    return {r["id"]: r for r in records}


def test_defined_results_for_empty_answers_contexts_and_nan_labels(tmp_path: Path) -> None:
    gold = _write(
        tmp_path / "edge.jsonl",
        [
            OK,
            {**OK, "id": "empty-answer", "answer": ""},
            {**OK, "id": "blank-answer", "answer": "   \n\t"},
            {**OK, "id": "no-contexts", "contexts": []},
            {**OK, "id": "empty-contexts", "contexts": ["", ""]},
            '{"id": "nan-label", "answer": "Paris is in France.", "contexts": ["x"], '
            '"faithful": NaN}',
            {**OK, "id": "null-label", "faithful": None},
            {**OK, "id": "no-question", "question": ""},
            {**OK, "id": "unicode", "answer": "Paris 🇫🇷 est la capitale."},
        ],
    )
    out = tmp_path / "out.jsonl"
    done = _evaluate(gold, "--out", str(out), "--format", "json")
    assert done.returncode == 0, done.stderr
    results = _results(out)
    assert len(results) == 9
    for key in ("empty-answer", "blank-answer"):  # nothing to check: no score, never passes
        assert results[key]["score"] is None and results[key]["passed"] is None
        assert results[key]["error"] is None and "no statement" in results[key]["reason"]
    for key in ("no-contexts", "empty-contexts"):  # nothing supports the answer
        assert results[key]["score"] == 0.0 and results[key]["passed"] is False
    assert results["nan-label"]["gold"] is None and results["null-label"]["gold"] is None
    assert all(r["error"] is None for r in results.values())
    summary = json.loads(done.stdout)
    assert summary["rows"] == 9 and summary["errors"] == 0
    assert summary["unscored"] == 2  # the empty answers, counted apart
    # unscored rows count as failing and rank lowest (as compile counts them); the scored-only
    # figure stands beside, under its own name
    assert summary["n"] == 7 and summary["scored_only"]["n"] == 5


@pytest.mark.slow
def test_ten_megabyte_context_is_judged(tmp_path: Path) -> None:
    big = {
        **OK,
        "id": "big",
        "contexts": ["Paris is the capital of France. " + "filler " * 1_450_000],
    }
    gold = _write(tmp_path / "big.jsonl", [OK, big])
    assert gold.stat().st_size > 10_000_000
    out = tmp_path / "out.jsonl"
    done = _evaluate(gold, "--out", str(out))
    assert done.returncode == 0, done.stderr
    result = _results(out)["big"]
    assert result["error"] is None and result["score"] == 1.0
