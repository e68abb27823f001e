"""Compiling the offline judge on each gold source: held-out agreement, time, LM calls, --init.

    python benchmarks/bench_compile.py [--trials 100] [--sources ...] [--skip-init]
    python benchmarks/bench_compile.py --judge deterministic-words   # the lexical judge

For each source, compiles on its dev rows (grouped, stratified split; everything fitted on
train) and reports validation agreement of the compiled and the uncompiled default judge, the
compile time, and LM calls (raw outputs vs trials). Then macro-average balanced accuracy and
pooled ROC AUC over the six sources' validation rows. Finally the domain-transfer check: a judge
compiled on source A and re-optimized with `init=` on 200 train rows of source B, against one
compiled from scratch on all of B's train rows, both measured on B's held-out rows.
"""

from __future__ import annotations

import time

import dspy
import numpy as np
from _common import PEER_RAGAS_ROUGE_L, gold_args

import ragjudge
from ragjudge.evaluation import agreement_of
from ragjudge.optimize import compile_judge, split_gold
from ragjudge.stats import auroc

PAIRS = (("lfqa_verification", "faithbench"), ("begin", "wice"), ("summedits", "halueval"))


def main() -> None:
    parser = gold_args(__doc__ or "")
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--skip-init", action="store_true")
    parser.add_argument(
        "--judge",
        choices=["faithfulness", "deterministic-words"],
        default="faithfulness",
        help="the offline faithfulness judge, or the lexical judge (variant='words')",
    )
    args = parser.parse_args()
    dspy.configure_cache(enable_disk_cache=False, enable_memory_cache=False)
    print(
        f"{'source':<18} {'train':>5} {'valid':>5} {'BA':>6} {'AUROC':>6} {'baseBA':>6} "
        f"{'baseAUC':>7} {'gain':>6} {'secs':>6} {'rawcalls':>8} {'0-call trials':>13}  params"
    )
    pooled_y: list[int] = []
    pooled_s: list[float] = []
    base_y: list[int] = []
    base_s: list[float] = []
    bas: list[float] = []
    for source in args.sources:
        rows = ragjudge.load_gold(args.gold_dir / source / "dev.jsonl")
        start = time.perf_counter()
        start_judge: ragjudge.Judge = (
            ragjudge.DeterministicJudge(variant="words")
            if args.judge == "deterministic-words"
            else ragjudge.Faithfulness()
        )
        compiled = compile_judge(start_judge, gold=rows, n_trials=args.trials, seed=0)
        seconds = time.perf_counter() - start
        r = compiled.report_
        v, b = r["validation"], r["baseline"]
        bas.append(v["balanced_accuracy"])
        for p in r["predictions"]:
            if p["score"] is not None:
                pooled_y.append(p["gold"])
                pooled_s.append(p["score"])
            if p["baseline_score"] is not None:
                base_y.append(p["gold"])
                base_s.append(p["baseline_score"])
        params = {k: r["params"][k] for k in ("mode", "aggregation", "unsure") if k in r["params"]}
        print(
            f"{source:<18} {r['sizes']['train']:>5} {r['sizes']['validation']:>5} "
            f"{v['balanced_accuracy']:>6.3f} {v['auroc']:>6.3f} {b['balanced_accuracy']:>6.3f} "
            f"{b['auroc']:>7.3f} {v['balanced_accuracy'] - b['balanced_accuracy']:>+6.3f} "
            f"{seconds:>6.1f} {r['lm_calls']['raw_outputs']:>8} "
            f"{r['lm_calls']['trials_without_lm_calls']:>6}/{r['study']['n_trials']:<6}  {params}",
            flush=True,
        )
    if len(args.sources) > 1:
        print(f"macro-average balanced accuracy (compiled, validation): {np.mean(bas):.3f}")
        print(
            f"pooled ROC AUC (compiled, validation): {auroc(pooled_y, pooled_s):.3f}; "
            f"uncompiled default: {auroc(base_y, base_s):.3f}; best peer (ragas ROUGE-L "
            f"precision): {PEER_RAGAS_ROUGE_L['pooled'][0]:.3f}"
        )
    if args.skip_init or args.judge != "faithfulness":
        return
    print("\ndomain transfer: --init from A, re-optimized on 200 rows of B, vs from scratch on B")
    for a, b_source in PAIRS:
        rows_a = ragjudge.load_gold(args.gold_dir / a / "dev.jsonl")
        rows_b = ragjudge.load_gold(args.gold_dir / b_source / "dev.jsonl")
        train_b, held_b = split_gold(rows_b, seed=1)
        judge_a = compile_judge(ragjudge.Faithfulness(), gold=rows_a, n_trials=args.trials, seed=0)
        rng = np.random.default_rng(0)
        few = [train_b[i] for i in sorted(rng.choice(len(train_b), 200, replace=False))]
        warm = compile_judge(
            judge_a.clone(), gold=few, init=judge_a, n_trials=args.trials, seed=0, group_by=None
        )
        scratch = compile_judge(ragjudge.Faithfulness(), gold=train_b, n_trials=args.trials, seed=0)
        old = agreement_of(held_b, judge_a.batch(held_b), n_boot=0)[0]
        w = agreement_of(held_b, warm.batch(held_b), n_boot=0)[0]
        s = agreement_of(held_b, scratch.batch(held_b), n_boot=0)[0]
        assert old and w and s
        print(
            f"  {a} -> {b_source}: held-out n={w.n}  old judge BA {old.balanced_accuracy:.3f}"
            f"  --init on 200 rows BA {w.balanced_accuracy:.3f}  scratch on {len(train_b)} "
            f"rows BA {s.balanced_accuracy:.3f}  "
            f"gap {s.balanced_accuracy - w.balanced_accuracy:+.3f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
