"""Sentence splitting and the three word tokenizations used by the deterministic metrics."""

from __future__ import annotations

import functools
import re
import string

from ragjudge.lexical._resources import english_stopwords, punkt_english

__all__ = ["ce_tokens", "content_tokens", "reference_tokens", "split_sentences"]

_ASCII_PUNCT = str.maketrans("", "", string.punctuation)
_WORD_RE = re.compile(r"\w+")
_REFERENCE_RE = re.compile(r"\w+|[^\w\s]")
# Stems of the MacIntyre contractions that can survive ASCII punctuation removal.
_CONTRACTION_STEMS = ("cannot", "gimme", "gonna", "gotta", "lemme", "wanna")
_FLOAT_WORDS = frozenset({"nan", "inf", "infinity"})
_ASCII_PUNCT_CLASS = r"!-/:-@\[-`{-~"
_NON_WORD = "[)\";}\\]*:@'({\\[\u2018\u2019\u201c\u201d\xab\xbb?!]"  # Punkt's NonWord
_REALIGN = "[\"')\\]}\u2018\u2019\u201c\u201d\xab\xbb]"  # Punkt's boundary realignment
# Where Punkt may split inside a whitespace-delimited token with an effect on the tokens: a
# sentence end directly followed by a NonWord character, unless what follows up to the next
# whitespace is moved back by Punkt's realignment or is only ASCII punctuation (deleted).
_RISKY_SPLIT = re.compile(
    r"[.?!](?=" + _NON_WORD + r")(?!" + _REALIGN + r"+(?:\s|\Z))"
    r"(?![" + _ASCII_PUNCT_CLASS + r"]*(?:\s|\Z))"
)


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


def _ce_sentence_tokens(sent: str, stop: frozenset[str], out: list[str | float]) -> None:
    words = [w for w in sent.lower().translate(_ASCII_PUNCT).split() if w not in stop]
    joined = " ".join(words)
    if any(stem in joined for stem in _CONTRACTION_STEMS):
        for pattern, repl in _contraction_patterns():
            joined = pattern.sub(repl, joined)
    for t in joined.split():
        if t[0].isdigit() or t in _FLOAT_WORDS:
            out.append(_to_number(t))
        else:
            out.append(t)


def ce_tokens(text: str) -> list[str | float]:
    """Tokenize like continuous-eval 0.3.14's token overlap.

    Per Punkt sentence: lowercase, delete ASCII punctuation, drop NLTK English stopwords, split
    MacIntyre contractions (`cannot` -> `can not`), split on whitespace, and turn numeric
    tokens into floats (so `007` equals `7`).

    Fast path: the result only depends on where Punkt splits when a split falls inside a
    whitespace-delimited token (a sentence end followed directly by punctuation and then more
    word material) or right after `wanna` (the contraction rule needs following whitespace).
    Texts without either are tokenized in one pass, without running Punkt; the others per
    Punkt sentence. Both give identical tokens.

    Args:
        text: Any string.

    Returns:
        The tokens of all sentences, in order.
    """
    if _RISKY_SPLIT.search(text) is None and "wanna" not in text.lower():
        out: list[str | float] = []
        _ce_sentence_tokens(text, english_stopwords(), out)
        return out
    return ce_tokens_by_sentence(text)


def ce_tokens_by_sentence(text: str) -> list[str | float]:
    """`ce_tokens` without the fast path: always tokenizes per Punkt sentence."""
    stop = english_stopwords()
    out: list[str | float] = []
    for sent in split_sentences(text):
        _ce_sentence_tokens(sent, stop, out)
    return out


def reference_tokens(text: str) -> list[str]:
    """Tokenize like the original reference definition: lower-cased word tokens.

    Lower-cased `\\w+` words, every other non-space character kept as its own token
    (punctuation is not removed), no stopword removal.
    """
    return _REFERENCE_RE.findall(text.lower())


def content_tokens(text: str) -> list[str]:
    """Lower-cased `\\w+` words without NLTK English stopwords (the `words` variant)."""
    stop = english_stopwords()
    return [w for w in _WORD_RE.findall(text.lower()) if w not in stop]
