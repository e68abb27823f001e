"""Deterministic (no-LM) faithfulness metrics: ROUGE-L, token overlap and BLEU.

Example:
    >>> from ragjudge.lexical import DeterministicFaithfulness
    >>> m = DeterministicFaithfulness(compat="continuous-eval")
    >>> m(answer="Paris is in France.", contexts=["Paris is the capital of France."])[
    ...     "token_overlap_p_by_sentence"]
    [1.0]
"""

from ragjudge.lexical._aggregate import SCORE_KEYS, aggregate_scores, validate_aggregate_params
from ragjudge.lexical._faithfulness import DeterministicFaithfulness
from ragjudge.lexical._scorer import SentenceScorer

__all__ = [
    "SCORE_KEYS",
    "DeterministicFaithfulness",
    "SentenceScorer",
    "aggregate_scores",
    "validate_aggregate_params",
]
