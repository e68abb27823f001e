"""Suite call counts and Ensemble aggregation (median / share of yes / mean), with scripted LMs."""

from __future__ import annotations

import math

import dspy
import pytest

from ragjudge import (
    AnswerRelevancy,
    ConfigurationError,
    ContextRecall,
    Ensemble,
    Faithfulness,
    Suite,
)
from ragjudge.exceptions import SerializationError
from ragjudge.programs._serialization import load
from ragjudge.testing._scripted import ScriptedEngine, scripted_lm

Q = "Where was Albert Einstein born?"
CTX = ["Albert Einstein was born in Ulm, Germany, in 1879."]
A = "Einstein was born in Ulm."
REF = "Albert Einstein was born in Ulm."


def verdict(statement: str, value: str = "yes") -> dict[str, object]:
    return {"statement": statement, "reason": "r", "verdict": value, "confidence": 0.9}


def test_suite_statement_mode_makes_five_calls() -> None:
    lm, engine = scripted_lm(
        [
            {"statements": [A]},
            {"verdicts": [verdict(A)]},
            {"questions": ["Where was Einstein born?"], "noncommittal": False},
            {"reference_statements": [REF]},
            {"attributions": [verdict(REF)]},
        ]
    )
    suite = Suite([Faithfulness(), AnswerRelevancy(similarity="lexical"), ContextRecall()], lm=lm)
    out = suite(question=Q, contexts=CTX, answer=A, reference=REF)
    assert out.lm_calls == 5 == len(engine.requests)
    assert {k: v.lm_calls for k, v in out.results.items()} == {
        "faithfulness": 2,
        "answer_relevancy": 1,
        "context_recall": 2,
    }
    assert all(r.error is None and r.passed for r in out.results.values())
    assert out["context_recall"].score == 1.0
    assert "suite: 5 LM calls" in out.format()


def test_suite_shares_answer_statements_when_the_reference_is_the_answer() -> None:
    lm, engine = scripted_lm(
        [
            {"statements": [A]},
            {"verdicts": [verdict(A)]},
            {"questions": ["Where was Einstein born?"], "noncommittal": False},
            {"attributions": [verdict(A, "no")]},
        ]
    )
    suite = Suite([Faithfulness(), AnswerRelevancy(similarity="lexical"), ContextRecall()], lm=lm)
    out = suite(question=Q, contexts=CTX, answer=A, reference=A)
    assert out.lm_calls == 4 == len(engine.requests)
    recall = out["context_recall"]
    assert recall.lm_calls == 1 and recall.details["reference_statements_from"] == "faithfulness"
    assert [s.text for s in recall.statements] == [A] and recall.score == 0.0


def test_recall_with_given_reference_statements_skips_extraction() -> None:
    lm, engine = scripted_lm([{"attributions": [verdict("fact one"), verdict("fact two", "no")]}])
    r = ContextRecall(lm=lm)(
        question=Q, contexts=CTX, reference_statements=["fact one", "fact two"]
    )
    assert r.lm_calls == 1 == len(engine.requests) and r.score == 0.5


def test_suite_rubric_mode_makes_three_calls_and_batch_keeps_ids() -> None:
    replies: list[dict[str, object]] = []
    for _ in range(2):
        replies += [
            {"reasoning": "ok", "faithfulness_score": 4},
            {"reasoning": "ok", "relevancy_score": 5},
            {"reasoning": "ok", "recall_score": 2},
        ]
    lm, engine = scripted_lm(replies)
    suite = Suite(Suite.default_judges("rubric"), lm=lm)
    rows = [
        {"id": "r1", "question": Q, "contexts": CTX, "answer": A, "reference": REF},
        {"id": "r2", "question": Q, "contexts": CTX, "answer": A, "reference": REF},
    ]
    out = suite.batch(rows)
    assert [o.lm_calls for o in out] == [3, 3] and len(engine.requests) == 6
    assert [o.id for o in out] == ["r1", "r2"]
    assert out[1]["context_recall"].id == "r2" and out[1]["context_recall"].passed is False


def test_suite_keys_duplicate_metrics_and_refuses_non_judges() -> None:
    suite = Suite([Faithfulness(), Faithfulness(mode="whole")])
    assert suite.keys == ["faithfulness", "faithfulness#2"]
    with pytest.raises(ConfigurationError):
        Suite([object()])  # type: ignore[list-item]
    with pytest.raises(ConfigurationError):
        Suite([])


# -- ensembles --------------------------------------------------------------------------------


def test_repeat_median_of_rubric_ratings_and_spread() -> None:
    lm, engine = scripted_lm([{"reasoning": "a", "faithfulness_score": s} for s in (2, 5, 4)])
    ens = Ensemble.of(Faithfulness(mode="rubric", lm=lm), repeat=3)
    r = ens(question=Q, contexts=CTX, answer=A)
    assert r.error is None and r.metric == "faithfulness" and r.mode == "rubric"
    assert r.lm_calls == 3 and len(engine.requests) == 3
    assert r.details["aggregation"] == "median" and r.details["ratings"] == [2, 5, 4]
    assert r.score == pytest.approx(0.75) and r.passed is True  # median 4
    spread = r.details["spread"]
    assert spread["min"] == 0.25 and spread["max"] == 1.0 and spread["range"] == 0.75
    assert spread["agreement"] == pytest.approx(2 / 3)
    assert [m["score"] for m in r.details["members"]] == [0.25, 1.0, 0.75]
    assert [m["repeat"] for m in r.details["members"]] == [0, 1, 2]
    # re-scoring the members under another threshold needs no LM call
    strict = ens.rescore(r, threshold=0.9)
    assert strict.passed is False and len(engine.requests) == 3


def test_the_share_of_members_that_say_yes_is_cut_at_the_threshold() -> None:
    lm, _ = scripted_lm(
        [
            {"reasoning": "a", "verdict": "yes", "confidence": 0.9},
            {"reasoning": "b", "verdict": "no", "confidence": 0.2},
            {"reasoning": "c", "verdict": "yes", "confidence": 0.8},
        ]
    )
    ens = Ensemble.of(Faithfulness(mode="whole", lm=lm), repeat=3)
    r = ens(question=Q, contexts=CTX, answer=A)
    assert r.details["aggregation"] == "share"
    assert r.score == pytest.approx(2 / 3) and r.passed is True
    assert r.reason.startswith("0.67 passes (at least the threshold 0.50): 2 of 3 members say yes")
    # One cut on the share, wherever it is (compile refits it on this score): one member of
    # three saying yes passes at 0.3 and fails at 0.4.
    one = ens.rescore(r, threshold=0.3)
    assert one.passed is True and ens.rescore(r, threshold=0.7).passed is False
    # Under aggregation="mean" the share is the mean confidence, cut once (not per member).
    confident = Ensemble.of(Faithfulness(mode="whole", aggregation="mean", lm=lm), repeat=3)
    mean = confident.rescore(r, aggregation="mean", threshold=0.6)
    assert mean.score == pytest.approx((0.9 + 0.2 + 0.8) / 3) and mean.passed is True
    assert [m["passed"] for m in mean.details["members"]] == [True, False, True]


def test_a_calibrated_ensemble_calibrates_its_aggregate_once() -> None:
    lm, _ = scripted_lm(
        [
            {"reasoning": "a", "verdict": "yes", "confidence": 0.9},
            {"reasoning": "b", "verdict": "no", "confidence": 0.1},
        ]
    )
    ens = Ensemble.of(Faithfulness(mode="whole", aggregation="mean", lm=lm), repeat=2)
    r = ens(question=Q, contexts=CTX, answer=A)
    cal = ens.rescore(r, calibration=[8.0, -2.0], threshold=0.9)
    value = 1 / (1 + math.exp(-(8.0 * 0.5 - 2.0)))  # the mean 0.5, calibrated
    assert cal.score == pytest.approx(value) and cal.passed is (value >= 0.9)


def test_tied_verdicts_pass_at_a_threshold_of_one_half() -> None:
    lm, _ = scripted_lm(
        [
            {"reasoning": "a", "verdict": "yes", "confidence": 0.9},
            {"reasoning": "b", "verdict": "no", "confidence": 0.2},
        ]
    )
    ens = Ensemble.of(Faithfulness(mode="whole", lm=lm), repeat=2)
    r = ens(question=Q, contexts=CTX, answer=A)
    assert r.score == 0.5 and r.passed is True  # half the members: at least the threshold
    assert ens.rescore(r, threshold=0.51).passed is False


def test_mean_of_ratios_across_an_ensemble_of_two_lms() -> None:
    lm_a, engine_a = scripted_lm(
        [
            {"reference_statements": ["s1", "s2"]},
            {"attributions": [verdict("s1"), verdict("s2", "no")]},
        ],
        model="scripted/a",
    )
    lm_b, engine_b = scripted_lm(
        [
            {"reference_statements": ["s1", "s2"]},
            {"attributions": [verdict("s1"), verdict("s2")]},
        ],
        model="scripted/b",
    )
    ens = Ensemble.of(ContextRecall(), lms=[lm_a, lm_b])
    r = ens(question=Q, contexts=CTX, reference=REF)
    assert r.details["aggregation"] == "mean"
    assert r.score == pytest.approx(0.75) and r.lm_calls == 4
    assert [m["lm"] for m in r.details["members"]] == ["scripted/a", "scripted/b"]
    assert len(engine_a.requests) == len(engine_b.requests) == 2


def test_a_failed_member_is_kept_and_left_out_of_the_aggregate() -> None:
    lm, _ = scripted_lm(["nonsense", "more nonsense", {"reasoning": "ok", "relevancy_score": 5}])
    r = Ensemble.of(AnswerRelevancy(mode="rubric", lm=lm), repeat=2)(question=Q, answer=A)
    assert r.error is None and r.score == 1.0
    assert r.details["members"][0]["result"]["error"]
    assert r.details["spread"]["failed"] == 1


def test_every_member_failing_is_the_items_error() -> None:
    lm, _ = scripted_lm(["bad", "bad", "bad", "bad"])
    r = Ensemble.of(AnswerRelevancy(mode="rubric", lm=lm), repeat=2)(question=Q, answer=A)
    assert r.error is not None and "every member failed" in r.error and math.isnan(r.score)


def test_repeats_have_distinct_cache_keys_and_are_each_cached() -> None:
    dspy.configure_cache(enable_disk_cache=False, enable_memory_cache=True)
    engine = ScriptedEngine([{"reasoning": "r", "faithfulness_score": s} for s in (3, 4, 5)])
    lm = dspy.LM("scripted/cached", engine=engine, num_retries=0, cache=True)
    ens = Ensemble.of(Faithfulness(mode="rubric", lm=lm), repeat=3)
    first = ens(question=Q, contexts=CTX, answer=A)
    assert len(engine.requests) == 3  # three distinct requests, not one cached thrice
    assert first.details["ratings"] == [3, 4, 5]
    again = ens(question=Q, contexts=CTX, answer=A)  # every repeat is now a cache hit
    assert len(engine.requests) == 3 and again.lm_calls == 0
    assert again.details["ratings"] == [3, 4, 5]


def test_ensemble_params_are_checked_and_it_saves(tmp_path: object) -> None:
    with pytest.raises(ConfigurationError, match="registered judge"):
        Ensemble(judge="Nope")
    with pytest.raises(ConfigurationError, match="repeat"):
        Ensemble(repeat=0)
    ens = Ensemble(judge="ContextRecall", mode="rubric", repeat=3, lm="local")
    path = tmp_path / "ens.json"  # type: ignore[operator]
    ens.save(path)
    loaded = load(path)
    assert isinstance(loaded, Ensemble) and loaded.inner.mode == "rubric" and loaded.repeat == 3
    assert loaded.metric == "context_recall"
    lm, _ = scripted_lm([])
    with pytest.raises(SerializationError, match="named by strings"):
        Ensemble.of(ContextRecall(), lms=[lm]).save(path)


def test_a_members_cut_reply_counts_as_its_call() -> None:
    from ragjudge.lm import ReplyCutError

    replies: list[dict[str, object] | Exception] = [
        {"reasoning": "a", "faithfulness_score": 4},
        ReplyCutError("the reply reached max_tokens=480"),
        ReplyCutError("the reply reached max_tokens=96"),  # its one retry, cut too
        {"reasoning": "c", "faithfulness_score": 5},
    ]
    lm, engine = scripted_lm(replies)
    r = Ensemble.of(Faithfulness(mode="rubric", lm=lm), repeat=3)(
        question=Q, contexts=CTX, answer=A
    )
    assert len(engine.requests) == 4
    assert [m["result"]["lm_calls"] for m in r.details["members"]] == [1, 2, 1]
    assert r.lm_calls == 4
