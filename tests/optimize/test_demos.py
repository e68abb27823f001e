"""Demos come from the judge's spec and the pool is carved by group (issue 49).

The judge annotates a gold row as a demo (`CompileSpec.demo`): faithfulness from people's
labels, relevancy and recall from derived ones, so an LM judge of any metric gets a demo pool;
optimize/ reads no label and imports no judge model itself. The demo pool is one fold of the
grouped folds, so no group gives both demos and tuning rows.
"""

from __future__ import annotations

import ast
import warnings
from pathlib import Path

import pytest

from ragjudge.data._gold import GoldRecord, load_gold
from ragjudge.data._labels import rows_for_metric
from ragjudge.exceptions import UngroupedRowsWarning
from ragjudge.optimize._compile import compile_judge
from ragjudge.optimize._optimizer import JudgeOptimizer
from ragjudge.programs import AnswerRelevancy, ContextRecall, Faithfulness
from ragjudge.programs._base import Judge
from ragjudge.testing._function import function_lm

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "faithfulness"


def _grouped_rows(n_groups: int = 16, size: int = 3) -> list[GoldRecord]:
    """Short labeled rows, `size` to a group (both labels within most groups)."""
    rows = []
    for g in range(n_groups):
        for i in range(size):
            faithful = (g + i) % 2
            rows.append(
                GoldRecord(
                    id=f"g{g}-{i}",
                    question=f"Where was person {g} born?",
                    contexts=[f"Person {g} was born in Town {g}."],
                    answer=f"Person {g} was born in Town {g if faithful else g + 100}.",
                    faithful=faithful,
                    meta={"group_id": f"group-{g}"},
                )
            )
    return rows


def test_the_demo_pool_is_carved_by_group() -> None:
    lm, _ = function_lm()
    optimizer = JudgeOptimizer(n_trials=1, max_demos=2, group_by="meta.group_id", seed=3)
    rows = _grouped_rows()
    state = optimizer.prepare(Faithfulness(mode="whole", lm=lm), rows, None)
    tune, pool, _ = optimizer.demos(state)
    tuned = {r.meta["group_id"] for r in tune}
    pooled = {r.meta["group_id"] for r in state.train if r not in tune}
    assert pool and pooled, "the judge reads demos: some rows are kept for them"
    assert not tuned & pooled, f"groups both demo and tuning rows: {sorted(tuned & pooled)}"


@pytest.mark.parametrize(
    ("metric", "judge"),
    [
        ("answer_relevancy", AnswerRelevancy(mode="rubric")),
        ("answer_relevancy", AnswerRelevancy(mode="questions", similarity="lexical")),
        ("context_recall", ContextRecall(mode="rubric")),
        ("context_recall", ContextRecall(mode="statement")),
    ],
    ids=["relevancy-rubric", "relevancy-questions", "recall-rubric", "recall-statement"],
)
def test_a_relevancy_or_recall_lm_judge_gets_a_demo_pool(metric: str, judge: Judge) -> None:
    derived, _ = rows_for_metric(metric, load_gold(EXAMPLES / "train.jsonl"))
    lm, _ = function_lm()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UngroupedRowsWarning)
        warnings.filterwarnings("ignore", "The least populated class", UserWarning)
        compiled = compile_judge(
            judge.clone(lm=lm),
            gold=derived[:40],
            n_trials=3,
            max_demos=2,
            demo_candidates=1,
            n_boot=0,
            group_by=None,
            seed=0,
        )
    assert compiled.report_ is not None
    sizes = compiled.report_["sizes"]
    assert sizes["demo_pool"] > 0 and sizes["demo_sets"] > 1, sizes


def test_optimize_imports_no_judge_model_and_reads_no_label_field() -> None:
    """What a row says as a demo is the judge's (its spec), not optimize/'s."""
    for path in sorted((ROOT / "ragjudge" / "optimize").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                assert not node.module.startswith("ragjudge.offline"), (path.name, node.module)
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
                assert not any(n.startswith("ragjudge.offline") for n in names), path.name
    demos = ast.parse((ROOT / "ragjudge" / "optimize" / "_demos.py").read_text())
    read = {n.attr for n in ast.walk(demos) if isinstance(n, ast.Attribute)}
    assert not read & {"faithful", "hallucinated_spans"}, read
