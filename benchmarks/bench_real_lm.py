"""A real local LM as the judge: parsing, cost, compiled vs uncompiled agreement on held-out gold.

    python benchmarks/bench_real_lm.py --model smollm2 --modes whole statement
    python benchmarks/bench_real_lm.py --model qwen2.5-coder-1.5b --modes whole \\
        --compile-modes whole --max-lm-calls 60 --out benchmarks/results/real_lm_qwen.json
    python benchmarks/bench_real_lm.py --model smollm2 --peers ragas deepeval --peer-rows 2

The model is served by llama-cpp-python's OpenAI-compatible server on 127.0.0.1 (started here,
or `--api-base` of one already running) and reached with `--lm openai/<model>`, as a user would.

Rows: per gold source, `split_gold` (grouped by `meta.group_id`, stratified, seeded) splits the
dev rows; `--rows-per-source` label-balanced rows of its validation side are the held-out rows,
`--tune-per-source` rows of its train side are what compile fits on (demos and tuning). Rows
longer than `--max-chars` (question + context + answer) are left out on both sides: CPU time,
and the 4,096-token context of the server.

For each mode of `--modes`, the uncompiled judge on the held-out rows: first-try rate (rows
whose every predictor call parsed on the first try: 1 call in whole mode, 2 in statement mode),
errors, calls and tokens per row, seconds per call, the server's prefix-cache share (prompt
tokens it reused, read from its log), balanced accuracy and ROC AUC with 95% bootstrap
intervals, and the AUROC of the stated confidence (and of a logprob confidence where results
carry one). Then `compile_judge` with `--max-lm-calls` on the tuning rows, validated on the same
held-out rows: compiled vs uncompiled vs the offline judge, the ablation, and the balanced
accuracy gain per source and pooled with a paired bootstrap interval. With `--peers`, ragas'
and deepeval's faithfulness metrics (pinned in benchmarks/peers/requirements-llm.txt, run in
their own venv, `bash benchmarks/peers/setup_llm.sh`) on `--peer-rows` held-out rows per source
(after the first `--peer-skip`), against the same server through a counting proxy: errors /
NaN and calls per row.

Every LM response is cached (`--cache-dir`), so a re-run is free; a re-run's calls and seconds
are then those of the cache, and the JSON keeps the first run's figures only if you keep it.
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import os
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import numpy as np
from _common import REPO, SOURCES
from _llama_server import SHORT_NAMES, llama_server

from ragjudge.data._gold import GoldRecord, load_gold
from ragjudge.lm._cache import configure_cache
from ragjudge.lm._resolve import resolve_lm
from ragjudge.lm._retry import lm_options
from ragjudge.optimize import compile_judge, split_gold
from ragjudge.programs import Faithfulness
from ragjudge.programs._results import JudgeResult
from ragjudge.stats._agreement import agreement, auroc, balanced_accuracy

logger = logging.getLogger("bench_real_lm")

UNSCORED = -1.0


# -- rows ----------------------------------------------------------------------------------
def _balanced(rows: Sequence[GoldRecord], n: int) -> list[GoldRecord]:
    """The first n rows in file order, half of each label where the rows allow."""
    pos = [r for r in rows if r.faithful == 1]
    neg = [r for r in rows if r.faithful == 0]
    n_neg = min(len(neg), n // 2)
    n_pos = min(len(pos), n - n_neg)
    n_neg = min(len(neg), n - n_pos)
    chosen = {r.id for r in pos[:n_pos] + neg[:n_neg]}
    return [r for r in rows if r.id in chosen]


def select_rows(
    gold_dir: Path, sources: Sequence[str], *, held: int, tune: int, max_chars: int, seed: int
) -> tuple[list[GoldRecord], list[GoldRecord]]:
    """(tuning rows, held-out rows): per source, from the two sides of `split_gold`."""
    tuning, held_out = [], []
    for source in sources:
        rows = [r for r in load_gold(gold_dir / source / "dev.jsonl") if r.faithful is not None]
        train, valid = split_gold(rows, valid_fraction=0.3, group_by="meta.group_id", seed=seed)

        def short(side: list[GoldRecord]) -> list[GoldRecord]:
            return [
                r for r in side if len(r.question) + len(r.context) + len(r.answer) <= max_chars
            ]

        held_out += _balanced(short(valid), held)
        tuning += _balanced(short(train), tune)
    return tuning, held_out


@dataclass
class Run:
    """A real-model run: its rows, the served model's alias, the results and where they go."""

    tuning: list[GoldRecord]
    held_out: list[GoldRecord]
    alias: str
    results: dict[str, Any]
    out_path: Path

    def save(self) -> None:
        """Write the results so far (a run that stops keeps what it measured)."""
        self.out_path.parent.mkdir(parents=True, exist_ok=True)
        self.out_path.write_text(json.dumps(self.results, indent=2, default=str))


def start_run(args: argparse.Namespace, *, out_path: Path, seed: int) -> Run:
    """The rows of `select_rows` for `args`, the response cache at `--cache-dir`, and the
    results opened with the model, the settings and the row counts."""
    tuning, held_out = select_rows(
        args.gold_dir,
        args.sources,
        held=args.rows_per_source,
        tune=args.tune_per_source,
        max_chars=args.max_chars,
        seed=seed,
    )
    logger.info("%d tuning rows, %d held-out rows", len(tuning), len(held_out))
    configure_cache(cache_dir=args.cache_dir)
    alias = Path(args.model).stem if args.model not in SHORT_NAMES else args.model
    results: dict[str, Any] = {
        "model": args.model,
        "settings": {k: str(v) for k, v in vars(args).items()},
        "rows": {"tuning": len(tuning), "held_out": len(held_out)},
    }
    return Run(tuning, held_out, alias, results, out_path)


# -- statistics ----------------------------------------------------------------------------
def _floored(scores: Sequence[float | None]) -> np.ndarray:
    return np.array([UNSCORED if s is None or math.isnan(s) else s for s in scores])


def strict_agreement(
    gold: Sequence[int], scores: Sequence[float | None], passed: Sequence[bool | None]
) -> dict[str, Any]:
    """Balanced accuracy and AUROC over every row (an error or unscored row fails and ranks
    lowest), with 95% bootstrap intervals."""
    a = agreement(list(gold), [bool(p) for p in passed], _floored(scores).tolist(), n_boot=1000)
    return {
        "n": len(gold),
        "balanced_accuracy": a.balanced_accuracy,
        "auroc": a.auroc,
        "ci": {k: a.ci.get(k) for k in ("balanced_accuracy", "auroc")},
    }


def paired_gain(
    gold: Sequence[int],
    new: Sequence[bool | None],
    old: Sequence[bool | None],
    *,
    n_boot: int = 2000,
    seed: int = 0,
) -> dict[str, Any]:
    """Balanced-accuracy gain of `new` over `old` on the same rows, with a paired bootstrap
    95% interval (rows resampled together)."""
    y = np.asarray(gold, dtype=int)
    a = np.array([bool(p) for p in new])
    b = np.array([bool(p) for p in old])
    gain = balanced_accuracy(y, a) - balanced_accuracy(y, b)
    rng = np.random.default_rng(seed)
    boots = []
    for _ in range(n_boot):
        i = rng.integers(0, len(y), len(y))
        if len(set(y[i].tolist())) < 2:
            continue
        boots.append(balanced_accuracy(y[i], a[i]) - balanced_accuracy(y[i], b[i]))
    low, high = (np.percentile(boots, [2.5, 97.5]).tolist()) if boots else (None, None)
    return {"n": len(y), "gain": float(gain), "ci": [low, high]}


# -- the server's prefix cache ---------------------------------------------------------------
_PREFIX = re.compile(r"Llama\.generate: (\d+) prefix-match hit, remaining (\d+) prompt tokens")


class ServerLog:
    """Prompt tokens the llama.cpp server reused from its prefix cache, read from its log."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.offset = path.stat().st_size if path and path.exists() else 0

    def share_since_mark(self) -> dict[str, Any]:
        """Reused / total prompt tokens of the requests logged since the last call."""
        if self.path is None or not self.path.exists():
            return {"share": None, "reused": None, "evaluated": None}
        with self.path.open("rb") as f:
            f.seek(self.offset)
            text = f.read().decode("utf-8", "replace")
            self.offset = f.tell()
        hits = [(int(a), int(b)) for a, b in _PREFIX.findall(text)]
        reused, evaluated = sum(h for h, _ in hits), sum(r for _, r in hits)
        total = reused + evaluated
        return {
            "share": reused / total if total else None,
            "reused": reused,
            "evaluated": evaluated,
            "requests": len(hits),
        }


# -- our judge -----------------------------------------------------------------------------
def _confidence_auroc(gold: Sequence[int], results: Sequence[JudgeResult]) -> dict[str, Any]:
    """AUROC of the judge's confidence, by where the confidence came from."""
    by_source: dict[str, tuple[list[int], list[float]]] = {}
    for y, r in zip(gold, results, strict=True):
        if r.error or r.confidence is None or math.isnan(r.confidence):
            continue
        origin = r.confidence_source or "stated"
        ys, cs = by_source.setdefault(origin, ([], []))
        ys.append(y)
        cs.append(float(r.confidence))
        stated = r.details.get("stated_confidence")
        if origin != "stated" and isinstance(stated, (int, float)):
            ys2, cs2 = by_source.setdefault("stated", ([], []))
            ys2.append(y)
            cs2.append(float(stated))
    return {
        k: {"n": len(ys), "auroc": auroc(ys, cs) if len(set(ys)) > 1 else None}
        for k, (ys, cs) in by_source.items()
    }


def run_uncompiled(
    lm: Any, rows: Sequence[GoldRecord], mode: str, server: ServerLog
) -> tuple[dict[str, Any], list[JudgeResult]]:
    """The uncompiled judge in one mode on the held-out rows, one row at a time."""
    judge = Faithfulness(lm=lm, mode=mode)
    server.share_since_mark()
    started = time.perf_counter()
    results = judge.batch(rows, concurrency=1)
    seconds = time.perf_counter() - started
    gold = [int(r.faithful or 0) for r in rows]
    calls = [r.lm_calls for r in results]
    errors = [r.error for r in results if r.error]
    stats: dict[str, int] = {}
    for r in results:
        for key, value in (r.lm_stats or {}).items():
            stats[key] = stats.get(key, 0) + int(value)
    predictor_calls = stats.get("predictor_calls", 0)
    fresh = sum(1 for c in calls if c)
    out = {
        "mode": mode,
        "rows": len(rows),
        "rows_with_calls": fresh,
        "first_try_rate": stats.get("first_try", 0) / predictor_calls if predictor_calls else None,
        "lm_calls_per_predictor_call": sum(calls) / predictor_calls if predictor_calls else None,
        "parse_stats": stats,
        "errors": len(errors),
        "error_kinds": sorted({e.split(":")[0] for e in errors}),
        "calls_per_row": sum(calls) / fresh if fresh else 0.0,
        "tokens_per_row": sum(r.tokens for r in results) / fresh if fresh else 0.0,
        "seconds_per_call": seconds / sum(calls) if sum(calls) else None,
        "seconds": seconds,
        "prefix_cache": {
            "server_log": server.share_since_mark(),
            "reported": stats.get("cached_tokens", 0) / stats["prompt_tokens"]
            if stats.get("prompt_tokens")
            else None,
        },
        "agreement": strict_agreement(
            gold, [r.score for r in results], [r.passed for r in results]
        ),
        "confidence_auroc": _confidence_auroc(gold, results),
    }
    logger.info("uncompiled %s: %s", mode, json.dumps(out, default=str)[:400])
    return out, results


def run_compile(
    lm: Any,
    tuning: Sequence[GoldRecord],
    held_out: Sequence[GoldRecord],
    args: argparse.Namespace,
    server: ServerLog,
) -> dict[str, Any]:
    """Compile on the tuning rows with the budget; everything measured on the held-out rows."""
    server.share_since_mark()
    started = time.perf_counter()
    start = Faithfulness(lm=lm, mode=args.compile_modes[0])
    compiled = compile_judge(
        start,
        gold=list(tuning),
        validation=list(held_out),
        modes=args.compile_modes,
        max_lm_calls=args.max_lm_calls,
        n_trials=args.trials,
        max_demos=args.max_demos,
        demo_candidates=args.demo_candidates,
        seed=args.seed,
        concurrency=1,
    )
    report = compiled.report_ or {}
    preds = report["predictions"]
    gains: dict[str, Any] = {}
    for source in [*sorted({p["source"] for p in preds}), "pooled"]:
        sel = [p for p in preds if source == "pooled" or p["source"] == source]
        gains[source] = paired_gain(
            [p["gold"] for p in sel],
            [p["passed"] for p in sel],
            [p["baseline_passed"] for p in sel],
            seed=args.seed,
        )
    strict = {
        "compiled": strict_agreement(
            [p["gold"] for p in preds], [p["score"] for p in preds], [p["passed"] for p in preds]
        ),
        "uncompiled": strict_agreement(
            [p["gold"] for p in preds],
            [p["baseline_score"] for p in preds],
            [p["baseline_passed"] for p in preds],
        ),
    }
    return {
        "seconds": time.perf_counter() - started,
        "params": {k: v for k, v in report["params"].items() if k != "lm"},
        "baseline_params": {k: v for k, v in report["baseline_params"].items() if k != "lm"},
        "lm_calls": report["lm_calls"],
        "sizes": report["sizes"],
        "validation": report["validation"],
        "baseline": report["baseline"],
        "offline": report.get("offline"),
        "ablation": report.get("ablation"),
        "strict": strict,
        "ba_gain": gains,
        "prefix_cache": server.share_since_mark(),
        "study_trials": report["study"]["n_trials"],
    }


# -- peers ---------------------------------------------------------------------------------
class _Counter:
    def __init__(self) -> None:
        self.count = 0
        self.lock = threading.Lock()


def counting_proxy(upstream: str) -> tuple[ThreadingHTTPServer, str, _Counter]:
    """A proxy on 127.0.0.1 that forwards POSTs to `upstream` and counts them."""
    counter = _Counter()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            return

        def do_GET(self) -> None:
            if self.path.endswith("/__count"):
                body = json.dumps({"count": counter.count}).encode()
            else:
                with urllib.request.urlopen(upstream + self.path[len("/v1") :]) as r:
                    body = r.read()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self) -> None:
            with counter.lock:
                counter.count += 1
            data = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            request = urllib.request.Request(
                upstream + self.path[len("/v1") :],
                data=data,
                headers={"Content-Type": "application/json"},
            )
            try:
                with urllib.request.urlopen(request, timeout=600) as r:
                    status, body = r.status, r.read()
            except urllib.error.HTTPError as e:
                status, body = e.code, e.read()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/v1", counter


def run_peers(
    peers: Sequence[str],
    rows: Sequence[GoldRecord],
    base: str,
    model: str,
    args: argparse.Namespace,
) -> dict[str, Any]:
    """ragas' and deepeval's faithfulness in their venv, against the same server."""
    python = REPO / ".venv-peers-llm" / "bin" / "python"
    if not python.exists():
        return {p: {"skipped": "run `bash benchmarks/peers/setup_llm.sh` first"} for p in peers}
    proxy, proxy_base, _ = counting_proxy(base)
    rows_file = args.work / "peer_rows.jsonl"
    with rows_file.open("w") as f:
        for r in rows:
            payload = {"id": r.id, "source": r.source, "faithful": r.faithful}
            payload.update(question=r.question, answer=r.answer, contexts=r.contexts)
            f.write(json.dumps(payload) + "\n")
    out: dict[str, Any] = {}
    try:
        for peer in peers:
            result_file = args.work / f"peer_{peer}.json"
            cmd = [str(python), str(REPO / "benchmarks/peers/run_llm_peer.py")]
            cmd += ["--peer", peer, "--rows", str(rows_file), "--out", str(result_file)]
            cmd += ["--api-base", proxy_base, "--model", model, "--timeout", "120"]
            started = time.perf_counter()
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=args.peer_timeout)
            if done.returncode != 0 or not result_file.exists():
                out[peer] = {"failed": done.stderr.strip().splitlines()[-3:]}
                continue
            data = json.loads(result_file.read_text())
            results = data["results"]
            gold = [int(r["faithful"]) for r in results]
            scores = [r.get("score") for r in results]
            nan = [s is None or (isinstance(s, float) and math.isnan(s)) for s in scores]
            out[peer] = {
                "version": data.get("version"),
                "rows": len(results),
                "errors": sum(1 for r in results if r.get("error")),
                "nan_or_error_rate": sum(nan) / len(results) if results else None,
                "calls_per_row": sum(r["calls"] for r in results) / len(results),
                "seconds": time.perf_counter() - started,
                "error_kinds": sorted(
                    {r["error"].split(":")[0] for r in results if r.get("error")}
                ),
                "agreement": strict_agreement(
                    gold,
                    scores,
                    [None if n else s >= 0.5 for s, n in zip(scores, nan, strict=True)],
                ),
            }
    finally:
        proxy.shutdown()
    return out


# -- main ----------------------------------------------------------------------------------
def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--model", default="smollm2", help=f"{', '.join(SHORT_NAMES)} or a GGUF")
    parser.add_argument("--api-base", default=None, help="a server already serving --model")
    parser.add_argument("--server-log", type=Path, default=None, help="its log (prefix cache)")
    parser.add_argument("--threads", type=int, default=1, help="llama.cpp threads (server)")
    parser.add_argument(
        "--state-cache",
        action="store_true",
        help="the server caches model states in RAM (prefix reuse across signatures)",
    )
    parser.add_argument(
        "--stock-server",
        action="store_true",
        help="llama-cpp-python's server as shipped (default: _patched_llama_server.py)",
    )
    parser.add_argument(
        "--gold-dir",
        type=Path,
        default=Path(os.environ.get("RAGJUDGE_GOLD", REPO.parent / "shared" / "gold")),
    )
    parser.add_argument("--sources", nargs="*", default=list(SOURCES))
    parser.add_argument("--rows-per-source", type=int, default=20, help="held-out rows")
    parser.add_argument("--tune-per-source", type=int, default=6, help="compile's rows")
    parser.add_argument("--max-chars", type=int, default=4000)
    parser.add_argument("--modes", nargs="*", default=["whole", "statement"])
    parser.add_argument("--compile-modes", nargs="*", default=["whole", "statement"])
    parser.add_argument("--no-compile", action="store_true")
    parser.add_argument("--max-lm-calls", type=int, default=60)
    parser.add_argument("--max-demos", type=int, default=4)
    parser.add_argument("--demo-candidates", type=int, default=2)
    parser.add_argument("--trials", type=int, default=30)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cache-dir", type=Path, default=Path.home() / ".cache/ragjudge/bench")
    parser.add_argument("--peers", nargs="*", default=[], choices=["ragas", "deepeval"])
    parser.add_argument("--peer-rows", type=int, default=2, help="held-out rows per source")
    parser.add_argument(
        "--peer-skip", type=int, default=0, help="skip this many held-out rows per source first"
    )
    parser.add_argument("--peer-timeout", type=float, default=3600.0)
    parser.add_argument("--out", type=Path, default=None, help="JSON results")
    parser.add_argument("--work", type=Path, default=Path("/tmp/ragjudge-bench-real-lm"))
    args = parser.parse_args()
    # a SIGTERM (timeout, kill) unwinds like Ctrl-C, so the server is stopped and results saved
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    args.work.mkdir(parents=True, exist_ok=True)
    out_path = args.out or args.work / f"real_lm_{Path(args.model).stem}.json"
    run = start_run(args, out_path=out_path, seed=args.seed)
    tuning, held_out, alias, results, save = (
        run.tuning,
        run.held_out,
        run.alias,
        run.results,
        run.save,
    )
    log_path = args.server_log or args.work / f"server_{alias}.log"

    def body(base: str) -> None:
        # The judges bound every call (max_tokens sized per signature, a timeout); one retry,
        # so a timed-out call costs at most two timeouts.
        lm = resolve_lm(f"openai/{alias}", api_base=base, **lm_options(max_retries=1))
        server = ServerLog(log_path if log_path.exists() else None)
        results["uncompiled"] = {}
        for mode in args.modes:
            results["uncompiled"][mode], _ = run_uncompiled(lm, held_out, mode, server)
            save()
        if not args.no_compile:
            results["compile"] = run_compile(lm, tuning, held_out, args, server)
            save()
        if args.peers:
            peer_rows = [
                r
                for s in args.sources
                for r in [h for h in held_out if h.source == s][
                    args.peer_skip : args.peer_skip + args.peer_rows
                ]
            ]
            results["peers"] = run_peers(args.peers, peer_rows, base, alias, args)
            save()

    if args.api_base:
        body(args.api_base)
    else:
        with llama_server(
            args.model,
            log=log_path,
            threads=args.threads,
            state_cache=args.state_cache,
            patched=not args.stock_server,
        ) as base:
            body(base)
    save()
    sys.stdout.write(json.dumps(results, indent=2, default=str)[:4000] + "\n")
    sys.stdout.write(f"results: {out_path}\n")


if __name__ == "__main__":
    main()
