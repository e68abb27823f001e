"""Judges: DSPy modules that chain signatures into metrics."""

from ragjudge.programs._base import Judge
from ragjudge.programs.ensemble import Ensemble
from ragjudge.programs.faithfulness import Faithfulness, score_statements
from ragjudge.programs.recall import ContextRecall
from ragjudge.programs.relevancy import AnswerRelevancy
from ragjudge.programs.suite import Suite, SuiteResult

__all__ = [
    "AnswerRelevancy",
    "ContextRecall",
    "Ensemble",
    "Faithfulness",
    "Judge",
    "Suite",
    "SuiteResult",
    "score_statements",
]
