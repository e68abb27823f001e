"""What the claims modules share: a statement's or sentence's tokens and content stems, and
which word a marker governs."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from functools import lru_cache

from ragjudge.offline.text import Token, tokenize

#: Function words that stand between a marker and the word it governs, in the four languages
#: (articles, "to", "that", auxiliaries), beside the tokenizer's own stopwords.
FILLERS = frozenset(
    """the a an to that be been being is are was were have has had not also still even of
    der die das den dem des ein eine einen einem einer dass zu sein werden darauf hin
    le la les l un une des de du que qu à être été
    el los las lo unos unas del al ser sido""".split()
)

#: The words before a scope or rank word that negate it ("not all", "nicht alle").
NEGATORS = frozenset("not never nicht kein keine pas ne jamais no nunca".split())


def same_word(a: str, b: str) -> bool:
    """Whether two lower-cased words are one word inflected ("flood" / "flooded", "inundar" /
    "inundará"): equal, or sharing a prefix of four letters or more after which the shorter
    keeps at most two letters and the longer at most three ("formed" / "formation" are not)."""
    if a == b:
        return True
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    short, long_ = sorted((len(a), len(b)))
    return n >= 4 and short - n <= 2 and long_ - n <= 3


def head(tokens: Sequence[Token], start: int, *, skip: Collection[str] = (), reach: int = 5) -> int:
    """The offset of the first content word at or after `start` (within `reach` tokens) that is
    no filler and not in `skip`, or -1."""
    for k in range(start, min(len(tokens), start + reach)):
        t = tokens[k]
        if t.is_content and t.norm not in FILLERS and t.norm not in skip:
            return k
    return -1


def says(tokens: Sequence[Token], word: str) -> bool:
    """Whether a text's tokens say a word (inflected or not, `same_word`)."""
    return any(same_word(t.norm, word) for t in tokens)


@lru_cache(maxsize=4096)
def tokens(text: str) -> tuple[Token, ...]:
    """A text's tokens (`tokenize`), cached: every module reads the same statement and
    sentences."""
    return tuple(tokenize(text))


def content_stems(text: str, *, numbers: bool = True) -> set[str]:
    """The stems of a text's content words (`tokens`), its numbers left out where `numbers` is
    False.

    Example:
        >>> sorted(content_stems("The 3 bridges opened"))
        ['3', 'bridg', 'open']
        >>> sorted(content_stems("The 3 bridges opened", numbers=False))
        ['bridg', 'open']
    """
    return {t.stem for t in tokens(text) if t.is_content and (numbers or not t.is_number)}
