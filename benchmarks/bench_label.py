"""`ragjudge label`'s strategies: labels saved by choosing rows, and the page's speed.

Each gold source's dev rows stand for a system's traffic, and a simulated reviewer answers
with the gold label.

**interval** (`--part interval`): the rows' verdicts come from the offline judge compiled on
the other half of the rows (2-fold cross-fitting by group, as `bench_estimate.py` does; cached
in ~/.cache/ragjudge/bench_label_verdicts.json), so no labeled row is one its judge fitted on.
Per source and n = 25, 50, 100, 200 labels, over `--draws` simulated reviewers:

- `random`: n rows drawn uniformly without replacement, PPI++ (`stats/_ppi.mean_estimate`,
  what `estimate` computes on randomly labeled rows);
- `estimate`: what the page does with `--strategy estimate`: draws with replacement from
  `stats/_active.AdaptiveSampler` (fed each label as it comes) until n distinct rows are
  labeled (a row drawn again counts again without being asked), then
  `stats/_active.active_mean`.

Both report the median interval width and the coverage of the true rate of the rows. "Labels
for random's width" is the fewest labels (in steps of 5, 400 draws each) at which `estimate`'s
median width is no wider than `random`'s at n; saved = 1 - that / n.

**compile** (`--part compile`): each source's rows are split by group in two halves: a pool to
label from and a held-out half. Per strategy and n, the reviewer labels n rows of the pool
chosen by the strategy (by the uncompiled offline judge's scores, as the page has them at the
start), the offline judge is compiled on them (`--trials` trials) and its balanced accuracy on
the held-out half is reported, with the uncompiled judge's beside it.

**latency** (`--part latency`): a synthetic traffic file of `--rows` rows (default 100,000);
the scores cache is generated directly (random scores, written as `ragjudge label` writes it,
so that the offline judge need not judge 100,000 rows first); `ragjudge label` is started as a
process and a client answers `--answers` rows, timing each answer round trip (POST the answer,
GET the next row: what the page does between two rows).

    python benchmarks/bench_label.py --part interval          # ~2 min once compiled
    python benchmarks/bench_label.py --part compile --sources halueval wice --trials 10
    python benchmarks/bench_label.py --part latency

Writes benchmarks/results/label_<part>.json and prints the tables.
"""

from __future__ import annotations

import json
import logging
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import REPO, gold_args
from ragjudge.data._gold import GoldRecord, load_gold
from ragjudge.stats._active import AdaptiveSampler, active_mean
from ragjudge.stats._ppi import mean_estimate

SIZES = (25, 50, 100, 200)
SAMPLER: dict[str, Any] = {}
LEVEL = 0.95
RESULTS = REPO / "benchmarks" / "results"


# -- interval ------------------------------------------------------------------------------------


def draw_random(rng: np.random.Generator, size: int, n: int) -> np.ndarray:
    return rng.choice(size, size=n, replace=False)


def draw_estimate(
    rng: np.random.Generator, f: np.ndarray, y: np.ndarray, n: int
) -> tuple[np.ndarray, np.ndarray]:
    """What the page does with `--strategy estimate`: draws from an `AdaptiveSampler` (which
    learns from each label) until n distinct rows are labeled; every draw counts. The draws
    and the probability each had."""
    sampler = AdaptiveSampler(f, seed=int(rng.integers(2**31)), **SAMPLER)
    draws: list[int] = []
    probs: list[float] = []
    seen: set[int] = set()
    while len(seen) < n:
        index, q = sampler.draw()
        draws.append(index)
        probs.append(q)
        seen.add(index)
        sampler.observe(index, y[index])
    return np.array(draws), np.array(probs)


def interval_once(
    strategy: str, y: np.ndarray, f: np.ndarray, n: int, rng: np.random.Generator
) -> tuple[float, float]:
    """One simulated reviewer: (width, covered)."""
    truth = float(y.mean())
    if strategy == "random":
        chosen = np.zeros(y.size, dtype=bool)
        chosen[draw_random(rng, y.size, n)] = True
        est = mean_estimate(
            labels=y[chosen], predicted=f[chosen], predicted_unlabeled=f[~chosen], level=LEVEL
        )
        ci = est.ci
    else:
        draws, q = draw_estimate(rng, f, y, n)
        active = active_mean(labels=y[draws], predicted=f[draws], probabilities=q, predicted_all=f)
        ci = active.ci
    return ci[1] - ci[0], float(ci[0] <= truth <= ci[1])


def interval_figures(
    y: np.ndarray, f: np.ndarray, *, n: int, draws: int, seed: int
) -> dict[str, Any]:
    out: dict[str, Any] = {"n": n}
    for strategy in ("random", "estimate"):
        rng = np.random.default_rng(seed)
        runs = np.array([interval_once(strategy, y, f, n, rng) for _ in range(draws)])
        out[strategy] = {
            "median_width": round(float(np.median(runs[:, 0])), 4),
            "coverage": round(float(runs[:, 1].mean()), 4),
        }
    return out


def labels_for_width(
    y: np.ndarray, f: np.ndarray, *, width: float, up_to: int, seed: int
) -> tuple[int, float] | None:
    """The fewest labels (steps of 5, from the 10 `estimate` needs) at which `estimate`'s
    median width over 400 draws is no wider than `width`, with the coverage there."""
    for m in range(10, up_to + 1, 5):
        rng = np.random.default_rng(seed + m)
        runs = np.array([interval_once("estimate", y, f, m, rng) for _ in range(400)])
        if float(np.median(runs[:, 0])) <= width:
            return m, float(runs[:, 1].mean())
    return None


def cross_fitted(
    rows: list[GoldRecord], source: str, *, trials: int, seed: int, cache_path: Path
) -> dict[str, Any]:
    cache: dict[str, Any] = json.loads(cache_path.read_text()) if cache_path.exists() else {}
    if source not in cache:
        from benchmarks.bench_estimate import out_of_fold

        cache[source] = out_of_fold(rows, n_trials=trials, seed=seed)
        cache_path.parent.mkdir(parents=True, exist_ok=True)
        cache_path.write_text(json.dumps(cache) + "\n")
    return dict(cache[source])


def part_interval(args: Any) -> dict[str, Any]:
    results: dict[str, Any] = {
        "level": LEVEL,
        "draws": args.draws,
        "trials_per_compile": args.trials,
        "predictions": "the cross-fitted offline judge's score",
        "sources": {},
    }
    for s_index, source in enumerate(args.sources):
        rows = load_gold(args.gold_dir / source / "dev.jsonl")
        fold = cross_fitted(rows, source, trials=args.trials, seed=args.seed, cache_path=args.cache)
        y = np.array([float(r.faithful) for r in rows])
        f = np.array([v["score"] for v in fold["verdicts"]])
        entry: dict[str, Any] = {
            "rows": len(rows),
            "faithful_rate": round(float(y.mean()), 4),
            "judge_balanced_accuracy": [round(a, 4) for a in fold["balanced_accuracy"]],
            "by_labels": [],
        }
        for n in SIZES:
            figures = interval_figures(y, f, n=n, draws=args.draws, seed=args.seed + 97 * s_index)
            needed = labels_for_width(
                y, f, width=figures["random"]["median_width"], up_to=n, seed=args.seed + n
            )
            figures["estimate_labels_for_random_width"] = None if needed is None else needed[0]
            figures["coverage_there"] = None if needed is None else round(needed[1], 4)
            figures["labels_saved"] = None if needed is None else round(1 - needed[0] / n, 3)
            entry["by_labels"].append(figures)
        results["sources"][source] = entry
        print(interval_table(source, entry), flush=True)
        if args.out is not None:  # partial results as each source finishes
            args.out.write_text(json.dumps(results, indent=2) + "\n")
    return results


def interval_table(source: str, entry: dict[str, Any]) -> str:
    acc = " / ".join(f"{a:.3f}" for a in entry["judge_balanced_accuracy"])
    lines = [
        f"{source}: {entry['rows']} rows, true rate {entry['faithful_rate']:.3f}, "
        f"cross-fitted judge bal.acc {acc}",
        f"  {'n':>4}  {'random width':>12} {'cover':>6}  {'estimate width':>14} {'cover':>6}  "
        f"{'labels for random width':>36}",
    ]
    for fig in entry["by_labels"]:
        need = fig["estimate_labels_for_random_width"]
        saved = (
            ""
            if need is None
            else f"{need} ({fig['labels_saved']:.0%} saved, cover {fig['coverage_there']:.3f})"
        )
        lines.append(
            f"  {fig['n']:>4}  {fig['random']['median_width']:>12.4f} "
            f"{fig['random']['coverage']:>6.3f}  {fig['estimate']['median_width']:>14.4f} "
            f"{fig['estimate']['coverage']:>6.3f}  {saved or 'more than n':>36}"
        )
    return "\n".join(lines)


# -- compile -------------------------------------------------------------------------------------


def choose(
    strategy: str, scores: np.ndarray, n: int, rng: np.random.Generator, threshold: float
) -> np.ndarray:
    if strategy == "random":
        return rng.choice(scores.size, size=n, replace=False)
    if strategy == "uncertain":
        tie = rng.random(scores.size)
        return np.lexsort((tie, np.abs(scores - threshold)))[:n]
    sampler = AdaptiveSampler(scores, seed=int(rng.integers(2**31)))
    chosen: dict[int, None] = {}
    while len(chosen) < n:  # labels are not known before compile: the judge's own error only
        chosen[sampler.draw()[0]] = None
    return np.array(list(chosen))


def part_compile(args: Any) -> dict[str, Any]:
    from ragjudge.optimize._compile import compile_judge
    from ragjudge.optimize._split import split_gold
    from ragjudge.programs.faithfulness import Faithfulness
    from ragjudge.stats._agreement import balanced_accuracy

    results: dict[str, Any] = {"trials": args.trials, "seeds": args.seeds, "sources": {}}
    for source in args.sources:
        rows = load_gold(args.gold_dir / source / "dev.jsonl")
        pool, held = split_gold(rows, valid_fraction=0.5, seed=0)
        start = Faithfulness()
        pool_results = start.batch(pool)
        scores = np.array([0.5 if np.isnan(r.score) else r.score for r in pool_results])
        held_results = start.batch(held)
        y_held = [r.faithful for r in held]
        base = balanced_accuracy(y_held, [bool(r.passed) for r in held_results])
        entry: dict[str, Any] = {
            "pool": len(pool),
            "held_out": len(held),
            "uncompiled_balanced_accuracy": round(base, 4),
            "by_labels": [],
        }
        for n in SIZES:
            if n > len(pool):
                continue
            figure: dict[str, Any] = {"n": n}
            for strategy in ("random", "uncertain", "estimate"):
                accs = []
                for seed in range(args.seeds):
                    rng = np.random.default_rng(1000 * seed + n)
                    picked = [pool[i] for i in choose(strategy, scores, n, rng, 0.5)]
                    if len({r.faithful for r in picked}) < 2:
                        continue
                    judge = compile_judge(
                        Faithfulness(),
                        gold=picked,
                        validation=held,
                        n_trials=args.trials,
                        seed=seed,
                        n_boot=0,
                    )
                    report = judge.report_ or {}
                    accs.append(float(report["validation"]["balanced_accuracy"]))
                figure[strategy] = round(float(np.mean(accs)), 4) if accs else None
                figure[f"{strategy}_runs"] = [round(a, 4) for a in accs]
            entry["by_labels"].append(figure)
            print(f"{source} n={n}: " + json.dumps(figure), flush=True)
        results["sources"][source] = entry
    return results


# -- latency -------------------------------------------------------------------------------------


def part_latency(args: Any) -> dict[str, Any]:
    from ragjudge.label._scores import ScoreCache, file_sha256, judge_key, scores_path
    from ragjudge.programs._build import build_judge

    work = Path(tempfile.mkdtemp(prefix="bench_label_"))
    traffic, gold = work / "traffic.jsonl", work / "gold.jsonl"
    rng = np.random.default_rng(0)
    sources = ["alpha", "beta", "gamma"]
    with traffic.open("w") as handle:
        for i in range(args.rows):
            handle.write(
                json.dumps(
                    {
                        "id": f"r{i}",
                        "source": sources[i % 3],
                        "question": f"What is item {i}?",
                        "contexts": [f"Item {i} is a red box made in {1900 + i % 100}."],
                        "answer": f"Item {i} is a {'red' if i % 4 else 'blue'} box.",
                        "meta": {"group_id": f"g{i // 3}"},
                    }
                )
                + "\n"
            )
    scores = rng.beta(0.5, 0.5, size=args.rows)
    judge = build_judge(lm="local")
    ScoreCache(
        ids=[f"r{i}" for i in range(args.rows)],
        scores=scores,
        passed=scores >= 0.5,
        rows_sha256=file_sha256(traffic),
        judge=judge_key(judge),
    ).save(scores_path(gold))
    results: dict[str, Any] = {"rows": args.rows, "answers": args.answers, "strategies": {}}
    for strategy in args.strategies:
        if gold.exists():
            gold.unlink()
        env = dict(os.environ, PYTHONPATH=str(REPO))
        started = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-m", "ragjudge", "label", "--rows", str(traffic), "--gold",
             str(gold), "--strategy", strategy, "--port", "0", "--no-browser",
             "--target-width", "0.05"],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        assert proc.stdout is not None
        line = proc.stdout.readline()
        found = re.search(r"http://127\.0\.0\.1:\d+/", line)
        if not found:
            proc.kill()
            raise SystemExit(f"no server: {line} {proc.communicate()[1]}")
        startup = time.perf_counter() - started
        url = found.group(0)
        times, answer_times = [], []
        try:
            row = _get(url + "api/next?reviewer=bench")["row"]
            for k in range(args.answers):
                t0 = time.perf_counter()
                _post(
                    url + "api/answer",
                    {
                        "reviewer": "bench",
                        "id": row["id"],
                        "answer": "faithful" if k % 3 else "not faithful",
                    },
                )
                answer_times.append(time.perf_counter() - t0)
                row = _get(url + "api/next?reviewer=bench")["row"]
                times.append(time.perf_counter() - t0)
        finally:
            proc.terminate()
            proc.wait()
        ms = np.array(times) * 1000
        answer_ms = np.array(answer_times) * 1000
        results["strategies"][strategy] = {
            "startup_seconds": round(startup, 2),
            "answer_median_ms": round(float(np.median(answer_ms)), 2),
            "answer_p95_ms": round(float(np.percentile(answer_ms, 95)), 2),
            "answer_and_next_median_ms": round(float(np.median(ms)), 2),
            "answer_and_next_p95_ms": round(float(np.percentile(ms, 95)), 2),
            "answer_and_next_max_ms": round(float(ms.max()), 2),
        }
        print(f"{strategy}: " + json.dumps(results["strategies"][strategy]), flush=True)
    return results


def _get(url: str) -> Any:
    with urllib.request.urlopen(url) as response:
        return json.loads(response.read())


def _post(url: str, body: dict[str, Any]) -> Any:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request) as response:
        return json.loads(response.read())


def main() -> None:
    parser = gold_args(__doc__.splitlines()[0])
    parser.add_argument("--part", choices=["interval", "compile", "latency"], required=True)
    parser.add_argument("--draws", type=int, default=2000)
    parser.add_argument("--trials", type=int, default=30, help="Optuna trials per compile")
    parser.add_argument("--seeds", type=int, default=2, help="compile: seeds per cell")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rows", type=int, default=100_000, help="latency: traffic rows")
    parser.add_argument("--answers", type=int, default=200, help="latency: answers timed")
    parser.add_argument("--strategies", nargs="*", default=["random", "uncertain", "estimate"])
    parser.add_argument(
        "--cache",
        type=Path,
        default=Path.home() / ".cache" / "ragjudge" / "bench_label_verdicts.json",
    )
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    args.out = args.out or RESULTS / f"label_{args.part}.json"
    part = {"interval": part_interval, "compile": part_compile, "latency": part_latency}
    results = part[args.part](args)
    results["command"] = "python benchmarks/bench_label.py " + " ".join(sys.argv[1:])
    args.out.write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
