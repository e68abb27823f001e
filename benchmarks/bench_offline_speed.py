"""Rows per second of the uncompiled offline judge: the quick start's rows and 1,000 gold rows.

    python benchmarks/bench_offline_speed.py [--repeats 3] [--gold-rows 1000]

Judges the 356 rows of `examples/faithfulness/*.jsonl` and a seeded sample of `--gold-rows`
rows drawn evenly from the six gold sources' dev sets (`../shared/gold`), with
`ragjudge.Faithfulness()` (statement mode, the default judge) and in whole mode, each from a
cold context cache; prints the median rows/s of `--repeats` runs. The ragjudge imported is the
one on `PYTHONPATH`: to compare two versions of the code on a shared machine, run this script
alternately with `PYTHONPATH` pointing at each checkout.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

import ragjudge
from ragjudge.data._gold import GoldRecord
from ragjudge.offline.features import context_index

REPO = Path(__file__).resolve().parents[1]


def _rate(rows: list[GoldRecord], mode: str) -> float:
    context_index.cache_clear()
    spans = sys.modules.get("ragjudge.offline.spans")  # absent before the clause alignment
    if spans is not None:
        spans.clauses.cache_clear()
    judge = ragjudge.Faithfulness(mode=mode)
    start = time.perf_counter()
    for row in rows:
        judge(question=row.question, contexts=row.contexts, answer=row.answer)
    return len(rows) / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> int:
    """Print the rows per second of each row set and mode."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gold-dir", type=Path, default=REPO.parent / "shared" / "gold")
    parser.add_argument("--examples", type=Path, default=REPO / "examples" / "faithfulness")
    parser.add_argument("--gold-rows", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    quick = [
        row
        for name in ("train", "test", "new")
        for row in ragjudge.load_gold(args.examples / f"{name}.jsonl")
    ]
    sources = sorted(args.gold_dir.glob("*/dev.jsonl"))
    share = args.gold_rows // max(1, len(sources))
    gold = [
        row for path in sources for row in random.Random(0).sample(ragjudge.load_gold(path), share)
    ]
    for name, rows in (("quick start", quick), (f"{len(gold)} gold rows", gold)):
        for mode in ("statement", "whole"):
            rates = [_rate(rows, mode) for _ in range(args.repeats)]
            print(
                f"{name:<16} {mode:<9} {len(rows):>5} rows  {statistics.median(rates):7.1f} rows/s"
                f"  (runs: {', '.join(f'{r:.1f}' for r in rates)})",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
