"""Sentence splitting and the three word tokenizations used by the deterministic metrics."""

from __future__ import annotations

import functools
import re
import string

from ragjudge.lexical._resources import english_stopwords, punkt_english, treebank_word_tokenizer

__all__ = ["ce_tokens", "content_tokens", "reference_tokens", "split_sentences"]

_ASCII_PUNCT = str.maketrans("", "", string.punctuation)
_WORD_RE = re.compile(r"\w+")


def split_sentences(text: str) -> list[str]:
    """Split `text` with NLTK Punkt (English), like `nltk.sent_tokenize(text)`."""
    if not text or text.isspace():
        return []
    return list(punkt_english().tokenize(text))


@functools.cache
def _contraction_patterns() -> tuple[tuple[re.Pattern[str], str], ...]:
    from nltk.tokenize.destructive import MacIntyreContractions

    mc = MacIntyreContractions()
    return tuple((re.compile(p), r" \1 \2 ") for p in (*mc.CONTRACTIONS2, *mc.CONTRACTIONS3))


def _to_number(token: str) -> str | float:
    try:
        return float(token)
    except ValueError:
        return token


def ce_tokens(text: str) -> list[str | float]:
    """Tokenize like continuous-eval 0.3.14's token overlap.

    Per Punkt sentence: lowercase, delete ASCII punctuation, drop NLTK English stopwords, split
    MacIntyre contractions (`cannot` -> `can not`), split on whitespace, and turn numeric
    tokens into floats (so `007` equals `7`).

    Args:
        text: Any string.

    Returns:
        The tokens of all sentences, in order.
    """
    stop = english_stopwords()
    patterns = _contraction_patterns()
    out: list[str | float] = []
    for sent in split_sentences(text):
        words = [w for w in sent.lower().translate(_ASCII_PUNCT).split() if w not in stop]
        joined = " ".join(words)
        for pattern, repl in patterns:
            joined = pattern.sub(repl, joined)
        out.extend(_to_number(t) for t in joined.split())
    return out


def reference_tokens(text: str) -> list[str]:
    """Tokenize like the original reference definition: lower-cased NLTK word tokens.

    `nltk.word_tokenize` (Treebank tokenizer per Punkt sentence), lower-cased, punctuation kept
    as tokens, no stopword removal.
    """
    tok = treebank_word_tokenizer()
    return [t.lower() for sent in split_sentences(text) for t in tok.tokenize(sent)]


def content_tokens(text: str) -> list[str]:
    """Lower-cased `\\w+` words without NLTK English stopwords (the `words` variant)."""
    stop = english_stopwords()
    return [w for w in _WORD_RE.findall(text.lower()) if w not in stop]
