"""Benchmark of the relevancy / recall / rubric judges and the three-judge suite.

1. LM calls per item, counted with a scripted LM (it answers every signature with a canned,
   well-formed reply, so each call is one request and nothing is cached), for each judge and mode
   and for the suite in statement and rubric modes.
2. Offline judge quality on the shared dev data, against derived gold (`ragjudge.data._derived`):
   relevancy ROC AUC separating on-topic from off-topic (question, answer) pairs, recall ROC AUC
   and Spearman against the LFQA supported-sentence share; BEGIN dialogue pairs (not part of the
   derived gold) are reported apart for reference.

Run: `python benchmarks/bench_suite.py [--gold ../shared/gold] [--json out.json]`
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import threading
import time
from pathlib import Path
from typing import Any

import dspy
from dspy.lm15 import Message, Request, Response, Usage

from ragjudge import AnswerRelevancy, ContextRecall, Faithfulness, Suite
from ragjudge.data._derived import derive_gold, derive_relevancy, derived_label
from ragjudge.data._gold import GoldRecord, load_gold
from ragjudge.offline.engine import parse_prompt
from ragjudge.programs import Judge, SuiteResult
from ragjudge.stats._agreement import auroc, rating_agreement

CANNED: dict[frozenset[str], dict[str, Any]] = {
    frozenset({"statements"}): {"statements": ["s1", "s2"]},
    frozenset({"verdicts"}): {
        "verdicts": [
            {"statement": s, "reason": "r", "verdict": "yes", "confidence": 0.9}
            for s in ("s1", "s2")
        ]
    },
    frozenset({"reasoning", "verdict", "confidence"}): {
        "reasoning": "r",
        "verdict": "yes",
        "confidence": 0.9,
    },
    frozenset({"questions", "noncommittal"}): {
        "questions": ["q1?", "q2?", "q3?"],
        "noncommittal": False,
    },
    frozenset({"reference_statements"}): {"reference_statements": ["s1", "s2"]},
    frozenset({"attributions"}): {
        "attributions": [
            {"statement": s, "reason": "r", "verdict": "yes", "confidence": 0.9}
            for s in ("s1", "s2")
        ]
    },
    frozenset({"reasoning", "faithfulness_score"}): {"reasoning": "r", "faithfulness_score": 4},
    frozenset({"reasoning", "relevancy_score"}): {"reasoning": "r", "relevancy_score": 4},
    frozenset({"reasoning", "recall_score"}): {"reasoning": "r", "recall_score": 4},
}


class CountingEngine:
    """A scripted engine: a canned reply per signature, counting every request."""

    supports_response_schema = False

    def __init__(self) -> None:
        self.calls = 0
        self._lock = threading.Lock()

    def complete(self, request: Request) -> Response:
        with self._lock:
            self.calls += 1
        outputs = frozenset(parse_prompt(request).outputs)
        reply = CANNED[outputs]
        text = "\n\n".join(
            [
                *(
                    f"[[ ## {k} ## ]]\n{v if isinstance(v, str) else json.dumps(v)}"
                    for k, v in reply.items()
                ),
                "[[ ## completed ## ]]",
            ]
        )
        return Response(
            id=None,
            model=request.model,
            message=Message.assistant(text),
            finish_reason="stop",
            usage=Usage(input_tokens=1, output_tokens=1),
        )


def calls_per_item(rows: list[GoldRecord]) -> dict[str, float]:
    """Mean LM calls per item of every judge, mode and suite, with a scripted LM."""
    dspy.configure_cache(enable_disk_cache=False, enable_memory_cache=False)
    items = [
        {
            "question": r.question or "What is it about?",
            "contexts": r.contexts,
            "answer": r.answer,
            "reference": r.reference or (r.contexts[0][:400] if r.contexts else "A reference."),
        }
        for r in rows
        if r.answer.strip()
    ]
    configs: dict[str, Any] = {
        "faithfulness/statement": lambda: Faithfulness(mode="statement"),
        "faithfulness/whole": lambda: Faithfulness(mode="whole"),
        "faithfulness/rubric": lambda: Faithfulness(mode="rubric"),
        "answer_relevancy/questions": lambda: AnswerRelevancy(mode="questions"),
        "answer_relevancy/rubric": lambda: AnswerRelevancy(mode="rubric"),
        "context_recall/statement": lambda: ContextRecall(mode="statement"),
        "context_recall/rubric": lambda: ContextRecall(mode="rubric"),
        "suite/statement": lambda: Suite(Suite.default_judges("statement")),
        "suite/rubric": lambda: Suite(Suite.default_judges("rubric")),
        "suite/statement, reference = answer": lambda: Suite(Suite.default_judges("statement")),
    }
    out: dict[str, float] = {}
    for name, make in configs.items():
        engine = CountingEngine()
        lm = dspy.LM("scripted/bench", engine=engine, num_retries=0, cache=False)
        judge: Judge | Suite = make()
        counted = 0
        with dspy.context(lm=lm):
            for item in items:
                if name.endswith("reference = answer"):
                    item = {**item, "reference": item["answer"]}
                result = judge(**item)
                counted += result.lm_calls
                found = (
                    [r.error for r in result.results.values()]
                    if isinstance(result, SuiteResult)
                    else [result.error]
                )
                errors = [e for e in found if e]
                if errors:
                    raise RuntimeError(f"{name}: {errors[0]}")
        if counted != engine.calls:
            raise RuntimeError(f"{name}: counted {counted} calls, the engine saw {engine.calls}")
        out[name] = engine.calls / len(items)
    return out


def _auc(rows: list[GoldRecord], metric: str, judge: Judge) -> tuple[float, int]:
    results = judge.batch(rows)
    pairs = [
        (derived_label(row, metric)[0], res.score)
        for row, res in zip(rows, results, strict=True)
        if not res.error and not math.isnan(res.score)
    ]
    return auroc([int(p[0] or 0) for p in pairs], [p[1] for p in pairs]), len(pairs)


def offline_quality(gold: Path) -> dict[str, Any]:
    """Offline judge ROC AUC on derived gold from the shared dev data."""
    dspy.configure_cache(enable_disk_cache=False, enable_memory_cache=False)
    rows: list[GoldRecord] = []
    for source in ("halueval", "lfqa_verification", "begin", "faithbench", "summedits", "wice"):
        path = gold / source / "dev.jsonl"
        if path.exists():
            rows += load_gold(path)
    derived = derive_gold(rows)
    out: dict[str, Any] = {"derived_rows": {k: len(v) for k, v in derived.items()}}
    for mode in ("questions", "rubric"):
        judge = AnswerRelevancy(mode=mode, lm="local")
        start = time.perf_counter()
        auc, n = _auc(derived["answer_relevancy"], "answer_relevancy", judge)
        per_source = {}
        for source in ("halueval", "lfqa_verification"):
            subset = [r for r in derived["answer_relevancy"] if r.source == source]
            per_source[source] = round(_auc(subset, "answer_relevancy", judge)[0], 4)
        sample = judge.batch(derived["answer_relevancy"][:1])[0]
        out[f"answer_relevancy/{mode}"] = {
            "auroc": round(auc, 4),
            "n": n,
            "by_source": per_source,
            "similarity": sample.details.get("similarity", "-"),
            "seconds": round(time.perf_counter() - start, 1),
        }
    dialogue = derive_relevancy([r for r in rows if r.source == "begin"], tasks=("dialogue",))
    auc, n = _auc(dialogue, "answer_relevancy", AnswerRelevancy(lm="local"))
    out["answer_relevancy/questions (BEGIN dialogue, not derived gold)"] = {
        "auroc": round(auc, 4),
        "n": n,
    }
    for mode in ("statement", "rubric"):
        judge = ContextRecall(mode=mode, lm="local")  # type: ignore[arg-type]
        recall_rows = derived["context_recall"]
        results = judge.batch(recall_rows)
        labels = [derived_label(r, "context_recall") for r in recall_rows]
        ok = [
            (lab, res.score)
            for lab, res in zip(labels, results, strict=True)
            if not math.isnan(res.score)
        ]
        cont = [(lab[1], s) for lab, s in ok if lab[1] is not None]
        rho = rating_agreement(
            [[c for c, _ in cont], [s for _, s in cont]],
            level="interval",
            spearman=True,
            n_boot=200,
        )
        out[f"context_recall/{mode}"] = {
            "auroc": round(auroc([int(lab[0] or 0) for lab, _ in ok], [s for _, s in ok]), 4),
            "n": len(ok),
            "spearman_vs_lfqa_share": rho.spearman,
            "spearman_ci": rho.ci.get("spearman"),
        }
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--gold", default=str(Path(__file__).resolve().parents[2] / "shared" / "gold")
    )
    parser.add_argument("--json", default=None, help="also write the figures to this file")
    args = parser.parse_args(argv)
    gold = Path(args.gold)
    figures = {
        "lm_calls_per_item": calls_per_item(load_gold(gold / "sample.jsonl")),
        "offline": offline_quality(gold),
    }
    sys.stdout.write(json.dumps(figures, indent=2) + "\n")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
