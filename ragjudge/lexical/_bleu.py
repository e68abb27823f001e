"""BLEU as used by the reference (characters, no smoothing) and a word-level smoothed variant.

`char_bleu` reproduces `nltk.translate.bleu_score.sentence_bleu([context], sentence)` on raw
strings float for float: 1- to 4-gram modified precisions with weights 0.25, no smoothing (an
order with no match contributes `log(sys.float_info.min)`), 0.0 when no unigram matches, and the
brevity penalty `exp(1 - len(context) / len(sentence))` in characters.
"""

from __future__ import annotations

import math
import sys
from collections import Counter
from collections.abc import Hashable, Sequence

__all__ = ["char_bleu", "char_ngram_counts", "ngram_counts", "word_bleu"]

_TINY = sys.float_info.min


def char_ngram_counts(text: str, max_n: int = 4) -> list[Counter[str]]:
    """Character n-gram counts of `text` for n = 1..`max_n` (index 0 holds unigrams)."""
    return [Counter(text[i : i + n] for i in range(len(text) - n + 1)) for n in range(1, max_n + 1)]


def ngram_counts(tokens: Sequence[Hashable], max_n: int = 4) -> list[Counter[tuple[Hashable, ...]]]:
    """Token n-gram counts for n = 1..`max_n` (index 0 holds unigrams)."""
    return [
        Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))
        for n in range(1, max_n + 1)
    ]


def char_bleu(sentence: str, context_counts: Sequence[Counter[str]], context_len: int) -> float:
    """Reference (character-level, unsmoothed) BLEU of `sentence` against one context string.

    Args:
        sentence: The hypothesis string.
        context_counts: `char_ngram_counts(context)` (cached per context).
        context_len: `len(context)` in characters.

    Returns:
        The BLEU score, identical to NLTK's `sentence_bleu([context], sentence)`.
    """
    hyp_len = len(sentence)
    numerators: list[int] = []
    denominators: list[int] = []
    for n, ref in enumerate(context_counts, start=1):
        if hyp_len >= n:
            counts = Counter(sentence[i : i + n] for i in range(hyp_len - n + 1))
            num = 0
            for gram, c in counts.items():
                r = ref.get(gram, 0)
                num += c if c < r else r
            numerators.append(num)
            denominators.append(max(1, hyp_len - n + 1))
        else:
            numerators.append(0)
            denominators.append(1)
    if numerators[0] == 0:
        return 0.0
    bp = _brevity_penalty(context_len, hyp_len)
    logs = (0.25 * math.log(num / den if num else _TINY) for num, den in zip(numerators, denominators))
    return bp * math.exp(math.fsum(logs))


def _brevity_penalty(ref_len: int, hyp_len: int) -> float:
    if hyp_len > ref_len:
        return 1.0
    if hyp_len == 0:
        return 0.0
    return math.exp(1 - ref_len / hyp_len)


def word_bleu(
    tokens: Sequence[Hashable],
    context_counts: Sequence[Counter[tuple[Hashable, ...]]],
    *,
    epsilon: float = 0.1,
) -> float:
    """Word-level BLEU precision of `tokens` against a context, smoothed, no brevity penalty.

    The geometric mean of the modified 1..4-gram precisions (orders longer than the sentence are
    skipped and the weights renormalised); an order with no match counts `epsilon` matches
    (NLTK's `method1`). The brevity penalty is left out on purpose: the context is the
    reference and is almost always much longer than one answer sentence, so the penalty would
    only measure sentence length.

    Args:
        tokens: The sentence's content tokens.
        context_counts: `ngram_counts(context_tokens)` (cached per context).
        epsilon: Smoothing mass for orders with no match.

    Returns:
        A score in [0, 1]; 0.0 for an empty sentence or when no unigram matches.
    """
    length = len(tokens)
    if length == 0:
        return 0.0
    orders = min(len(context_counts), length)
    logs: list[float] = []
    for n in range(1, orders + 1):
        ref = context_counts[n - 1]
        counts = Counter(tuple(tokens[i : i + n]) for i in range(length - n + 1))
        num = 0
        for gram, c in counts.items():
            r = ref.get(gram, 0)
            num += c if c < r else r
        if n == 1 and num == 0:
            return 0.0
        den = length - n + 1
        logs.append(math.log((num if num else epsilon) / den))
    return math.exp(math.fsum(logs) / orders)
