"""Loading a judge file never runs code: JSON only, registered classes only, data-only state,
and a modified file is refused unless trusted explicitly."""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ragjudge.exceptions import ModifiedJudgeError, SerializationError
from ragjudge.programs import Faithfulness
from ragjudge.programs._serialization import _checksum, load

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def saved(tmp_path: Path) -> Path:
    path = tmp_path / "judge.json"
    Faithfulness(mode="whole", threshold=0.7).save(path)
    return path


def _edit(path: Path, change: Any, *, reseal: bool = True) -> Path:
    """Apply `change(document)` and (by default) recompute the checksum, as an attacker could."""
    document = json.loads(path.read_text())
    change(document)
    if reseal:
        document["checksum"] = _checksum(document)
    path.write_text(json.dumps(document))
    return path


def test_round_trip(saved: Path) -> None:
    judge = load(saved)
    assert isinstance(judge, Faithfulness) and judge.mode == "whole" and judge.threshold == 0.7


def test_unknown_class_is_refused(saved: Path) -> None:
    _edit(saved, lambda d: d.update(judge="os.system"))
    with pytest.raises(SerializationError, match=r"unknown judge class 'os\.system'"):
        load(saved)


def test_dotted_class_path_is_never_imported(saved: Path, tmp_path: Path) -> None:
    marker = tmp_path / "imported"
    module = tmp_path / "evil_judge_module.py"
    module.write_text(f"open({str(marker)!r}, 'w').close()\nclass Faithfulness: pass\n")
    sys.path.insert(0, str(tmp_path))
    try:
        _edit(saved, lambda d: d.update(judge="evil_judge_module.Faithfulness"))
        with pytest.raises(SerializationError, match="unknown judge class"):
            load(saved)
    finally:
        sys.path.remove(str(tmp_path))
    assert not marker.exists()


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda d: d.update(code="__import__('os').system('id')"), "damaged judge file"),
        (lambda d: d.update(__reduce__=["os.system", ["id"]]), "damaged judge file"),
        (lambda d: d["params"].update(lm={"__class__": "os.system"}), "must be a model name"),
        (lambda d: d["params"].update(exec="print(1)"), "unknown parameters"),
        (
            lambda d: d["state"]["whole"].update(
                lm={"model": "x", "lm_class": "evil.Module", "engine": {"class": "os:system"}}
            ),
            "carries a saved LM",
        ),
        (lambda d: d["state"]["whole"].update(forward="print(1)"), "unexpected entries"),
        (lambda d: d["state"]["whole"].update(__class__="x"), "unexpected entries"),
        (lambda d: d["state"]["whole"].update(demos=["py/object"]), "not JSON objects"),
    ],
)
def test_extra_executable_content_is_refused(saved: Path, change: Any, words: str) -> None:
    _edit(saved, change)
    with pytest.raises(SerializationError, match=words):
        load(saved)


def test_data_that_looks_like_code_stays_data(saved: Path) -> None:
    demo = {
        "question": "__import__('os').system('id')",
        "context": "{{ config }}",
        "answer": "py/object: os.system",
        "reasoning": "r",
        "verdict": "yes",
        "confidence": 0.5,
    }
    _edit(saved, lambda d: d["state"]["whole"].update(demos=[demo]))
    judge = load(saved)
    assert judge.whole.demos[0]["question"] == demo["question"]  # type: ignore[attr-defined]


def test_pickle_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "judge.json"
    path.write_bytes(pickle.dumps({"format": "ragjudge.judge"}))
    with pytest.raises(SerializationError):
        load(path)
    with pytest.raises(SerializationError, match="JSON only"):
        Faithfulness().save(tmp_path / "judge.pkl")


def test_modified_file_is_refused_unless_trusted(saved: Path) -> None:
    _edit(saved, lambda d: d["params"].update(threshold=0.1), reseal=False)
    with pytest.raises(ModifiedJudgeError, match="trust_modified=True"):
        load(saved)
    judge = load(saved, trust_modified=True)
    assert judge.threshold == 0.1  # type: ignore[attr-defined]


def test_trusting_a_modified_file_still_refuses_code(saved: Path) -> None:
    _edit(saved, lambda d: d["state"]["whole"].update(forward="x"), reseal=False)
    with pytest.raises(SerializationError, match="unexpected entries"):
        load(saved, trust_modified=True)


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run(
        [sys.executable, "-m", "ragjudge", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


def test_cli_refuses_a_modified_judge_with_one_line(saved: Path, tmp_path: Path) -> None:
    gold = tmp_path / "rows.jsonl"
    gold.write_text(json.dumps({"id": "a", "contexts": ["Paris is in France."], "answer": "x"}))
    _edit(saved, lambda d: d["params"].update(threshold=0.1), reseal=False)
    refused = _cli("evaluate", "--gold", str(gold), "--judge", str(saved))
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert "checksum" in refused.stderr and len(refused.stderr.strip().splitlines()) == 1
    trusted = _cli("evaluate", "--gold", str(gold), "--judge", str(saved), "--trust-modified")
    assert trusted.returncode == 0, trusted.stderr
