"""build_report: sections, numbers, escaping, self-containment; data helpers; the study."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import numpy as np
import optuna
import pytest
from conftest import HOSTILE, make_compile_report, make_summary
from optuna.trial import TrialState

from ragjudge.data._gold import GoldRecord
from ragjudge.evaluation._evaluate import agreement_of
from ragjudge.exceptions import ConfigurationError
from ragjudge.optimize._select import FinalistScore, Selection, SourceDifference
from ragjudge.programs._results import JudgeResult
from ragjudge.report import build_report, rebuild_study, study_figures, write_report
from ragjudge.report._data import (
    Variant,
    context_excerpt,
    variant_from_predictions,
    worst_disagreements,
)
from ragjudge.stats._threshold import UNSCORED

Judged = tuple[list[GoldRecord], list[JudgeResult], list[JudgeResult]]


def _figures(document: str) -> dict[str, dict]:
    """The plotly figures embedded in the page, by div id."""
    decoder = json.JSONDecoder()
    found = {}
    for match in re.finditer(r'Plotly\.newPlot\(\s*"([^"]+)",\s*', document):
        data, end = decoder.raw_decode(document, match.end())
        start = re.compile(r",\s*").match(document, end)
        assert start is not None
        layout, _ = decoder.raw_decode(document, start.end())
        found[match.group(1)] = {"data": data, "layout": layout}
    return found


def test_report_shows_agreement_of_both_judges_per_source(judged: Judged) -> None:
    rows, results, baseline = judged
    document = build_report(
        rows=rows, results=results, baseline_results=baseline, gold_name="g.jsonl", n_boot=200
    )
    overall, by_source, _, _ = agreement_of(rows, results, n_boot=200)
    base, _, _, _ = agreement_of(rows, baseline, n_boot=200)
    assert overall is not None and base is not None
    # the headline cards and table carry the measured values, not made-up ones
    assert f"{overall.balanced_accuracy:.3f}" in document
    assert f"{base.balanced_accuracy:.3f}" in document
    low, high = overall.ci["balanced_accuracy"]
    assert f"95% CI [{low:.3f}, {high:.3f}]" in document
    for source in by_source:
        assert f"<th>{html.escape(source)}</th>" in document
    figures = _figures(document)
    assert {
        "plot-agree-ba",
        "plot-agree-auroc",
        "plot-confusion",
        "plot-histogram",
        "plot-roc",
        "plot-reliability",
    } <= set(figures)
    # the forest plot has one trace per judge, and the overall point is the measured value
    forest = figures["plot-agree-ba"]["data"]
    assert [t["name"] for t in forest] == ["judge", "baseline"]
    assert forest[0]["x"][0] == pytest.approx(overall.balanced_accuracy)


def test_confusion_matrix_and_histogram_count_the_rows(judged: Judged) -> None:
    rows, results, baseline = judged
    figures = _figures(build_report(rows=rows, results=results, baseline_results=baseline))
    heat = figures["plot-confusion"]["data"][0]
    usable = [(r, x) for r, x in zip(rows, results, strict=True) if x.passed is not None]
    tp = sum(1 for r, x in usable if r.faithful and x.passed)
    fn = sum(1 for r, x in usable if r.faithful and not x.passed)
    assert heat["text"][0][0].startswith(f"{tp}<br>")
    assert heat["text"][0][1].startswith(f"{fn}<br>")
    bars = figures["plot-histogram"]["data"]
    assert sum(sum(b["y"]) for b in bars[:2]) == len(usable)  # the judge's panel holds every row


def test_hostile_text_is_escaped_everywhere(judged: Judged) -> None:
    rows, results, baseline = judged
    document = build_report(rows=rows, results=results, baseline_results=baseline)
    body = document.split("</script>\n</head>", 1)[1]  # after the inlined plotly.js
    assert "<script>window.__pwned" not in body
    assert "onerror=" not in body.replace("onerror=&quot;", "")
    assert '<img src="https://example.invalid' not in body
    assert html.escape(HOSTILE) in body  # shown as text (question, answer, context, reason)
    assert "evil&lt;b&gt;" in body
    # the hostile source name reaches plotly entity-escaped (plotly.js reads some tags) in JSON
    assert "&lt;\\u002fscript&gt;&lt;script&gt;window.__pwned=3" in body
    assert "<script>window.__pwned=3" not in document
    # the labeled span is marked, with its type escaped in the title
    assert '<mark title="labeled hallucination: &lt;i&gt;x&lt;/i&gt;">answer</mark>' in body


def test_the_page_is_self_contained(judged: Judged) -> None:
    rows, results, _ = judged
    document = build_report(rows=rows, results=results)
    assert "<script src" not in document and "<link" not in document
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", document.split("<body>")[1])
    assert "default-src 'none'" in document  # the CSP refuses every fetch
    assert "Plotly.newPlot" in document and len(document) > 3_000_000  # plotly.js inlined


def test_worst_disagreements_come_first_and_show_verdicts(judged: Judged) -> None:
    rows, results, baseline = judged
    cases = worst_disagreements(rows, results, limit=50, others=baseline, other_name="baseline")
    assert cases, "the synthetic judge disagrees with some labels"
    for case in cases:
        assert bool(case.result.passed) != bool(case.row.faithful)
    assert cases[0].row.id == "evil<b>" or cases[0].severity == pytest.approx(1.0)
    severities = [round(c.severity, 1) for c in cases]
    assert severities == sorted(severities, reverse=True)
    document = build_report(rows=rows, results=results, max_disagreements=3)
    assert document.count('<article class="case"') == 3
    assert "statement 0 of" in document and "badge" in document
    assert "no disagreement" not in document


def test_sources_take_turns_among_equally_bad_rows() -> None:
    rows = [
        GoldRecord(id=f"{s}{i}", answer="a", faithful=1, source=s) for s in "ab" for i in range(3)
    ]
    results = [JudgeResult(score=0.0, passed=False) for _ in rows]
    order = [c.row.source for c in worst_disagreements(rows, results, limit=4)]
    assert order == ["a", "b", "a", "b"]


def test_context_excerpt_finds_the_supporting_sentence() -> None:
    filler = "Nothing to see in this sentence. " * 40
    contexts = [filler + "Einstein was born in Ulm in 1879. " + filler]
    excerpt = context_excerpt(contexts, focus="Einstein was born in Ulm", limit=200)
    assert "Einstein was born in Ulm in 1879." in excerpt
    assert excerpt.startswith("… ") and excerpt.endswith(" …") and len(excerpt) <= 204
    assert context_excerpt(["short"], focus="x") == "short"
    assert context_excerpt([], focus="x") == ""


def test_variants_count_unscored_rows_as_agreement_does_and_leave_out_errors(
    judged: Judged,
) -> None:
    rows, results, baseline = judged
    v = Variant.from_results("judge", rows, results, scale=1.0, threshold=0.5)
    # the unscored row stays, failing and ranked lowest (stats' UNSCORED), as agreement_of
    # counts it; the report no longer drops it
    assert v.n == len(rows)
    at = v.ids.index("unscored")
    assert v.prob[at] == UNSCORED and not v.passed[at] and not v.scored[at]
    assert v.scored.sum() == len(rows) - 1
    overall, *_ = agreement_of(rows, results, n_boot=0)
    assert overall is not None and overall.n == v.n
    b = Variant.from_results("baseline", rows, baseline)  # its `unscored` row is an error
    assert b.n == len(rows) - 1 and "unscored" not in b.ids
    scaled = Variant.from_results(
        "x", rows, [r.model_copy(update={"score": r.score * 5}) for r in results], scale=5
    )
    assert np.allclose(scaled.prob, v.prob)


def test_compile_report_alone_draws_the_study_and_validation(judged: Judged) -> None:
    rows, results, baseline = judged
    report = make_compile_report(rows, results, baseline, multi=False)
    document = build_report(compile_report=report)
    figures = _figures(document)
    assert {
        "plot-val-ba",
        "plot-confusion",
        "plot-roc",
        "plot-study-history",
        "plot-study-importances",
    } <= set(figures)
    assert "plot-study-pareto" not in figures
    # recorded importances are plotted as recorded, not recomputed
    bars = figures["plot-study-importances"]["data"][0]
    assert dict(zip(bars["y"], bars["x"], strict=True)) == pytest.approx(
        {"threshold": 0.8, "unsure": 0.2}
    )
    # the validation variant comes from the recorded predictions
    v = variant_from_predictions("compiled", report.predictions)
    assert v.n == len(report.predictions)  # an unscored row counts, failing, ranked lowest
    assert v.scored.sum() == sum(1 for p in report.predictions if p.score is not None)
    assert "Worst disagreements" not in document  # no per-row verdicts without results
    assert "<th>raw_outputs</th><td>120</td>" in document


def test_compile_report_shows_the_finalists_and_the_decision(judged: Judged) -> None:
    rows, results, baseline = judged
    report = make_compile_report(rows, results, baseline, multi=False)
    assert "Which judge ships" not in build_report(compile_report=report)  # no selection
    losing = SourceDifference(source="<wice>", n=11, difference=-0.208, se=0.174)
    report.selection = Selection(
        rule="one-se",
        folds=5,
        repeats=5,
        rows=174,
        finalists=[
            FinalistScore(name="start", balanced_accuracy=0.793, ci=(0.73, 0.843)),
            FinalistScore(
                name="whole",
                mode="whole",
                balanced_accuracy=0.831,
                ci=(0.766, 0.891),
                difference=0.037,
                se=0.028,
                by_source=[
                    SourceDifference(source="begin", n=74, difference=0.01, se=0.05),
                    losing,
                ],
            ),
        ],
        chosen="start",
        reason="every tuned judge agrees less than the starting judge on some source",
    )
    document = build_report(compile_report=report)
    text = html.unescape(re.sub(r"<[^>]+>", " ", document))
    assert "Which judge ships" in text and "5 fold assignments on 174 train rows" in text
    assert re.search(r"starting judge\s+ships\s+0\.793", text)
    assert re.search(r"tuned, whole mode\s+0\.831\s+\[0\.77, 0\.89\]\s+\+0\.037\s+0\.028", text)
    assert "<wice> -0.208 (se 0.174, 11 rows)" in text and "begin +0.010" not in text
    assert "&lt;wice&gt;" in document  # a source name is data: escaped
    assert "Decision: every tuned judge agrees less" in text


def test_multi_objective_study_gets_a_pareto_front(judged: Judged) -> None:
    rows, results, baseline = judged
    report = make_compile_report(rows, results, baseline, multi=True)
    document = build_report(
        rows=rows, results=results, baseline_results=baseline, compile_report=report
    )
    figures = _figures(document)
    assert "plot-study-pareto" in figures
    assert "plot-study-importances" in figures  # computed by fANOVA when none were recorded
    names = [t["name"] for t in figures["plot-agree-ba"]["data"]]
    assert names == ["compiled", "uncompiled"]
    # the rows are the compile's validation rows: said so, no optimism warning
    assert (
        "These are the compile&#x27;s validation rows" in document
        or "These are the compile's validation rows" in document
    )


def test_rebuilt_study_matches_the_summary() -> None:
    summary = make_summary(multi=False)
    study = rebuild_study(summary)
    assert len(study.trials) == len(summary.trials)
    assert study.best_value == pytest.approx(summary.best_value)
    assert study.best_params == summary.best_params
    multi = rebuild_study(make_summary(multi=True))
    assert {t.number for t in multi.best_trials} == {
        t.number for t in make_summary(multi=True).pareto_front
    }


def test_rebuild_skips_trials_that_do_not_fit() -> None:
    summary = make_summary(multi=False, n_trials=4)
    summary.trials[0].params["threshold"] = 7.0  # outside FloatDistribution(0, 1)
    summary.trials[1].state = "RUNNING"
    summary.trials[2].values = None
    study = rebuild_study(summary)
    assert [t.number for t in study.trials] == [0]  # renumbered: only the 4th trial is left
    assert study.trials[0].state == TrialState.COMPLETE
    figures, _ = study_figures(summary)
    assert "history" in figures


def test_study_without_finished_trials_says_so() -> None:
    summary = make_summary(multi=False, n_trials=2)
    for t in summary.trials:
        t.state = "FAIL"
        t.values = None
    figures, notes = study_figures(summary)
    assert figures == {} and "no finished trials" in notes[0]


def test_inputs_that_do_not_line_up_are_refused(judged: Judged) -> None:
    rows, results, baseline = judged
    with pytest.raises(ConfigurationError, match="one result per row"):
        build_report(rows=rows, results=results[:-1])
    with pytest.raises(ConfigurationError, match="baseline_results"):
        build_report(rows=rows, results=results, baseline_results=baseline[:3])
    with pytest.raises(ConfigurationError, match="nothing to report"):
        build_report()
    unlabeled = [r.model_copy(update={"faithful": None}) for r in rows]
    with pytest.raises(ConfigurationError, match="labeled rows"):
        build_report(rows=unlabeled, results=results)
    with pytest.raises(ConfigurationError, match="CompileReport schema"):
        build_report(compile_report={"metric": "faithfulness"})


def test_write_report_writes_the_file(judged: Judged, tmp_path) -> None:
    rows, results, _ = judged
    path = write_report(tmp_path / "sub" / "r.html", rows=rows, results=results, title="T & <T>")
    text = path.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and "<title>T &amp; &lt;T&gt;</title>" in text
    assert not list(tmp_path.glob("sub/*.tmp"))


def test_optuna_global_logging_is_left_alone() -> None:
    level = optuna.logging.get_verbosity()
    rebuild_study(make_summary(multi=False, n_trials=2))
    assert optuna.logging.get_verbosity() == level


def test_whole_mode_cases_show_the_other_judges_statements(judged: Judged) -> None:
    rows, results, baseline = judged
    whole = [
        r.model_copy(
            update={
                "mode": "whole",
                "statements": [],
                "details": {"verdict": "no", "reasoning": "whole-answer reasoning " + HOSTILE},
            }
        )
        for r in results
    ]
    document = build_report(rows=rows, results=whole, baseline_results=baseline)
    assert "verdict on the whole answer" in document
    assert "per-statement verdicts of the baseline judge" in document
    assert "whole-answer reasoning " + html.escape(HOSTILE) in document
    case = worst_disagreements(rows, whole, others=baseline, other_name="baseline", limit=50)
    evil = next(c for c in case if c.row.id == "evil<b>")
    assert evil.excerpt  # focused on the baseline's unsupported statements


def test_report_judge_runs_the_uncompiled_baseline(
    compiled_judge_file: Path, sample_path: Path
) -> None:
    import ragjudge
    from ragjudge.report import baseline_of, report_judge

    judge = ragjudge.load(compiled_judge_file)
    baseline = baseline_of(judge)
    assert baseline is not None and baseline.get_params()["lm"] == judge.lm
    assert getattr(baseline, "report_", None) is None and baseline.offline_params_ is None
    assert baseline_of(baseline) is None
    rows = ragjudge.load_gold(sample_path, limit=12)
    calls: list[int] = []
    document = report_judge(judge, rows, on_result=lambda i, r: calls.append(i), n_boot=100)
    assert len(calls) == 2 * len(rows)  # the compiled and the uncompiled judge
    assert "<tr><th>uncompiled</th><td>12</td>" in document
    no_base = report_judge(judge, rows, baseline=False, n_boot=100)
    assert "<tr><th>uncompiled</th>" not in no_base
