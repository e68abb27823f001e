"""`judge.as_metric()`: a compiled judge as the metric of a user's own DSPy RAG program."""

from __future__ import annotations

import inspect
from pathlib import Path

import dspy
import pytest
from dspy.utils.dummies import DummyLM

import ragjudge
from ragjudge.data._gold import load_gold
from ragjudge.exceptions import ConfigurationError
from ragjudge.programs._metric import JudgeMetric

PASSAGES = {
    "Eiffel": "The Eiffel Tower was completed in 1889 and stands in Paris.",
    "Nile": "The Nile flows north through eleven countries into the Mediterranean Sea.",
    "Everest": "Mount Everest is 8,849 metres tall and lies on the Nepal-China border.",
    "Danube": "The Danube flows through ten countries and ends in the Black Sea.",
}
# Two questions get faithful answers, two get answers the contexts do not support.
ANSWERS = {
    "When was the Eiffel Tower completed?": "The Eiffel Tower was completed in 1889.",
    "Where does the Nile flow?": "The Nile flows north through eleven countries into the "
    "Mediterranean Sea.",
    "How tall is Mount Everest?": "Mount Everest is 9,300 metres tall and was first climbed "
    "by Napoleon in 1802.",
    "Where does the Danube end?": "The Danube ends in the Caspian Sea near Moscow, built "
    "by Roman engineers.",
}


class RAG(dspy.Module):
    """A small RAG program: keyword retrieval, then one predictor."""

    def __init__(self) -> None:
        super().__init__()
        self.respond = dspy.Predict("context: list[str], question -> answer")

    def forward(self, question: str) -> dspy.Prediction:
        context = [p for k, p in PASSAGES.items() if k in question]
        return dspy.Prediction(
            context=context, answer=self.respond(context=context, question=question).answer
        )


@pytest.fixture(scope="module")
def compiled(gold_dir: Path) -> ragjudge.Judge:
    rows = load_gold(gold_dir / "halueval" / "dev.jsonl", limit=120)
    return ragjudge.compile(ragjudge.Faithfulness(lm="local"), gold=rows, n_trials=6, seed=0)


def examples() -> list[dspy.Example]:
    return [dspy.Example(question=q).with_inputs("question") for q in ANSWERS]


def rag_lm() -> DummyLM:
    return DummyLM({q: {"answer": a} for q, a in ANSWERS.items()})


def test_score_bool_and_feedback(compiled: ragjudge.Judge) -> None:
    metric = compiled.as_metric(contexts_field="context")
    ex = dspy.Example(question="How tall is Mount Everest?")
    good = dspy.Prediction(context=[PASSAGES["Everest"]], answer="Everest is 8,849 metres tall.")
    bad = dspy.Prediction(context=[PASSAGES["Everest"]], answer=ANSWERS[str(ex.question)])
    assert isinstance(metric(ex, good), float)
    assert metric(ex, good) > 0.5 > metric(ex, bad)
    assert metric(ex, good, trace=[]) is True
    assert metric(ex, bad, trace=[]) is False
    feedback = metric(ex, bad, None, "respond", [])
    assert isinstance(feedback, dspy.Prediction)
    assert feedback.score == pytest.approx(metric(ex, bad))
    assert "fail" in feedback.feedback and "Napoleon" in feedback.feedback


def test_feedback_lists_unsupported_statements() -> None:
    metric = ragjudge.Faithfulness(lm="local", mode="statement").as_metric(contexts_field="context")
    ex = dspy.Example(question="How tall is Mount Everest?")
    pred = dspy.Prediction(context=[PASSAGES["Everest"]], answer=ANSWERS[str(ex.question)])
    out = metric(ex, pred, None, "respond", None)
    assert "Unsupported statements:" in out.feedback
    assert "- " in out.feedback and "not found in the context" in out.feedback


def test_gepa_protocol_binds() -> None:
    # GEPA checks that its metric accepts five positional arguments.
    metric = ragjudge.Faithfulness(lm="local").as_metric()
    inspect.signature(metric).bind(None, None, None, None, None)


def test_fields_fall_back_and_missing_field_is_clear() -> None:
    metric = ragjudge.Faithfulness(lm="local").as_metric(answer_field="response")
    ex = dspy.Example(question="q", contexts=["The sky is blue."])
    assert metric(ex, dspy.Prediction(response="The sky is blue.")) == pytest.approx(1.0)
    with pytest.raises(ConfigurationError, match="answer field 'response'"):
        metric(ex, dspy.Prediction(answer="x"))


def test_unscored_item_scores_zero() -> None:
    metric = ragjudge.Faithfulness(lm="local").as_metric()
    ex = dspy.Example(question="q", contexts=["c"])
    assert metric(ex, dspy.Prediction(answer="")) == 0.0
    assert metric(ex, dspy.Prediction(answer=""), trace=[]) is False


def test_evaluate_and_bootstrap_fewshot_keep_faithful_demos(compiled: ragjudge.Judge) -> None:
    metric = compiled.as_metric(contexts_field="context")
    assert isinstance(metric, JudgeMetric)
    with dspy.context(lm=rag_lm()):
        result = dspy.Evaluate(devset=examples(), metric=metric, num_threads=2)(RAG())
        optimizer = dspy.BootstrapFewShot(
            metric=metric, max_bootstrapped_demos=4, max_labeled_demos=0
        )
        optimized = optimizer.compile(RAG(), trainset=examples())
    assert 40 <= result.score <= 60  # two faithful answers of four, scored near 1 and 0
    demos = optimized.respond.demos
    assert {d["question"] for d in demos} == {
        "When was the Eiffel Tower completed?",
        "Where does the Nile flow?",
    }
    # The judge used its own offline LM, never the program's.
    assert compiled.lm == "local"
