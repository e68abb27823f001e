"""The estimate report: built from two scripted systems, then drawn in headless Chromium."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import HOSTILE

from ragjudge.cli import main

IN_CI = os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")

PLOTS_JS = """
new Promise(resolve => setTimeout(() => resolve(
  Array.from(document.querySelectorAll('.plotly-graph-div')).map(d => {
    const svg = d.querySelector('svg.main-svg');
    return {
      id: d.id,
      laidOut: !!d._fullLayout,
      traces: (d._fullData || []).map(t => ({name: t.name, n: (t.x || []).length})),
      points: d.querySelectorAll('.scatterlayer .point').length,
      bars: d.querySelectorAll('.scatterlayer .errorbar').length,
      width: svg ? svg.getBoundingClientRect().width : 0,
      height: svg ? svg.getBoundingClientRect().height : 0,
    };
  })), 500))
"""


def _system(path: Path, *, rate: float, seed: int) -> Path:
    """A results file of 300 rows in two sources (one named with hostile text), 60 labeled."""
    rng = np.random.default_rng(seed)
    with path.open("w") as f:
        for i in range(300):
            y = int(rng.random() < rate)
            score = float(np.clip(y * 0.7 + rng.random() * 0.3, 0, 1))
            f.write(
                json.dumps(
                    {
                        "metric": "faithfulness",
                        "id": f"q{i}",
                        "score": score,
                        "passed": score >= 0.5,
                        "source": "alpha" if i % 3 else HOSTILE,
                        "gold": y if i % 5 == 0 else None,
                    }
                )
                + "\n"
            )
    return path


@pytest.fixture
def report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    a = _system(tmp_path / "a.jsonl", rate=0.6, seed=1)
    b = _system(tmp_path / "b.jsonl", rate=0.4, seed=2)
    out = tmp_path / "estimate.html"
    code = main(
        [
            "estimate",
            "--rows",
            str(a),
            "--rows",
            str(b),
            "--by",
            "source",
            "--fail-under-diff",
            "0.05",
            "--report",
            str(out),
        ]
    )
    assert code == 1  # B is worse by more than 0.05
    capsys.readouterr()
    return out


def test_report_holds_the_three_estimates_per_stratum(report: Path) -> None:
    html = report.read_text(encoding="utf-8")
    assert html.count('data-table="estimate"') == 2 and 'data-table="difference"' in html
    assert "judge raw (biased)" in html and "labels alone" in html and "PPI++" in html
    assert "B is worse than A by more than 0.05" in html
    assert "unscored rows, no error" in html  # said in the report as on stderr
    assert "<script>window.__pwned" not in html  # the hostile source is escaped
    assert "&lt;script&gt;window.__pwned = 1&lt;/script&gt;" in html


@pytest.fixture(scope="module")
def browser_exe() -> str:
    reason = ""
    try:
        import websockets  # noqa: F401
    except ImportError:
        reason = "the `websockets` package is missing (pip install -e '.[dev]')"
    from cdp_browser import find_chromium

    exe = find_chromium()
    if exe is None:
        reason = "Chromium is not installed (apt-get install chromium)"
    if reason:
        if IN_CI:
            pytest.fail(f"{reason}; CI must run the browser test")
        pytest.skip(reason)
    assert exe is not None
    return exe


def test_estimate_report_renders_in_headless_chromium(
    browser_exe: str, report: Path, tmp_path: Path
) -> None:
    from cdp_browser import Browser

    with Browser(browser_exe, tmp_path / "profile", width=1280, height=900) as browser:
        browser.open(report.resolve().as_uri())
        plots: list[dict[str, Any]] = browser.evaluate(PLOTS_JS)
        state = browser.evaluate(
            "({pwned: typeof window.__pwned, text: document.body.innerText,"
            " ticks: Array.from(document.querySelectorAll('.ytick text')).map(t => t.textContent)})"
        )
        problems = browser.problems()
        requests = browser.requests()

    assert problems == [], problems
    assert all(url.startswith(("file:", "data:")) for url in requests), requests
    assert {p["id"] for p in plots} == {"estimatea-forest", "estimateb-forest"}
    for plot in plots:
        assert plot["laidOut"] and plot["height"] > 200 and plot["width"] > 400, plot
        # three estimates (PPI++, labels alone, judge) x three scopes (pooled + two strata)
        assert [t["n"] for t in plot["traces"]] == [3, 3, 3], plot
        assert plot["points"] == 9 and plot["bars"] >= 9, plot
    assert state["pwned"] == "undefined"
    assert "all rows (stratified)" in state["ticks"] and "source = alpha" in state["ticks"]
    assert f"source = {HOSTILE}" in state["ticks"]
    assert "B is worse than A by more than 0.05" in state["text"]
