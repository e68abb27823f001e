"""Should compile pull the offline judge's weights toward the packaged ones? Held-out check.

    python benchmarks/bench_offline_prior.py --cap 400   # writes results/offline_prior_400.json

For each gold source (at most `--cap` rows, sampled with seed 0) and split seeds 0, 1, 2
(`split_gold`: grouped, stratified, 30% held out), the offline judge's weights are fitted on the
train side three ways, the L2 strength chosen each time by grouped cross-validation
(`cross_fit_offline`): pulled toward zero (what compile does), toward the packaged weights, and
toward the packaged recipe refitted without the source (`fit_default_params.fit_defaults` on the
other five). Reported per source and seed: held-out ROC AUC and balanced accuracy of the answer
confidence, and the strength chosen. A pull toward the packaged weights lowered held-out AUROC
on four of six sources at 400 rows, so compile keeps pulling toward zero.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))

from fit_default_params import fit_defaults, load_dev  # noqa: E402

import ragjudge  # noqa: E402
from ragjudge.offline.model import (  # noqa: E402
    OfflineModel,
    OfflineParams,
    cross_fit_offline,
    fit_offline,
)
from ragjudge.optimize import split_gold  # noqa: E402
from ragjudge.stats._agreement import auroc, balanced_accuracy  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--gold-dir", type=Path, default=REPO.parent / "shared" / "gold")
    parser.add_argument("--cap", type=int, default=400, help="rows per source (0: all)")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    dev = load_dev(args.gold_dir)
    out = []
    for source in sorted(dev):
        held_out_defaults = fit_defaults({k: v for k, v in dev.items() if k != source})
        rows = ragjudge.load_gold(args.gold_dir / source / "dev.jsonl")
        if args.cap:
            rows = random.Random(0).sample(rows, min(args.cap, len(rows)))
        for seed in (0, 1, 2):
            train, held = split_gold(rows, seed=seed)
            groups = [r.group for r in train]
            y = np.array([int(r.faithful or 0) for r in held])
            record: dict[str, object] = {"source": source, "seed": seed}
            priors = (
                ("zero", None),
                ("packaged", OfflineParams()),
                ("leave_one_out", held_out_defaults),
            )
            for name, prior in priors:
                cv = cross_fit_offline(train, groups=groups, init=prior, seed=seed)
                params = fit_offline(
                    train, init=prior, seed=seed, regularization=cv.regularization, head=cv.head
                )
                model = OfflineModel(params)
                confidence = np.array(
                    [
                        model.judge_answer(question=r.question, context=r.context, answer=r.answer)[
                            "confidence"
                        ]
                        for r in held
                    ]
                )
                record[name] = {
                    "auroc": round(auroc(y, confidence), 4),
                    "balanced_accuracy": round(
                        balanced_accuracy(y, confidence >= params.answer_threshold), 4
                    ),
                    "regularization": cv.regularization,
                }
            print(json.dumps(record), flush=True)
            out.append(record)
    path = args.out or REPO / "benchmarks" / "results" / f"offline_prior_{args.cap}.json"
    path.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
