"""Prediction-powered estimates of the faithful rate: coverage, width and A/B power.

Each gold source's dev rows are a system's traffic whose truth is known (their labels). Every
row gets the verdict of an offline judge that never fitted it: the rows are split in two by
group (`split_gold`, half each side, stratified), the offline judge is compiled on each half
and judges the other half (2-fold cross-fitting, compiled once per fold). The verdicts are then
a fixed row -> prediction map, as a deployed judge's verdicts on new traffic are, and no
labeled row of a draw is one its judge fitted on.

Then, per source and n = 50, 100, 200, 1,000 seeded draws of n labeled rows (without
replacement) estimate the faithful rate of all the source's rows with PPI++ and with the labels
alone (`ragjudge.stats._ppi.mean_estimate`, 95% normal intervals):

- coverage: the share of draws whose interval holds the true rate;
- width: the median interval width, and the effective number of labels n * (w_classical /
  w_ppi)^2 at those medians;
- A/B power: two systems with faithful rates 0.35 and 0.45, each 2,000 rows resampled (with
  replacement) from one source's faithful and unfaithful rows, 100 labeled rows each; the share
  of 1,000 draws whose 95% interval of the difference excludes 0, and the share that holds
  the true difference.

The intervals are for the rate of the traffic the rows are a sample of; when n is a large
share of the rows (200 of faithbench's 450) they are conservative for the rate of just those
rows (no finite-population correction), which shows as coverage above 0.95.

    python benchmarks/bench_estimate.py            # compiles (cached), then simulates
    python benchmarks/bench_estimate.py --draws 200 --sources wice   # quicker

Writes benchmarks/results/estimate.json and prints the tables.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import REPO, gold_args
from ragjudge.data._gold import GoldRecord, load_gold
from ragjudge.optimize._compile import compile_judge
from ragjudge.optimize._split import split_gold
from ragjudge.programs.faithfulness import Faithfulness
from ragjudge.stats._ppi import MeanEstimate, difference, mean_estimate

SIZES = (50, 100, 200)
LEVEL = 0.95


def out_of_fold(rows: list[GoldRecord], *, n_trials: int, seed: int) -> dict[str, Any]:
    """Each row's verdict (passed, score) from the offline judge compiled on the other half."""
    first, second = split_gold(rows, valid_fraction=0.5, seed=seed)
    verdicts: dict[str, dict[str, Any]] = {}
    seconds = []
    accuracy = []
    for train, held in ((first, second), (second, first)):
        started = time.perf_counter()
        judge = compile_judge(
            Faithfulness(), gold=train, validation=held, n_trials=n_trials, seed=seed, n_boot=200
        )
        seconds.append(time.perf_counter() - started)
        report = judge.report_ or {}
        accuracy.append(report["validation"]["balanced_accuracy"])
        for p in report["predictions"]:
            verdicts[p["id"]] = {
                "passed": 1.0 if p["passed"] else 0.0,  # an error counts as failing
                "score": 0.0 if p["score"] is None else float(p["score"]),
            }
    return {
        "verdicts": [verdicts[r.id] for r in rows],
        "compile_seconds": seconds,
        "balanced_accuracy": accuracy,
    }


def coverage(
    y: np.ndarray, f: np.ndarray, *, n: int, draws: int, seed: int
) -> dict[str, float | int]:
    """Coverage and widths of PPI++ and labels-only intervals over `draws` labeled draws."""
    rng = np.random.default_rng(seed)
    truth = float(y.mean())
    hits = np.zeros(2)
    widths: list[list[float]] = [[], []]
    fell_back = 0
    lams = []
    for _ in range(draws):
        chosen = np.zeros(y.size, dtype=bool)
        chosen[rng.choice(y.size, size=n, replace=False)] = True
        est = mean_estimate(
            labels=y[chosen], predicted=f[chosen], predicted_unlabeled=f[~chosen], level=LEVEL
        )
        for k, ci in enumerate((est.ci, est.classical_ci)):
            hits[k] += ci[0] <= truth <= ci[1]
            widths[k].append(ci[1] - ci[0])
        fell_back += est.fell_back
        lams.append(est.lam)
    w_ppi, w_cls = float(np.median(widths[0])), float(np.median(widths[1]))
    return {
        "n": n,
        "truth": round(truth, 4),
        "coverage_ppi": round(hits[0] / draws, 4),
        "coverage_classical": round(hits[1] / draws, 4),
        "median_width_ppi": round(w_ppi, 4),
        "median_width_classical": round(w_cls, 4),
        "effective_labels": round(n * (w_cls / w_ppi) ** 2, 1) if w_ppi > 0 else None,
        "never_wider": bool(all(a <= b + 1e-12 for a, b in zip(*widths, strict=True))),
        "median_lambda": round(float(np.median(lams)), 3),
        "fell_back_share": round(fell_back / draws, 4),
    }


def ab_power(
    y: np.ndarray,
    f: np.ndarray,
    *,
    rates: tuple[float, float],
    size: int,
    n: int,
    draws: int,
    seed: int,
) -> dict[str, Any]:
    """Power to detect rates[1] - rates[0] with n labels per system, PPI++ vs labels alone."""
    rng = np.random.default_rng(seed)
    good, bad = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
    detected = np.zeros(2)
    held = np.zeros(2)

    def system(rate: float) -> tuple[np.ndarray, np.ndarray]:
        k = round(rate * size)
        index = np.concatenate(
            [rng.choice(good, size=k, replace=True), rng.choice(bad, size=size - k, replace=True)]
        )
        return y[index], f[index]

    def estimate(ys: np.ndarray, fs: np.ndarray) -> MeanEstimate:
        chosen = np.zeros(ys.size, dtype=bool)
        chosen[rng.choice(ys.size, size=n, replace=False)] = True
        return mean_estimate(
            labels=ys[chosen], predicted=fs[chosen], predicted_unlabeled=fs[~chosen], level=LEVEL
        )

    for _ in range(draws):
        (ya, fa), (yb, fb) = system(rates[0]), system(rates[1])
        truth = float(yb.mean() - ya.mean())
        a, b = estimate(ya, fa), estimate(yb, fb)
        for k, (ea, eb, sa, sb) in enumerate(
            (
                (a.estimate, b.estimate, a.se, b.se),
                (a.classical, b.classical, a.classical_se, b.classical_se),
            )
        ):
            d = difference(estimate=eb - ea, se=float(np.hypot(sa, sb)), level=LEVEL)
            detected[k] += d.ci[0] > 0 or d.ci[1] < 0
            held[k] += d.ci[0] <= truth <= d.ci[1]
    return {
        "rates": list(rates),
        "rows_per_system": size,
        "labels_per_system": n,
        "power_ppi": round(detected[0] / draws, 4),
        "power_classical": round(detected[1] / draws, 4),
        "coverage_ppi": round(held[0] / draws, 4),
        "coverage_classical": round(held[1] / draws, 4),
    }


def main() -> None:
    parser = gold_args(__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--trials", type=int, default=30, help="Optuna trials per compile")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--cache",
        type=Path,
        default=Path.home() / ".cache" / "ragjudge" / "bench_estimate_verdicts.json",
        help="out-of-fold verdicts per source (reused when present)",
    )
    parser.add_argument(
        "--out", type=Path, default=REPO / "benchmarks" / "results" / "estimate.json"
    )
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    args.cache.parent.mkdir(parents=True, exist_ok=True)
    cache: dict[str, Any] = json.loads(args.cache.read_text()) if args.cache.exists() else {}
    results: dict[str, Any] = {
        "level": LEVEL,
        "draws": args.draws,
        "trials_per_compile": args.trials,
        "predictions": "passed (0/1; an error counts as 0)",
        "sources": {},
    }
    for s_index, source in enumerate(args.sources):
        rows = load_gold(args.gold_dir / source / "dev.jsonl")
        if source not in cache:
            cache[source] = out_of_fold(rows, n_trials=args.trials, seed=args.seed)
            args.cache.write_text(json.dumps(cache) + "\n")
        fold = cache[source]
        y = np.array([float(r.faithful) for r in rows])
        entry: dict[str, Any] = {
            "rows": len(rows),
            "faithful_rate": round(float(y.mean()), 4),
            "compile_seconds": [round(s, 1) for s in fold["compile_seconds"]],
            "judge_balanced_accuracy": [round(a, 4) for a in fold["balanced_accuracy"]],
        }
        for kind in ("passed", "score"):
            f = np.array([v[kind] for v in fold["verdicts"]])
            entry[kind] = {
                "judge_rate": round(float(f.mean()), 4),
                "coverage": [
                    coverage(y, f, n=n, draws=args.draws, seed=args.seed + 1000 * s_index + n)
                    for n in SIZES
                ],
                "ab": ab_power(
                    y,
                    f,
                    rates=(0.35, 0.45),
                    size=2000,
                    n=100,
                    draws=args.draws,
                    seed=args.seed + 1000 * s_index + 7,
                ),
            }
        results["sources"][source] = entry
        print(table_of(source, entry), flush=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {args.out}")


def table_of(source: str, entry: dict[str, Any]) -> str:
    """One source's figures as text."""
    lines = [
        f"{source}: {entry['rows']} rows, true rate {entry['faithful_rate']:.3f}, judge bal.acc "
        + " / ".join(f"{a:.3f}" for a in entry["judge_balanced_accuracy"])
    ]
    for kind in ("passed", "score"):
        e = entry[kind]
        lines.append(f"  predictions = {kind}, judge raw rate {e['judge_rate']:.3f}")
        lines.append("      n  cover ppi  cover cls  width ppi  width cls  eff. labels  lambda")
        for c in e["coverage"]:
            lines.append(
                f"  {c['n']:>5}  {c['coverage_ppi']:>9.3f}  {c['coverage_classical']:>9.3f}  "
                f"{c['median_width_ppi']:>9.3f}  {c['median_width_classical']:>9.3f}  "
                f"{c['effective_labels']!s:>11}  {c['median_lambda']:>6.3f}"
            )
        ab = e["ab"]
        lines.append(
            f"  A/B 0.35 vs 0.45, n=100 each: power PPI++ {ab['power_ppi']:.3f}, labels alone "
            f"{ab['power_classical']:.3f} (coverage {ab['coverage_ppi']:.3f} / "
            f"{ab['coverage_classical']:.3f})"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
