"""Judge files saved by ragjudge before the subpackage move (frozen in tests/resources) still
load with their parameters, demos and compile report; the lexical judge, whose algorithm is
fixed, scores the same rows as the release that wrote it did."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import ragjudge

RESOURCES = Path(__file__).parents[1] / "resources"
SAMPLE = Path(__file__).parents[2].parent / "shared" / "gold" / "sample.jsonl"


@pytest.mark.parametrize("name", ["faithfulness_v0_compiled", "deterministic_v0", "recall_v0"])
def test_frozen_judge_file_loads(name: str) -> None:
    judge = ragjudge.load(RESOURCES / f"{name}.json")
    assert isinstance(judge, ragjudge.Judge)


def test_frozen_compiled_judge_keeps_what_compile_chose(sample_path: Path) -> None:
    document = json.loads((RESOURCES / "faithfulness_v0_compiled.json").read_text())
    judge = ragjudge.load(RESOURCES / "faithfulness_v0_compiled.json")
    assert judge.get_params()["mode"] == document["params"]["mode"]
    assert judge.get_params()["threshold"] == document["params"]["threshold"]
    assert len(judge.whole.demos) == len(document["state"]["whole"]["demos"]) > 0
    assert judge.report_ is not None
    rows = ragjudge.load_gold(sample_path)[:5]
    assert rows
    for row in rows:
        score = judge(question=row.question, contexts=row.contexts, answer=row.answer).score
        assert 0.0 <= score <= 1.0


@pytest.mark.skipif(
    not SAMPLE.exists(), reason="needs ../shared/gold beside the checkout (scores of its rows)"
)
@pytest.mark.parametrize("name", ["deterministic_v0"])
def test_frozen_judge_file_scores_as_its_release_did(name: str) -> None:
    expected = json.loads((RESOURCES / "v0_scores.json").read_text())
    rows = {r.id: r for r in ragjudge.load_gold(SAMPLE)}
    judge = ragjudge.load(RESOURCES / f"{name}.json")
    scores = [
        judge(question=rows[i].question, contexts=rows[i].contexts, answer=rows[i].answer).score
        for i in expected["rows"]
    ]
    assert scores == pytest.approx(expected["scores"][name], abs=1e-9)
