"""The suite covers every judge: each registered judge class is a case, with an LM and without."""

from __future__ import annotations

from _conformance_cases import CASES

from ragjudge.programs._serialization import registry


def test_every_registered_judge_is_a_case() -> None:
    covered = {type(case.make()).__name__ for case in CASES}
    assert covered == set(registry())


def test_every_lm_judge_runs_on_the_offline_judge_and_on_a_scripted_lm() -> None:
    kinds: dict[str, set[str]] = {}
    for case in CASES:
        kinds.setdefault(type(case.make()).__name__, set()).add(case.lm)
    assert kinds.pop("DeterministicJudge") == {"none"}
    assert kinds.pop("Cascade") == {"scripted"}  # its offline judge is in every case
    assert all(k == {"offline", "scripted"} for k in kinds.values()), kinds
