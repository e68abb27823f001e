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
from itertools import pairwise

import numpy as np

__all__ = ["CharNgramIndex", "char_bleu", "char_ngram_counts", "ngram_counts", "word_bleu"]

_TINY = sys.float_info.min
_MAX_N = 4
_BITS = 16
_SENTINEL = (1 << _BITS) - 1  # rank of a character that does not occur in the context


def _ngram_keys(ranks: np.ndarray, n: int) -> np.ndarray:
    length = len(ranks) - n + 1
    if length <= 0:
        return np.empty(0, dtype=np.uint64)
    keys = ranks[:length].copy()
    for j in range(1, n):
        keys <<= np.uint64(_BITS)
        keys |= ranks[j : j + length]
    return keys


class CharNgramIndex:
    """Character 1- to 4-gram counts of one context, for fast clipped BLEU counts.

    Characters are ranked (16 bits each) so an n-gram is one `uint64`; each order keeps a
    sorted key array, and the count of any n-gram is a binary search. Built once per context
    and shared by all sentences scored against it.

    Given several passages, the counts are those of each passage summed: no n-gram runs from
    one passage into the next, so the counts do not depend on their order. The length (for the
    brevity penalty) is that of the passages joined with newlines, as the reference joins them.

    Args:
        text: The context string, or its passages.
    """

    __slots__ = ("_bmp", "_chars", "_counters", "_sorted", "length")

    def __init__(self, text: str | Sequence[str]) -> None:
        texts = [text] if isinstance(text, str) else list(text)
        self.length = sum(len(t) for t in texts) + max(0, len(texts) - 1)
        parts = [np.frombuffer(t.encode("utf-32-le"), dtype=np.uint32) for t in texts]
        codes = np.concatenate(parts) if parts else np.empty(0, dtype=np.uint32)
        self._counters: list[Counter[str]] | None = None
        self._sorted: list[np.ndarray] = []
        # Fast path: every character below U+FFFF is its own 16-bit rank (no ranking sort).
        self._bmp = bool(codes.size == 0 or int(codes.max()) < _SENTINEL)
        if self._bmp:
            self._chars = codes[:0]
            r = codes.astype(np.uint64)
        else:
            chars, ranks = np.unique(codes, return_inverse=True)
            self._chars = chars
            if len(chars) >= _SENTINEL:  # pragma: no cover - > 65,534 distinct characters
                counters = [char_ngram_counts(t) for t in texts]
                self._counters = [sum((c[n] for c in counters), Counter()) for n in range(_MAX_N)]
                return
            r = ranks.astype(np.uint64).ravel()
        bounds = np.cumsum([0, *(len(p) for p in parts)])
        pieces = [r[a:b] for a, b in pairwise(bounds)]
        self._sorted = [
            np.sort(np.concatenate([_ngram_keys(p, n) for p in pieces] or [_ngram_keys(r, n)]))
            for n in range(1, _MAX_N + 1)
        ]

    def clipped_counts(self, sentence: str) -> list[int]:
        """Clipped n-gram match counts (NLTK's modified-precision numerators), n = 1..4."""
        if self._counters is not None:  # pragma: no cover
            return [_clipped(sentence, n, ref) for n, ref in enumerate(self._counters, start=1)]
        if not sentence or self.length == 0:
            return [0] * _MAX_N
        codes = np.frombuffer(sentence.encode("utf-32-le"), dtype=np.uint32)
        if self._bmp:
            ranks = np.minimum(codes, _SENTINEL).astype(np.uint64)  # astral: never in context
        else:
            idx = np.searchsorted(self._chars, codes)
            idx_c = np.minimum(idx, len(self._chars) - 1)
            found = self._chars[idx_c] == codes
            if not found.any():
                return [0] * _MAX_N
            ranks = np.where(found, idx_c, _SENTINEL).astype(np.uint64)
        out: list[int] = []
        for n, ref in enumerate(self._sorted, start=1):
            keys = _ngram_keys(ranks, n)
            if keys.size == 0 or ref.size == 0:
                out.append(0)
                continue
            uniq, counts = np.unique(keys, return_counts=True)
            have = np.searchsorted(ref, uniq, "right") - np.searchsorted(ref, uniq, "left")
            out.append(int(np.minimum(counts, have).sum()))
        return out


def _clipped(sentence: str, n: int, ref: Counter[str]) -> int:
    counts = Counter(sentence[i : i + n] for i in range(len(sentence) - n + 1))
    num = 0
    for gram, c in counts.items():
        r = ref.get(gram, 0)
        num += c if c < r else r
    return num


def char_ngram_counts(text: str, max_n: int = 4) -> list[Counter[str]]:
    """Character n-gram counts of `text` for n = 1..`max_n` (index 0 holds unigrams)."""
    return [Counter(text[i : i + n] for i in range(len(text) - n + 1)) for n in range(1, max_n + 1)]


def ngram_counts(tokens: Sequence[Hashable], max_n: int = 4) -> list[Counter[tuple[Hashable, ...]]]:
    """Token n-gram counts for n = 1..`max_n` (index 0 holds unigrams)."""
    return [
        Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))
        for n in range(1, max_n + 1)
    ]


def char_bleu(sentence: str, context: CharNgramIndex) -> float:
    """Reference (character-level, unsmoothed) BLEU of `sentence` against one context.

    Args:
        sentence: The hypothesis string.
        context: The context's `CharNgramIndex` (cached per context).

    Returns:
        The BLEU score, identical to NLTK's `sentence_bleu([context], sentence)`.
    """
    hyp_len = len(sentence)
    numerators = context.clipped_counts(sentence)
    if numerators[0] == 0:
        return 0.0
    denominators = [max(1, hyp_len - n + 1) for n in range(1, _MAX_N + 1)]
    bp = _brevity_penalty(context.length, hyp_len)
    logs = (
        0.25 * math.log(num / den if num else _TINY)
        for num, den in zip(numerators, denominators, strict=False)
    )
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
