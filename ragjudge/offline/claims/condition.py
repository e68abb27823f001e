"""Condition: a statement that says plainly what the aligned context sentence says only under a
condition or with an exception ("the connector will be loose" where the passage says "... if
plugged in too often"; "the entire cabinet resigned" where it says "Except for Webster, ...").

The condition is the clause its marker opens (if, unless, except, excluding, provided that ...,
in English, German, French and Spanish), up to the next comma or the end of the sentence; it is
put on the clause it ends, or on the one it opens when it leads the sentence. The statement
drops it when it says most of that clause and almost none of the condition's own words, with
no condition of its own. Such a statement claims more than the passage. A statement hedged in
its own words ("might flood") keeps the doubt a condition put on the claim; an exception it
still drops."""

from __future__ import annotations

import re

from ragjudge.offline.claims._words import content_stems
from ragjudge.offline.claims.modality import hedged

__all__ = ["conflict"]

_MARKERS = re.compile(
    r"(?i)\b(?:only if|if|unless|except for|except|excluding|with the exception of|apart from|"
    r"provided that|as long as|so long as|on condition that|wenn|(?<=,\s)falls|sofern|außer|"
    r"ausgenommen|es sei denn|à moins que|sauf si|sauf|excepté|à condition que|si|"
    r"a menos que|salvo|excepto|siempre que|con excepción de)\b"
)
#: A condition on the reader, not on the claim ("if you look at ...", "if that's correct", "if
#: not impossible", "if any").
_ASIDE = re.compile(
    r"(?i)^\W*(?:\w+\s+)?(?:you|you'\w+|you’\w+|we|we'\w+|sie|du|vous|tu|usted|ustedes|"
    r"that'?s|that’s|that is|not|any|so|necessary|possible|needed|anything|ever)\b"
)
#: The markers of an exception, which bounds a claim whatever its length ("except one").
_EXCEPTION = re.compile(
    r"(?i)(?:except|excluding|with the exception|apart from|außer|ausgenommen|sauf|excepté|"
    r"salvo|excepto|con excepción)"
)
#: Where the clause a marker ends begins: a comma, colon or semicolon, a coordinating word, or
#: a sentence's end the sentence splitter left (". the NFL uses ...").
_CLAUSE_BREAK = re.compile(r"[,;:]|[.!?](?=\s)|\b(?:and|but|while|und|aber|et|mais|y|pero)\b", re.I)
#: The least share of the rest of the sentence the statement must say to be its claim.
SAID_SHARE = 0.6
#: The most of the condition's own words the statement may say and still have dropped it.
DROPPED_SHARE = 0.34


def conflict(statement: str, sentence: str) -> str:
    """A condition or exception of the sentence that the statement drops.

    Args:
        statement: The statement text.
        sentence: A context sentence aligned with it.

    Returns:
        The reason ("said without the passage's condition 'unless an act of true love ...'"),
        or "".
    """
    markers = list(_MARKERS.finditer(sentence))
    if not markers or _MARKERS.search(statement):
        return ""  # most sentences have no condition: read the statement only where one has
    mine = content_stems(statement, numbers=False)
    sure = not hedged(statement)
    for marker in markers:
        end = re.search(r"[,;.:!?]", sentence[marker.end() :])
        stop = marker.end() + end.start() if end else len(sentence)
        condition = sentence[marker.start() : stop]
        if _ASIDE.match(sentence[marker.end() : stop]):
            continue
        own = content_stems(sentence[marker.end() : stop], numbers=False)
        exception = _EXCEPTION.match(marker.group(0))
        if not exception and not (own and sure):
            # an exception bounds a claim however short ("except one") and however hedged; a
            # condition only a claim made for certain ("the river might flood" keeps the doubt
            # an "if heavy rain continues" put on it)
            continue
        if own and len(mine & own) / len(own) > DROPPED_SHARE:
            continue
        # the clause the condition is put on: the one it ends ("it feels unstable, and the
        # connector will be loose if ..."), or the one it opens ("Except for X, the squad ...")
        before = _CLAUSE_BREAK.split(sentence[: marker.start()])
        after = _CLAUSE_BREAK.split(sentence[stop:])[:2][-1]
        if not before[-1].strip() and content_stems(after, numbers=False):
            governed = after  # it opens its clause: "..., but if play ends tied, X follows"
        else:
            governed = next((p for p in reversed(before) if p.strip()), "")
        rest = content_stems(governed, numbers=False) - own
        if len(rest) < 2 or (len(rest) == 2 and not rest <= mine):
            continue  # too short a claim to tell it from another that shares its words
        if len(mine & rest) / len(rest) >= SAID_SHARE:
            shown = condition if len(condition) <= 60 else condition[:57] + "..."
            return f"said without the passage's condition '{shown.strip()}'"
    return ""
