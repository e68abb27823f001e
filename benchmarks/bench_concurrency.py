"""Concurrency, overhead and caching of the real client stack against a local test server.

Starts `ragjudge.testing_server` in its own process (127.0.0.1, a fixed delay per call, answers
from the offline judge), then judges N rows in statement mode (2 LM calls per row) through
`dspy.LM("openai/<model>", api_base=...)` -- DSPy's native OpenAI-chat engine, its ChatAdapter,
retries and disk cache -- with `--concurrency` rows in flight:

1. cold: every call goes to the server. Wall time vs the ideal `rows / concurrency * 2 * delay`,
   and the library's own cost per call: client CPU seconds per call (all threads), and the
   wall time above the ideal, per call and per row in flight.
2. warm: the same run again in the same process (memory and disk cache): LM calls and time.
3. fresh process: the same run in a new process that only has the disk cache.

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

from ragjudge.cli._runopts import configure_cache
from ragjudge.data import GoldRecord, load_gold
from ragjudge.programs import Faithfulness
from ragjudge.runner import run_rows

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


def start_server(delay: float, seconds: float) -> tuple[subprocess.Popen[str], dict[str, Any]]:
    """The test server in its own process."""
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "ragjudge.testing_server",
            "--delay",
            str(delay),
            "--max-seconds",
            str(seconds),
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
    rows: list[GoldRecord], *, api_base: str, model: str, concurrency: int
) -> dict[str, Any]:
    """One run: wall and CPU seconds, LM calls counted by DSPy, errors."""
    lm = dspy.LM(f"openai/{model}", api_base=api_base, api_key="x", num_retries=3)
    judge = Faithfulness(mode="statement", lm=lm)
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

        from ragjudge.testing import render

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


def main() -> int:
    """Run the benchmark and print the figures as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--delay", type=float, default=0.1, help="server seconds per call")
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--model", default="gpt-4o-mini", help="model name sent to the server")
    parser.add_argument("--gold", default=None, help="rows to judge (default: shared gold)")
    parser.add_argument("--cache-dir", default=None, help="(internal) reuse this disk cache")
    parser.add_argument("--api-base", default=None, help="(internal) reuse this server")
    args = parser.parse_args()
    rows = rows_for(args.rows, args.gold)

    if args.api_base:  # the fresh-process re-run
        configure_cache(cache_dir=args.cache_dir)
        out = judge_once(
            rows, api_base=args.api_base, model=args.model, concurrency=args.concurrency
        )
        sys.stdout.write(json.dumps(out) + "\n")
        return 0

    cache_dir = tempfile.mkdtemp(prefix="ragjudge-bench-cache-")
    configure_cache(cache_dir=cache_dir)
    proc, info = start_server(args.delay, seconds=900)
    try:
        port, api_base = info["port"], info["api_base"]
        calls_per_row = 2
        ideal = args.rows / args.concurrency * calls_per_row * args.delay
        before = server_requests(port)
        cold = judge_once(rows, api_base=api_base, model=args.model, concurrency=args.concurrency)
        cold["server_requests"] = server_requests(port) - before
        before = server_requests(port)
        warm = judge_once(rows, api_base=api_base, model=args.model, concurrency=args.concurrency)
        warm["server_requests"] = server_requests(port) - before
        before = server_requests(port)
        started = time.perf_counter()
        fresh_run = subprocess.run(
            [
                sys.executable,
                __file__,
                "--rows",
                str(args.rows),
                "--concurrency",
                str(args.concurrency),
                "--model",
                args.model,
                "--cache-dir",
                cache_dir,
                "--api-base",
                api_base,
                *(["--gold", args.gold] if args.gold else []),
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        fresh = json.loads(fresh_run.stdout)
        fresh["process_seconds"] = round(time.perf_counter() - started, 3)
        fresh["server_requests"] = server_requests(port) - before
    finally:
        proc.terminate()
        proc.wait(timeout=10)

    in_process = in_process_overhead(rows)
    calls = max(1, cold["server_requests"])
    same = cold["scores"] == warm["scores"] == fresh["scores"]
    for run in (cold, warm, fresh):
        run.pop("scores")
    report = {
        "rows": args.rows,
        "mode": "statement",
        "concurrency": args.concurrency,
        "delay_per_call": args.delay,
        "model": f"openai/{args.model} (native lm15 engine) at {api_base}",
        "ideal_seconds": round(ideal, 3),
        "cold": cold,
        "cold_vs_ideal": round(cold["seconds"] / ideal, 3),
        "client_cpu_ms_per_call": round(1000 * cold["cpu_seconds"] / calls, 3),
        "wall_overhead_ms_per_call": round(
            1000 * (cold["seconds"] - ideal) * args.concurrency / calls, 3
        ),
        "in_process_engine_cpu_ms_per_call": in_process["cpu_ms_per_call"],
        "warm_same_process": warm,
        "warm_fresh_process": fresh,
        "same_scores_in_all_runs": same,
        "cpus": os.cpu_count(),
        "load_average_after": os.getloadavg(),
    }
    sys.stdout.write(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
