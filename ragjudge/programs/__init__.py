"""Judges: DSPy modules that chain signatures into metrics."""

from ragjudge.programs._base import Judge
from ragjudge.programs.faithfulness import Faithfulness, score_statements

__all__ = ["Faithfulness", "Judge", "score_statements"]
