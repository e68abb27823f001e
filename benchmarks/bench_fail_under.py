"""What `ragjudge evaluate --fail-under` adds to a 10,000-row offline evaluation.

Builds a 10,000-row file from the shared gold sources (rows cycled with new ids), then runs
`ragjudge evaluate` as a whole process with and without `--fail-under` (every label figure
and pass_rate), alternating, `--repeats` times each, with the response cache off so every
run judges every row. Prints the median wall time of each and their ratio, plus the time
the gate's own work (`check_bounds` on the run's results) takes in-process.

    python benchmarks/bench_fail_under.py
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import REPO, gold_args
from ragjudge.data._gold import load_gold
from ragjudge.evaluation._evaluate import evaluate
from ragjudge.evaluation._gate import check_bounds, parse_bounds
from ragjudge.programs.faithfulness import Faithfulness

SPEC = "pass_rate=0.1,balanced_accuracy=0.1,kappa=-1,auroc=0.1,f1=0.1"


def build(gold_dir: Path, sources: list[str], n: int, out: Path) -> None:
    rows = [
        json.loads(line)
        for source in sources
        for line in (gold_dir / source / "dev.jsonl").read_text().splitlines()
    ]
    with out.open("w") as f:
        for i in range(n):
            row = dict(rows[i % len(rows)])
            row["id"] = f"{row['id']}#{i // len(rows)}"
            f.write(json.dumps(row) + "\n")


def run(path: Path, gate: bool) -> float:
    cmd = [sys.executable, "-m", "ragjudge", "evaluate", "--gold", str(path), "--no-cache"]
    cmd += ["--format", "json"] + (["--fail-under", SPEC] if gate else [])
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"evaluate exited {done.returncode}: {done.stderr[-500:]}")
    return seconds


def main() -> None:
    parser = gold_args(__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "rows.jsonl"
        build(args.gold_dir, args.sources, args.rows, path)
        times: dict[bool, list[float]] = {False: [], True: []}
        for i in range(args.repeats):
            for gate in (False, True) if i % 2 == 0 else (True, False):
                times[gate].append(run(path, gate))
                print(
                    f"run {i + 1} {'with' if gate else 'without'} --fail-under: "
                    f"{times[gate][-1]:.2f} s",
                    flush=True,
                )
        rows = load_gold(path)
        results, report = evaluate(Faithfulness(lm="local"), rows, n_boot=0)
        start = time.perf_counter()
        for _ in range(10):
            check_bounds(parse_bounds(SPEC), results=results, report=report)
        gate_seconds = (time.perf_counter() - start) / 10
    plain, gated = statistics.median(times[False]), statistics.median(times[True])
    print(
        f"{args.rows} rows, offline judge, median of {args.repeats} whole `ragjudge evaluate` "
        f"runs: without {plain:.2f} s, with --fail-under {gated:.2f} s, ratio {gated / plain:.4f}"
    )
    print(
        f"the gate's own work (parse + check_bounds on {len(results)} results): "
        f"{gate_seconds * 1000:.2f} ms = {gate_seconds / plain * 100:.4f}% of the run"
    )


if __name__ == "__main__":
    main()
