"""The gain compile prints: compiled minus uncompiled with a paired bootstrap interval, overall
and per source."""

from __future__ import annotations

import html
import re

import numpy as np

from ragjudge.optimize._report import CompileReport, RowPrediction, StudySummary
from ragjudge.report import build_report
from ragjudge.stats import Agreement, agreement, paired_difference


def test_paired_difference_is_the_difference_with_an_interval_around_it() -> None:
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 2, 200)
    good = labels + rng.normal(0, 0.6, 200)
    weak = labels + rng.normal(0, 1.5, 200)
    a, b = (good > 0.5, good), (weak > 0.5, weak)
    diff = paired_difference(labels, a, b, n_boot=500, seed=1)
    for key in ("balanced_accuracy", "auroc"):
        point = getattr(agreement(labels, *a, n_boot=0), key) - getattr(
            agreement(labels, *b, n_boot=0), key
        )
        value, low, high = diff[key]
        assert value is not None and low is not None and high is not None
        assert value == point and low <= value <= high and low > 0  # a real gain
    same = paired_difference(labels, a, a, n_boot=200)
    assert same["auroc"] == [0.0, 0.0, 0.0]  # paired: no spread when the judges agree


def _report(predictions: list[RowPrediction]) -> CompileReport:
    def agree(compiled: bool, source: str) -> Agreement:
        rows = [p for p in predictions if p.source == source]
        passed = [bool(p.passed if compiled else p.baseline_passed) for p in rows]
        scores = [(p.score if compiled else p.baseline_score) or 0.0 for p in rows]
        return agreement([p.gold for p in rows], passed, scores, n_boot=0)

    sources = sorted({p.source for p in predictions})
    every = agreement([p.gold for p in predictions], [bool(p.passed) for p in predictions])
    return CompileReport(
        metric="faithfulness",
        lm="local/ragjudge-offline@test",
        objective="balanced_accuracy",
        params={"mode": "whole", "threshold": 0.5},
        baseline_params={"mode": "statement", "threshold": 0.5},
        validation=every,
        baseline=every,
        by_source={s: {"compiled": agree(True, s), "baseline": agree(False, s)} for s in sources},
        study=StudySummary(
            name="s", seed=0, directions=["maximize"], objectives=["ba"], n_trials=1
        ),
        predictions=predictions,
    )


def _row(
    row_id: str, source: str, gold: int, right: bool, base_right: bool, group: str = ""
) -> RowPrediction:
    """A validation row on which each judge is right or wrong (the compiled one: `right`)."""
    return RowPrediction(
        id=row_id,
        source=source,
        group=group,
        gold=gold,
        score=float(gold == right),
        passed=(gold == 1) == right,
        baseline_score=float(gold == base_right),
        baseline_passed=(gold == 1) == base_right,
    )


def test_each_source_gets_its_gain_with_an_interval_unless_a_label_has_too_few_rows() -> None:
    rng = np.random.default_rng(0)
    rows = []
    for i in range(60):  # "big": the compiled judge right on 90% of rows, the start on 60%
        gold = i % 2
        right, base_right = rng.random() < 0.9, rng.random() < 0.6
        rows.append((f"b{i}", "big", gold, right, base_right))
    # "tiny": five rows, one faithful; the compiled judge fails it, the start passes it
    rows += [(f"t{i}", "tiny", int(i == 0), i != 0, True) for i in range(5)]
    predictions = [_row(i, s, g, r, b) for i, s, g, r, b in rows]
    report = _report(predictions)
    gains = report.gain_by_source()
    big, tiny = gains["big"], gains["tiny"]
    value, low, high = big
    assert value is not None and low is not None and high is not None
    assert value == report.gain(source="big")["balanced_accuracy"][0] and low <= value <= high
    assert value > 0
    assert tiny == [-0.5, None, None]  # one faithful row: a bootstrap would say -0.5 for sure
    lines = "\n".join(report.source_lines())
    assert re.search(
        r"big\s+60\s+30\s+\S+\s+\S+\s+\+\d\.\d{3} \[[+-]\d\.\d{3}, \+\d\.\d{3}\]", lines
    )
    assert re.search(r"tiny\s+5\s+1\s+0\.500\s+1\.000\s+-0\.500 \(too few to tell", lines)
    assert report.summary()["gain_by_source"] == gains
    text = html.unescape(re.sub(r"<[^>]+>", " ", build_report(compile_report=report)))
    assert re.search(r"Gain per source.*big\s+\+\d\.\d{3}\s+\[", text, re.S)
    assert re.search(r"tiny\s+-0\.500\s+too few to tell", text)
    report.predictions = [p for p in predictions if p.source == "big"]
    report.by_source = {"big": report.by_source["big"]}
    assert report.gain_by_source() == {} and report.source_lines() == []  # one source


def test_the_compile_gain_resamples_the_rows_groups() -> None:
    rng = np.random.default_rng(3)
    rows = [
        (f"r{i}", f"g{i // 2}", i % 2, rng.random() < 0.9, rng.random() < 0.6) for i in range(60)
    ]
    predictions = [_row(i, "one", y, r, b, group=g) for i, g, y, r, b in rows]
    report = _report(predictions)
    sides = [
        ([bool(p.passed) for p in predictions], [p.score or 0.0 for p in predictions]),
        (
            [bool(p.baseline_passed) for p in predictions],
            [p.baseline_score or 0.0 for p in predictions],
        ),
    ]
    labels = [p.gold for p in predictions]
    groups = [p.group for p in predictions]
    expected = paired_difference(labels, *sides, n_boot=1000, seed=0, groups=groups)
    assert report.gain() == expected
    assert report.gain() != paired_difference(labels, *sides, n_boot=1000, seed=0)
    for p in predictions:  # a judge file written before groups were recorded: rows alone
        p.group = ""
    assert report.gain() == paired_difference(labels, *sides, n_boot=1000, seed=0)


def test_a_source_of_one_group_gets_no_interval() -> None:
    predictions = [
        RowPrediction(
            id=f"{source}{i}",
            source=source,
            group=f"{source}-doc" if source == "doc" else "",
            gold=i % 2,
            score=float(i % 3 != 0),
            passed=i % 3 != 0,
            baseline_score=0.5,
            baseline_passed=True,
        )
        for source in ("doc", "rows")
        for i in range(12)
    ]
    report = _report(predictions)
    gains = report.gain_by_source()
    assert gains["doc"][1:] == [None, None] and gains["rows"][1] is not None
    assert report.no_interval("doc") == "its rows are one group"
    assert report.no_interval("rows") is None
    assert "(too few to tell: its rows are one group)" in "\n".join(report.source_lines())
