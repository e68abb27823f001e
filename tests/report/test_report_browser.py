"""The report in a real browser: headless Chromium loads it without errors and draws every plot.

Skipped only where Chromium is absent and not in CI (`.ci/run` installs Debian's `chromium`).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from conftest import HOSTILE

from ragjudge.cli import main

IN_CI = os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")

# Every plot div: drawn by plotly (full layout, SVG), with marks in it, inside its panel.
PLOTS_JS = """
new Promise(resolve => setTimeout(() => resolve(
  Array.from(document.querySelectorAll('.plotly-graph-div')).map(d => {
    const svg = d.querySelector('svg.main-svg');
    const panel = d.closest('.panel');
    return {
      id: d.id,
      laidOut: !!d._fullLayout,
      traces: (d._fullData || []).length,
      marks: d.querySelectorAll('.trace, .hm, .bars path, .point, .scatterlayer path').length,
      width: svg ? svg.getBoundingClientRect().width : 0,
      height: svg ? svg.getBoundingClientRect().height : 0,
      room: panel ? panel.clientWidth : 0,
    };
  })), 500))
"""


@pytest.fixture(scope="module")
def browser_exe() -> str:
    """The system Chromium (a failure in CI, a skip elsewhere when it is missing)."""
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


@pytest.fixture
def report_file(compiled_judge_file: Path, sample_path: Path, tmp_path: Path) -> Path:
    """A report of the compiled sample judge on the sample rows plus one hostile row."""
    gold = tmp_path / "gold.jsonl"
    lines = sample_path.read_text(encoding="utf-8").splitlines()
    hostile = {
        "id": "hostile-1",
        "source": "</script><script>window.__pwned=3</script>",
        "question": HOSTILE,
        "contexts": ["Paris is the capital of France. " + HOSTILE],
        "answer": "Paris is the capital of Germany. " + HOSTILE,
        "faithful": 1,
    }
    # the same item twice with opposite labels: whatever the judge says, one is a disagreement
    twin = {**hostile, "id": "hostile-2", "faithful": 0}
    gold.write_text(
        "\n".join([*lines, json.dumps(hostile), json.dumps(twin)]) + "\n", encoding="utf-8"
    )
    out = tmp_path / "report.html"
    assert (
        main(
            [
                "report",
                "--judge",
                str(compiled_judge_file),
                "--gold",
                str(gold),
                "--out",
                str(out),
                "--max-disagreements",
                "100",
            ]
        )
        == 0
    )
    return out


def test_report_renders_in_headless_chromium(
    browser_exe: str, report_file: Path, tmp_path: Path
) -> None:
    from cdp_browser import Browser

    with Browser(browser_exe, tmp_path / "profile", width=1280, height=900) as browser:
        browser.open(report_file.resolve().as_uri())
        plots: list[dict[str, Any]] = browser.evaluate(PLOTS_JS)
        state = browser.evaluate(
            "({pwned: typeof window.__pwned, text: document.body.innerText,"
            " ticks: Array.from(document.querySelectorAll('.ytick text')).map(t => t.textContent),"
            " cases: document.querySelectorAll('article.case').length})"
        )
        shot = browser.screenshot(tmp_path / "report.png")
        problems = browser.problems()
        requests = browser.requests()

    assert problems == [], problems
    assert all(url.startswith(("file:", "data:")) for url in requests), requests
    ids = {p["id"] for p in plots}
    assert {
        "plot-agree-ba",
        "plot-agree-auroc",
        "plot-confusion",
        "plot-histogram",
        "plot-roc",
        "plot-reliability",
        "plot-study-history",
        "plot-study-importances",
        "plot-study-pareto",
    } <= ids
    for plot in plots:
        assert plot["laidOut"] and plot["traces"] > 0 and plot["marks"] > 0, plot
        assert plot["height"] > 150 and 200 < plot["width"] <= plot["room"], plot  # fits its panel
    # hostile text is shown as text and never runs
    assert state["pwned"] == "undefined"
    assert "<script>window.__pwned = 1</script>" in state["text"]
    assert "</script><script>window.__pwned=3</script>" in state["ticks"]
    assert state["cases"] >= 1 and ("hostile-1" in state["text"] or "hostile-2" in state["text"])
    # the screenshot is a real, full-page PNG
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 50_000
    height = int.from_bytes(data[20:24], "big")
    assert height > 3000
