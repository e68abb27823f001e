"""DSPy signatures: each sub-step of a judge, declared; the docstring is the instruction."""

from ragjudge.signatures._models import AnswerVerdict, StatementVerdict, Verdict
from ragjudge.signatures.faithfulness import (
    ExtractStatements,
    JudgeAnswer,
    JudgeStatements,
    default_demos,
)
from ragjudge.signatures.recall import (
    ExtractReferenceStatements,
    JudgeAttribution,
    default_recall_demos,
)
from ragjudge.signatures.relevancy import GenerateQuestions, default_relevancy_demos
from ragjudge.signatures.rubric import (
    RateFaithfulness,
    RateRecall,
    RateRelevancy,
    default_rubric_demos,
)

__all__ = [
    "AnswerVerdict",
    "ExtractReferenceStatements",
    "ExtractStatements",
    "GenerateQuestions",
    "JudgeAnswer",
    "JudgeAttribution",
    "JudgeStatements",
    "RateFaithfulness",
    "RateRecall",
    "RateRelevancy",
    "StatementVerdict",
    "Verdict",
    "default_demos",
    "default_recall_demos",
    "default_relevancy_demos",
    "default_rubric_demos",
]
