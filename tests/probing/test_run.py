"""Running a judge on probes: the capability table, the LM budget, the CI gate."""

from __future__ import annotations

import math

import pytest

import ragjudge
from ragjudge.data import GoldRecord
from ragjudge.exceptions import ConfigurationError
from ragjudge.probing import (
    ProbeOutcome,
    check_probe_bounds,
    generate_probes,
    parse_probe_bounds,
    probe,
)
from ragjudge.testing import scripted_lm

CONTEXTS = [
    "The museum opened to visitors on 2 October 2019 after a long delay.",
    "The new bridge carries trains and cars across the river Elbe.",
    "Nine of the 30 pilots in the trial reported fatigue after the night flights.",
    "The warranty covers manufacturing defects for 24 months from the date of purchase.",
    "The library lends books to residents of the city free of charge.",
]


def _rows() -> list[GoldRecord]:
    return [
        GoldRecord(id=f"r{i}", source="s", contexts=[c], answer="x", meta={"group_id": f"g{i}"})
        for i, c in enumerate(CONTEXTS)
    ]


def test_the_offline_judge_keeps_the_context_s_own_sentences() -> None:
    report = probe(ragjudge.Faithfulness(), _rows(), kinds=["context_sentence"])
    line = report.line("context_sentence")
    assert (line.probes, line.held, line.errors) == (5, 5, 0)
    assert report.sources["context_sentence"]["s"].rate == 1.0
    assert "context_sentence" in report.table() and report.lm_calls == 0


def test_an_lm_judge_is_capped_by_max_lm_calls_and_every_miss_is_counted() -> None:
    no = {"reasoning": "not supported", "verdict": "no", "confidence": 0.0}
    lm, engine = scripted_lm([no] * 10)
    judge = ragjudge.Faithfulness(mode="whole", lm=lm)
    report = probe(judge, _rows(), kinds=["context_sentence"], max_lm_calls=3)
    line = report.line("context_sentence")
    assert line.probes == 3 and len(engine.requests) == 3 and report.lm_calls <= 3
    assert line.held == 0 and line.confident_misses == 3
    assert "judged 3 of 5 probes" in report.note and line.example is not None


def test_a_budget_is_shared_by_the_kinds_in_turn() -> None:
    from ragjudge.probing._run import within_budget

    made = generate_probes(_rows(), kinds=["context_sentence"])
    other = [p.model_copy(update={"kind": "other", "id": p.id + "x"}) for p in made.probes]
    taken = within_budget([*made.probes, *other], rows=4)
    assert sorted(p.kind for p in taken) == ["context_sentence"] * 2 + ["other"] * 2


def test_a_failed_call_is_an_error_not_a_verdict() -> None:
    lm, _ = scripted_lm([RuntimeError("server down")] * 5)
    judge = ragjudge.Faithfulness(mode="whole", lm=lm)
    report = probe(judge, _rows()[:1], kinds=["context_sentence"])
    outcome = report.outcomes[0]
    assert outcome.error and outcome.passed is None and not outcome.held
    assert math.isnan(outcome.score) and report.line("context_sentence").errors == 1


def test_judges_of_other_metrics_are_refused() -> None:
    with pytest.raises(ConfigurationError, match="answer_relevancy"):
        probe(ragjudge.AnswerRelevancy(), _rows())


def test_confident_misses_and_unsure_scores() -> None:
    def outcome(expect: str, score: float, held: bool) -> ProbeOutcome:
        return ProbeOutcome(
            id="a", kind="k", expect=expect, source="s", score=score, passed=None, held=held,
            answer="a", edit="a -> b",
        )  # fmt: skip

    assert outcome("fail", 0.95, False).confident_miss
    assert not outcome("fail", 0.85, False).confident_miss and outcome("fail", 0.85, False).unsure
    assert outcome("pass", 0.05, False).confident_miss
    assert not outcome("pass", 0.05, True).confident_miss


def test_fail_under_reads_kinds_and_sides() -> None:
    assert parse_probe_bounds(["negation=0.9", "must_pass=1"], kinds=["negation"]) == {
        "negation": 0.9,
        "must_pass": 1.0,
    }
    with pytest.raises(ConfigurationError, match="unknown probe kind 'negatoin'"):
        parse_probe_bounds("negatoin=0.9", kinds=["negation"])
    with pytest.raises(ConfigurationError, match="must be in"):
        parse_probe_bounds("all=1.5", kinds=[])
    report = probe(ragjudge.Faithfulness(), _rows(), kinds=["context_sentence"])
    checks = check_probe_bounds({"context_sentence": 1.0, "must_fail": 0.5}, report)
    assert [c.passed for c in checks] == [True, False]  # no must-fail probe: nothing shown


def test_ragjudge_probe_is_the_function_after_the_package_is_imported() -> None:
    import ragjudge.probing  # the package, imported first

    assert callable(ragjudge.probe) and ragjudge.probe.__name__ == "probe"
