"""The pytest plugin: the docs' example test runs in a real pytest process against a compiled
judge, and a failing `assert_faithful` lists the unsupported statements with reasons."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import ragjudge
from ragjudge.data._gold import load_gold
from ragjudge.testing import assert_faithful

REPO = Path(__file__).resolve().parents[2]

EXAMPLE = re.search(r"```python\n(.*?)```", (REPO / "docs" / "pytest.md").read_text(), re.S)


@pytest.fixture(scope="module")
def judge_file(tmp_path_factory: pytest.TempPathFactory, gold_dir: Path) -> Path:
    rows = load_gold(gold_dir / "halueval" / "dev.jsonl", limit=120)
    judge = ragjudge.compile(ragjudge.Faithfulness(lm="local"), gold=rows, n_trials=6, seed=0)
    path = tmp_path_factory.mktemp("judge") / "faithfulness.json"
    judge.save(path)
    return path


def run_pytest(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    # The plugin is named with -p (as the installed entry point would load it); autoloading is
    # off so that an installed copy of the entry point is not registered twice.
    env = {**os.environ, "PYTHONPATH": str(REPO), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    env.pop("RAGJUDGE_JUDGE", None)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "ragjudge.testing._pytest", *args],
        capture_output=True,
        text=True,
        cwd=folder,
        env=env,
        timeout=300,
    )


def test_entry_point_is_declared() -> None:
    text = (REPO / "pyproject.toml").read_text()
    assert '[project.entry-points.pytest11]\nragjudge = "ragjudge.testing._pytest"\n' in text


def test_docs_example_runs(tmp_path: Path, judge_file: Path) -> None:
    assert EXAMPLE is not None
    (tmp_path / "test_answers.py").write_text(EXAMPLE.group(1))
    failing = (
        "from ragjudge.testing import assert_faithful\n\n"
        "def test_fails(ragjudge_judge):\n"
        "    assert_faithful('The tower was built by Napoleon in 1925.',\n"
        "                    ['The Eiffel Tower was completed in 1889.'], judge=ragjudge_judge)\n"
    )
    (tmp_path / "test_failing.py").write_text(failing)
    # The judge file is named in the ini file, relative to the rootdir.
    (tmp_path / "pytest.ini").write_text(f"[pytest]\nragjudge_judge = {judge_file.name}\n")
    (tmp_path / judge_file.name).write_bytes(judge_file.read_bytes())
    out = run_pytest(tmp_path, "test_answers.py")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "2 passed" in out.stdout
    out = run_pytest(tmp_path, "--ragjudge-judge", str(judge_file), "test_failing.py")
    assert out.returncode == 1
    assert "the answer is not faithful to its contexts" in out.stdout
    assert "Unsupported statements:" in out.stdout
    assert re.search(
        r"- The tower was built by Napoleon in 1925\. \(the judge: .*'Napoleon'", out.stdout
    )


def test_assert_faithful_in_process() -> None:
    judge = ragjudge.Faithfulness(lm="local")
    result = assert_faithful(
        "Paris is the capital of France.", "Paris is the capital of France.", judge=judge
    )
    assert result.passed
    with pytest.raises(AssertionError, match=r"required score 0\.9.*Unsupported statements:"):
        assert_faithful(
            "Paris is the capital of France. It has 90 million inhabitants.",
            ["Paris is the capital of France."],
            judge=judge,
            min_score=0.9,
        )
    with pytest.raises(AssertionError, match="could not be judged"):
        assert_faithful("", ["Paris is the capital of France."], judge=judge)
