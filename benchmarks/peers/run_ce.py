"""Run continuous-eval's DeterministicFaithfulness over rows (executed inside .venv-peers).

Reads a JSONL of `{"answer", "contexts"}` rows, scores them `--repeats` times in one process,
and writes `{"times": [...], "peak_rss_mb": ..., "import_rss_mb": ..., "results": [...]}`;
a row that raises is recorded as `{"error": "<ExceptionName>: ..."}`.
Run by benchmarks/bench_deterministic.py; not part of the ragjudge package.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
import warnings

os.environ.setdefault("CONTINUOUS_EVAL_DO_NOT_TRACK", "true")


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    with open(args.rows, encoding="utf-8") as f:
        rows = [json.loads(line) for line in f]
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 1000))
    warnings.filterwarnings("ignore")
    import contextlib
    import io

    with contextlib.redirect_stderr(io.StringIO()):  # nltk.download noise at import
        from continuous_eval.metrics.generation.text import DeterministicFaithfulness

    metric = DeterministicFaithfulness()
    import_rss = _rss_mb()
    times: list[float] = []
    results: list[dict] = []
    for rep in range(args.repeats):
        out: list[dict] = []
        t0 = time.perf_counter()
        for r in rows:
            try:
                out.append(metric(answer=r["answer"], retrieved_context=r["contexts"]))
            except Exception as exc:  # the reference crashes on some inputs
                out.append({"error": f"{type(exc).__name__}: {str(exc)[:200]}"})
        times.append(time.perf_counter() - t0)
        if rep == 0:
            results = out
    with open(args.out, "w", encoding="utf-8") as f:
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
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
