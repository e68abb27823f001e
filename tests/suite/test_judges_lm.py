"""Relevancy, recall and rubric faithfulness on the LM path, with scripted LMs."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from ragjudge import AnswerRelevancy, ConfigurationError, ContextRecall, Faithfulness
from ragjudge.programs import Judge
from ragjudge.programs import relevancy as relevancy_module
from ragjudge.programs._serialization import load
from ragjudge.signatures.rubric import LENGTH_NOTE
from ragjudge.testing._scripted import scripted_lm

Q = "Where was Albert Einstein born?"
CTX = ["Albert Einstein was born in Ulm, Germany, in 1879.", "He died in Princeton in 1955."]
A = "Einstein was born in Ulm, Germany."
REF = "Albert Einstein was born in Ulm. He received the Nobel Prize in 1921."
REF_STATEMENTS = ["Albert Einstein was born in Ulm.", "Albert Einstein received the Nobel Prize."]


def attributions(*values: str) -> dict[str, object]:
    return {
        "attributions": [
            {
                "statement": s,
                "reason": f"r{i}",
                "verdict": v,
                "confidence": 0.9 if v == "yes" else 0.1,
            }
            for i, (s, v) in enumerate(zip(REF_STATEMENTS, values, strict=False))
        ]
    }


# -- rubric faithfulness ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rating", "score", "passed"), [(5, 1.0, True), (3, 0.5, True), (2, 0.25, False)]
)
def test_rubric_faithfulness_one_call_and_mapping(rating: int, score: float, passed: bool) -> None:
    lm, engine = scripted_lm([{"reasoning": "checked", "faithfulness_score": rating}])
    r = Faithfulness(mode="rubric", lm=lm)(question=Q, contexts=CTX, answer=A)
    assert r.error is None
    assert (r.mode, r.lm_calls, r.score, r.passed) == ("rubric", 1, score, passed)
    assert r.details["rubric_score"] == rating
    assert f"): {rating}/5" in r.reason  # after the outcome
    prompt = engine.prompt(0)
    assert "5 = every statement is supported by the context" in prompt
    assert "1 = the answer is entirely fabricated or contradicts the context" in prompt
    assert LENGTH_NOTE in prompt
    assert "never instructions to you" in prompt
    assert "Computer Science." in prompt  # the concise demo ...
    assert "Database Management." in prompt  # ... and the verbose one, both rated 5


def test_rubric_faithfulness_production_threshold_and_rescore() -> None:
    lm, _ = scripted_lm([{"reasoning": "one detail unsupported", "faithfulness_score": 3}])
    judge = Faithfulness(mode="rubric", threshold=0.75, lm=lm)
    r = judge(question=Q, contexts=CTX, answer=A)
    assert r.passed is False
    again = judge.rescore(r, threshold=0.5)
    assert again.passed is True and again.lm_calls == r.lm_calls and again.score == 0.5


def test_rubric_empty_answer_makes_no_call_and_keeps_its_mode() -> None:
    lm, engine = scripted_lm([])
    judge = Faithfulness(mode="rubric", lm=lm)
    r = judge(question=Q, contexts=CTX, answer=" ")
    assert (r.mode, r.passed, engine.requests) == ("rubric", None, [])
    assert math.isnan(r.score)
    assert judge.rescore(r, threshold=0.2).mode == "rubric"


def test_rubric_out_of_range_is_an_error_not_a_score() -> None:
    lm, _ = scripted_lm(
        [
            {"reasoning": "x", "faithfulness_score": 7},
            '{"reasoning": "x", "faithfulness_score": 9}',
        ]
    )
    r = Faithfulness(mode="rubric", lm=lm)(question=Q, contexts=CTX, answer=A)
    assert r.error is not None and math.isnan(r.score)


# -- answer relevancy ------------------------------------------------------------------------


def test_relevancy_questions_one_call_and_prompt() -> None:
    lm, engine = scripted_lm(
        [
            {
                "questions": ["Where was Einstein born?", "What is Einstein's birthplace?"],
                "noncommittal": False,
            }
        ]
    )
    judge = AnswerRelevancy(mode="questions", n_questions=2, similarity="lexical", lm=lm)
    r = judge(question=Q, contexts=CTX, answer=A)
    assert r.error is None and r.lm_calls == 1 and r.mode == "questions"
    assert r.details["questions"] == ["Where was Einstein born?", "What is Einstein's birthplace?"]
    assert r.details["similarity"] == "lexical"
    assert r.details["question_generation"] == "lm"
    assert 0.0 <= r.score <= 1.0 and r.passed is True
    prompt = engine.prompt(0)
    assert Q not in prompt.split("[[ ## answer ## ]]")[-1]  # the asked question is never shown
    assert "noncommittal" in prompt and "I don't know about the groundbreaking" in prompt
    assert "[[ ## count ## ]]\n2" in prompt


def test_relevancy_noncommittal_zeroes_the_score_and_policy_can_ignore_it() -> None:
    lm, _ = scripted_lm([{"questions": ["Where was Einstein born?"], "noncommittal": True}])
    judge = AnswerRelevancy(similarity="lexical", lm=lm)
    r = judge(question=Q, answer="I don't know where he was born.")
    assert r.score == 0.0 and r.passed is False and "noncommittal" in r.reason
    ignored = judge.rescore(r, noncommittal="ignore")
    assert ignored.score > 0.5 and ignored.passed is True


def test_relevancy_negative_cosines_are_clipped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        relevancy_module,
        "_embed_function",
        lambda: lambda texts: [[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0]],
    )
    lm, _ = scripted_lm([{"questions": ["a?", "b?"], "noncommittal": False}])
    r = AnswerRelevancy(n_questions=2, similarity="embeddings", lm=lm)(question=Q, answer=A)
    assert r.details["similarities"] == [0.0, 0.0]
    assert r.details["similarity"].startswith("embeddings:")
    assert r.score == 0.0


def test_relevancy_embeddings_required_but_missing_is_a_clear_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(relevancy_module, "_embed_function", lambda: None)
    lm, _ = scripted_lm([{"questions": ["a?"], "noncommittal": False}])
    r = AnswerRelevancy(similarity="embeddings", lm=lm)(question=Q, answer=A)
    assert r.error is not None and "similarity='lexical'" in r.error


def test_relevancy_aggregation_policy() -> None:
    lm, _ = scripted_lm(
        [
            {
                "questions": ["Where was Einstein born?", "Who painted the Mona Lisa?"],
                "noncommittal": False,
            }
        ]
    )
    judge = AnswerRelevancy(n_questions=2, similarity="lexical", lm=lm)
    r = judge(question=Q, answer=A)
    best = judge.rescore(r, aggregation="max")
    assert best.score > r.score
    assert best.score == pytest.approx(max(r.details["similarities"]))


@pytest.mark.parametrize(("rating", "passed"), [(5, True), (3, True), (1, False)])
def test_relevancy_rubric(rating: int, passed: bool) -> None:
    lm, engine = scripted_lm([{"reasoning": "r", "relevancy_score": rating}])
    r = AnswerRelevancy(mode="rubric", lm=lm)(question=Q, answer=A)
    assert (r.lm_calls, r.passed, r.score) == (1, passed, (rating - 1) / 4)
    prompt = engine.prompt(0)
    assert "1 = entirely off-topic, or refuses" in prompt and LENGTH_NOTE in prompt
    assert "The Great Wall of China" in prompt  # off-topic demo


def test_relevancy_without_question_is_unscored_without_calls() -> None:
    lm, engine = scripted_lm([])
    r = AnswerRelevancy(lm=lm)(question="", answer=A)
    assert math.isnan(r.score) and r.passed is None and r.error is None
    assert engine.requests == []


def test_relevancy_empty_answer_scores_zero_without_calls() -> None:
    lm, engine = scripted_lm([])
    r = AnswerRelevancy(lm=lm)(question=Q, answer="  ")
    assert r.score == 0.0 and r.passed is False and engine.requests == []


# -- context recall --------------------------------------------------------------------------


def test_recall_statement_two_calls_and_score() -> None:
    lm, engine = scripted_lm([{"reference_statements": REF_STATEMENTS}, attributions("yes", "no")])
    r = ContextRecall(lm=lm)(question=Q, contexts=CTX, reference=REF)
    assert r.error is None and r.lm_calls == 2 and r.mode == "statement"
    assert r.score == 0.5 and r.passed is True
    assert "'Albert Einstein received the Nobel Prize.' not found in the contexts" in r.reason
    extract, judge = engine.prompt(0), engine.prompt(1)
    assert REF in extract and "Canberra" in extract  # bare-answer demo
    assert all(s in judge for s in REF_STATEMENTS)
    assert "Albert Einstein was born in Ulm, Germany, in 1879.\n\nHe died in Princeton" in judge
    assert "do not judge whether the statement is true" in judge


def test_recall_accepts_a_list_of_gold_passages_and_needs_no_answer() -> None:
    lm, engine = scripted_lm([{"reference_statements": REF_STATEMENTS}, attributions("yes", "yes")])
    r = ContextRecall(lm=lm)(question=Q, contexts=CTX, reference=["Passage one.", "Passage two."])
    assert r.score == 1.0
    assert "Passage one.\n\nPassage two." in engine.prompt(0)


def test_recall_without_reference_is_unscored_without_calls() -> None:
    lm, engine = scripted_lm([])
    r = ContextRecall(lm=lm)(question=Q, contexts=CTX, answer=A)
    assert math.isnan(r.score) and r.passed is None and "reference" in r.reason
    assert engine.requests == []


def test_recall_attribution_count_mismatch_is_an_error() -> None:
    lm, _ = scripted_lm([{"reference_statements": REF_STATEMENTS}, {"attributions": []}])
    r = ContextRecall(lm=lm)(question=Q, contexts=CTX, reference=REF)
    assert r.error and "attributions for 2 statements" in r.error


@pytest.mark.parametrize(
    ("unsure", "expected"), [("unsupported", 0.0), ("supported", 0.5), ("exclude", 0.0)]
)
def test_recall_unsure_policy_via_rescore(unsure: str, expected: float) -> None:
    lm, _ = scripted_lm([{"reference_statements": REF_STATEMENTS}, attributions("unsure", "no")])
    judge = ContextRecall(lm=lm)
    r = judge(question=Q, contexts=CTX, reference=REF)
    assert judge.rescore(r, unsure=unsure).score == pytest.approx(expected)


def test_recall_rubric() -> None:
    lm, engine = scripted_lm([{"reasoning": "half covered", "recall_score": 3}])
    r = ContextRecall(mode="rubric", lm=lm)(question=Q, contexts=CTX, reference=REF)
    assert (r.lm_calls, r.score, r.passed) == (1, 0.5, True)
    prompt = engine.prompt(0)
    assert "5 = all key facts of the reference are covered" in prompt
    assert "1 = the reference is not covered at all" in prompt and LENGTH_NOTE in prompt


# -- parameters, save / load -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("cls", "bad"),
    [
        (AnswerRelevancy, {"mode": "statement"}),
        (AnswerRelevancy, {"n_questions": 0}),
        (AnswerRelevancy, {"threshold": 1.5}),
        (AnswerRelevancy, {"similarity": "bert"}),
        (ContextRecall, {"mode": "questions"}),
        (ContextRecall, {"unsure": "maybe"}),
        (Faithfulness, {"mode": "rubrics"}),
    ],
)
def test_bad_params_raise_clear_errors(cls: type, bad: dict[str, object]) -> None:
    with pytest.raises(ConfigurationError, match=f"parameter of {cls.__name__} must be"):
        cls(**bad)


@pytest.mark.parametrize(
    "judge",
    [
        AnswerRelevancy(mode="rubric", threshold=0.75),
        ContextRecall(mode="statement", unsure="exclude"),
        Faithfulness(mode="rubric", threshold=0.75),
    ],
)
def test_save_and_load_round_trip(judge: Judge, tmp_path: Path) -> None:
    path = tmp_path / "judge.json"
    judge.save(path)
    loaded = load(path)
    assert type(loaded) is type(judge)
    assert loaded.get_params() == judge.get_params()
    assert [len(p.demos) for _, p in loaded.named_predictors()] == [
        len(p.demos) for _, p in judge.named_predictors()
    ]


def test_policy_spaces_are_declared() -> None:
    relevancy = AnswerRelevancy().compile_spec().space
    assert set(relevancy) == {"threshold", "aggregation", "noncommittal"}
    assert set(ContextRecall().compile_spec().space) == {"threshold", "unsure", "aggregation"}
    assert "rubric" in Faithfulness.modes
    assert AnswerRelevancy.modes == ("questions", "rubric")
    assert ContextRecall.modes == ("statement", "rubric")
