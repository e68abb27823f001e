"""Fit the offline judge's default weights on the train rows of the shared gold sources.

    python benchmarks/fit_offline_defaults.py [--per-source 600] [--out PATH]

Each source is split exactly as `ragjudge compile` splits it (grouped, stratified, seed 0) and
only its train rows are used (at most `--per-source` of them, so no source dominates); the
validation rows that `benchmarks/bench_compile.py` reports stay unseen. The weights are
cross-fitted (`cross_fit_offline`, L2 strength by out-of-fold ROC AUC) and written as
`OfflineParams` JSON, which `OfflineModel()` loads as its default.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

import numpy as np
from _common import REPO, gold_args

import ragjudge
from ragjudge.offline.model import cross_fit_offline, fit_offline
from ragjudge.optimize import split_gold


def main() -> None:
    parser = gold_args(__doc__ or "")
    parser.add_argument("--per-source", type=int, default=600)
    parser.add_argument(
        "--out", type=Path, default=REPO / "ragjudge" / "offline" / "pretrained.json"
    )
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO)
    rows, groups = [], []
    rng = np.random.default_rng(0)
    for source in args.sources:
        gold = ragjudge.load_gold(args.gold_dir / source / "dev.jsonl")
        train, _ = split_gold(gold, seed=0)
        if len(train) > args.per_source:
            keep = sorted(rng.choice(len(train), args.per_source, replace=False))
            train = [train[i] for i in keep]
        rows += train
        groups += [f"{source}:{(r.meta or {}).get('group_id', r.id)}" for r in train]
        print(f"{source}: {len(train)} train rows")
    cv = cross_fit_offline(rows, groups=groups, seed=0)
    print(f"regularization {cv.regularization} (out-of-fold AUROC {cv.scores})")
    params = fit_offline(rows, seed=0, regularization=cv.regularization)
    args.out.write_text(
        json.dumps(params.model_dump(mode="json"), indent=1) + "\n", encoding="utf-8"
    )
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
