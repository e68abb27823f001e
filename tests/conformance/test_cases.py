"""The suite covers every judge: each registered judge class is a case, with an LM and without,
in every mode and route it has, calibrated, and inside an ensemble; and `Suite` (which runs
judges rather than being one, so it is not registered) has cases of its own."""

from __future__ import annotations

from _conformance_cases import CASES
from test_suite_judges import SUITES

import ragjudge.programs as programs
from ragjudge.programs import Cascade, Ensemble, Suite
from ragjudge.programs._base import Judge
from ragjudge.programs._serialization import registry
from ragjudge.programs.cascade import ROUTES


def test_every_registered_judge_is_a_case() -> None:
    covered = {type(case.make()).__name__ for case in CASES}
    assert covered == set(registry())


def test_every_judge_class_the_package_exports_is_covered() -> None:
    """A judge class exported but not registered (as `Suite`) would escape the cases above."""
    exported = {
        name
        for name in programs.__all__
        if isinstance(getattr(programs, name), type)
        and (issubclass(getattr(programs, name), Judge) or getattr(programs, name) is Suite)
        and name != "Judge"
    }
    assert exported - set(registry()) == {"Suite"} and SUITES


def test_every_lm_judge_runs_on_the_offline_judge_and_on_a_scripted_lm() -> None:
    kinds: dict[str, set[str]] = {}
    for case in CASES:
        kinds.setdefault(type(case.make()).__name__, set()).add(case.lm)
    assert kinds.pop("DeterministicJudge") == {"none"}
    assert kinds.pop("Cascade") == {"offline", "scripted"}  # the offline route asks no LM
    assert kinds.pop("Ensemble") == {"offline", "scripted", "none"}
    assert all(k == {"offline", "scripted"} for k in kinds.values()), kinds


def test_every_mode_route_and_repeated_judge_is_a_case() -> None:
    judges = [case.make() for case in CASES]
    for cls in registry().values():
        if cls is Ensemble:
            continue
        modes = {j.compile_spec().mode for j in judges if type(j) is cls}
        assert set(getattr(cls, "modes", ())) <= modes, (cls.__name__, modes)
    routes = {j.route for j in judges if isinstance(j, Cascade)}
    assert routes == set(ROUTES)
    repeated = {j.inner.__class__.__name__ for j in judges if isinstance(j, Ensemble)}
    assert repeated == set(registry()) - {"Ensemble", "Cascade"}
    calibrated = {
        type(j).__name__
        for j in judges
        if (spec := j.compile_spec()).calibration and j.policy().get(spec.calibration)
    }
    assert calibrated == {"Faithfulness", "DeterministicJudge", "Ensemble"}
