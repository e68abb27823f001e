"""`ragjudge label`'s strategies: labels saved by choosing rows, and the page's speed.

Each gold source's dev rows stand for a system's traffic, and a simulated reviewer answers
with the gold label.

**interval** (`--part interval`): the rows' verdicts come from the offline judge compiled on
the other half of the rows (2-fold cross-fitting by group, as `bench_estimate.py` does; cached
in ~/.cache/ragjudge/bench_label_verdicts.json), so no labeled row is one its judge fitted on.
The dev rows stand for the distribution of a traffic file of `--rows` rows (default 100,000:
each row repeated, so that 200 labels are a small share of the file, as in use; `--rows 0`:
the dev rows are the traffic, where 200 labels are a third of it and the judge's part of the
interval, which labels do not shrink, holds both strategies' widths up alike). Per source
and n = 25, 50, 100, 200 labels, over `--draws` simulated reviewers:

- `random`: n traffic rows drawn uniformly without replacement, PPI++
  (`stats/_ppi.mean_estimate`, what `estimate` computes on randomly labeled rows);
- `estimate`: what the page does with `--strategy estimate`: draws with replacement from
  `stats/_active.AdaptiveSampler` (fed each label as it comes) until n distinct rows are
  labeled (a row drawn again counts again without being asked), then
  `stats/_active.active_mean`.

Both report the median interval width and the coverage of the true rate. "Labels for
random's width" is the fewest labels (in steps of 5, 400 draws each) at which `estimate`'s
median width is no wider than `random`'s at n; saved = 1 - that / n. "Most saved by score
bins" is the bound on that saving for any sampler that draws by the judge's score bin
(`Traffic.bound`): it depends on how unevenly the judge's errors fall over its scores.

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

    python benchmarks/bench_label.py --part interval          # ~10 min once compiled
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


class Traffic:
    """A source's dev rows standing for a traffic file: the rows themselves (`copies` = 1) or a
    file `copies` times as long in which each row appears `copies` times, so that the rows are
    the traffic's distribution and n labels are a small share of it, as in a real file."""

    def __init__(self, y: np.ndarray, f: np.ndarray, *, copies: int) -> None:
        self.y, self.f, self.copies = y, f, copies
        self.f_all = np.tile(f, copies)
        self.truth = float(y.mean())

    def draw_random(self, rng: np.random.Generator, n: int) -> Any:
        """n traffic rows uniformly without replacement, PPI++ on them."""
        chosen = rng.choice(self.f_all.size, size=n, replace=False)
        rest = np.ones(self.f_all.size, dtype=bool)
        rest[chosen] = False
        rows = chosen % self.y.size
        return mean_estimate(
            labels=self.y[rows], predicted=self.f[rows], predicted_unlabeled=self.f_all[rest]
        ).ci

    def draw_estimate(self, rng: np.random.Generator, n: int) -> Any:
        """What the page does with `--strategy estimate`: draws from an `AdaptiveSampler`
        (which learns from each label) until n distinct traffic rows are labeled (a row drawn
        again counts again without being asked), then `active_mean`. A row's copies share its
        score, so the sampler over the dev rows, its probabilities divided by `copies`, is the
        sampler over the traffic."""
        sampler = AdaptiveSampler(self.f, seed=int(rng.integers(2**31)), **SAMPLER)
        draws: list[int] = []
        probs: list[float] = []
        seen: set[tuple[int, int]] = set()
        while len(seen) < n:
            index, q = sampler.draw()
            draws.append(index)
            probs.append(q / self.copies)
            seen.add((index, int(rng.integers(self.copies))))
            sampler.observe(index, self.y[index])
        at = np.array(draws)
        return active_mean(
            labels=self.y[at], predicted=self.f[at], probabilities=probs, predicted_all=self.f_all
        ).ci

    def once(self, strategy: str, n: int, rng: np.random.Generator) -> tuple[float, float]:
        """One simulated reviewer: (width, covered)."""
        ci = (self.draw_random if strategy == "random" else self.draw_estimate)(rng, n)
        return ci[1] - ci[0], float(ci[0] <= self.truth <= ci[1])

    def runs(self, strategy: str, n: int, *, draws: int, seed: int) -> tuple[float, float]:
        """Median width and coverage over `draws` simulated reviewers."""
        rng = np.random.default_rng(seed)
        out = np.array([self.once(strategy, n, rng) for _ in range(draws)])
        return float(np.median(out[:, 0])), float(out[:, 1].mean())

    def bound(self, *, bins: int = 10) -> float:
        """The most labels any sampler drawing by the judge's score bin can save against
        uniform draws (each bin's error known exactly, no uniform share, lam = 1, many rows):
        `1 - (sum_b N_b s_b)^2 / (N sum_b N_b s_b^2)`, s_b the root mean squared error of
        the judge in bin b."""
        p = np.clip(self.f, 0.0, 1.0)
        at = np.minimum((p * bins).astype(int), bins - 1)
        count = np.bincount(at, minlength=bins).astype(float)
        error = np.bincount(at, weights=(self.y - p) ** 2, minlength=bins)
        s = np.sqrt(np.divide(error, count, out=np.zeros(bins), where=count > 0))
        total = float((count * s**2).sum())
        return 0.0 if total <= 0 else 1 - float((count * s).sum()) ** 2 / (p.size * total)


def interval_figures(traffic: Traffic, *, n: int, draws: int, seed: int) -> dict[str, Any]:
    out: dict[str, Any] = {"n": n}
    for strategy in ("random", "estimate"):
        width, coverage = traffic.runs(strategy, n, draws=draws, seed=seed)
        out[strategy] = {"median_width": round(width, 4), "coverage": round(coverage, 4)}
    return out


def labels_for_width(
    traffic: Traffic, *, width: float, up_to: int, seed: int
) -> tuple[int, float] | None:
    """The fewest labels (steps of 5, from the 10 `estimate` needs, by bisection: the median
    width falls as labels grow) at which `estimate`'s median width over 400 draws is no
    wider than `width`, with the coverage there."""
    steps = list(range(10, up_to + 1, 5))
    if up_to not in steps:
        steps.append(up_to)
    cache: dict[int, tuple[float, float]] = {}

    def at(m: int) -> tuple[float, float]:
        if m not in cache:
            cache[m] = traffic.runs("estimate", m, draws=400, seed=seed + m)
        return cache[m]

    lo, hi = 0, len(steps) - 1
    if at(steps[hi])[0] > width:
        return None
    while lo < hi:
        mid = (lo + hi) // 2
        if at(steps[mid])[0] <= width:
            hi = mid
        else:
            lo = mid + 1
    return steps[lo], at(steps[lo])[1]


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
        traffic = Traffic(y, f, copies=max(1, -(-args.rows // len(rows))))
        entry: dict[str, Any] = {
            "rows": len(rows),
            "traffic_rows": traffic.f_all.size,
            "faithful_rate": round(float(y.mean()), 4),
            "judge_balanced_accuracy": [round(a, 4) for a in fold["balanced_accuracy"]],
            "most_saved_by_score_bins": round(traffic.bound(), 3),
            "by_labels": [],
        }
        for n in SIZES:
            figures = interval_figures(
                traffic, n=n, draws=args.draws, seed=args.seed + 97 * s_index
            )
            needed = labels_for_width(
                traffic, width=figures["random"]["median_width"], up_to=n, seed=args.seed + n
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
        f"{source}: {entry['rows']} rows as {entry['traffic_rows']} traffic rows, true rate "
        f"{entry['faithful_rate']:.3f}, cross-fitted judge bal.acc {acc}, most saved by "
        f"score bins {entry['most_saved_by_score_bins']:.0%}",
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
            for strategy in args.strategies:
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
    parser.add_argument(
        "--rows",
        type=int,
        default=100_000,
        help="traffic rows (interval: the dev rows stand for a file this long; 0: the dev rows)",
    )
    parser.add_argument("--answers", type=int, default=200, help="latency: answers timed")
    parser.add_argument(
        "--strategies",
        nargs="*",
        default=["random", "uncertain", "estimate"],
        help="compile, latency: the strategies run",
    )
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
