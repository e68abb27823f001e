"""Results files of format 1 (written before results carried their raw output; frozen in
tests/resources/results_v1.jsonl by ragjudge 80fb996) still load, and rescore as today's
results of the same rows do."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

import ragjudge
from ragjudge.programs._base import Judge, judge_inputs
from ragjudge.programs._results import JudgeResult

RESOURCES = Path(__file__).parents[1] / "resources"


def _judge(line: dict[str, object]) -> Judge:
    if line["mode"] in ("statement", "whole"):
        return ragjudge.Faithfulness(mode=str(line["mode"]))
    return ragjudge.DeterministicJudge(mode=str(line["mode"]))  # type: ignore[arg-type]


def test_format_1_lines_load_and_rescore_like_todays_results(gold_dir: Path) -> None:
    rows = {r.id: r for r in ragjudge.load_gold(gold_dir / "sample.jsonl")}
    lines = [json.loads(t) for t in (RESOURCES / "results_v1.jsonl").read_text().splitlines()]
    assert {str(line["mode"]) for line in lines} == {"statement", "whole", "rouge"}
    for line in lines:
        assert "raw" not in line and "format_version" not in line
        old = JudgeResult.from_json_data(line)
        judge = _judge(line)
        today = judge(**judge_inputs(rows[str(line["id"])]))
        assert old.raw is None and today.raw is not None
        for threshold in (0.2, 0.5, 0.9):
            a = judge.rescore(old, threshold=threshold)
            b = judge.rescore(today, threshold=threshold)
            assert a.passed == b.passed
            assert math.isnan(a.score) == math.isnan(b.score)
            assert math.isnan(a.score) or a.score == pytest.approx(b.score)
            assert [s.verdict for s in a.statements] == [s.verdict for s in b.statements]
