"""Prediction-powered estimates of the faithful rate: coverage, width and A/B power.

Each gold source's dev rows are a system's traffic whose truth is known (their labels). Every
row gets the verdict of an offline judge that never fitted it: the rows are split in two by
group (`split_gold`, half each side, stratified), the offline judge is compiled on each half
and judges the other half (2-fold cross-fitting, compiled once per fold). The verdicts are then
a fixed row -> prediction map, as a deployed judge's verdicts on new traffic are, and no
labeled row of a draw is one its judge fitted on.

Then, per source and n = 50, 100, 200, 1,000 seeded draws of n labeled rows (without
replacement) estimate the faithful rate of all the source's rows with PPI++ and with the labels
alone (`ragjudge.stats._ppi.mean_estimate`, 95% small-sample intervals, as `estimate` gives):

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

`--simulate` measures instead the promise `estimate` makes at every number of labels it
accepts (10 and up): simulated traffic whose truth is known exactly. Each draw is 1,000 rows
of a system with faithful rate p, a judge of given sensitivity and specificity (its pass
verdict is the prediction), and n of the rows labeled; a draw whose labels are all of one class
is refused by `estimate` (it says why) and drawn again, so each figure is over `--draws`
intervals. Per judge (good 0.95/0.95, mediocre 0.9/0.7 as in issue 41, useless 0.5/0.5),
p in 0.1, 0.3, 0.5, 0.7, 0.9 and n in 10, 15, 20, 30, 50, 100, 200: the share of 95% intervals
that hold p, and their median width, for PPI++ and the labels alone, with the normal interval
`estimate` gave before (`interval="normal"`, `ppi_py`'s) and the small-sample one it gives now.
Two more checks: strata (a 900-row stratum at 0.3 with 40 labels beside a 100-row one at 0.95
with 5, whose labels are often all 1), and the paired difference of two systems labeled on the
same questions.

    python benchmarks/bench_estimate.py --simulate --draws 2000   # results/estimate_simulated.json
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
from ragjudge.stats._ppi import (
    MeanEstimate,
    combine_strata,
    difference,
    mean_estimate,
    satterthwaite,
)

SIZES = (50, 100, 200)
LEVEL = 0.95
SIM_SIZES = (10, 15, 20, 30, 50, 100, 200)
SIM_RATES = (0.1, 0.3, 0.5, 0.7, 0.9)
SIM_JUDGES = {"good": (0.95, 0.95), "mediocre": (0.9, 0.7), "useless": (0.5, 0.5)}
SIM_ROWS = 1000
METHODS = ("normal", "small-sample")


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
        for k, (ea, eb, ca, cb, sa, sb) in enumerate(
            (
                (a.estimate, b.estimate, a.centre, b.centre, a.se, b.se),
                (
                    a.classical,
                    b.classical,
                    a.classical_centre,
                    b.classical_centre,
                    a.classical_se,
                    b.classical_se,
                ),
            )
        ):
            d = difference(  # as `compare_systems` does for independent samples
                estimate=eb - ea,
                se=float(np.hypot(sa, sb)),
                level=LEVEL,
                centre=cb - ca,
                df=satterthwaite(np.array([sa**2, sb**2]), [a.df, b.df]),
            )
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


def _system(
    rng: np.random.Generator, size: int, rate: float, judge: tuple[float, float]
) -> tuple[np.ndarray, np.ndarray]:
    """`size` rows of a system at faithful `rate` and a judge's pass verdicts on them."""
    sens, spec = judge
    y = (rng.random(size) < rate).astype(float)
    draw = rng.random(size)
    return y, np.where(y == 1, draw < sens, draw >= spec).astype(float)


def _labeled_draw(
    rng: np.random.Generator, n: int, rate: float, judge: tuple[float, float]
) -> tuple[np.ndarray, np.ndarray, int]:
    """A draw `estimate` accepts (labels of both classes) and how many it refused first."""
    refused = 0
    while True:
        y, f = _system(rng, SIM_ROWS, rate, judge)
        if y[:n].min() != y[:n].max():
            return y, f, refused
        refused += 1


def _tally(hits: dict[str, list[float]], widths: dict[str, list[float]], draws: int) -> dict:
    return {
        key: {
            "coverage": round(sum(hits[key]) / draws, 4),
            "median_width": round(float(np.median(widths[key])), 4),
        }
        for key in hits
    }


def simulated_coverage(
    *, judge: tuple[float, float], rate: float, n: int, draws: int, seed: int
) -> dict[str, Any]:
    """Coverage and width of both intervals, PPI++ and labels alone, over `draws` draws."""
    rng = np.random.default_rng(seed)
    keys = [f"{m}/{k}" for m in METHODS for k in ("ppi", "classical")]
    hits: dict[str, list[float]] = {k: [] for k in keys}
    widths: dict[str, list[float]] = {k: [] for k in keys}
    refused = 0
    for _ in range(draws):
        y, f, skipped = _labeled_draw(rng, n, rate, judge)
        refused += skipped
        for method in METHODS:
            est = mean_estimate(
                labels=y[:n], predicted=f[:n], predicted_unlabeled=f[n:], interval=method
            )
            for kind, ci in (("ppi", est.ci), ("classical", est.classical_ci)):
                hits[f"{method}/{kind}"].append(ci[0] <= rate <= ci[1])
                widths[f"{method}/{kind}"].append(ci[1] - ci[0])
    return {
        "n": n,
        "rate": rate,
        "refused_share": round(refused / (refused + draws), 4),
        **_tally(hits, widths, draws),
    }


def simulated_strata(*, draws: int, seed: int) -> dict[str, Any]:
    """Pooled coverage with a small stratum whose few labels are often all 1."""
    rng = np.random.default_rng(seed)
    strata = ((900, 0.3, 40), (100, 0.95, 5))  # rows, rate, labels
    truth = sum(rows * rate for rows, rate, _ in strata) / sum(r for r, _, _ in strata)
    keys = [f"{m}/{k}" for m in METHODS for k in ("ppi", "classical")]
    hits: dict[str, list[float]] = {k: [] for k in keys}
    widths: dict[str, list[float]] = {k: [] for k in keys}
    for _ in range(draws):
        data = [(_system(rng, rows, rate, SIM_JUDGES["mediocre"]), n) for rows, rate, n in strata]
        for method in METHODS:
            parts = [
                mean_estimate(
                    labels=y[:n], predicted=f[:n], predicted_unlabeled=f[n:], interval=method
                )
                for (y, f), n in data
            ]
            pooled = combine_strata(parts, [rows for rows, _, _ in strata], level=LEVEL)
            for kind, ci in (("ppi", pooled.ci), ("classical", pooled.classical_ci)):
                hits[f"{method}/{kind}"].append(ci[0] <= truth <= ci[1])
                widths[f"{method}/{kind}"].append(ci[1] - ci[0])
    return {"truth": truth, "strata": [list(s) for s in strata], **_tally(hits, widths, draws)}


def simulated_paired(*, n: int, draws: int, seed: int) -> dict[str, Any]:
    """Coverage of the paired difference: B answers like A on 80% of the questions."""
    rng = np.random.default_rng(seed)
    keys = [f"{m}/{k}" for m in METHODS for k in ("ppi", "classical")]
    hits: dict[str, list[float]] = {k: [] for k in keys}
    widths: dict[str, list[float]] = {k: [] for k in keys}
    rate_a, truth = 0.5, 0.1  # B fixes a fifth of A's unfaithful answers and breaks none
    for _ in range(draws):
        y_a, f_a = _system(rng, SIM_ROWS, rate_a, SIM_JUDGES["mediocre"])
        fixed = (y_a == 0) & (rng.random(SIM_ROWS) < 2 * truth)
        y_b = np.where(fixed, 1.0, y_a)
        draw = rng.random(SIM_ROWS)
        f_b = np.where(y_b == 1, draw < 0.9, draw >= 0.7).astype(float)
        z, g = y_b - y_a, f_b - f_a
        for method in METHODS:
            est = mean_estimate(
                labels=z[:n],
                predicted=g[:n],
                predicted_unlabeled=g[n:],
                interval=method,
                label_range=(-1, 1),
                prediction_range=(-1, 1),
            )
            for kind, ci in (("ppi", est.ci), ("classical", est.classical_ci)):
                hits[f"{method}/{kind}"].append(ci[0] <= truth <= ci[1])
                widths[f"{method}/{kind}"].append(ci[1] - ci[0])
    return {"n": n, "truth": truth, **_tally(hits, widths, draws)}


def simulate(draws: int, seed: int, out: Path) -> None:
    """The `--simulate` benchmark: every table, printed and written to `out`."""
    started = time.perf_counter()
    results: dict[str, Any] = {"level": LEVEL, "draws": draws, "rows": SIM_ROWS, "judges": {}}
    for j_index, (name, judge) in enumerate(SIM_JUDGES.items()):
        cells = [
            simulated_coverage(
                judge=judge, rate=rate, n=n, draws=draws, seed=seed + 10_000 * j_index + 100 * n + r
            )
            for n in SIM_SIZES
            for r, rate in enumerate(SIM_RATES)
        ]
        results["judges"][name] = {"sensitivity": judge[0], "specificity": judge[1], "cells": cells}
        print(coverage_table(name, judge, cells), flush=True)
    results["strata"] = simulated_strata(draws=draws, seed=seed + 77)
    results["paired"] = [
        simulated_paired(n=n, draws=draws, seed=seed + 88 + n) for n in (10, 30, 100)
    ]
    results["seconds"] = round(time.perf_counter() - started, 1)
    print(other_tables(results), flush=True)
    out.write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {out} ({results['seconds']} s)")


def coverage_table(name: str, judge: tuple[float, float], cells: list[dict[str, Any]]) -> str:
    """One judge's coverage by number of labels: the lowest over the rates, before and after."""
    lines = [
        f"{name} judge (sensitivity {judge[0]}, specificity {judge[1]}): coverage of 95% "
        "intervals, lowest over rates " + ", ".join(f"{r}" for r in SIM_RATES),
        "      n   PPI++ before  PPI++ now  labels before  labels now   width PPI++ now "
        "(p=0.3)  width labels now (p=0.3)",
    ]
    for n in SIM_SIZES:
        mine = [c for c in cells if c["n"] == n]

        def low(key: str, mine: list[dict[str, Any]] = mine) -> float:
            return min(c[key]["coverage"] for c in mine)

        at = next(c for c in mine if c["rate"] == 0.3)
        lines.append(
            f"  {n:>5}  {low('normal/ppi'):>12.3f}  {low('small-sample/ppi'):>9.3f}  "
            f"{low('normal/classical'):>13.3f}  {low('small-sample/classical'):>10.3f}   "
            f"{at['small-sample/ppi']['median_width']:>21.3f}  "
            f"{at['small-sample/classical']['median_width']:>24.3f}"
        )
    return "\n".join(lines)


def other_tables(results: dict[str, Any]) -> str:
    """The strata and paired checks as text."""
    s = results["strata"]
    lines = [
        f"strata (900 rows at 0.3 with 40 labels, 100 rows at 0.95 with 5; truth {s['truth']:.3f}):"
        f" pooled coverage PPI++ {s['normal/ppi']['coverage']:.3f} before, "
        f"{s['small-sample/ppi']['coverage']:.3f} now; labels alone "
        f"{s['normal/classical']['coverage']:.3f} before, "
        f"{s['small-sample/classical']['coverage']:.3f} now",
    ]
    for p in results["paired"]:
        lines.append(
            f"paired difference (truth +{p['truth']:.2f}), n = {p['n']}: coverage PPI++ "
            f"{p['normal/ppi']['coverage']:.3f} before, {p['small-sample/ppi']['coverage']:.3f} "
            f"now; labels alone {p['normal/classical']['coverage']:.3f} before, "
            f"{p['small-sample/classical']['coverage']:.3f} now"
        )
    return "\n".join(lines)


def main() -> None:
    parser = gold_args(__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--trials", type=int, default=30, help="Optuna trials per compile")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--simulate",
        action="store_true",
        help="the coverage of simulated draws by number of labels (no gold, no compile)",
    )
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
    if args.simulate:
        simulate(args.draws, args.seed, REPO / "benchmarks" / "results" / "estimate_simulated.json")
        return
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
