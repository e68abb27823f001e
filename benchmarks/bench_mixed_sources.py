"""Compiling on rows from several sources: does a source lose, with and without the guard?

    python benchmarks/bench_mixed_sources.py                  # the quick start's rows, seeds 0-9
    python benchmarks/bench_mixed_sources.py --mix begin=300 halueval=300 summedits=80 \
        wice=60 faithbench=60 lfqa_verification=60 --seeds 0 1 2 3 4

Compile's selection passes over a tuned finalist that agrees less than the starting judge on
one source's tuning rows by more than `source_bar(k)` standard errors, k the sources compared
(`ragjudge.optimize._select`). This compiles the same rows twice per split seed, with that
guard and without it (every other step is seeded and identical), and reports validation
balanced accuracy overall and per source, compiled against uncompiled, and how often a source
loses: by more than 0.01, and beyond the paired 95% interval of its gain
(`CompileReport.gain_by_source`, resampling groups; a source with under 5 validation rows of
a label, or of one group, gets no interval).

`--gold` compiles one file (the quick start's rows, say); `--mix` draws whole groups from each
source's `dev.jsonl` under `--gold-dir` (seeded by `--mix-seed`) up to the given row counts, so
the big sources outweigh the small ones as a team's own mixed gold might.
"""

from __future__ import annotations

import argparse
import contextlib
import random
from collections.abc import Iterator
from pathlib import Path

import dspy
import numpy as np
from _common import REPO

import ragjudge
from ragjudge.data._gold import GoldRecord
from ragjudge.optimize import _select, compile_judge
from ragjudge.optimize._report import CompileReport


@contextlib.contextmanager
def no_source_guard() -> Iterator[None]:
    """Compile as before the guard: no source is compared on its own."""
    saved = _select.SOURCE_MIN_LABEL
    _select.SOURCE_MIN_LABEL = 10**9
    try:
        yield
    finally:
        _select.SOURCE_MIN_LABEL = saved


def mixed_rows(gold_dir: Path, mix: dict[str, int], seed: int) -> list[GoldRecord]:
    """Whole groups of each source's dev rows, shuffled with `seed`, up to its count."""
    rng = random.Random(seed)
    out: list[GoldRecord] = []
    for source, count in mix.items():
        groups: dict[str, list[GoldRecord]] = {}
        for row in ragjudge.load_gold(gold_dir / source / "dev.jsonl"):
            key = row.group
            groups.setdefault(key, []).append(row)
        keys = sorted(groups)
        rng.shuffle(keys)
        taken: list[GoldRecord] = []
        for key in keys:
            if len(taken) + len(groups[key]) > count:
                continue
            taken += groups[key]
        out += taken
    return out


def rows_args(description: str) -> argparse.ArgumentParser:
    """A parser for the rows to compile on (`--gold`, or `--mix` of `--gold-dir`'s sources),
    the split seeds and the trials."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--gold", type=Path, default=REPO / "examples/faithfulness/train.jsonl")
    parser.add_argument("--gold-dir", type=Path, default=REPO.parent / "shared" / "gold")
    parser.add_argument("--mix", nargs="*", default=None, metavar="SOURCE=ROWS")
    parser.add_argument("--mix-seed", type=int, default=0)
    parser.add_argument("--seeds", type=int, nargs="+", default=list(range(10)))
    parser.add_argument("--trials", type=int, default=60)
    return parser


def load_rows(args: argparse.Namespace) -> list[GoldRecord]:
    """The rows `rows_args` names, after printing how many and from where."""
    if args.mix:
        mix = {k: int(v) for k, v in (item.split("=", 1) for item in args.mix)}
        rows = mixed_rows(args.gold_dir, mix, args.mix_seed)
        what = ", ".join(f"{k} {v}" for k, v in mix.items())
    else:
        rows = ragjudge.load_gold(args.gold)
        what = str(args.gold)
    print(f"{len(rows)} rows ({what}); {args.trials} trials a compile")
    return rows


def main() -> None:
    args = rows_args(__doc__ or "").parse_args()
    dspy.configure_cache(enable_disk_cache=False, enable_memory_cache=False)
    rows = load_rows(args)
    print(
        f"{'seed':>4} {'guard':>5} {'ships':>9} {'BA':>6} {'base':>6}  "
        "per source: compiled/uncompiled (n)"
    )
    losses: dict[str, list[float]] = {"on": [], "off": []}
    gains: dict[str, list[float]] = {"on": [], "off": []}
    beyond: dict[str, list[str]] = {"on": [], "off": []}  # losses whose interval excludes 0
    untold: dict[str, int] = {"on": 0, "off": 0}  # pairs too small for an interval
    for seed in args.seeds:
        for guard in ("on", "off"):
            with contextlib.nullcontext() if guard == "on" else no_source_guard():
                judge = compile_judge(
                    ragjudge.Faithfulness(), gold=rows, n_trials=args.trials, seed=seed
                )
            report = judge.report_
            intervals = CompileReport.model_validate(report).gain_by_source()
            chosen = (report.get("selection") or {}).get("chosen", "-")
            ba = report["validation"]["balanced_accuracy"]
            base = report["baseline"]["balanced_accuracy"]
            gains[guard].append(ba - base)
            cells = []
            for source, pair in sorted(report["by_source"].items()):
                c, b = pair["compiled"], pair["baseline"]
                if c["balanced_accuracy"] is None or b["balanced_accuracy"] is None:
                    continue
                diff = c["balanced_accuracy"] - b["balanced_accuracy"]
                losses[guard].append(diff)
                high = intervals[source][2]
                untold[guard] += high is None
                if high is not None and high < 0:
                    beyond[guard].append(f"seed {seed} {source} {diff:+.3f}")
                cells.append(
                    f"{source} {c['balanced_accuracy']:.3f}/{b['balanced_accuracy']:.3f} ({c['n']})"
                )
            print(
                f"{seed:>4} {guard:>5} {chosen:>9} {ba:>6.3f} {base:>6.3f}  " + "  ".join(cells),
                flush=True,
            )
    print()
    for guard in ("on", "off"):
        d = np.array(losses[guard])
        print(
            f"guard {guard:>3}: mean validation gain {np.mean(gains[guard]):+.3f}; "
            f"(seed, source) pairs losing more than 0.01: {int((d < -0.01).sum())} of {len(d)}, "
            f"mean per-source gain {d.mean():+.3f}, worst {d.min():+.3f}"
        )
        print(
            f"           losing beyond their paired 95% interval: {len(beyond[guard])} of "
            f"{len(d) - untold[guard]} with an interval ({untold[guard]} too few to tell)"
            + "".join(f"; {b}" for b in beyond[guard])
        )


if __name__ == "__main__":
    main()
