"""What one pass threshold per source would buy a compile on rows of several sources.

    python benchmarks/bench_source_cuts.py                  # the quick start's rows, seeds 0-9
    python benchmarks/bench_source_cuts.py --mix begin=300 halueval=300 summedits=80 \
        wice=60 faithbench=60 lfqa_verification=60 --seeds 0 1 2 3 4

Compile fits one pass threshold on the pooled tuning rows, so a source whose scores sit lower
(or higher) than the rest is cut in the wrong place. The library does not fit a threshold per
source; this measures what it would buy, on held-out rows only. Each split seed compiles as
`ragjudge compile` does; on its validation rows, each source's groups are dealt into two halves,
a cut is fitted on one half of a source (balanced accuracy, `ragjudge.stats.best_threshold`) and
applied to the other, and the other way round (cross-fitting: no row is judged by a cut fitted
on it). A source with fewer than 2 rows of a label in the fitting half keeps the pooled cut.
Reported per (seed, source): validation balanced accuracy of the compiled judge at its pooled
cut and at the cross-fitted per-source cuts, and of the uncompiled judge at its own cut (0.5).
"""

from __future__ import annotations

import random

import dspy
import numpy as np
from bench_mixed_sources import load_rows, rows_args

import ragjudge
from ragjudge.optimize import compile_judge
from ragjudge.stats import balanced_accuracy
from ragjudge.stats._threshold import best_threshold, floored


def cross_fitted(
    scores: np.ndarray, labels: np.ndarray, groups: list[str], pooled: float, seed: int
) -> np.ndarray:
    """Pass / fail of each row under a cut fitted on the other half of the source's groups."""
    keys = sorted(set(groups))
    random.Random(seed).shuffle(keys)
    half = {k: i % 2 for i, k in enumerate(keys)}
    side = np.array([half[g] for g in groups])
    passed = scores >= pooled
    for fit in (0, 1):
        on, off = side == fit, side != fit
        y = labels[on]
        if min(y.sum(), len(y) - y.sum()) < 2 or not off.any():
            continue
        cut, _ = best_threshold(scores[on], y, current=pooled)
        passed[off] = scores[off] >= cut
    return passed


def main() -> None:
    args = rows_args(__doc__ or "").parse_args()
    dspy.configure_cache(enable_disk_cache=False, enable_memory_cache=False)
    rows = load_rows(args)
    print(
        f"{'seed':>4} {'ships':>9} {'source':<18} {'n':>4} {'uncompiled':>10} {'pooled':>7} "
        f"{'per-src':>7}"
    )
    diffs: dict[str, list[float]] = {"pooled": [], "per-source": []}
    for seed in args.seeds:
        judge = compile_judge(ragjudge.Faithfulness(), gold=rows, n_trials=args.trials, seed=seed)
        report = judge.report_
        pooled = float(judge.get_params()["threshold"])
        for source in sorted({p["source"] for p in report["predictions"]}):
            preds = [p for p in report["predictions"] if p["source"] == source]
            y = np.array([p["gold"] for p in preds])
            if y.all() or not y.any():
                continue
            s = floored(p["score"] for p in preds)
            groups = [p["group"] for p in preds]
            base = balanced_accuracy(y, [bool(p["baseline_passed"]) for p in preds])
            at_pooled = balanced_accuracy(y, s >= pooled)
            at_source = balanced_accuracy(y, cross_fitted(s, y, groups, pooled, seed))
            diffs["pooled"].append(at_pooled - base)
            diffs["per-source"].append(at_source - base)
            print(
                f"{seed:>4} {judge.get_params()['mode']:>9} {source:<18} {len(y):>4} "
                f"{base:>10.3f} {at_pooled:>7.3f} {at_source:>7.3f}",
                flush=True,
            )
    print()
    for name, values in diffs.items():
        d = np.array(values)
        print(
            f"{name:>10} cut: mean per-source gain over the uncompiled judge {d.mean():+.3f}; "
            f"(seed, source) pairs losing more than 0.01: {int((d < -0.01).sum())} of {len(d)}, "
            f"worst {d.min():+.3f}"
        )


if __name__ == "__main__":
    main()
