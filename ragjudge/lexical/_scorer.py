"""Batch scorer: per-sentence ROUGE-L / token overlap / BLEU with cached context processing."""

from __future__ import annotations

import string
from collections import Counter, OrderedDict
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Literal, TypedDict

from ragjudge.lexical._bleu import CharNgramIndex, char_bleu, ngram_counts, word_bleu
from ragjudge.lexical._rouge import rouge_l_precision, rouge_segments, union_lcs_length
from ragjudge.lexical._text import ce_tokens, content_tokens, reference_tokens, split_sentences

__all__ = ["Compat", "SentenceScorer", "SentenceScores", "Variant"]

Compat = Literal["reference", "continuous-eval"]
Variant = Literal["default", "words"]

_ASCII_PUNCT = frozenset(string.punctuation)


class SentenceScores(TypedDict):
    """Per-sentence scores of one answer (the three `*_by_sentence` lists)."""

    rouge_p_by_sentence: list[float]
    token_overlap_p_by_sentence: list[float]
    bleu_score_by_sentence: list[float]


@dataclass(frozen=True)
class _Context:
    rouge_segments: list[list[str]]
    rouge_sets: list[frozenset[str]]
    rouge_vocab: frozenset[str]
    tokens: frozenset[Hashable]
    bleu_chars: CharNgramIndex | None
    bleu_words: list[Counter[tuple[Hashable, ...]]] | None
    size: int
    flat: list[list[str]]


class SentenceScorer:
    """Scores answer sentences against contexts, caching each context's processing.

    The order of the passages changes no score, except with `compat="continuous-eval"`,
    which reproduces continuous-eval's scores float for float and so reads the passages
    joined with newlines as it does: a ROUGE segment (text between periods) may run from the
    end of one passage into the next, and a character n-gram across the join is counted.
    The other modes read each passage on its own and combine them with order-free operations:
    ROUGE segments are cut at the end of each passage, character and word n-gram counts are
    summed over the passages, the token sets are their union, and the `words` variant's
    ROUGE-L is the union LCS over the passages (`union_lcs_length`).

    One instance is meant for many rows: a context string that was seen before (rows sharing a
    document, or the same context across sentences) is tokenized, segmented and n-gram counted
    only once (least-recently-used cache bounded by `cache_size` and `cache_chars`).

    Args:
        compat: `"reference"` or `"continuous-eval"` (see `DeterministicFaithfulness`).
        variant: `"default"` or `"words"`.
        cache_size: How many processed contexts to keep.
        cache_chars: Bound on the total length of the cached contexts (memory).
    """

    def __init__(
        self,
        *,
        compat: Compat = "reference",
        variant: Variant = "default",
        cache_size: int = 256,
        cache_chars: int = 500_000,
    ) -> None:
        self.compat = compat
        self.variant = variant
        self.cache_size = cache_size
        self.cache_chars = cache_chars
        self._cache: OrderedDict[tuple[str, ...], _Context] = OrderedDict()
        self._cached_chars = 0

    # -- contexts -------------------------------------------------------------------------
    def _context(self, context: tuple[str, ...]) -> _Context:
        hit = self._cache.get(context)
        if hit is not None:
            self._cache.move_to_end(context)
            return hit
        ctx = self._process_context(context)
        self._cache[context] = ctx
        self._cached_chars += ctx.size
        while self._cache and (
            len(self._cache) > self.cache_size or self._cached_chars > self.cache_chars
        ):
            _, old = self._cache.popitem(last=False)
            self._cached_chars -= old.size
        return ctx

    def _process_context(self, passages: tuple[str, ...]) -> _Context:
        context = "\n".join(passages)
        if self.variant == "words":
            flat = [content_tokens(p) for p in passages]
            words = frozenset(w for tokens in flat for w in tokens)
            counts = [ngram_counts(tokens) for tokens in flat]
            return _Context(
                rouge_segments=[],
                rouge_sets=[],
                rouge_vocab=words,
                tokens=words,
                bleu_chars=None,
                bleu_words=[sum((c[n] for c in counts), Counter()) for n in range(4)],
                size=len(context),
                flat=[tokens for tokens in flat if tokens],
            )
        exact = self.compat == "continuous-eval"  # continuous-eval's join, order and all
        segs = (
            rouge_segments(context) if exact else [s for p in passages for s in rouge_segments(p)]
        )
        sets = [frozenset(s) for s in segs]
        vocab: frozenset[str] = frozenset().union(*sets) if sets else frozenset()
        tokens: frozenset[Hashable]
        if self.compat == "continuous-eval":
            tokens = frozenset(ce_tokens(context))
        else:
            tokens = frozenset(reference_tokens(context))
        return _Context(
            rouge_segments=segs,
            rouge_sets=sets,
            rouge_vocab=vocab,
            tokens=tokens,
            bleu_chars=CharNgramIndex(context if exact else passages),
            bleu_words=None,
            size=len(context),
            flat=[],
        )

    # -- sentences ------------------------------------------------------------------------
    def score(self, *, answer: str, context: str | Sequence[str]) -> SentenceScores:
        """Score every Punkt sentence of `answer` against `context`.

        Args:
            answer: The answer text.
            context: The passages (a string is one passage).

        Returns:
            The three per-sentence lists, in sentence order (empty for an empty answer).
        """
        sentences = split_sentences(answer)
        rouge: list[float] = []
        overlap: list[float] = []
        bleu: list[float] = []
        if not sentences:
            return SentenceScores(
                rouge_p_by_sentence=rouge,
                token_overlap_p_by_sentence=overlap,
                bleu_score_by_sentence=bleu,
            )
        ctx = self._context((context,) if isinstance(context, str) else tuple(context))
        for sentence in sentences:
            if self.variant == "words":
                toks = content_tokens(sentence)
                rouge.append(union_lcs_length(toks, ctx.flat) / len(toks) if toks else 0.0)
                distinct = set(toks)
                overlap.append(len(distinct & ctx.tokens) / len(distinct) if distinct else 0.0)
                bleu.append(word_bleu(toks, ctx.bleu_words or []))
                continue
            if _ASCII_PUNCT.issuperset(sentence):  # punctuation only (no space): 0.0
                rouge.append(0.0)
            else:
                rouge.append(
                    rouge_l_precision(
                        rouge_segments(sentence),
                        ctx.rouge_segments,
                        ctx.rouge_sets,
                        ctx.rouge_vocab,
                    )
                )
            if self.compat == "continuous-eval":
                ptoks = ce_tokens(sentence)
                overlap.append(len(set(ptoks) & ctx.tokens) / len(ptoks) if ptoks else 0.0)
            else:
                rtoks = set(reference_tokens(sentence))
                overlap.append(len(rtoks & ctx.tokens) / len(rtoks) if rtoks else 0.0)
            bleu.append(char_bleu(sentence, ctx.bleu_chars) if ctx.bleu_chars else 0.0)
        return SentenceScores(
            rouge_p_by_sentence=rouge,
            token_overlap_p_by_sentence=overlap,
            bleu_score_by_sentence=bleu,
        )

    def score_many(self, pairs: Sequence[tuple[str, str | Sequence[str]]]) -> list[SentenceScores]:
        """Score `(answer, passages)` pairs in order."""
        return [self.score(answer=a, context=c) for a, c in pairs]
