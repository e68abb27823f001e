"""`ragjudge report`, and `--report` on `evaluate` and `compile`, run in-process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragjudge.cli import main


def test_report_command_compares_compiled_and_uncompiled(
    compiled_judge_file: Path, sample_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.html"
    code = main(
        [
            "report",
            "--judge",
            str(compiled_judge_file),
            "--gold",
            str(sample_path),
            "--out",
            str(out),
        ]
    )
    assert code == 0
    text = capsys.readouterr().out
    assert f"wrote {out}" in text
    assert "compiled: balanced accuracy" in text and "uncompiled: balanced accuracy" in text
    document = out.read_text(encoding="utf-8")
    for anchor in ("agreement", "compile", "diagnostics", "study", "disagreements", "cost"):
        assert f'<section id="{anchor}">' in document
    assert 'id="plot-study-pareto"' in document  # the fixture's study is multi-objective
    assert "<tr><th>uncompiled</th>" in document and "<tr><th>compiled</th>" in document
    # the judge was compiled on these very rows: the report says its figures are optimistic
    assert "held-out (validation) rows" in document and "optimistic" in document
    saved = json.loads(compiled_judge_file.read_text())["compile"]
    assert saved["study"]["name"] in document


def test_no_baseline_skips_the_uncompiled_judge(
    compiled_judge_file: Path, sample_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.html"
    assert (
        main(
            [
                "report",
                "--judge",
                str(compiled_judge_file),
                "--gold",
                str(sample_path),
                "--out",
                str(out),
                "--no-baseline",
            ]
        )
        == 0
    )
    assert "uncompiled: balanced" not in capsys.readouterr().out
    document = out.read_text(encoding="utf-8")
    assert "<tr><th>uncompiled</th>" not in document


def test_report_of_an_uncompiled_judge(sample_path: Path, tmp_path: Path) -> None:
    out = tmp_path / "plain.html"
    assert main(["report", "--gold", str(sample_path), "--out", str(out), "--limit", "20"]) == 0
    document = out.read_text(encoding="utf-8")
    assert '<section id="study">' not in document and '<section id="agreement">' in document
    # --max-disagreements caps the cases shown
    capped = tmp_path / "capped.html"
    args = ["report", "--gold", str(sample_path), "--limit", "20", "--max-disagreements", "2"]
    assert main([*args, "--out", str(capped)]) == 0
    assert document.count('<article class="case"') > 2
    assert capped.read_text(encoding="utf-8").count('<article class="case"') == 2


def test_report_needs_an_html_path(
    sample_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["report", "--gold", str(sample_path), "--out", str(tmp_path / "r.txt")]) == 2
    assert "name an .html file" in capsys.readouterr().err


def test_evaluate_report_option(sample_path: Path, tmp_path: Path) -> None:
    out = tmp_path / "ev.html"
    assert (
        main(["evaluate", "--gold", str(sample_path), "--report", str(out), "--format", "json"])
        == 0
    )
    document = out.read_text(encoding="utf-8")
    assert (
        '<section id="disagreements">' in document and "<tr><th>judge</th><td>42</td>" in document
    )


def test_compile_report_option(sample_path: Path, tmp_path: Path) -> None:
    judge, out = tmp_path / "j.json", tmp_path / "c.html"
    assert (
        main(
            [
                "compile",
                "--gold",
                str(sample_path),
                "--out",
                str(judge),
                "--trials",
                "4",
                "--report",
                str(out),
                "--format",
                "json",
            ]
        )
        == 0
    )
    document = out.read_text(encoding="utf-8")
    assert (
        "These are the compile&#x27;s validation rows" in document
        or "These are the compile's validation rows" in document
    )
    assert 'id="plot-study-history"' in document
    n_valid = len(json.loads(judge.read_text())["compile"]["predictions"])
    assert f"{sample_path} (validation rows)" in document
    assert f"<tr><th>compiled</th><td>{n_valid}</td>" in document


def test_compile_refuses_a_bad_report_path_before_compiling(
    sample_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    judge = tmp_path / "j.json"
    assert (
        main(
            [
                "compile",
                "--gold",
                str(sample_path),
                "--out",
                str(judge),
                "--report",
                str(tmp_path / "c.pdf"),
            ]
        )
        == 2
    )
    assert not judge.exists()
    assert "name an .html file" in capsys.readouterr().err


def test_evaluate_reports_every_metric_with_labels(sample_path: Path, tmp_path: Path) -> None:
    """A report for relevancy (and recall) rows too: their labels are derived from the
    faithfulness gold (`data/_labels.py`); `build_report` used to refuse them ("no row has
    both a label and a score") and `evaluate --report` skipped them."""
    out = tmp_path / "ev.html"
    code = main(
        [
            "evaluate",
            "--gold",
            str(sample_path),
            "--metric",
            "faithfulness,answer_relevancy,context_recall",
            "--report",
            str(out),
            "--format",
            "json",
        ]
    )
    assert code == 0
    for metric in ("faithfulness", "answer_relevancy", "context_recall"):
        document = (tmp_path / f"ev.{metric}.html").read_text(encoding="utf-8")
        assert f"with the {metric} labels of" in document
        assert '<section id="diagnostics">' in document


def test_build_report_on_labeled_relevancy_rows(sample_path: Path) -> None:
    from ragjudge import AnswerRelevancy, evaluate
    from ragjudge.data import load_gold, rows_for_metric
    from ragjudge.report import build_report

    rows, _ = rows_for_metric("answer_relevancy", load_gold(sample_path))
    judge = AnswerRelevancy(lm="local")
    results, report = evaluate(judge, rows, n_boot=50)
    assert report.agreement is not None
    document = build_report(rows=rows, results=results, judge=judge, n_boot=50)
    assert f"with the answer_relevancy labels of {report.agreement.n} rows" in document
    # without the judge, the metric is read from the results
    assert "answer_relevancy labels" in build_report(rows=rows, results=results, n_boot=50)


def test_report_with_an_lm_over_http(
    compiled_judge_file: Path, sample_path: Path, tmp_path: Path
) -> None:
    """The real client stack (dspy.LM over HTTP to a local OpenAI-compatible server)."""
    from ragjudge.testing._server import TestServer

    out = tmp_path / "lm.html"
    with TestServer(delay=0.0) as server:
        code = main(
            [
                "report",
                "--judge",
                str(compiled_judge_file),
                "--gold",
                str(sample_path),
                "--limit",
                "8",
                "--lm",
                "openai/fake",
                "--api-base",
                server.api_base,
                "--no-cache",
                "--out",
                str(out),
            ]
        )
    assert code == 0
    document = out.read_text(encoding="utf-8")
    assert "LM openai/fake" in document
    cost = document.split('<section id="cost">', 1)[1]
    row = cost.split("<tr><th>uncompiled</th>", 1)[1].split("</tr>", 1)[0]
    cells = [c.split("</td>")[0] for c in row.split("<td>")[1:]]
    assert cells[0] == "8" and int(cells[1]) >= 8 and int(cells[3].replace(",", "")) > 0
