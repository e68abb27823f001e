"""Rows lost to a model that never stops: errors per 100 rows and requests per row, real model.

    PYTHONPATH=. python benchmarks/bench_cut_replies.py --model smollm2 --rows 24 --demos 4 \\
        --modes whole --state-cache --out benchmarks/results/cut_replies_smollm2_after.json

The judge is what compile ships for a small model: `Faithfulness` in each of `--modes`, with
`--demos` few-shot demos drawn from gold train rows (`demo_pool` / `demo_sets`, as compile
draws them), judging `--rows` held-out halueval dev rows (the validation side of `split_gold`,
label-balanced, at most `--max-chars`). The model is served by llama-cpp-python's server on
127.0.0.1 (`_llama_server.py`) and reached as `--lm openai/<model>` is, through a proxy that
counts every request and reads each reply's `finish_reason` and completion tokens: requests
that ran to max_tokens, their max_tokens, and the reply lengths.

Run it with the code to measure first on the path (`PYTHONPATH=/path/to/checkout`): the same
script measures the code before and after a change. Each run gets its own response cache
(`--cache-dir`, default a fresh temporary folder), so no reply is reused between runs.
"""

from __future__ import annotations

import argparse
import inspect
import json
import logging
import statistics
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from _common import REPO
from _llama_server import llama_server

import ragjudge
from ragjudge.data._gold import GoldRecord, load_gold
from ragjudge.lm._cache import configure_cache
from ragjudge.lm._resolve import resolve_lm
from ragjudge.lm._retry import lm_options
from ragjudge.optimize import split_gold
from ragjudge.optimize._demos import demo_pool, demo_sets

logger = logging.getLogger("bench_cut_replies")


class Recorder:
    """What the proxy saw: one record per request."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.records: list[dict[str, Any]] = []

    def mark(self) -> int:
        with self.lock:
            return len(self.records)

    def since(self, mark: int) -> list[dict[str, Any]]:
        with self.lock:
            return list(self.records[mark:])


def proxy(upstream: str, recorder: Recorder) -> tuple[ThreadingHTTPServer, str]:
    """A proxy on 127.0.0.1 that forwards to `upstream` and records each completion."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            return

        def do_GET(self) -> None:
            with urllib.request.urlopen(upstream + self.path[len("/v1") :]) as r:
                body = r.read()
            self._send(200, body)

        def do_POST(self) -> None:
            data = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            sent = json.loads(data or b"{}")
            request = urllib.request.Request(
                upstream + self.path[len("/v1") :],
                data=data,
                headers={"Content-Type": "application/json"},
            )
            started = time.perf_counter()
            try:
                with urllib.request.urlopen(request, timeout=900) as r:
                    status, body = r.status, r.read()
            except urllib.error.HTTPError as e:
                status, body = e.code, e.read()
            record: dict[str, Any] = {
                "status": status,
                "max_tokens": sent.get("max_tokens"),
                "schema": bool(sent.get("response_format")),
                "seconds": round(time.perf_counter() - started, 2),
            }
            try:
                reply = json.loads(body)
                record["finish_reason"] = reply["choices"][0].get("finish_reason")
                record["completion_tokens"] = (reply.get("usage") or {}).get("completion_tokens")
            except (ValueError, KeyError, IndexError, TypeError):
                pass
            with recorder.lock:
                recorder.records.append(record)
            self._send(status, body)

        def _send(self, status: int, body: bytes) -> None:
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):  # the client gave up (its timeout)
                pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/v1"


def rows_and_demos(args: argparse.Namespace) -> tuple[list[GoldRecord], list[Any]]:
    """Held-out rows (validation side, label-balanced) and demos from the train side."""
    rows = [
        r for r in load_gold(args.gold_dir / "halueval" / "dev.jsonl") if r.faithful is not None
    ]
    train, valid = split_gold(rows, valid_fraction=0.3, group_by="meta.group_id", seed=args.seed)
    short = [r for r in valid if len(r.question) + len(r.context) + len(r.answer) <= args.max_chars]
    pos = [r for r in short if r.faithful == 1][: args.rows // 2]
    neg = [r for r in short if r.faithful == 0][: args.rows - len(pos)]
    chosen = {r.id for r in pos + neg}
    held = [r for r in short if r.id in chosen]
    if "annotate" in inspect.signature(demo_pool).parameters:  # demos through the judge's spec
        spec: Any = ragjudge.Faithfulness().compile_spec()
        pool = demo_pool(train, annotate=spec.demo)
    else:  # the code before that
        pool = demo_pool(train)
    sets = demo_sets(pool, sizes=[args.demos], per_size=1, seed=args.seed)
    return held, sets[0] if sets else []


def run_mode(
    lm: Any,
    mode: str,
    rows: list[GoldRecord],
    demos: list[Any],
    recorder: Recorder,
    *,
    timeout: float,
    max_tokens: int | None,
) -> dict[str, Any]:
    """The judge in one mode, with the demos, on the rows: errors, requests, reply lengths."""
    judge = ragjudge.Faithfulness(lm=lm, mode=mode, timeout=timeout, max_tokens=max_tokens)
    for _, predictor in judge.named_predictors():
        fields = set(predictor.signature.fields)
        if demos and all(all(f in d for f in fields) for d in demos):
            predictor.demos = list(demos)
    mark = recorder.mark()
    started = time.perf_counter()
    results = judge.batch(rows, concurrency=1)
    seconds = time.perf_counter() - started
    seen = recorder.since(mark)
    errors = [r.error for r in results if r.error]
    stats: dict[str, int] = {}
    for r in results:
        for key, value in (r.lm_stats or {}).items():
            stats[key] = stats.get(key, 0) + int(value)
    lengths = [s["completion_tokens"] for s in seen if s.get("completion_tokens") is not None]
    cut = [s for s in seen if s.get("finish_reason") == "length"]
    out = {
        "mode": mode,
        "rows": len(rows),
        "errors": len(errors),
        "errors_per_100_rows": 100 * len(errors) / max(1, len(rows)),
        "requests": len(seen),
        "requests_per_row": len(seen) / max(1, len(rows)),
        "requests_cut_at_max_tokens": len(cut),
        "max_tokens_of_cut_requests": sorted({s.get("max_tokens") for s in cut}, key=str),
        "max_tokens_asked": {
            "median": statistics.median([s["max_tokens"] for s in seen if s.get("max_tokens")])
            if seen
            else None,
            "max": max((s["max_tokens"] for s in seen if s.get("max_tokens")), default=None),
        },
        "reply_tokens": {
            "median": statistics.median(lengths) if lengths else None,
            "p90": sorted(lengths)[int(0.9 * (len(lengths) - 1))] if lengths else None,
            "max": max(lengths, default=None),
        },
        "lm_calls_counted": sum(r.lm_calls for r in results),
        "parse_stats": stats,
        "error_texts": sorted({(e or "")[:240] for e in errors}),
        "seconds": round(seconds, 1),
    }
    logger.info("%s: %s", mode, json.dumps({k: out[k] for k in list(out)[:8]}))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--model", default="smollm2")
    parser.add_argument("--gold-dir", type=Path, default=REPO.parent / "shared" / "gold")
    parser.add_argument("--rows", type=int, default=32)
    parser.add_argument("--demos", type=int, default=4)
    parser.add_argument("--modes", nargs="*", default=["whole", "statement"])
    parser.add_argument("--max-chars", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument(
        "--state-cache", action="store_true", help="the server keeps model states (prefix reuse)"
    )
    parser.add_argument("--cache-dir", type=Path, default=None)
    parser.add_argument(
        "--max-tokens",
        type=int,
        default=None,
        help="the judge's max_tokens (default: sized per call); below a typical reply, it "
        "makes a model's replies run to the bound, as one that does not stop would",
    )
    parser.add_argument(
        "--timeout", type=float, default=900.0, help="seconds a call may take (a loaded machine)"
    )
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    cache = args.cache_dir or Path(tempfile.mkdtemp(prefix="ragjudge-cut-"))
    configure_cache(cache_dir=cache)
    rows, demos = rows_and_demos(args)
    results: dict[str, Any] = {
        "model": args.model,
        "code": str(Path(ragjudge.__file__).resolve().parents[1]),
        "settings": {k: str(v) for k, v in vars(args).items()},
        "rows": len(rows),
        "demos": len(demos),
        "modes": {},
    }
    recorder = Recorder()
    with llama_server(args.model, threads=args.threads, state_cache=args.state_cache) as base:
        server, proxied = proxy(base, recorder)
        try:
            lm = resolve_lm(f"openai/{args.model}", api_base=proxied, **lm_options(max_retries=1))
            for mode in args.modes:
                results["modes"][mode] = run_mode(
                    lm,
                    mode,
                    rows,
                    demos,
                    recorder,
                    timeout=args.timeout,
                    max_tokens=args.max_tokens,
                )
                args.out.parent.mkdir(parents=True, exist_ok=True)
                args.out.write_text(json.dumps(results, indent=2, default=str))
        finally:
            server.shutdown()
    sys.stdout.write(json.dumps(results, indent=2, default=str)[:3000] + "\n")


if __name__ == "__main__":
    main()
