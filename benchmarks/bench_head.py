"""What the offline judge's tree head buys on new rows, over several splits of each source.

    python benchmarks/bench_head.py [--sources ...] [--seeds 0 1 2 3 4]

For each gold source and split seed: a grouped 60/40 split of `dev.jsonl` (as
`offline_accuracy.py`), the offline weights fitted on train with the L2 strength that grouped
cross-validation on train chooses, and the held-out ROC AUC of the answer confidence without the
tree head, with the head as compile decides it (kept only when cross-validation on train says it
ranks better: `cross_fit_offline(head=None)`), and with the head forced. One split is noisy on
these sources, hence the seeds; the table ends with the mean per source.
"""

from __future__ import annotations

import time

import numpy as np
from _common import gold_args
from offline_accuracy import auroc, evaluate, grouped_split, load_rows

from ragjudge.offline.model import OfflineModel, cross_fit_offline, fit_offline


def held_out(train: list, test: list, *, seed: int, regularization: float, head: bool) -> float:
    """Held-out ROC AUC of the offline judge fitted on `train` (with or without a head)."""
    params = fit_offline(train, seed=seed, regularization=regularization, head=head)
    y = np.array([r["faithful"] for r in test])
    return auroc(evaluate(OfflineModel(params), test)[0], y)


def main() -> None:
    parser = gold_args(__doc__ or "")
    parser.add_argument("--seeds", type=int, nargs="*", default=[0, 1, 2, 3, 4])
    args = parser.parse_args()
    print(
        f"{'source':<18} {'seed':>4} {'kept':>5} {'none':>6} {'auto':>6} {'forced':>6} {'secs':>6}"
    )
    for source in args.sources:
        rows = load_rows(args.gold_dir / source / "dev.jsonl")
        table = []
        for seed in args.seeds:
            start = time.perf_counter()
            train, test = grouped_split(rows, seed=seed)
            groups = [str(r.get("meta", {}).get("group_id") or r["id"]) for r in train]
            cross = cross_fit_offline(train, groups=groups, seed=seed, head=None)
            plain, forced = (
                held_out(train, test, seed=seed, regularization=cross.regularization, head=h)
                for h in (False, True)
            )
            auto = forced if cross.head else plain
            table.append((plain, auto, forced))
            print(
                f"{source:<18} {seed:>4} {'yes' if cross.head else 'no':>5} {plain:>6.3f} "
                f"{auto:>6.3f} {forced:>6.3f} {time.perf_counter() - start:>6.1f}",
                flush=True,
            )
        plain, auto, forced = np.mean(table, axis=0)
        print(
            f"{source:<18} {'mean':>4} {'':>5} {plain:>6.3f} {auto:>6.3f} {forced:>6.3f}  "
            f"compile's head {auto - plain:+.3f}, forced {forced - plain:+.3f}"
        )


if __name__ == "__main__":
    main()
