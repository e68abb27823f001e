"""Polarity: a statement that negates what its best passage asserts (or asserts what it
negates), or says a word whose opposite the passage says.

The module reads the negation scopes of the statement's tokens (`negation_scopes`) against
those of the best passage in the context's index, and the antonym list (`ANTONYMS`, plus the
forms a negating prefix makes: "certain" / "uncertain") against the passage's stems and the
context's pairs of adjacent content words (an antonym beside the same word: "open on Sundays"
/ "closed on Sundays"). `ragjudge.offline.features` reads the first as the negation features
and the others as the antonym conflict.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from ragjudge.offline.claims._copied import negated_base, said_plainly, window
from ragjudge.offline.text import ANTONYMS, Token, negation_scopes

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ragjudge.offline.index import ContextIndex

__all__ = [
    "antonym_conflict",
    "negation_mismatch",
    "negation_note",
    "slot_antonym",
    "verbatim_negation",
    "verbatim_opposite",
]


def negation_mismatch(index: ContextIndex, best: int, tokens: list[Token]) -> tuple[float, float]:
    """Whether the statement negates what the passage asserts, or asserts what it negates.

    Args:
        index: The context's index (`passage_scopes`, `passage_negations`,
            `sentence_asserted`).
        best: The statement's best passage (-1 when none).
        tokens: The statement's tokens.

    Returns:
        `(added, removed)`: 1.0 where the statement negates what the passage asserts, and 1.0
        where it asserts what the passage negates; else 0.0.
    """
    if best < 0:
        return 0.0, 0.0
    s_neg, s_plain = negation_scopes(tokens)
    p_neg, p_plain = index.passage_scopes[best]
    # the words a name's negation word would scope ("the Not Ready for Prime Time Players"),
    # where the quotes of one side may hide the name that the other side's reading found
    named: frozenset[str] = frozenset()
    if any(t.is_capital and not t.is_content for t in tokens[1:]):  # a capitalized negation?
        named = negation_scopes(tokens, names="none")[0] - negation_scopes(tokens, names="text")[0]
        s_neg, s_plain = s_neg - named, s_plain - named
    if not s_neg:  # nothing negated: nothing added, and every plain word is asserted
        return 0.0, float(any(x in p_neg and x not in p_plain for x in s_plain))
    # a negation scopes a few words, so two negations of one thing in another word order
    # cover different words ("no toxic chemical spill was reported" / "has not reported any
    # toxic chemical spill"; "No injuries or damage were reported" / "no immediate reports
    # of injuries or damage"). Where one side's scope holds a word within the other side's
    # reach (the rest of the statement, one claim; `NEGATION_REACH` scopes in a passage
    # sentence, which may say more than one thing), they deny one thing, and a word of that
    # other side is read as asserted only where it says it out of every negation's reach.
    # Else every plain word is asserted ("New features will not be added" / "New features
    # that do not exist yet will be added")
    s_reach, s_asserted = negation_scopes(tokens, reach=max(1, len(tokens)))
    s_reach, s_asserted = s_reach - named, s_asserted - named
    window = index.passage_sentences[best]
    p_asserted = frozenset().union(*(index.sentence_asserted[k] for k in window))
    p_said = p_asserted if s_reach & p_neg else p_plain
    added = any(x in p_said and x not in p_neg for x in s_neg)
    # a negated statement against a passage with no negation at all: what the statement
    # denies is asserted there unless the passage never says it ("cancelled his contract"
    # against a passage silent on the contract is no denial of it)
    if not added and index.passage_negations[best] == 0:
        denied = negation_scopes(tokens, cancellations=False)[0]
        added = bool(denied) and not any(x in p_plain for x in denied)
    p_reach = p_neg | (p_plain - p_asserted)
    s_said = s_asserted if p_reach & s_neg else s_plain
    removed = any(x in p_neg and x not in p_plain and x not in s_neg for x in s_said)
    return float(added), float(removed)


def verbatim_negation(index: ContextIndex, tokens: list[Token]) -> tuple[float, float]:
    """A negation the statement adds to, or drops from, a context sentence it otherwise copies:
    the words around it, `SIDE` on each side (four at least; `SIDE` on one side at the
    statement's edge), read alike ("A Business account is not the same as a Premier account"
    where the context says "A Business account is the same as a Premier account"). The scopes
    `negation_mismatch` reads skip small words ("the", "that", "many"); a copied sentence needs
    none.

    Args:
        index: The context's index (`spaced_stems`, `undone_negations`).
        tokens: The statement's tokens.

    Returns:
        `(added, removed)`, as `negation_mismatch` gives them.
    """
    stems = [t.stem for t in tokens]
    bases = ((k, negated_base(s)) for k, s in enumerate(stems))
    negated = [(k, base) for k, base in bases if base is not None]
    if negated:
        windows = (window(stems, k, base) for k, base in negated)
        return float(any(w and said_plainly(index.spaced_stems, w) for w in windows)), 0.0
    text = f" {' '.join(stems)} "
    return 0.0, float(any(w in text for w in index.undone_negations))


def undone_negations(sentences: Sequence[Sequence[str]]) -> frozenset[str]:
    """The words around each negation of the sentences (stems), the negation undone, as
    `verbatim_negation` matches them ("can make up their" of "can't make up their")."""
    return frozenset(
        w
        for stems in sentences
        for k, stem in enumerate(stems)
        if (base := negated_base(stem)) is not None and (w := window(stems, k, base))
    )


def verbatim_opposite(index: ContextIndex, stems: Sequence[str]) -> str:
    """A word of the statement whose opposite stands in a context sentence the statement
    otherwise copies: the words around it, as `verbatim_negation` reads them, alike ("While
    less expensive than smaller cases" where the context says "While more expensive than
    smaller cases"), and the statement's own words nowhere in the context.

    Args:
        index: The context's index (`spaced_stems`).
        stems: The stems of the statement's tokens.

    Returns:
        The word with its opposite, as a note; "" where none.
    """
    for k, word in enumerate(stems):
        opposites = ANTONYMS.get(word)
        if not opposites or window(stems, k, word) in index.spaced_stems:
            continue
        for opposite in sorted(opposites):
            run = window(stems, k, opposite)
            if run and said_plainly(index.spaced_stems, run):
                return f"'{word}' where the passage says '{opposite}'"
    return ""


def negation_note(added: float, removed: float) -> str:
    """The reason for a negation mismatch.

    Args:
        added: The first value of `negation_mismatch`.
        removed: Its second value.

    Returns:
        Which side is negated, or "" when neither.
    """
    if added:
        return "the statement is negated but the best passage is not"
    if removed:
        return "the best passage is negated but the statement is not"
    return ""


_NEGATING_PREFIXES = ("un", "in", "im", "il", "ir", "dis", "non", "non-")


def _opposites(word: str) -> set[str]:
    """Listed antonyms plus forms differing by a negating prefix ("certain"/"uncertain")."""
    out = set(ANTONYMS.get(word, ()))
    if len(word) >= 4 and word.isalpha():
        for prefix in _NEGATING_PREFIXES:
            out.add(prefix + word)
            rest = word[len(prefix) :]
            if word.startswith(prefix) and len(rest) >= 4:
                out.add(rest)
    return out


def antonym_conflict(stems: Sequence[str], passage: Sequence[str]) -> str:
    """A word of the statement whose opposite the passage says instead ("rose" / "fell",
    "certain" / "uncertain"): the passage lacks the word and says its opposite more often than
    the statement does. So "less than 140 miles ... more than 30 parks" conflicts with "more
    than 140 miles ... more than 30 parks", while "over 600 firefighters brought the fire under
    control" does not conflict with a passage that says "under control" once.

    Args:
        stems: The stems of the statement's tokens.
        passage: The stems of the best passage's tokens.

    Returns:
        The first such word (in sorted order) with its opposite, as a note; "" where none.
    """
    mine, theirs = Counter(stems), Counter(passage)
    for s in sorted(mine):
        if theirs[s]:
            continue
        for opposite in sorted(_opposites(s)):
            if theirs[opposite] > mine[opposite]:
                return f"'{s}' where the passage says '{opposite}'"
    return ""


#: How near (in content words) a statement's two opposites say both ("public and private").
_BOTH_REACH = 3


def slot_antonym(
    content: list[Token], context_pairs: frozenset[tuple[str, str]], passage: set[str]
) -> str:
    """An antonym beside the same word where the context has both words ("open on Sundays"
    against "open on weekdays but closed on Sundays"). The word after decides first: the
    context pairs the opposite with it and never the word itself ("open on Tuesdays" against
    "closed on Mondays and open on Tuesdays" stays supported); else the word before, when
    the context never pairs the word with either and the best passage (`passage`, its stems)
    does not say the word elsewhere ("the council approved ..., but rejected ..."). Names
    ("South Africa") and a word with its opposite beside it ("private as well as public") are
    left alone; an opposite said elsewhere in the statement is no reason to ("less than 140
    miles ... and more than 30 parks").

    Args:
        content: The statement's content tokens.
        context_pairs: Every adjacent content-stem pair of the context.
        passage: The stems of the best passage.

    Returns:
        The first antonym in a slot, with the passage's word, as a note; "" where none.
    """
    stems = [t.stem for t in content]
    for i, word in enumerate(content):
        if word.is_capital and not word.sentence_initial:
            continue
        near = set(stems[max(0, i - _BOTH_REACH) : i + _BOTH_REACH + 1])
        opposites = sorted(ANTONYMS.get(word.stem, frozenset()) - near)
        if not opposites:
            continue  # "private as well as public": both said together
        after = stems[i + 1] if i + 1 < len(stems) else None
        before = stems[i - 1] if i > 0 else None
        if after is not None and (word.stem, after) in context_pairs:
            continue
        for opposite in opposites:
            if after is not None and (opposite, after) in context_pairs:
                return f"'{word.stem}' where the passage says '{opposite}'"
        if before is None or (before, word.stem) in context_pairs or word.stem in passage:
            continue  # "turned down the pool" where "the council approved ... but rejected"
        for opposite in opposites:
            if (before, opposite) in context_pairs:
                return f"'{word.stem}' where the passage says '{opposite}'"
    return ""
