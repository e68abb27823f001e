"""Run ragas' or deepeval's faithfulness metric over rows (executed inside .venv-peers-llm).

Reads a JSONL of `{"id", "source", "faithful", "question", "answer", "contexts"}` rows, scores
them one at a time against an OpenAI-compatible server, and writes
`{"version": ..., "results": [{"id", "faithful", "score", "calls", "error"}, ...]}`. Calls per
row are read from the counting proxy that benchmarks/bench_real_lm.py puts in front of the server
(`GET <api-base>/__count`). A row that raises is recorded with its error, never dropped.
Run by benchmarks/bench_real_lm.py; not part of the ragjudge package.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import urllib.request
from typing import Any

os.environ.setdefault("DEEPEVAL_TELEMETRY_OPT_OUT", "YES")
os.environ.setdefault("RAGAS_DO_NOT_TRACK", "true")
os.environ.setdefault("OPENAI_API_KEY", "EMPTY")


def _count(api_base: str) -> int:
    with urllib.request.urlopen(api_base + "/__count", timeout=10) as reply:
        return int(json.load(reply)["count"])


def ragas_scorer(api_base: str, model: str, timeout: float) -> tuple[str, Any]:
    """ragas 0.4's collections.Faithfulness with an instructor LLM on the server."""
    import ragas
    from openai import AsyncOpenAI
    from ragas.llms.base import llm_factory
    from ragas.metrics.collections import Faithfulness

    client = AsyncOpenAI(base_url=api_base, api_key="EMPTY", timeout=timeout, max_retries=1)
    metric = Faithfulness(llm=llm_factory(model, client=client))

    def score(row: dict[str, Any]) -> float:
        result = asyncio.run(
            metric.ascore(
                user_input=row["question"] or " ",
                response=row["answer"],
                retrieved_contexts=row["contexts"],
            )
        )
        return float(result.value)

    return ragas.__version__, score


def deepeval_scorer(api_base: str, model: str, timeout: float) -> tuple[str, Any]:
    """deepeval's FaithfulnessMetric with its LocalModel on the server."""
    import deepeval
    from deepeval.metrics import FaithfulnessMetric
    from deepeval.models import LocalModel
    from deepeval.test_case import LLMTestCase

    llm = LocalModel(model=model, base_url=api_base, api_key="EMPTY", temperature=0)
    metric = FaithfulnessMetric(model=llm, async_mode=False, include_reason=True)

    def score(row: dict[str, Any]) -> float:
        case = LLMTestCase(
            input=row["question"] or " ",
            actual_output=row["answer"],
            retrieval_context=row["contexts"],
        )
        return float(metric.measure(case))

    del timeout
    return deepeval.__version__, score


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--peer", choices=["ragas", "deepeval"], required=True)
    parser.add_argument("--rows", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--api-base", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--timeout", type=float, default=120.0)
    args = parser.parse_args()
    make = ragas_scorer if args.peer == "ragas" else deepeval_scorer
    version, score = make(args.api_base, args.model, args.timeout)
    results = []
    with open(args.rows) as f:
        rows = [json.loads(line) for line in f if line.strip()]
    for row in rows:
        before = _count(args.api_base)
        entry: dict[str, Any] = {"id": row["id"], "faithful": row["faithful"]}
        try:
            value = score(row)
            entry["score"] = None if math.isnan(value) else value
        except Exception as exc:  # a peer's failure is a measured outcome, not a crash
            entry["score"] = None
            entry["error"] = f"{type(exc).__name__}: {str(exc)[:200]}"
        entry["calls"] = _count(args.api_base) - before
        results.append(entry)
        with open(args.out, "w") as out:
            json.dump({"peer": args.peer, "version": version, "results": results}, out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
