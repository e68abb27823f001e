"""Scope: a statement that says all, every or always where the aligned context sentence says
some, most, several, "N of M" or often (a claim widened to every member or every time), the same
word swapped in a sentence the statement otherwise copies (`copied_widening`), and a claim made
of all of what the passage restricts with "only"."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ragjudge.offline.claims._copied import swapped_words
from ragjudge.offline.claims._words import NEGATORS, head, same_word, tokens
from ragjudge.offline.text import Token

if TYPE_CHECKING:
    from ragjudge.offline.index import ContextIndex

__all__ = ["UNIVERSAL", "conflict", "copied_widening", "restricted"]

#: Words that make a claim of every member or every time.
UNIVERSAL = frozenset(
    """all every each always everyone everybody entirely completely fully wholly
    alle allen aller jeder jede jedes jeden jedem sämtliche immer stets vollständig gänzlich
    tous toutes chaque toujours entièrement complètement
    todos todas cada siempre totalmente completamente enteramente""".split()
)
#: Words that make a claim of some members or some of the time.
PARTIAL = frozenset(
    """some most many several few often usually sometimes occasionally generally typically
    frequently rarely seldom mostly largely partly partially mainly commonly
    einige manche viele mehrere meisten wenige oft häufig manchmal meist meistens
    gelegentlich gewöhnlich teilweise überwiegend selten
    certains certaines quelques plusieurs beaucoup plupart souvent parfois généralement
    fréquemment rarement partiellement
    algunos algunas varios varias muchos muchas mayoría menudo veces generalmente normalmente
    frecuentemente usualmente raramente parcialmente""".split()
)
#: The stems of `PARTIAL`'s words, each with a word it stands for; not those that are a common
#: word's stem too ("mainly": "main", "partly": "part", "largely": "big").
_PARTIAL_STEMS = {
    t.stem: t.norm
    for word in sorted(PARTIAL, key=len, reverse=True)  # the shortest word last: shown
    for t in tokens(word)
    if t.stem not in {"main", "part", "big", "general", "common", "certain", "vec"}
}
#: Words after which "most" is a superlative ("the most popular"), not a share of members.
_BEFORE_SUPERLATIVE = frozenset("the a its his her their our my your".split())
#: Phrases in which a universal word makes no claim of every member.
_IDIOMS = frozenset(
    {
        ("after", "all"),
        ("at", "all"),
        ("all", "but"),
        ("each", "other"),
        ("immer", "noch"),
        ("noch", "immer"),
        ("immer", "mehr"),
        ("immer", "wieder"),
    }
)
#: "N of M": the words between a count and its whole.
_OF = frozenset("of von sur de".split())
#: Words that restrict a claim to some members ("only to companies").
_ONLY = frozenset("only nur seulement uniquement solo sólo solamente únicamente".split())


def _universals(tokens: Sequence[Token]) -> list[int]:
    """The offsets of the universal words that claim every member (not negated, no idiom)."""
    out = []
    for i, t in enumerate(tokens):
        if t.norm not in UNIVERSAL:
            continue
        prev = tokens[i - 1].norm if i else ""
        after = tokens[i + 1].norm if i + 1 < len(tokens) else ""
        if prev in NEGATORS or (t.norm, after) in _IDIOMS:
            continue
        if (prev, t.norm) in _IDIOMS and after != "of":
            continue  # "after all", but not "after all of the cars"
        out.append(i)
    return out


def _partials(tokens: Sequence[Token]) -> list[int]:
    """The offsets of the words that claim some members or some of the time ("N of M" read at
    its count)."""
    out = []
    for i, t in enumerate(tokens):
        prev = tokens[i - 1].norm if i else ""
        after = tokens[i + 1].norm if i + 1 < len(tokens) else ""
        if t.norm in PARTIAL:
            if t.norm != "most" or not (
                prev in _BEFORE_SUPERLATIVE or prev.endswith(("'s", "’s"))
            ):  # "the most popular", "the region's most populous"
                out.append(i)
        elif t.is_number and after in _OF:
            # "9 of the 30 pilots", "9 von 30": a count of a larger whole said after it
            if any(u.is_number for u in tokens[i + 2 : i + 5]):
                out.append(i)
    return out


def conflict(statement: str, sentence: str) -> str:
    """A claim of every member or every time where the sentence says only some of them.

    Args:
        statement: The statement text.
        sentence: A context sentence aligned with it.

    Returns:
        The reason ("'always' where the passage says 'often'"), or "" when there is none: the
        statement claims no more than some, qualifies its own claim, or the sentence says
        "all" as well or nothing of a part.
    """
    mine = tokens(statement)
    wide = _universals(mine)
    if not wide:
        return ""
    theirs = tokens(sentence)
    every = _universals(theirs)
    parts = _partials(theirs)
    own = _partials(mine)
    for i in wide:
        k = head(mine, i + 1, skip=UNIVERSAL)
        if k < 0 or any(_governs(mine, j, mine[k].norm) for j in own):
            continue  # the statement itself says only some of it
        if any(_governs(theirs, u, mine[k].norm) for u in every):
            continue  # the sentence says it of all as well
        for j in parts:
            if _governs(theirs, j, mine[k].norm):
                return f"'{mine[i].norm}' where the passage says '{theirs[j].text.lower()}'"
    return ""


def copied_widening(index: ContextIndex, tokens: Sequence[Token]) -> str:
    """A word of every member or every time that a statement puts in a context sentence it
    otherwise copies, where the context has a word of some of them: the words around it read
    alike there (`ragjudge.offline.claims._copied`) with the narrower word in its place
    ("Longboards are always much longer" where the context says "are typically much longer",
    "at all points" where it says "at many points": the copy shows "at all" is no idiom there).

    Args:
        index: The context's index (`spaced_stems`).
        tokens: The statement's tokens.

    Returns:
        The reason ("'always' where the passage says 'typically'"), or "".
    """
    stems = [t.stem for t in tokens]
    for k, token in enumerate(tokens):
        if token.norm not in UNIVERSAL or (k and tokens[k - 1].norm in NEGATORS):
            continue
        for word in swapped_words(index.spaced_stems, stems, k):
            theirs = _PARTIAL_STEMS.get(word)
            if theirs:
                return f"'{token.norm}' where the passage says '{theirs}'"
    return ""


def _governs(tokens: Sequence[Token], j: int, word: str) -> bool:
    """Whether the scope word at offset j governs a word: says it among the next five."""
    return any(t.is_content and same_word(word, t.norm) for t in tokens[j + 1 : j + 6])


def restricted(tokens: Sequence[Token], passage: Sequence[str]) -> str:
    """ "all companies" where the passage says "only (to) companies ...": a claim made of
    every member of what the passage (its stems) restricts.

    Args:
        tokens: The statement's tokens.
        passage: The stems of the best passage, in order.

    Returns:
        The reason, or "".
    """
    if any(t.norm in _ONLY for t in tokens):
        return ""
    for i in _universals(tokens):
        noun = next((t.stem for t in tokens[i + 1 : i + 3] if t.is_content), "")
        if not noun:
            continue
        for j, word in enumerate(passage):
            if word == noun and _ONLY.intersection(passage[max(0, j - 3) : j]):
                return f"'{tokens[i].norm} {noun}' where the passage says 'only'"
    return ""
