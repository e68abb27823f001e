"""The uncompiled offline judge on every gold source, both modes: agreement and speed.

    python benchmarks/bench_offline_judge.py [--limit N]

Prints balanced accuracy (at the default threshold) and ROC AUC per source and pooled, beside
the best peer lexical score (ragas ROUGE-L precision, from ../shared/PEERS.md), and items/s.
"""

from __future__ import annotations

import time

import dspy
import numpy as np
from _common import PEER_RAGAS_ROUGE_L, gold_args

import ragjudge
from ragjudge.stats._agreement import auroc, balanced_accuracy


def main() -> None:
    parser = gold_args(__doc__ or "")
    parser.add_argument("--limit", type=int, default=None)
    args = parser.parse_args()
    dspy.configure_cache(enable_disk_cache=False, enable_memory_cache=False)
    print(
        f"{'source':<18} {'mode':<9} {'n':>5} {'BA':>6} {'AUROC':>6} {'items/s':>8}"
        f"   peer ragas ROUGE-L AUROC/BA"
    )
    pooled: dict[str, list[tuple[int, float, bool]]] = {"statement": [], "whole": []}
    for source in args.sources:
        rows = ragjudge.load_gold(args.gold_dir / source / "dev.jsonl", limit=args.limit)
        for mode in ("statement", "whole"):
            judge = ragjudge.Faithfulness(
                mode=mode, aggregation="fraction" if mode == "statement" else "mean"
            )
            start = time.perf_counter()
            results = judge.batch(rows)
            rate = len(rows) / (time.perf_counter() - start)
            keep = [
                (r.faithful, res)
                for r, res in zip(rows, results, strict=True)
                if not np.isnan(res.score)
            ]
            y = np.array([k[0] for k in keep])
            s = np.array([k[1].score for k in keep])
            p = np.array([bool(k[1].passed) for k in keep])
            pooled[mode] += [(int(a), float(b), bool(c)) for a, b, c in zip(y, s, p, strict=True)]
            peer = PEER_RAGAS_ROUGE_L[source]
            print(
                f"{source:<18} {mode:<9} {len(rows):>5} {balanced_accuracy(y, p):>6.3f} "
                f"{auroc(y, s):>6.3f} {rate:>8.1f}   {peer[0]:.3f}/{peer[1]:.3f}"
            )
    for mode, items in pooled.items():
        y = np.array([i[0] for i in items])
        s = np.array([i[1] for i in items])
        p = np.array([i[2] for i in items])
        peer = PEER_RAGAS_ROUGE_L["pooled"]
        print(
            f"{'pooled':<18} {mode:<9} {len(y):>5} {balanced_accuracy(y, p):>6.3f} "
            f"{auroc(y, s):>6.3f} {'':>8}   {peer[0]:.3f}/{peer[1]:.3f}"
        )


if __name__ == "__main__":
    main()
