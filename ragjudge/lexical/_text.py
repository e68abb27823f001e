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
_ASCII_PUNCT_CLASS = r"!-/:-@\[-`{-~"


@functools.cache
def _risky_split() -> re.Pattern[str] | None:
    """Where Punkt may split inside a whitespace-delimited token with an effect on the tokens.

    A sentence end directly followed by one of Punkt's NonWord characters, unless what follows
    up to the next whitespace is moved back by Punkt's boundary realignment or is only ASCII
    punctuation (deleted anyway). Built from the installed NLTK's own character sets; `None`
    (always split with Punkt) if they cannot be read.
    """
    try:
        from nltk.tokenize.punkt import PunktLanguageVars

        lang_vars = PunktLanguageVars()
        non_word = str(lang_vars._re_non_word_chars)
        realign = lang_vars.re_boundary_realignment
        realign_src = str(getattr(getattr(realign, "_rx", realign), "pattern", ""))
        if not realign_src.startswith("[") or "]+?" not in realign_src:
            return None
        realign_class = realign_src[: realign_src.index("]+?") + 1]
        ends = "".join(lang_vars.sent_end_chars)
        return re.compile(
            "[" + re.escape(ends) + "](?=" + non_word + ")(?!" + realign_class + r"+(?:\s|\Z))"
            r"(?![" + _ASCII_PUNCT_CLASS + r"]*(?:\s|\Z))"
        )
    except Exception:  # pragma: no cover - unexpected NLTK internals: use the exact path
        return None


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


def _ce_sentence_tokens(sent: str, stop: frozenset[str], out: list[str | float]) -> None:
    words = [w for w in sent.lower().translate(_ASCII_PUNCT).split() if w not in stop]
    joined = " ".join(words)
    if any(stem in joined for stem in _CONTRACTION_STEMS):
        joined = f" {joined} "  # padded like NLTK's Treebank tokenizer (`wanna` needs `\s`)
        for pattern, repl in _contraction_patterns():
            joined = pattern.sub(repl, joined)
    for t in joined.split():
        # Only all-digit tokens are numbers: "nan", "inf" and "1e5" stay words.
        out.append(float(t) if t.isdecimal() else t)


def ce_tokens(text: str) -> list[str | float]:
    """Tokenize like continuous-eval 0.3.14's token overlap.

    Per Punkt sentence: lowercase, delete ASCII punctuation, drop NLTK English stopwords, split
    MacIntyre contractions (`cannot` -> `can not`), split on whitespace, and turn numeric
    tokens (all decimal digits) into floats (so `007` equals `7`).

    Fast path: the result only depends on where Punkt splits when a split falls inside a
    whitespace-delimited token (a sentence end followed directly by punctuation and then more
    word material). Texts without such a place are tokenized in one pass, without running
    Punkt; the others per Punkt sentence. Both give identical tokens.

    Args:
        text: Any string.

    Returns:
        The tokens of all sentences, in order.
    """
    risky = _risky_split()
    if risky is not None and risky.search(text) is None:
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
