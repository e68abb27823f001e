"""Benchmark: ragjudge DeterministicFaithfulness vs continuous-eval's, side by side, one run.

What it does, on every row of ../shared/gold/*/dev.jsonl:
1. (run after step 2) continuous-eval 0.3.14.post2 `DeterministicFaithfulness` in the peers'
   virtualenv (`bash benchmarks/peers/setup.sh` creates `.venv-peers`), in its own process: items/s
   (median of `--repeats`), peak RSS (`resource.getrusage`), and every row's result.
2. ragjudge in its own process per mode (`reference`, `continuous-eval`, `words`; and
   `continuous-eval` with `--workers` processes): items/s (median of `--repeats`, a fresh
   object each repeat so no cache carries over), peak RSS.
3. Float-for-float check of ragjudge `compat="continuous-eval"` against continuous-eval (all
   six fields, exact equality), and of the documented example in both modes.
4. Agreement with the gold `faithful` labels: ROC AUC and balanced accuracy (score >= 0.5)
   per source and pooled, for every score of every mode, plus the `words` variant compiled on
   gold (parameters chosen on even rows, reported on odd rows and on all rows).

Usage:
    python benchmarks/bench_deterministic.py [--repeats 3] [--workers 2] [--out bench.json]
"""

from __future__ import annotations

import argparse
import glob
import itertools
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
GOLD = ROOT.parent / "shared" / "gold"
PEERS_VENV = Path(os.environ.get("PEERS_VENV", ROOT / ".venv-peers"))
KEYS = (
    "rouge_faithfulness",
    "token_overlap_faithfulness",
    "bleu_faithfulness",
    "rouge_p_by_sentence",
    "token_overlap_p_by_sentence",
    "bleu_score_by_sentence",
)
EXAMPLE = {
    "answer": "William Shakespeare wrote 'Romeo and Juliet'. He is born in Ireland",
    "contexts": ["William Shakespeare is the author of 'Romeo and Juliet'."],
}
EXPECTED_REFERENCE = {
    "rouge_faithfulness": 0.5,
    "token_overlap_faithfulness": 0.5,
    "bleu_faithfulness": 0.37023896751607194,
    "rouge_p_by_sentence": [0.8333333333333334, 0.2],
    "token_overlap_p_by_sentence": [0.875, 0.2],
    "bleu_score_by_sentence": [0.6855956729300113, 0.05488226210213251],
}


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def load_rows() -> list[dict[str, Any]]:
    rows = []
    for path in sorted(glob.glob(str(GOLD / "*" / "dev.jsonl"))):
        with open(path, encoding="utf-8") as f:
            rows.extend(json.loads(line) for line in f)
    return rows


# -- child: ragjudge timing in its own process ----------------------------------------------
def child(mode: str, rows_path: str, out_path: str, repeats: int, workers: int) -> None:
    sys.path.insert(0, str(ROOT))
    from ragjudge.lexical import DeterministicFaithfulness

    kwargs: dict[str, Any] = {"variant": "words"} if mode == "words" else {"compat": mode}
    with open(rows_path, encoding="utf-8") as f:
        rows = [json.loads(line) for line in f]
    pairs = [(r["answer"], r["contexts"]) for r in rows]
    DeterministicFaithfulness(**kwargs)(answer="Warm up.", contexts=["Warm up."])  # load Punkt
    import_rss = _rss_mb()
    times: list[float] = []
    results: list[dict[str, Any]] = []
    for _ in range(repeats):
        metric = DeterministicFaithfulness(**kwargs)  # fresh caches every repeat
        t0 = time.perf_counter()
        results = metric.batch(pairs, workers=workers)
        times.append(time.perf_counter() - t0)
    with open(out_path, "w", encoding="utf-8") as f:
        json.dump(
            {
                "n": len(rows),
                "times": times,
                "import_rss_mb": import_rss,
                "peak_rss_mb": _rss_mb(),
                "results": results,
            },
            f,
        )


def run_ragjudge(mode: str, rows_path: str, repeats: int, workers: int) -> dict[str, Any]:
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as tmp:
        out = tmp.name
    cmd = [
        sys.executable,
        __file__,
        "--child",
        mode,
        "--rows",
        rows_path,
        "--child-out",
        out,
        "--repeats",
        str(repeats),
        "--workers",
        str(workers),
    ]
    subprocess.run(cmd, check=True)
    with open(out, encoding="utf-8") as f:
        data: dict[str, Any] = json.load(f)
    os.unlink(out)
    return data


def run_ce(rows_path: str, repeats: int) -> dict[str, Any] | None:
    python = PEERS_VENV / "bin" / "python"
    if not python.exists():
        print(f"!! {python} not found: run `bash benchmarks/peers/setup.sh` first", file=sys.stderr)
        return None
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as tmp:
        out = tmp.name
    env = dict(
        os.environ, CONTINUOUS_EVAL_DO_NOT_TRACK="true", NLTK_DATA=str(PEERS_VENV / "nltk_data")
    )
    cmd = [
        str(python),
        str(ROOT / "benchmarks" / "peers" / "run_ce.py"),
        "--rows",
        rows_path,
        "--out",
        out,
        "--repeats",
        str(repeats),
    ]
    subprocess.run(cmd, check=True, env=env)
    with open(out, encoding="utf-8") as f:
        data: dict[str, Any] = json.load(f)
    os.unlink(out)
    return data


# -- agreement with gold ---------------------------------------------------------------------
def agreement_table(rows: list[dict[str, Any]], scores: list[float]) -> dict[str, dict[str, float]]:
    sys.path.insert(0, str(ROOT))
    from ragjudge.stats._agreement import auroc, balanced_accuracy

    by_source: dict[str, list[int]] = {}
    for k, r in enumerate(rows):
        by_source.setdefault(r["source"], []).append(k)
    by_source["pooled"] = list(range(len(rows)))
    table = {}
    for source, idx in by_source.items():
        y = [int(bool(rows[k]["faithful"])) for k in idx]
        s = [float(scores[k]) for k in idx]
        table[source] = {
            "n": len(idx),
            "auroc": round(float(auroc(y, s)), 3),
            "ba": round(float(balanced_accuracy(y, [v >= 0.5 for v in s])), 3),
        }
    return table


def compile_words(rows: list[dict[str, Any]], results: list[dict[str, Any]]) -> dict[str, Any]:
    """Grid-search the compile parameters on even rows; report odd rows and all rows."""
    import numpy as np

    sys.path.insert(0, str(ROOT))
    from ragjudge.lexical import aggregate_scores
    from ragjudge.stats._agreement import auroc, balanced_accuracy

    y = np.array([int(bool(r["faithful"])) for r in rows])
    even = np.arange(len(rows)) % 2 == 0
    best: tuple[float, dict[str, Any]] | None = None
    scores_opts: list[Any] = ["rouge", "token_overlap", "bleu", "mean", ["rouge", "token_overlap"]]
    for score, agg in itertools.product(scores_opts, ["fraction", "mean", "min"]):
        thresholds = [round(0.05 * k, 2) for k in range(1, 20)] if agg == "fraction" else [0.5]
        for st in thresholds:
            params = {
                "score": score,
                "aggregate": agg,
                "sentence_threshold": st,
                "pass_threshold": 0.5,
            }
            s, _ = aggregate_scores(results, params)
            a = float(auroc(y[even].tolist(), s[even].tolist()))
            if best is None or a > best[0]:
                best = (a, params)
    assert best is not None
    params = dict(best[1])
    s, _ = aggregate_scores(results, params)
    # pass threshold: maximise balanced accuracy on even rows
    cands = sorted(set(np.round(s[even], 4).tolist()))
    pt = max(cands, key=lambda t: balanced_accuracy(y[even].tolist(), (s[even] >= t).tolist()))
    params["pass_threshold"] = float(pt)
    odd = ~even
    return {
        "params": params,
        "selection_auroc_even": round(best[0], 4),
        "heldout_odd": {
            "auroc": round(float(auroc(y[odd].tolist(), s[odd].tolist())), 3),
            "ba": round(float(balanced_accuracy(y[odd].tolist(), (s[odd] >= pt).tolist())), 3),
        },
        "all": agreement_table(rows, s.tolist()),
    }


# -- main ------------------------------------------------------------------------------------
def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--ce-repeats", type=int, default=None, help="default: --repeats")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--skip-ce", action="store_true")
    ap.add_argument("--out", default=None, help="write the full report (JSON) here")
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--rows", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--child-out", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child, args.rows, args.child_out, args.repeats, args.workers)
        return 0

    rows = load_rows()
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False, encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps({"answer": r["answer"], "contexts": r["contexts"]}) + "\n")
        rows_path = f.name
    n = len(rows)
    print(f"{n} gold rows from {GOLD}", flush=True)
    report: dict[str, Any] = {"n": n, "throughput": {}, "agreement": {}}

    runs: dict[str, dict[str, Any]] = {}
    for mode in ("reference", "continuous-eval", "words"):
        runs[f"ragjudge {mode}"] = run_ragjudge(mode, rows_path, args.repeats, 1)
    if args.workers > 1:
        runs[f"ragjudge continuous-eval --workers {args.workers}"] = run_ragjudge(
            "continuous-eval", rows_path, args.repeats, args.workers
        )
        runs[f"ragjudge reference --workers {args.workers}"] = run_ragjudge(
            "reference", rows_path, args.repeats, args.workers
        )
    if not args.skip_ce:
        ce = run_ce(rows_path, args.ce_repeats or args.repeats)
        if ce is not None:
            runs = {"continuous-eval (package)": ce, **runs}
    os.unlink(rows_path)

    base = None
    if "continuous-eval (package)" in runs:
        base = n / statistics.median(runs["continuous-eval (package)"]["times"])
    print("\n## Throughput (all gold dev rows, median of repeats)")
    print("| run | items/s | runs (s) | x continuous-eval | peak RSS MB (after import) |")
    print("|---|---|---|---|---|")
    for name, data in runs.items():
        ips = n / statistics.median(data["times"])
        ratio = f"{ips / base:.1f}x" if base else "-"
        secs = "/".join(f"{t:.1f}" for t in data["times"])
        print(
            f"| {name} | {ips:.1f} | {secs} | {ratio} | "
            f"{data['peak_rss_mb']:.0f} ({data['import_rss_mb']:.0f}) |"
        )
        report["throughput"][name] = {
            "items_per_s": ips,
            "times": data["times"],
            "peak_rss_mb": data["peak_rss_mb"],
            "import_rss_mb": data["import_rss_mb"],
        }

    # Float-for-float check.
    if "continuous-eval (package)" in runs:
        ce_res = runs["continuous-eval (package)"]["results"]
        ours = runs["ragjudge continuous-eval"]["results"]
        same = errors = 0
        field_mismatch = dict.fromkeys(KEYS, 0)
        first: list[int] = []
        for k, (a, b) in enumerate(zip(ce_res, ours, strict=False)):
            if "error" in a:
                errors += 1
                continue
            diff = [key for key in KEYS if a[key] != b[key]]
            for key in diff:
                field_mismatch[key] += 1
            if diff:
                first.append(k)
            else:
                same += 1
        if args.workers > 1:
            par = runs[f"ragjudge continuous-eval --workers {args.workers}"]["results"]
            report["workers_identical"] = par == ours
        report["float_for_float"] = {
            "identical_rows": same,
            "ce_errors": errors,
            "field_mismatches": field_mismatch,
            "first_mismatches": first[:10],
        }
        print(
            f"\n## continuous-eval compat: {same}/{n - errors} rows identical in all six fields "
            f"(exact float equality); continuous-eval raised on {errors} rows; "
            f"mismatching fields: {field_mismatch}"
        )
        if args.workers > 1:
            print(
                f"--workers {args.workers} results identical and in input order: "
                f"{report['workers_identical']}"
            )

    sys.path.insert(0, str(ROOT))
    from ragjudge.lexical import DeterministicFaithfulness

    ex_ref = DeterministicFaithfulness()(**EXAMPLE)
    ex_ce = DeterministicFaithfulness(compat="continuous-eval")(**EXAMPLE)
    report["example_reference_exact"] = ex_ref == EXPECTED_REFERENCE
    print(
        f"documented example, compat='reference' exact: {ex_ref == EXPECTED_REFERENCE}; "
        f"compat='continuous-eval' token_overlap_p: {ex_ce['token_overlap_p_by_sentence']}"
    )

    # Agreement with gold.
    print("\n## Agreement with gold `faithful`: ROC AUC / BAcc(score >= 0.5)")
    tables: dict[str, dict[str, dict[str, float]]] = {}
    for mode in ("reference", "continuous-eval", "words"):
        res = runs[f"ragjudge {mode}"]["results"]
        for key in KEYS[:3]:
            tables[f"{mode}: {key}"] = agreement_table(rows, [r[key] for r in res])
    compiled = compile_words(rows, runs["ragjudge words"]["results"])
    tables["words compiled (all rows)"] = compiled["all"]
    report["agreement"] = tables
    report["words_compiled"] = compiled
    sources = list(next(iter(tables.values())).keys())
    print("| score | " + " | ".join(sources) + " |")
    print("|---" * (len(sources) + 1) + "|")
    for name, table in tables.items():
        cells = [f"{table[s]['auroc']:.3f}/{table[s]['ba']:.3f}" for s in sources]
        print(f"| {name} | " + " | ".join(cells) + " |")
    print(
        f"\nwords compiled: params {compiled['params']}; selected on even rows "
        f"(AUROC {compiled['selection_auroc_even']}), held-out odd rows: "
        f"AUROC {compiled['heldout_odd']['auroc']}, BA {compiled['heldout_odd']['ba']}"
    )
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump(report, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
