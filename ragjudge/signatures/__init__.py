"""DSPy signatures: each sub-step of a judge, declared; the docstring is the instruction."""

from ragjudge.signatures._models import AnswerVerdict, StatementVerdict, Verdict
from ragjudge.signatures.faithfulness import (
    ExtractStatements,
    JudgeAnswer,
    JudgeStatements,
    default_demos,
)

__all__ = [
    "AnswerVerdict",
    "ExtractStatements",
    "JudgeAnswer",
    "JudgeStatements",
    "StatementVerdict",
    "Verdict",
    "default_demos",
]
