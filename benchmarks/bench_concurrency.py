"""Concurrency, overhead and caching of the real client stack against a local test server.

Starts `ragjudge.testing._server` in its own process (127.0.0.1, a fixed delay per call, answers
from the offline judge), then judges N rows in statement mode (2 LM calls per row) with
`--concurrency` rows in flight:

1. cold, alternating two client stacks, each on an empty disk cache, `--repeats` times:
   - `ragjudge`: what `ragjudge evaluate --lm openai/<model> --api-base URL` builds
     (`resolve_lm`: `dspy.LM` with ragjudge's OpenAI-compatible engine and response cache);
   - `dspy`: DSPy's default `dspy.LM("openai/<model>", api_base=URL)` with DSPy's own cache.
   Wall time vs the ideal `rows / concurrency * 2 * delay`, and the client's CPU per call
   (process CPU seconds, all threads, over the calls the server answered). Medians.
2. warm: the same run again in the same process: once with the result memo off (each row
   replays its cached LM calls through DSPy), once as the CLI runs (finished results read back).
3. the same run again as a new `ragjudge evaluate` process on the warm disk cache: LM calls,
   and the whole process's wall time (interpreter start and imports included).

Usage:
    python benchmarks/bench_concurrency.py --rows 1000 --delay 0.1 --concurrency 32

Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import dspy
import numpy as np

from ragjudge.data._gold import GoldRecord, load_gold
from ragjudge.evaluation._runner import run_rows
from ragjudge.lm._cache import ResponseCache, configure_cache
from ragjudge.lm._resolve import resolve_lm
from ragjudge.programs import Faithfulness

GOLD = Path(__file__).resolve().parents[1].parent / "shared" / "gold"


def rows_for(n: int, gold: str | None) -> list[GoldRecord]:
    """N rows: from the given file, else the shared gold dev files, else synthetic ones."""
    sources = [Path(gold)] if gold else sorted(GOLD.glob("*/dev.jsonl"))
    rows: list[GoldRecord] = []
    for path in sources:
        if path.exists():
            rows.extend(load_gold(path))
    if not rows:
        rows = [
            GoldRecord(
                id=f"s{i}",
                question=f"What happened in year {1900 + i}?",
                contexts=[f"In {1900 + i} the town of Example{i} built a bridge and a school."],
                answer=f"In {1900 + i} Example{i} built a bridge.",
            )
            for i in range(n)
        ]
    # Interleave the sources so any N is a mix of tasks and lengths.
    return rows[:: max(1, len(rows) // n)][:n] if len(rows) >= n else rows


def start_server(
    delay: float, seconds: float, *, memo: bool = False
) -> tuple[subprocess.Popen[str], dict[str, Any]]:
    """The test server in its own process (`memo`: repeated requests answered from memory)."""
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "ragjudge.testing._server",
            "--delay",
            str(delay),
            "--max-seconds",
            str(seconds),
            *(["--memo"] if memo else []),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    return proc, json.loads(proc.stdout.readline())


def server_requests(port: int) -> int:
    """Requests the server has answered so far."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/stats", timeout=10) as response:
        return int(json.loads(response.read())["requests"])


def judge_once(
    rows: list[GoldRecord],
    *,
    api_base: str,
    model: str,
    concurrency: int,
    stack: str = "ragjudge",
    memo: bool = True,
) -> dict[str, Any]:
    """One run: wall and CPU seconds, LM calls counted by DSPy, errors.

    `stack="ragjudge"` is what `ragjudge evaluate --lm openai/<model> --api-base URL` builds
    (`resolve_lm`: DSPy with ragjudge's OpenAI-compatible engine); `stack="dspy"` is DSPy's
    default `dspy.LM("openai/<model>", api_base=URL)` (its router and native lm15 engine).
    """
    if stack == "dspy":
        lm = dspy.LM(f"openai/{model}", api_base=api_base, api_key="x", num_retries=3)
    else:
        lm = resolve_lm(f"openai/{model}", api_base=api_base, api_key="x")
    judge = Faithfulness(mode="statement", lm=lm)
    if not memo:  # measure the response cache alone: every row replays its cached LM calls
        judge.memoize_results = False
    cpu, wall = time.process_time(), time.perf_counter()
    results = run_rows(judge, rows, concurrency=concurrency)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return {
        "seconds": round(wall, 3),
        "cpu_seconds": round(cpu, 3),
        "lm_calls": sum(r.lm_calls for r in results),
        "errors": sum(1 for r in results if r.error),
        "scores": [None if r.score != r.score else round(r.score, 6) for r in results],
    }


class CannedEngine:
    """An in-process engine answering instantly with fixed replies (no HTTP, no model)."""

    supports_response_schema = False

    def complete(self, request: Any) -> Any:
        from dspy.lm15 import Message, Response, Usage

        from ragjudge.testing._scripted import render

        if "`verdicts`" in (request.system or ""):
            reply = render(
                {
                    "verdicts": [
                        {"statement": "S.", "reason": "r", "verdict": "yes", "confidence": 1}
                    ]
                }
            )
        else:
            reply = render({"statements": ["S."]})
        return Response(
            id=None,
            model=request.model,
            message=Message.assistant(reply),
            finish_reason="stop",
            usage=Usage(input_tokens=10, output_tokens=5),
        )


def in_process_overhead(rows: list[GoldRecord]) -> dict[str, Any]:
    """CPU per call of ragjudge + DSPy (adapter, cache, retries, usage) without the transport."""
    lm = dspy.LM("canned/model", engine=CannedEngine(), num_retries=3, cache=True)
    judge = Faithfulness(mode="statement", lm=lm)
    run_rows(judge, rows[:10])
    cpu = time.process_time()
    results = run_rows(judge, rows[10:], concurrency=1)
    calls = sum(r.lm_calls for r in results)
    return {"calls": calls, "cpu_ms_per_call": round(1000 * (time.process_time() - cpu) / calls, 3)}


def write_rows(rows: list[GoldRecord], folder: str) -> Path:
    """The rows as a JSONL file, for the CLI run."""
    path = Path(folder) / "rows.jsonl"
    with path.open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row.model_dump(mode="json")) + "\n")
    return path


def cli_rerun(
    rows_file: Path, *, api_base: str, model: str, concurrency: int, cache_dir: str, out: Path
) -> dict[str, Any]:
    """`ragjudge evaluate` in a new process on a warm disk cache: whole-process seconds."""
    command = [
        sys.executable,
        "-m",
        "ragjudge",
        "evaluate",
        "--gold",
        str(rows_file),
        "--lm",
        f"openai/{model}",
        "--api-base",
        api_base,
        "--mode",
        "statement",
        "--concurrency",
        str(concurrency),
        "--cache-dir",
        cache_dir,
        "--out",
        str(out),
        "--format",
        "json",
    ]
    started = time.perf_counter()
    done = subprocess.run(
        command, capture_output=True, text=True, env={**os.environ, "RAGJUDGE_API_KEY": "x"}
    )
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"ragjudge evaluate failed: {done.stderr[-2000:]}")
    summary = json.loads(done.stdout)
    results = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    return {
        "process_seconds": round(seconds, 3),
        "judging_seconds": summary.get("seconds"),
        "lm_calls": summary["lm_calls"],
        "errors": summary["errors"],
        "scores": [None if r["score"] is None else round(r["score"], 6) for r in results],
    }


def main() -> int:
    """Run the benchmark and print the figures as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--delay", type=float, default=0.1, help="server seconds per call")
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--model", default="gpt-4o-mini", help="model name sent to the server")
    parser.add_argument("--gold", default=None, help="rows to judge (default: shared gold)")
    parser.add_argument(
        "--repeats", type=int, default=3, help="cold runs per stack (medians are reported)"
    )
    args = parser.parse_args()
    rows = rows_for(args.rows, args.gold)
    work = tempfile.mkdtemp(prefix="ragjudge-bench-")
    rows_file = write_rows(rows, work)
    calls_per_row = 2
    ideal = args.rows / args.concurrency * calls_per_row * args.delay

    proc, info = start_server(args.delay, seconds=1800)
    colds: dict[str, list[dict[str, Any]]] = {"ragjudge": [], "dspy": []}
    try:
        port, api_base = info["port"], info["api_base"]

        def measured(stack: str, cache_dir: str, *, memo: bool = True) -> dict[str, Any]:
            if stack == "dspy":  # DSPy's own cache, as a plain dspy.LM user has it
                dspy.configure_cache(disk_cache_dir=cache_dir)
            else:
                configure_cache(cache_dir=cache_dir)
            before = server_requests(port)
            run = judge_once(
                rows,
                api_base=api_base,
                model=args.model,
                concurrency=args.concurrency,
                stack=stack,
                memo=memo,
            )
            run["server_requests"] = server_requests(port) - before
            calls = run["server_requests"]
            run["cpu_ms_per_call"] = round(1000 * run["cpu_seconds"] / calls, 3) if calls else None
            return run

        # Cold runs, the two stacks alternating, each on an empty cache.
        for repeat in range(args.repeats):
            for stack in ("ragjudge", "dspy"):
                colds[stack].append(measured(stack, f"{work}/cache-{stack}-{repeat}"))
        cache_dir = f"{work}/cache-ragjudge-0"  # the first ragjudge cold run's cache, warm now
        warm_calls = measured("ragjudge", cache_dir, memo=False)  # cached LM calls only
        warm = measured("ragjudge", cache_dir)  # finished results from the result memo
        assert isinstance(dspy.cache, ResponseCache)
        dspy.cache.disk_cache.flush()
        before = server_requests(port)
        fresh = cli_rerun(
            rows_file,
            api_base=api_base,
            model=args.model,
            concurrency=args.concurrency,
            cache_dir=cache_dir,
            out=Path(work) / "rerun.jsonl",
        )
        fresh["server_requests"] = server_requests(port) - before
    finally:
        proc.terminate()
        proc.wait(timeout=10)

    in_process = in_process_overhead(rows)
    first = colds["ragjudge"][0]
    same = first["scores"] == warm["scores"] == fresh["scores"] == colds["dspy"][0]["scores"]
    same = same and warm_calls["scores"] == warm["scores"]
    for run in (*colds["ragjudge"], *colds["dspy"], warm_calls, warm, fresh):
        run.pop("scores")

    def median(stack: str, key: str) -> float:
        return round(float(np.median([run[key] for run in colds[stack]])), 3)

    seconds = median("ragjudge", "seconds")
    report = {
        "rows": args.rows,
        "mode": "statement",
        "concurrency": args.concurrency,
        "delay_per_call": args.delay,
        "server": api_base,
        "ideal_seconds": round(ideal, 3),
        "cold_runs": colds,
        "median_cold_seconds": seconds,
        "median_cold_vs_ideal": round(seconds / ideal, 3),
        "median_client_cpu_ms_per_call": median("ragjudge", "cpu_ms_per_call"),
        "median_wall_overhead_ms_per_call": round(
            1000 * (seconds - ideal) * args.concurrency / (args.rows * calls_per_row), 3
        ),
        "dspy_default_median_cold_vs_ideal": round(median("dspy", "seconds") / ideal, 3),
        "dspy_default_median_cpu_ms_per_call": median("dspy", "cpu_ms_per_call"),
        "cpu_ratio_dspy_default_over_ragjudge": round(
            median("dspy", "cpu_ms_per_call") / median("ragjudge", "cpu_ms_per_call"), 2
        ),
        "in_process_engine_cpu_ms_per_call": in_process["cpu_ms_per_call"],
        "warm_same_process_lm_cache_only": warm_calls,
        "warm_same_process": warm,
        "warm_fresh_cli_process": fresh,
        "same_scores_in_all_runs": same,
        "cpus": os.cpu_count(),
        "load_average_after": os.getloadavg(),
    }
    sys.stdout.write(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
