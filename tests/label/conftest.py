"""Label fixtures: a small traffic file from the shipped examples, the `ragjudge label` server
started as a real process, and headless Chromium driven by Playwright."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from label_helpers import EXAMPLES, Server


@pytest.fixture
def traffic(tmp_path: Path) -> Path:
    """30 rows of the shipped examples (their labels dropped: traffic has none)."""
    lines = EXAMPLES.read_text().splitlines()[:30]
    rows = []
    for line in lines:
        row = json.loads(line)
        row.pop("faithful", None)
        row.pop("hallucinated_spans", None)
        rows.append(json.dumps(row))
    path = tmp_path / "traffic.jsonl"
    path.write_text("\n".join(rows) + "\n")
    return path


@pytest.fixture
def servers(tmp_path: Path) -> Iterator[list[Server]]:
    """Servers a test started; stopped after it."""
    started: list[Server] = []
    yield started
    for server in started:
        if server.proc.poll() is None:
            server.proc.kill()
            server.proc.wait()


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Headless Chromium (Debian's), driven by Playwright; skipped without either."""
    sync_api = pytest.importorskip("playwright.sync_api")
    pytest.importorskip("starlette")
    pytest.importorskip("uvicorn")
    path = _chromium()
    if path is None:
        pytest.skip("no chromium on PATH (.ci/run installs Debian's)")
    with sync_api.sync_playwright() as pw:
        chromium = pw.chromium.launch(
            executable_path=path, headless=True, args=["--no-sandbox", "--disable-gpu"]
        )
        yield chromium
        chromium.close()
