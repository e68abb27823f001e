"""The cascade (offline judge on every row, an LM on the rows it finds unclear): agreement against
LM calls per row, on a simulated LM (the mechanism) and on Qwen2.5-Coder-1.5B (a real one).

    python benchmarks/bench_cascade.py --simulated        # SIMULATED LM, ~10 minutes on 2 cores
    python benchmarks/bench_cascade.py --qwen --tune-per-source 10 --threads 1   # ~35 minutes
    python benchmarks/bench_cascade.py --summarize        # the simulated tables from its JSON

(results: benchmarks/results/cascade_simulated.{json,txt}, cascade_qwen.json). `--qwen` on 2
cores shared with other work: one llama.cpp thread (two stall under load); about 120 new LM
calls (60 tuning rows, 64 held-out rows not in the response cache) at ~20 s each.

`--simulated`: per gold source (`--cap` rows sampled once, seeded), `split_gold` (grouped by
`meta.group_id`, 30% held out) for each of `--seeds`; for each `--accuracies` a scripted LM
(`ragjudge.testing.simulated_lm`) whose verdict agrees with the gold label with that probability,
independently of the offline judge's errors (it is a simulation, and every figure says so).
`compile_judge(Cascade(lm=lm), modes=["whole"], max_demos=0)` on the train side; on the held-out
rows:

- offline only: the compiled cascade's offline judge (its fitted weights) with the policies of
  the study's best `route="offline"` trial (threshold fitted on train, out of fold), no LM call;
- LM only: the study's best `route="lm"` trial (the LM judge's aggregation and threshold tuned
  on train), one LM call a row;
- the compiled cascade: what compile shipped (any route; the selection decides), and its LM
  calls per row;
- the agreement-vs-calls curve: for each fraction f of rows sent to the LM, the rows whose
  offline score is nearest the offline threshold (the band widened around the cut until it
  holds f of the rows) take the LM's verdict, the others the offline verdict
  (`Cascade.rescore(route="cascade", lm_aggregation="fraction", threshold=<offline cut>)` of
  results judged once with `route="lm"`, so no band costs an LM call); then the smallest f
  whose balanced accuracy is within 1 point of LM-only's.

Figures per source are medians over seeds; "macro" is the mean over sources of those medians.

`--qwen`: the rows of `bench_real_lm.py` (`select_rows`: 20 held-out rows a source, label
balanced, at most 2,500 characters, seed 0: 112 rows; `--tune-per-source` tuning rows a source
from the train side), Qwen2.5-Coder-1.5B served by llama-cpp-python's server on 127.0.0.1 and
reached as `openai/qwen2.5-coder-1.5b` exactly as `bench_real_lm.py` does (same prompts, same
response cache: `--cache-dir`). `compile_judge(Cascade(lm=lm, mode="whole"), modes=["whole"],
max_demos=0, validation=<held-out>)`; on the held-out rows: offline only, LM only, the compiled
cascade (its route, band, LM calls per row), the rank average of the offline and LM scores
(AUROC, a reference no route computes), the same curve, each balanced accuracy / AUROC with a
95% bootstrap interval (unscored or failed rows fail and rank lowest), and the selection's
finalists and reason. Results are saved as they come (`benchmarks/results/cascade_qwen.json`).
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import random
import signal
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import dspy
import numpy as np
from _common import REPO, SOURCES
from bench_real_lm import paired_gain, start_run, strict_agreement

from ragjudge.data._gold import load_gold
from ragjudge.optimize import compile_judge, split_gold
from ragjudge.programs import Cascade
from ragjudge.programs._results import JudgeResult
from ragjudge.stats._agreement import auroc, balanced_accuracy

logger = logging.getLogger("bench_cascade")

RESULTS = REPO / "benchmarks" / "results"
UNSCORED = -1.0  # below every score: an unscored or failed row never passes and ranks lowest
FRACTIONS = (0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
WITHIN = 0.01  # "within 1 point" of LM-only balanced accuracy


# -- measuring ------------------------------------------------------------------------------
def floored(scores: Sequence[float | None]) -> list[float]:
    return [UNSCORED if s is None or math.isnan(s) else float(s) for s in scores]


def figures(gold: Sequence[int], results: Sequence[JudgeResult], judge: Cascade) -> dict[str, Any]:
    """Balanced accuracy, AUROC (every row: unscored or failed rows fail and rank lowest) and
    LM calls per row (what the policy spends: rows sent to the LM times its calls a row)."""
    scores = floored([r.score for r in results])
    passed = [bool(r.passed) and not r.error for r in results]
    spec = judge.compile_spec()
    calls = [spec.row_calls(r) for r in results]
    return {
        "balanced_accuracy": balanced_accuracy(gold, passed),
        "auroc": auroc(gold, scores),
        "lm_calls_per_row": float(np.mean(calls)),
        "unscored": sum(1 for s in scores if s == UNSCORED),
    }


def best_trial(report: dict[str, Any], route: str) -> dict[str, Any] | None:
    """The policies of the study's best complete trial on `route` (first of equals)."""
    best: tuple[float, dict[str, Any]] | None = None
    for t in report["study"]["trials"]:
        params, values = t.get("params") or {}, t.get("values")
        if t.get("state") != "COMPLETE" or not values or params.get("route") != route:
            continue
        if best is None or values[0] > best[0]:
            best = (values[0], params)
    if best is None:
        return None
    return {k: v for k, v in best[1].items() if k in Cascade.policy_names}


def rescored(judge: Cascade, results: Sequence[JudgeResult], **policy: Any) -> list[JudgeResult]:
    return [judge.rescore(r, **policy) for r in results]


def curve(
    judge: Cascade,
    both: Sequence[JudgeResult],
    gold: Sequence[int],
    cut: float,
    fractions: Sequence[float] = FRACTIONS,
) -> list[dict[str, Any]]:
    """Balanced accuracy when the fraction f of rows nearest the offline cut take the LM's
    verdict (`both`: results judged with `route="lm"`, holding both judges' outputs)."""
    offline = np.array([r.details.get("offline_score", math.nan) for r in both], dtype=float)
    distance = np.where(np.isnan(offline), -1.0, np.abs(offline - cut))  # unscored: LM first
    order = np.sort(distance)
    points = []
    for f in fractions:
        k = round(f * len(both))
        if k == 0:
            policy: dict[str, Any] = {"route": "offline", "threshold": cut}
        elif k == len(both):
            policy = {"route": "lm", "lm_aggregation": "fraction", "threshold": max(cut, 1e-9)}
        else:
            # the band [cut - width, cut + width] holds k rows (rows without an offline score
            # go to the LM whatever the band; a width above 0 keeps the cut inside the band, so
            # a routed row's verdict decides it: the cascade places it at `low` or `high`)
            width = max(float(order[k - 1]), 1e-9)
            policy = {
                "route": "cascade",
                "low": max(0.0, cut - width),
                "high": min(1.0, cut + width),
                "lm_aggregation": "fraction",  # the LM's verdict (0 or 1) on a routed row
                "threshold": max(cut, 1e-9),  # the offline verdict on the others
            }
        out = figures(gold, rescored(judge, both, **policy), judge)
        points.append(
            {
                "fraction": f,
                "lm_calls_per_row": out["lm_calls_per_row"],
                "balanced_accuracy": out["balanced_accuracy"],
            }
        )
    return points


def calls_to_reach(points: Sequence[dict[str, Any]], target: float) -> float | None:
    """The fewest LM calls per row on the curve with balanced accuracy >= target - 1 point."""
    ok = [p["lm_calls_per_row"] for p in points if p["balanced_accuracy"] >= target - WITHIN]
    return min(ok) if ok else None


def rank_average_auroc(gold: Sequence[int], both: Sequence[JudgeResult]) -> float:
    """AUROC of the mean of the offline and LM scores' ranks (a missing score ranks lowest)."""
    from scipy.stats import rankdata

    s = floored([r.details.get("offline_score") for r in both])
    q = floored([r.details.get("lm_score") for r in both])
    return auroc(gold, (rankdata(s) + rankdata(q)) / 2.0)


def arms(
    compiled: Cascade, both: Sequence[JudgeResult], gold: Sequence[int]
) -> tuple[dict[str, Any], dict[str, dict[str, Any]], dict[str, list[JudgeResult]]]:
    """Offline only, LM only and the compiled cascade on the held-out rows (rescored from
    `both`), with the policies each used."""
    report = compiled.report_ or {}
    policies = {
        "offline_only": best_trial(report, "offline")
        or {"route": "offline", "threshold": compiled.threshold},
        "lm_only": best_trial(report, "lm") or {"route": "lm", "threshold": 0.5},
        # the LM's verdict on every row, no threshold tuned: what the curve's routed rows take
        "lm_verdict": {"route": "lm", "lm_aggregation": "fraction", "threshold": 0.5},
        "compiled": {k: compiled.get_params()[k] for k in Cascade.policy_names},
    }
    results = {name: rescored(compiled, both, **p) for name, p in policies.items()}
    out = {name: figures(gold, rs, compiled) for name, rs in results.items()}
    return out, policies, results


# -- simulated LM ------------------------------------------------------------------------------
def run_simulated(args: argparse.Namespace) -> dict[str, Any]:
    from ragjudge.testing import simulated_lm

    dspy.configure_cache(enable_disk_cache=False, enable_memory_cache=False)
    data: dict[str, Any] = {
        "label": "SIMULATED LM: verdicts agree with the gold label with probability `accuracy`, "
        "independently of the offline judge's errors (ragjudge.testing.simulated_lm)",
        "settings": {k: str(v) for k, v in vars(args).items()},
        "runs": [],
    }
    out_path = args.out or RESULTS / "cascade_simulated.json"
    for source in args.sources:
        rows = [
            r for r in load_gold(args.gold_dir / source / "dev.jsonl") if r.faithful is not None
        ]
        if len(rows) > args.cap:
            rows = random.Random(0).sample(rows, args.cap)
        labels = {r.answer: int(r.faithful or 0) for r in rows}
        for seed in args.seeds:
            train, held = split_gold(rows, valid_fraction=0.3, group_by="meta.group_id", seed=seed)
            gold = [int(r.faithful or 0) for r in held]
            for accuracy in args.accuracies:
                lm, engine = simulated_lm(labels, accuracy=accuracy, seed=seed)
                started = time.perf_counter()
                compiled = compile_judge(
                    Cascade(lm=lm, mode="whole"),
                    gold=train,
                    validation=held,
                    modes=["whole"],
                    n_trials=args.trials,
                    max_demos=0,
                    seed=seed,
                )
                seconds = time.perf_counter() - started
                assert isinstance(compiled, Cascade)
                both = compiled.clone(route="lm").batch(held)
                measured, policies, _ = arms(compiled, both, gold)
                # the shipped judge run for real: its LM calls are the engine's requests
                before = len(engine.requests)
                direct = compiled.batch(held)
                real_calls = (len(engine.requests) - before) / len(held)
                assert abs(real_calls - measured["compiled"]["lm_calls_per_row"]) < 1e-9
                direct_ba = figures(gold, direct, compiled)["balanced_accuracy"]
                assert abs(direct_ba - measured["compiled"]["balanced_accuracy"]) < 1e-9
                cut = float(policies["offline_only"]["threshold"])
                points = curve(compiled, both, gold, cut)
                lm_ba = measured["lm_verdict"]["balanced_accuracy"]
                selection = (compiled.report_ or {}).get("selection") or {}
                run = {
                    "source": source,
                    "seed": seed,
                    "accuracy": accuracy,
                    "train": len(train),
                    "held_out": len(held),
                    "compile_seconds": seconds,
                    **measured,
                    "policies": policies,
                    "shipped": selection.get("chosen"),
                    "reason": selection.get("reason"),
                    "finalists": selection.get("finalists"),
                    "curve": points,
                    "calls_within_1pt_of_lm": calls_to_reach(points, lm_ba),
                    "calls_within_1pt_of_lm_tuned": calls_to_reach(
                        points, measured["lm_only"]["balanced_accuracy"]
                    ),
                    "rank_average_auroc": rank_average_auroc(gold, both),
                }
                data["runs"].append(run)
                print(
                    f"[simulated LM acc {accuracy:.2f}] {source:<18} s{seed} n={len(held):>3} "
                    f"offline {measured['offline_only']['balanced_accuracy']:.3f} "
                    f"LM {measured['lm_only']['balanced_accuracy']:.3f} (verdict {lm_ba:.3f}) "
                    f"cascade {measured['compiled']['balanced_accuracy']:.3f} "
                    f"({policies['compiled']['route']}, "
                    f"{measured['compiled']['lm_calls_per_row']:.2f} calls/row) "
                    f"within-1pt at {run['calls_within_1pt_of_lm']} calls/row  {seconds:.0f}s",
                    flush=True,
                )
                out_path.parent.mkdir(parents=True, exist_ok=True)
                out_path.write_text(json.dumps(data, indent=2, default=str))
    data["summary"] = summarize(data["runs"], args.accuracies)
    out_path.write_text(json.dumps(data, indent=2, default=str))
    table = summary_table(data["summary"])
    out_path.with_suffix(".txt").write_text(table)
    print(table)
    return data


def summarize(runs: Sequence[dict[str, Any]], accuracies: Sequence[float]) -> dict[str, Any]:
    """Per accuracy: per source medians over seeds, and their mean over sources (macro)."""
    summary: dict[str, Any] = {}
    for accuracy in accuracies:
        mine = [r for r in runs if r["accuracy"] == accuracy]
        sources = sorted({r["source"] for r in mine})
        per_source: dict[str, Any] = {}
        for source in sources:
            rs = [r for r in mine if r["source"] == source]

            def med(key: str, sub: str, rs: list[dict[str, Any]] = rs) -> float:
                return float(np.median([r[key][sub] for r in rs]))

            within = [r["calls_within_1pt_of_lm"] for r in rs]
            per_source[source] = {
                "offline_ba": med("offline_only", "balanced_accuracy"),
                "lm_ba": med("lm_only", "balanced_accuracy"),
                "lm_verdict_ba": med("lm_verdict", "balanced_accuracy"),
                "cascade_ba": med("compiled", "balanced_accuracy"),
                "offline_auroc": med("offline_only", "auroc"),
                "lm_auroc": med("lm_only", "auroc"),
                "cascade_auroc": med("compiled", "auroc"),
                "rank_average_auroc": float(np.median([r["rank_average_auroc"] for r in rs])),
                "cascade_calls_per_row": med("compiled", "lm_calls_per_row"),
                "shipped": [r["policies"]["compiled"]["route"] for r in rs],
                "calls_within_1pt_of_lm": float(
                    np.median([1.0 if w is None else w for w in within])
                ),
                "curve": [
                    {
                        "fraction": p["fraction"],
                        "balanced_accuracy": float(
                            np.median([r["curve"][i]["balanced_accuracy"] for r in rs])
                        ),
                    }
                    for i, p in enumerate(rs[0]["curve"])
                ],
            }
        keys = [k for k in next(iter(per_source.values())) if k not in ("shipped", "curve")]
        macro = {k: float(np.mean([v[k] for v in per_source.values()])) for k in keys}
        macro_curve = [
            {
                "fraction": p["fraction"],
                "balanced_accuracy": float(
                    np.mean([v["curve"][i]["balanced_accuracy"] for v in per_source.values()])
                ),
            }
            for i, p in enumerate(next(iter(per_source.values()))["curve"])
        ]
        target = macro["lm_verdict_ba"]
        reach = [p["fraction"] for p in macro_curve if p["balanced_accuracy"] >= target - WITHIN]
        summary[f"{accuracy:g}"] = {
            "per_source": per_source,
            "macro": macro,
            "macro_curve": macro_curve,
            "macro_curve_calls_within_1pt_of_lm": min(reach) if reach else None,
            "macro_curve_best": max(macro_curve, key=lambda p: p["balanced_accuracy"]),
            "shipped_routes": {
                route: sum(1 for r in mine if r["policies"]["compiled"]["route"] == route)
                for route in ("offline", "lm", "cascade", "combined")
            },
        }
    return summary


def summary_table(summary: dict[str, Any]) -> str:
    lines = [
        "SIMULATED LM (verdicts agree with gold with probability `acc`, independent of the "
        "offline judge's errors). Held-out balanced accuracy, medians over split seeds.",
    ]
    for acc, s in summary.items():
        lines += [
            "",
            f"simulated LM accuracy {acc}:",
            f"  {'source':<18} {'offline':>7} {'LM':>6} {'LMvrd':>6} {'cascade':>7} {'calls':>5} "
            f"{'f@1pt':>5} {'rankavgAUC':>10}  shipped",
        ]
        for source, v in s["per_source"].items():
            lines.append(
                f"  {source:<18} {v['offline_ba']:>7.3f} {v['lm_ba']:>6.3f} "
                f"{v['lm_verdict_ba']:>6.3f} "
                f"{v['cascade_ba']:>7.3f} "
                f"{v['cascade_calls_per_row']:>5.2f} {v['calls_within_1pt_of_lm']:>5.2f} "
                f"{v['rank_average_auroc']:>10.3f}  {','.join(v['shipped'])}"
            )
        m = s["macro"]
        lines.append(
            f"  {'macro':<18} {m['offline_ba']:>7.3f} {m['lm_ba']:>6.3f} "
            f"{m['lm_verdict_ba']:>6.3f} {m['cascade_ba']:>7.3f} "
            f"{m['cascade_calls_per_row']:>5.2f} {m['calls_within_1pt_of_lm']:>5.2f} "
            f"{m['rank_average_auroc']:>10.3f}  {s['shipped_routes']}"
        )
        curve_text = "  ".join(
            f"{p['fraction']:.2f}:{p['balanced_accuracy']:.3f}" for p in s["macro_curve"]
        )
        lines.append(f"  macro curve (calls/row: BA): {curve_text}")
        best = s["macro_curve_best"]
        lines.append(
            f"  macro curve within 1 point of the LM's verdict ({m['lm_verdict_ba']:.3f}) from "
            f"{s['macro_curve_calls_within_1pt_of_lm']} calls/row; its best "
            f"{best['balanced_accuracy']:.3f} at {best['fraction']:.2f} calls/row"
        )
    lines.append(
        "\nLM = LM only as compile tunes it (the study's best route='lm' trial: aggregation and "
        "threshold fitted on train); LMvrd = the LM's verdict on every row (the curve's end); "
        "cascade = what compile shipped; calls = its LM calls per row; f@1pt = fewest LM calls "
        "per row on the curve within 1 point of LMvrd (median over seeds, then mean over "
        "sources); rankavgAUC = AUROC of the mean rank of the offline and LM scores"
    )
    return "\n".join(lines) + "\n"


# -- Qwen ----------------------------------------------------------------------------------------
def run_qwen(args: argparse.Namespace) -> dict[str, Any]:
    from _llama_server import llama_server

    from ragjudge.lm._resolve import resolve_lm
    from ragjudge.lm._retry import lm_options

    run = start_run(args, out_path=args.out or RESULTS / "cascade_qwen.json", seed=0)
    tuning, held, alias, data, save = run.tuning, run.held_out, run.alias, run.results, run.save
    save()

    def body(base: str) -> None:
        lm = resolve_lm(f"openai/{alias}", api_base=base, **lm_options(max_retries=1))
        started = time.perf_counter()
        compiled = compile_judge(
            Cascade(lm=lm, mode="whole"),
            gold=list(tuning),
            validation=list(held),
            modes=["whole"],
            max_demos=0,
            n_trials=args.trials,
            seed=0,
            concurrency=1,
        )
        assert isinstance(compiled, Cascade)
        report = compiled.report_ or {}
        data["compile"] = {
            "seconds": time.perf_counter() - started,
            "params": {k: v for k, v in report["params"].items() if k != "lm"},
            "selection": report.get("selection"),
            "lm_calls": report.get("lm_calls"),
            "sizes": report.get("sizes"),
            "validation": report.get("validation"),
            "baseline": report.get("baseline"),
        }
        save()
        started = time.perf_counter()
        both = compiled.clone(route="lm").batch(held, concurrency=1)
        data["held_out_lm"] = {
            "seconds": time.perf_counter() - started,
            "fresh_calls": sum(r.lm_calls for r in both),
            "errors": sum(1 for r in both if r.error),
        }
        save()
        gold = [int(r.faithful or 0) for r in held]
        measured, policies, results = arms(compiled, both, gold)
        data["held_out"] = {}
        for name, rs in results.items():
            data["held_out"][name] = {
                **strict_agreement(gold, [r.score for r in rs], [r.passed for r in rs]),
                "lm_calls_per_row": measured[name]["lm_calls_per_row"],
                "policy": policies[name],
            }
        data["held_out"]["rank_average"] = {"auroc": rank_average_auroc(gold, both)}
        data["held_out"]["gain_vs_offline"] = {
            name: paired_gain(
                gold,
                [r.passed for r in results[name]],
                [r.passed for r in results["offline_only"]],
            )
            for name in ("lm_only", "lm_verdict", "compiled")
        }
        cut = float(policies["offline_only"]["threshold"])
        points = curve(compiled, both, gold, cut)
        data["held_out"]["curve"] = points
        data["held_out"]["calls_within_1pt_of_lm_verdict"] = calls_to_reach(
            points, measured["lm_verdict"]["balanced_accuracy"]
        )
        data["held_out"]["calls_within_1pt_of_lm_tuned"] = calls_to_reach(
            points, measured["lm_only"]["balanced_accuracy"]
        )
        verdicts = rescored(compiled, both, route="lm", lm_aggregation="fraction")
        confidences = rescored(compiled, both, route="lm", lm_aggregation="mean")
        data["held_out_rows"] = [
            {
                "id": row.id,
                "source": row.source,
                "gold": y,
                "offline_score": r.details.get("offline_score"),
                "lm_verdict": v.details.get("lm_score"),
                "lm_confidence": c.details.get("lm_score"),
                "lm_error": r.error,
            }
            for row, y, r, v, c in zip(held, gold, both, verdicts, confidences, strict=True)
        ]
        save()
        print(qwen_table(data))

    # a SIGTERM (timeout, kill) unwinds like Ctrl-C: the server stops and results are saved
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        if args.api_base:
            body(args.api_base)
        else:
            log = args.work / f"server_{alias}.log"
            args.work.mkdir(parents=True, exist_ok=True)
            with llama_server(args.model, log=log, threads=args.threads) as base:
                body(base)
    finally:
        save()
    return data


def qwen_table(data: dict[str, Any]) -> str:
    h = data["held_out"]
    lines = [f"{data['model']} whole mode, {data['rows']['held_out']} held-out rows:"]
    for name in ("offline_only", "lm_only", "lm_verdict", "compiled"):
        v = h[name]
        ci_ba, ci_auc = v["ci"]["balanced_accuracy"], v["ci"]["auroc"]
        lines.append(
            f"  {name:<13} BA {v['balanced_accuracy']:.3f} [{ci_ba[0]:.3f}, {ci_ba[1]:.3f}]  "
            f"AUROC {v['auroc']:.3f} [{ci_auc[0]:.3f}, {ci_auc[1]:.3f}]  "
            f"LM calls/row {v['lm_calls_per_row']:.2f}  policy {v['policy']}"
        )
    lines.append(f"  rank average of offline and LM scores: AUROC {h['rank_average']['auroc']:.3f}")
    sel = data["compile"]["selection"] or {}
    lines.append(f"  shipped: {sel.get('chosen')}: {sel.get('reason')}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--simulated", action="store_true")
    parser.add_argument("--qwen", action="store_true")
    parser.add_argument("--gold-dir", type=Path, default=REPO.parent / "shared" / "gold")
    parser.add_argument("--sources", nargs="*", default=list(SOURCES))
    parser.add_argument("--trials", type=int, default=60)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument(
        "--summarize", action="store_true", help="recompute the simulated summary from its JSON"
    )
    sim = parser.add_argument_group("--simulated")
    sim.add_argument("--accuracies", type=float, nargs="+", default=[0.8, 0.9])
    sim.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    sim.add_argument("--cap", type=int, default=400, help="rows per source (sampled, seed 0)")
    qwen = parser.add_argument_group("--qwen")
    qwen.add_argument("--model", default="qwen2.5-coder-1.5b")
    qwen.add_argument("--api-base", default=None, help="a server already serving --model")
    qwen.add_argument("--threads", type=int, default=2, help="llama.cpp threads (server)")
    qwen.add_argument("--rows-per-source", type=int, default=20, help="held-out rows")
    qwen.add_argument("--tune-per-source", type=int, default=10, help="compile's rows")
    qwen.add_argument("--max-chars", type=int, default=2500)
    qwen.add_argument("--cache-dir", type=Path, default=Path.home() / ".cache/ragjudge/bench")
    qwen.add_argument("--work", type=Path, default=Path("/tmp/ragjudge-bench-cascade"))
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    logging.getLogger().setLevel(logging.WARNING)
    # dspy's deepcopy of a judge holding a dspy.LM warns once per clone; nothing to act on
    logging.getLogger().addFilter(lambda r: "Failed to deep copy" not in r.getMessage())
    logger.setLevel(logging.INFO)
    if args.summarize:
        path = args.out or RESULTS / "cascade_simulated.json"
        data = json.loads(path.read_text())
        for run in data["runs"]:  # runs saved before the LM's verdict was measured apart
            if "lm_verdict" not in run:
                end = run["curve"][-1]["balanced_accuracy"]  # f = 1: the LM's verdict on all
                run["lm_verdict"] = {
                    "balanced_accuracy": end,
                    "auroc": end,
                    "lm_calls_per_row": 1.0,
                }
                run["calls_within_1pt_of_lm_tuned"] = run["calls_within_1pt_of_lm"]
                run["calls_within_1pt_of_lm"] = calls_to_reach(run["curve"], end)
        accuracies = sorted({r["accuracy"] for r in data["runs"]})
        data["summary"] = summarize(data["runs"], accuracies)
        path.write_text(json.dumps(data, indent=2, default=str))
        table = summary_table(data["summary"])
        path.with_suffix(".txt").write_text(table)
        print(table)
        return
    if not (args.simulated or args.qwen):
        parser.error("pass --simulated and/or --qwen")
    if args.simulated:
        run_simulated(args)
    if args.qwen:
        run_qwen(args)


if __name__ == "__main__":
    main()
