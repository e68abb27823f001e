"""Benchmark: `ragjudge evaluate` in one process vs `--ray` with two workers, same run.

What it does:
1. Builds `--rows` rows (default 10,000) by cycling ../shared/gold/*/dev.jsonl (ids made unique)
   into one JSONL file.
2. For each judge (the offline judge in statement and whole mode, the deterministic metrics),
   alternates `--repeats` times: one `ragjudge evaluate` process (`--out one.jsonl`), then the
   same command with `--ray ADDRESS --out DIR` (Parquet shards). Both are whole CLI processes:
   interpreter start, imports, reading, judging, writing and the agreement report included.
3. Per run: wall seconds and rows/s; for one process its peak RSS (`wait4`); for Ray the peak
   RSS (VmHWM) of each worker process that judged a block, sampled every 0.2 s.
4. Checks that every Ray run's results equal the single-process run's, row for row.
5. The fixed cost of the Ray path: the same two commands on `--small` rows (default 42).

Medians over the repeats; scaling efficiency = Ray rows/s / (workers x one-process rows/s).
The machine is shared: the load average before and after is printed with the results.

Usage:
    python benchmarks/bench_ray.py --ray 127.0.0.1:6391 [--rows 10000] [--repeats 3]
    python benchmarks/bench_ray.py --ray local     # a private cluster per run (slower start)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
GOLD = Path(os.environ.get("RAGJUDGE_GOLD", ROOT.parent / "shared" / "gold"))
JUDGES: dict[str, list[str]] = {
    "offline statement": ["--metric", "faithfulness", "--mode", "statement"],
    "offline whole": ["--metric", "faithfulness", "--mode", "whole"],
    "deterministic (rouge)": ["--metric", "deterministic", "--mode", "rouge"],
}


def build_rows(path: Path, n: int) -> None:
    """`n` gold rows, cycling the six sources, with unique ids."""
    rows = [
        json.loads(line)
        for source in sorted(GOLD.glob("*/dev.jsonl"))
        for line in source.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    with path.open("w", encoding="utf-8") as handle:
        for i in range(n):
            row = dict(rows[i % len(rows)])
            row["id"] = f"{row['id']}#{i // len(rows)}"
            handle.write(json.dumps(row) + "\n")


class WorkerMemory:
    """Peak RSS (VmHWM, MB) of each Ray worker process seen running `judge_block`."""

    def __init__(self) -> None:
        self.peak: dict[int, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> WorkerMemory:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(0.2):
            for entry in Path("/proc").iterdir():
                if not entry.name.isdigit():
                    continue
                try:
                    if not (entry / "cmdline").read_bytes().startswith(b"ray::judge_block"):
                        continue
                    status = (entry / "status").read_text()
                except OSError:
                    continue
                for line in status.splitlines():
                    if line.startswith("VmHWM:"):
                        mb = int(line.split()[1]) / 1024
                        pid = int(entry.name)
                        self.peak[pid] = max(self.peak.get(pid, 0.0), mb)


CPU: list[float] = []  # CPU seconds (user + system) of the last `run` process


def run(argv: list[str]) -> tuple[float, float, dict[str, Any]]:
    """Run `python -m ragjudge evaluate ...`: wall seconds, peak RSS (MB), JSON summary."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, "-m", "ragjudge", "evaluate", *argv, "--format", "json"]
    start = time.perf_counter()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, env=env, cwd=ROOT)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        seconds = time.perf_counter() - start
        CPU[:] = [usage.ru_utime + usage.ru_stime]
        out.seek(0), err.seek(0)
        stdout, stderr = out.read().decode(), err.read().decode()
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{stderr[-2000:]}")
    return seconds, usage.ru_maxrss / 1024, json.loads(stdout)


def same_results(one: Path, shards: Path) -> bool:
    """The Ray run's shards hold the single-process results, row for row."""
    sys.path.insert(0, str(ROOT))
    from ragjudge.evaluation import read_results

    expected = read_results(one)
    got: dict[str, Any] = {}
    for shard in sorted(shards.glob("part-*.parquet")):
        got.update(read_results(shard))
    return list(got) == list(expected) and got == expected


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ray", default="local", help="cluster address (default: local)")
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--small", type=int, default=42)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--block-rows", type=int, default=500)
    parser.add_argument("--judges", nargs="*", default=list(JUDGES), choices=list(JUDGES))
    parser.add_argument("--out", type=Path, default=None, help="write the figures as JSON")
    args = parser.parse_args()
    figures: dict[str, Any] = {"rows": args.rows, "ray": args.ray, "load_before": load()}
    with tempfile.TemporaryDirectory(prefix="bench-ray-") as tmp:
        folder = Path(tmp)
        big, small = folder / "rows.jsonl", folder / "small.jsonl"
        build_rows(big, args.rows)
        build_rows(small, args.small)
        ray_opts = ["--ray", args.ray, "--block-rows", str(args.block_rows)]
        for name in args.judges:
            opts = JUDGES[name]
            one_s, ray_s, one_mb, worker_mb, same = [], [], [], [], True
            one_judging, ray_judging, one_cpu = [], [], []
            for repeat in range(args.repeats):
                seconds, mb, summary = run(
                    ["--gold", str(big), *opts, "--out", str(folder / "1.jsonl")]
                )
                one_s.append(seconds)
                one_cpu.append(CPU[0])
                one_judging.append(summary["seconds"])
                one_mb.append(mb)
                with WorkerMemory() as memory:
                    out = folder / f"ray-{repeat}"
                    seconds, _, summary = run(
                        ["--gold", str(big), *opts, "--out", str(out), *ray_opts]
                    )
                ray_s.append(seconds)
                ray_judging.append(summary["seconds"])
                worker_mb.extend(memory.peak.values())
                same = same and same_results(folder / "1.jsonl", out)
                print(f"{name} #{repeat}: one {one_s[-1]:.1f} s, ray {ray_s[-1]:.1f} s", flush=True)
            small_one, _, _ = run(["--gold", str(small), *opts, "--out", str(folder / "s.jsonl")])
            small_ray, _, _ = run(
                ["--gold", str(small), *opts, "--out", str(folder / "s"), *ray_opts]
            )
            one_rate = args.rows / statistics.median(one_s)
            ray_rate = args.rows / statistics.median(ray_s)
            workers = 2
            figures[name] = {
                "one_process_seconds": [round(s, 2) for s in one_s],
                "ray_seconds": [round(s, 2) for s in ray_s],
                "one_process_rows_per_s": round(one_rate, 1),
                "ray_rows_per_s": round(ray_rate, 1),
                "speedup": round(ray_rate / one_rate, 2),
                # The run inside the CLI process (`seconds` of the report): for one process the
                # judging and writing; for Ray also joining the cluster and the report's re-read.
                "one_process_inner_rows_per_s": round(
                    args.rows / statistics.median(one_judging), 1
                ),
                "ray_inner_rows_per_s": round(args.rows / statistics.median(ray_judging), 1),
                "scaling_efficiency": round(ray_rate / (workers * one_rate), 2),
                "one_process_peak_rss_mb": round(max(one_mb), 1),
                # CPU seconds / wall seconds of the one process: above 1 = it used >1 core.
                "one_process_cores_used": round(
                    statistics.median(c / s for c, s in zip(one_cpu, one_s, strict=True)), 2
                ),
                "ray_worker_peak_rss_mb": round(max(worker_mb), 1) if worker_mb else None,
                "ray_workers_seen": len(worker_mb) // max(1, args.repeats),
                f"small_{args.small}_rows_one_s": round(small_one, 2),
                f"small_{args.small}_rows_ray_s": round(small_ray, 2),
                "ray_minus_one_process_s": round(
                    statistics.median(ray_s) - statistics.median(one_s), 2
                ),
                "same_results": same,
            }
            print(json.dumps({name: figures[name]}, indent=1), flush=True)
    figures["load_after"] = load()
    print(json.dumps(figures, indent=1))
    if args.out:
        args.out.write_text(json.dumps(figures, indent=1) + "\n")


if __name__ == "__main__":
    main()
