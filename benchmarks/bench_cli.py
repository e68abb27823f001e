"""The whole `ragjudge evaluate` command against a local test server, start-up included.

    python benchmarks/bench_cli.py [--rows 1000] [--delay 0.1] [--concurrency 32] [--repeats 3]

Starts the test server (`python -m ragjudge.testing --delay 0.1`: 127.0.0.1, answers from the
offline judge after a fixed delay) in its own process, writes `--rows` rows of the shared gold
data (the six sources interleaved; `--gold-dir`) to a JSONL file, and runs, `--repeats` times,
a new process of

    ragjudge evaluate --gold rows.jsonl --lm openai/gpt-4o-mini --api-base URL
        --mode statement --concurrency 32 --cache-dir <empty folder> --out out.jsonl

(statement mode: 2 LM calls per row; an empty cache folder each time, so every call reaches the
server). The server answers a repeated request from memory (`--memo`) and one untimed run
warms it up first: the offline judge behind it costs about 3 ms of CPU a request, a core's
worth at this rate, which on a 2-core machine would compete with the client measured here (a
real LM server runs elsewhere). `--cold-server` measures without that (every request judged).
Reports the wall time of each whole process (interpreter start, imports, loading, the
LM phase, writing) beside the ideal `rows / concurrency * 2 * delay` measured in the same run,
the median and its ratio to the ideal, and the phases the command reports (its own judging
seconds; the rest is start-up, loading and writing). Also `ragjudge --help` and
`python -c "import ragjudge"` start-up times (medians of 5). With `--compare PATH` (another
checkout, e.g. `git worktree add /tmp/base main`), every measurement is repeated with that
checkout's code, alternating, in the same run. Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import bench_concurrency
from bench_concurrency import rows_for, server_requests, start_server, write_rows

REPO = Path(__file__).resolve().parents[1]


def _env(repo: Path = REPO) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(repo) + os.pathsep + env.get("PYTHONPATH", "")
    env["RAGJUDGE_API_KEY"] = "x"
    env["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    return env


def timed(
    command: list[str], *, cwd: str, repo: Path = REPO
) -> tuple[float, subprocess.CompletedProcess[str]]:
    """Wall seconds of one process running `repo`'s code, and its outcome."""
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=_env(repo), cwd=cwd)
    return time.perf_counter() - started, done


def evaluate_once(
    rows_file: Path, *, api_base: str, concurrency: int, folder: Path, model: str, repo: Path
) -> dict[str, Any]:
    """One whole `ragjudge evaluate` process on an empty cache."""
    cache = tempfile.mkdtemp(dir=folder)
    out = Path(cache) / "out.jsonl"
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
        cache,
        "--out",
        str(out),
        "--format",
        "json",
    ]
    seconds, done = timed(command, cwd=str(folder), repo=repo)
    if done.returncode != 0:
        raise RuntimeError(f"ragjudge evaluate failed: {done.stderr[-2000:]}")
    summary = json.loads(done.stdout)
    lines = out.read_text(encoding="utf-8").splitlines()
    return {
        "process_seconds": round(seconds, 3),
        "judging_seconds": summary["seconds"],
        "other_seconds": round(seconds - summary["seconds"], 3),
        "lm_calls": summary["lm_calls"],
        "errors": summary["errors"],
        "rows_written": len(lines),
    }


def startup(command: list[str], *, cwd: str, repo: Path, repeats: int = 5) -> float:
    """Median wall seconds of a short command."""
    times = []
    for _ in range(repeats):
        seconds, done = timed(command, cwd=cwd, repo=repo)
        if done.returncode != 0:
            raise RuntimeError(done.stderr[-2000:])
        times.append(seconds)
    return round(statistics.median(times), 3)


def main() -> int:
    """Run the benchmark and print the figures as JSON."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--delay", type=float, default=0.1, help="server seconds per call")
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--model", default="gpt-4o-mini", help="model name sent to the server")
    parser.add_argument("--gold", default=None, help="rows to judge (default: shared gold)")
    parser.add_argument("--gold-dir", type=Path, default=REPO.parent / "shared" / "gold")
    parser.add_argument("--compare", type=Path, default=None, help="another checkout to compare")
    parser.add_argument(
        "--cold-server", action="store_true", help="no warm-up: the server judges every request"
    )
    args = parser.parse_args()
    bench_concurrency.GOLD = args.gold_dir  # the shared gold dev files, interleaved
    repos = {"this": REPO, **({"compare": args.compare.resolve()} if args.compare else {})}

    ideal = args.rows / args.concurrency * 2 * args.delay
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        rows_file = write_rows(rows_for(args.rows, args.gold), tmp)
        server, info = start_server(args.delay, 3600, memo=not args.cold_server)
        try:
            api_base = f"http://127.0.0.1:{info['port']}/v1"
            runs: dict[str, list[dict[str, Any]]] = {name: [] for name in repos}

            def once(repo: Path) -> dict[str, Any]:
                return evaluate_once(
                    rows_file,
                    api_base=api_base,
                    concurrency=args.concurrency,
                    folder=folder,
                    model=args.model,
                    repo=repo,
                )

            for repo in [] if args.cold_server else repos.values():
                once(repo)  # untimed: fills the server's memory of answers
            for _ in range(args.repeats):
                for name, repo in repos.items():
                    before = server_requests(info["port"])
                    run = once(repo)
                    run["server_requests"] = server_requests(info["port"]) - before
                    runs[name].append(run)
        finally:
            server.terminate()
            server.wait(timeout=30)
        report: dict[str, Any] = {
            "rows": args.rows,
            "delay": args.delay,
            "concurrency": args.concurrency,
            "ideal_seconds": round(ideal, 3),
            "server": "cold" if args.cold_server else "warm (answers from memory)",
        }
        for name, repo in repos.items():
            median = statistics.median(r["process_seconds"] for r in runs[name])
            report[name] = {
                "repo": str(repo),
                "median_process_seconds": round(median, 3),
                "ratio_to_ideal": round(median / ideal, 3),
                "median_judging_seconds": statistics.median(
                    r["judging_seconds"] for r in runs[name]
                ),
                "median_other_seconds": statistics.median(r["other_seconds"] for r in runs[name]),
                "runs": runs[name],
            }
        for name, repo in repos.items():
            report[name]["startup"] = {
                "ragjudge_help": startup(
                    [sys.executable, "-m", "ragjudge", "--help"], cwd=tmp, repo=repo
                ),
                "import_ragjudge": startup(
                    [sys.executable, "-c", "import ragjudge"], cwd=tmp, repo=repo
                ),
            }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
