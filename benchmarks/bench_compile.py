"""Compiling the offline judge on each gold source: held-out agreement, time, LM calls, --init.

    python benchmarks/bench_compile.py [--trials 100] [--sources ...] [--skip-init]
    python benchmarks/bench_compile.py --seeds 0 1 2 --skip-init     # three split seeds
    python benchmarks/bench_compile.py --select best                 # ship the study's best
    python benchmarks/bench_compile.py --judge deterministic-words   # the lexical judge
    python benchmarks/bench_compile.py --seeds 0 1 2 --skip-init --defaults leave-one-out

For each source, compiles on its dev rows (grouped, stratified split; everything fitted on
train) and reports validation agreement of the compiled and the uncompiled default judge, the
compile time, and LM calls (raw outputs vs trials). Then macro-average balanced accuracy and
pooled ROC AUC over the six sources' validation rows. Finally the domain-transfer check: a judge
compiled on source A and re-optimized with `init=` on 200 train rows of source B, against one
compiled from scratch on all of B's train rows, both measured on B's held-out rows.

Every figure counts every validation row: a row a judge leaves unscored (NaN, e.g. all its
statements unsure and excluded) counts as the judge treats it, never passing and ranked below
every score; `unsc` shows how many there were. (The compile report leaves such rows out, which
flatters a judge that abstains on hard rows.)

The offline judge's packaged answer weights (`benchmarks/fit_default_params.py`) were fitted on
a sample of every source's dev rows, held-out rows included. `--defaults leave-one-out` gives
the starting judge, for each source, weights refitted the same way on the other five sources
only, so the uncompiled judge has seen no row of the source it is measured on (a new domain).
"""

from __future__ import annotations

import math
import time

import dspy
import numpy as np
from _common import PEER_RAGAS_ROUGE_L, gold_args

import ragjudge
from ragjudge.optimize import compile_judge, split_gold
from ragjudge.stats._agreement import auroc, balanced_accuracy

PAIRS = (("lfqa_verification", "faithbench"), ("begin", "wice"), ("summedits", "halueval"))
UNSCORED = -1.0  # below every score: an unscored row never passes and ranks lowest


def strict(
    gold: list[int], scores: list[float | None], passed: list[bool | None]
) -> tuple[float, float, int]:
    """Balanced accuracy and ROC AUC over every row (unscored: failing, lowest), and how many
    rows were unscored."""
    s = floored(scores)
    unscored = sum(1 for v in s if v == UNSCORED)
    return balanced_accuracy(gold, [bool(p) for p in passed]), auroc(gold, s), unscored


def floored(scores: list[float | None]) -> list[float]:
    """Scores with `UNSCORED` for rows without one."""
    return [UNSCORED if v is None or math.isnan(v) else v for v in scores]


def main() -> None:
    parser = gold_args(__doc__ or "")
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--skip-init", action="store_true")
    parser.add_argument(
        "--seeds",
        type=int,
        nargs="+",
        default=[0],
        help="split seeds: each compiles on its own grouped train split and is measured on the "
        "held-out rows of that split",
    )
    parser.add_argument(
        "--select",
        choices=["one-se", "best"],
        default=None,
        help="compile's selection rule (default: the library's)",
    )
    parser.add_argument(
        "--judge",
        choices=["faithfulness", "deterministic-words"],
        default="faithfulness",
        help="the offline faithfulness judge, or the lexical judge (variant='words')",
    )
    parser.add_argument(
        "--defaults",
        choices=["packaged", "leave-one-out"],
        default="packaged",
        help="the starting judge's offline weights: the packaged ones, or refitted without the "
        "source measured",
    )
    args = parser.parse_args()
    held_out_defaults = {}
    if args.defaults == "leave-one-out" and args.judge == "faithfulness":
        from fit_default_params import fit_defaults, load_dev  # adds the checkout to sys.path

        dev = load_dev(args.gold_dir)
        held_out_defaults = {
            source: fit_defaults({k: v for k, v in dev.items() if k != source})
            for source in args.sources
        }
    dspy.configure_cache(enable_disk_cache=False, enable_memory_cache=False)
    print(
        f"{'source':<18} {'seed':>2} {'train':>5} {'valid':>5} {'BA':>6} {'AUROC':>6} {'unsc':>4} "
        f"{'baseBA':>6} {'baseAUC':>7} {'unsc':>4} {'gain':>6} {'secs':>6} {'rawcalls':>8} "
        f"{'0-call trials':>13}  params"
    )
    pooled_y: list[int] = []
    pooled_s: list[float | None] = []
    base_s: list[float | None] = []
    per_source: dict[str, list[tuple[float, float]]] = {}
    options = {} if args.select is None else {"select": args.select}
    for seed in args.seeds:
        for source in args.sources:
            rows = ragjudge.load_gold(args.gold_dir / source / "dev.jsonl")
            start = time.perf_counter()
            start_judge: ragjudge.Judge = (
                ragjudge.DeterministicJudge(variant="words")
                if args.judge == "deterministic-words"
                else ragjudge.Faithfulness()
            )
            if source in held_out_defaults:
                start_judge.offline_params_ = held_out_defaults[source]
            compiled = compile_judge(
                start_judge, gold=rows, n_trials=args.trials, seed=seed, **options
            )
            seconds = time.perf_counter() - start
            r = compiled.report_
            preds = r["predictions"]
            gold = [p["gold"] for p in preds]
            ba, auc, unsc = strict(gold, [p["score"] for p in preds], [p["passed"] for p in preds])
            base_ba, base_auc, base_unsc = strict(
                gold, [p["baseline_score"] for p in preds], [p["baseline_passed"] for p in preds]
            )
            per_source.setdefault(source, []).append((ba, base_ba))
            pooled_y += gold
            pooled_s += [p["score"] for p in preds]
            base_s += [p["baseline_score"] for p in preds]
            params = {
                k: r["params"][k]
                for k in ("mode", "aggregation", "unsure", "head")
                if k in r["params"]
            }
            chosen = (r.get("selection") or {}).get("chosen", "-")
            print(
                f"{source:<18} s{seed} {r['sizes']['train']:>5} {r['sizes']['validation']:>5} "
                f"{ba:>6.3f} {auc:>6.3f} {unsc:>4} {base_ba:>6.3f} {base_auc:>7.3f} "
                f"{base_unsc:>4} {ba - base_ba:>+6.3f} {seconds:>6.1f} "
                f"{r['lm_calls']['raw_outputs']:>8} "
                f"{r['lm_calls']['trials_without_lm_calls']:>6}/{r['study']['n_trials']:<6}  "
                f"ships {chosen} {params}",
                flush=True,
            )
    if len(args.sources) > 1 or len(args.seeds) > 1:
        print("\nper source, mean over split seeds (compiled BA, uncompiled BA, gain, worst gain):")
        for source, pairs in per_source.items():
            comp, base = np.mean([p[0] for p in pairs]), np.mean([p[1] for p in pairs])
            worst = min(p[0] - p[1] for p in pairs)
            print(f"  {source:<18} {comp:.3f} {base:.3f} {comp - base:+.3f} {worst:+.3f}")
        comp = np.mean([np.mean([p[0] for p in v]) for v in per_source.values()])
        base = np.mean([np.mean([p[1] for p in v]) for v in per_source.values()])
        print(
            f"macro-average balanced accuracy (validation): compiled {comp:.3f}, uncompiled "
            f"default {base:.3f}, gain {comp - base:+.3f}"
        )
        print(
            f"pooled ROC AUC (compiled, validation): {auroc(pooled_y, floored(pooled_s)):.3f}; "
            f"uncompiled default: {auroc(pooled_y, floored(base_s)):.3f}; best peer (ragas ROUGE-L "
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
        gold = [int(r.faithful or 0) for r in held_b]
        figures = []
        for judge in (judge_a, warm, scratch):
            out = judge.batch(held_b)
            figures.append(strict(gold, [o.score for o in out], [o.passed for o in out]))
        (old, _, _), (w, _, w_unsc), (s, _, s_unsc) = figures
        print(
            f"  {a} -> {b_source}: held-out n={len(held_b)}  old judge BA {old:.3f}"
            f"  --init on 200 rows BA {w:.3f}  scratch on {len(train_b)} "
            f"rows BA {s:.3f}  gap {s - w:+.3f}  (unscored {w_unsc}, {s_unsc})",
            flush=True,
        )


if __name__ == "__main__":
    main()
