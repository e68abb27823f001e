"""Saved judges: versioned JSON round trips; damaged, modified or foreign files are refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import ragjudge
from ragjudge.programs._serialization import FORMAT_VERSION, _checksum


def _save(tmp_path: Path, judge: ragjudge.Judge | None = None) -> Path:
    path = tmp_path / "judges" / "f.json"
    (judge or ragjudge.Faithfulness(mode="whole", threshold=0.7, unsure="exclude")).save(path)
    return path


def _rewrite(path: Path, change: dict[str, object], *, fix_checksum: bool = True) -> None:
    doc = json.loads(path.read_text())
    doc.update(change)
    if fix_checksum:
        doc["checksum"] = _checksum(doc)
    path.write_text(json.dumps(doc))


def test_round_trip_keeps_params_demos_and_learned_state(tmp_path: Path) -> None:
    judge = ragjudge.Faithfulness(mode="whole", threshold=0.7, unsure="exclude", scale=5)
    path = _save(tmp_path, judge)
    doc = json.loads(path.read_text())
    assert doc["format"] == "ragjudge.judge" and doc["format_version"] == FORMAT_VERSION
    assert doc["judge"] == "Faithfulness"
    assert set(doc["signatures"]) == {name for name, _ in judge.named_predictors()}
    assert {"ragjudge", "dspy", "python"} <= set(doc["provenance"])
    same = ragjudge.load(path)
    assert same.get_params() == judge.get_params()
    for (name, a), (_, b) in zip(judge.named_predictors(), same.named_predictors(), strict=True):
        assert len(a.demos) == len(b.demos), name
        assert a.signature.instructions == b.signature.instructions
    answer = dict(
        question="Where was Einstein born?",
        contexts=["Einstein was born in Ulm."],
        answer="Einstein was born in Ulm.",
    )
    assert same(**answer).score == judge(**answer).score


def test_demos_keep_only_signature_fields(tmp_path: Path) -> None:
    import dspy

    judge = ragjudge.Faithfulness()
    judge.whole.demos = [
        dspy.Example(
            id="gold-17",
            faithful=1,
            question="q",
            context="c",
            answer="a",
            reasoning="r",
            verdict="yes",
            confidence=0.9,
        )
    ]
    doc = json.loads(_save(tmp_path, judge).read_text())
    demo = doc["state"]["whole"]["demos"][0]
    assert set(demo) == {"question", "context", "answer", "reasoning", "verdict", "confidence"}


def test_pickle_paths_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ragjudge.SerializationError, match="JSON only"):
        ragjudge.Faithfulness().save(tmp_path / "j.pkl")


def test_unknown_format_version_is_refused(tmp_path: Path) -> None:
    path = _save(tmp_path)
    _rewrite(path, {"format_version": 99})
    with pytest.raises(ragjudge.UnsupportedFormatVersionError, match="version 99"):
        ragjudge.load(path)


def test_modified_file_is_refused_unless_trusted(tmp_path: Path) -> None:
    path = _save(tmp_path)
    doc = json.loads(path.read_text())
    doc["params"]["threshold"] = 0.1
    path.write_text(json.dumps(doc))
    with pytest.raises(ragjudge.ModifiedJudgeError, match="modified"):
        ragjudge.load(path)
    assert ragjudge.load(path, trust_modified=True).threshold == 0.1


def test_changed_signature_is_refused(tmp_path: Path) -> None:
    path = _save(tmp_path)
    doc = json.loads(path.read_text())
    _rewrite(path, {"signatures": {**doc["signatures"], "judge": "0000000000000000"}})
    with pytest.raises(ragjudge.SerializationError, match="signatures of judge changed"):
        ragjudge.load(path)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "not valid JSON"),
        ('{"format": "something else"}', "not a ragjudge judge file"),
        ("[1, 2]", "not a ragjudge judge file"),
    ],
)
def test_damaged_files_are_refused(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(ragjudge.SerializationError, match=message):
        ragjudge.load(path)


def test_unknown_class_and_extra_content_are_refused(tmp_path: Path) -> None:
    path = _save(tmp_path)
    _rewrite(path, {"judge": "os.system"})
    with pytest.raises(ragjudge.SerializationError, match="unknown judge class"):
        ragjudge.load(path)
    path = _save(tmp_path)
    _rewrite(path, {"__reduce__": "os.system('echo pwned')"})
    with pytest.raises(ragjudge.SerializationError, match="damaged judge file"):
        ragjudge.load(path)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ragjudge.SerializationError, match="file not found"):
        ragjudge.load(tmp_path / "nope.json")


def test_offline_params_travel_in_the_file(tmp_path: Path, sample_path: Path) -> None:
    from ragjudge.offline.model import fit_offline

    judge = ragjudge.Faithfulness()
    judge.offline_params_ = fit_offline(ragjudge.load_gold(sample_path), seed=0)
    same = ragjudge.load(_save(tmp_path, judge))
    assert same.offline_params_ == judge.offline_params_
    assert same.resolved_lm().model == judge.resolved_lm().model  # versioned by the params
