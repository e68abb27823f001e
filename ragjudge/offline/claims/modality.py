"""Modality: a statement that says for certain (will, proves, or plainly) what the aligned
context sentence only hedges (may, might, could, suggests, is likely to, reportedly,
arguably); "can" (ability) and "would" (a conditional, or a future told in the past: "said it
would open") only where the statement says "will" or "proves". A statement that hedges in
words of its own ("is projected to", "a potential") claims no more than the sentence; an
"according to" it copies from the sentence names the sentence's source, no doubt of its own."""

from __future__ import annotations

from collections.abc import Sequence

from ragjudge.offline.claims._words import FILLERS, says, tokens
from ragjudge.offline.text import Token

__all__ = ["HEDGES", "conflict", "hedged"]

#: Words that make what they govern possible, likely, reported or suggested, not certain.
HEDGES = frozenset(
    """may might could possibly potentially probably likely unlikely perhaps maybe reportedly
    allegedly apparently arguably supposedly presumably seemingly purportedly suggest suggests
    suggested suggesting appear appears appeared seem seems seemed indicate indicates
    könnte könnten dürfte dürften möglicherweise eventuell vielleicht wahrscheinlich vermutlich
    angeblich mutmaßlich scheint scheinen schien deutet deuten deutete
    pourrait pourraient peut-être probablement vraisemblablement apparemment prétendument
    semble semblent suggère suggèrent suggérait
    podría podrían quizás quizá probablemente posiblemente aparentemente supuestamente
    presuntamente parece parecen sugiere sugieren sugería""".split()
)
#: Participles that hedge after "is" / "are" ... and before "to" ("is expected to close").
_HEDGED_PARTICIPLES = frozenset("expected believed thought said rumored rumoured".split())
_BE = frozenset("is are was were be".split())
#: Words of ability, and the conditional: a hedge only against a statement that says "will" or
#: "proves" ("said it would open" tells the opening as a plain past statement does).
_ABILITY = frozenset("can kann können peut peuvent puede pueden would".split())
#: A statement's own words of forecast or report, beside `HEDGES`: such a statement is no
#: surer than a hedged sentence ("revenue is projected to be", "a potential display").
_OWN_HEDGES = frozenset(
    """anticipated anticipate anticipates predicted predicts predict projected projects forecast
    forecasts forecasted foreseen planned plans intends intended potential considered estimated
    expected expects believed thought rumored rumoured tipped poised""".split()
)
#: Words that make a claim certain: the future, and proof.
SURE = frozenset(
    """will shall prove proves proved proven demonstrate demonstrates demonstrated confirm
    confirms confirmed establish establishes established
    wird werden beweisen beweist bewies belegen belegt bestätigen bestätigt
    va vont prouvent prouve prouvé démontrent démontre confirment confirme
    demuestran demuestra demostró prueban prueba confirman confirma""".split()
)
#: Words that go with a hedge and govern nothing ("tal vez", "darauf hin").
_SKIP = HEDGES | _ABILITY | SURE | frozenset("tal vez hin darauf".split())
#: The words between a hedge and what it governs: fillers and `_SKIP`.
_PASSED_OVER = FILLERS | _SKIP
#: Words before "may" the month.
_MONTH_BEFORE = frozenset("in of since until on by from early late mid during through".split())


#: How far a hedge governs: the next three words ("might flood", "is arguably the best";
#: "suggest that the drug ...": the subject of what it suggests).
_REACH = 3
#: Statement words that report a claim rather than make it ("there is some evidence that",
#: "the theory proposes"): such a statement is no surer than a hedged sentence.
_REPORTED = frozenset(
    """evidence theory hypothesis proposes argues claims believes believe according possible
    should""".split()
)
#: A statement's own words that make it no surer than a hedged sentence.
_OWN_WORDS = _REPORTED | _OWN_HEDGES


def _hedges(tokens: Sequence[Token], *, ability: bool) -> list[int]:
    """The offsets of a text's hedge words (and of its words of ability, if asked)."""
    out = []
    for i, t in enumerate(tokens):
        prev = tokens[i - 1].norm if i else ""
        after = tokens[i + 1] if i + 1 < len(tokens) else None
        if t.norm == "may" and (
            prev in _MONTH_BEFORE or (after is not None and after.is_number) or t.text == "May"
        ):
            continue  # the month
        if (
            t.norm in HEDGES
            or (ability and t.norm in _ABILITY)
            or (t.norm == "vez" and prev == "tal")
            or (t.norm in ("likely", *_HEDGED_PARTICIPLES) and prev in _BE)
        ):
            out.append(i)
    return out


def _governed(tokens: Sequence[Token], j: int) -> int:
    """The word the hedge at offset j governs: the first content word among the next `_REACH`
    words that are no filler ("darauf hin, dass das Mittel": "Mittel"); where none is, the
    first of them that is a word ("probably makes it": "makes"); or -1."""
    words = [k for k in range(j + 1, len(tokens)) if tokens[k].norm not in _PASSED_OVER]
    near = words[:_REACH]
    return next(
        (k for k in near if tokens[k].is_content),
        next((k for k in near[:1] if tokens[k].norm.isalpha()), -1),
    )


def hedged(statement: str) -> bool:
    """Whether a statement hedges in words of its own ("may", "could", "is projected to",
    "according to"), and so claims no certainty a sentence could lack."""
    return bool(_own_hedges(tokens(statement)))


def _own_hedges(mine: Sequence[Token]) -> set[str]:
    """The words by which a text hedges (`hedged`)."""
    own = {mine[i].norm for i in _hedges(mine, ability=True)}
    return own | {t.norm for t in mine if t.norm in _OWN_WORDS}


def conflict(statement: str, sentence: str) -> str:
    """A statement surer than the sentence about the word the sentence's hedge governs.

    Args:
        statement: The statement text.
        sentence: A context sentence aligned with it.

    Returns:
        The reason ("'will flood' where the passage only says 'might'"), or "" when there is
        none: the statement hedges itself, the sentence does not, or its hedge governs a word
        the statement does not say.
    """
    mine, theirs = tokens(statement), tokens(sentence)
    own = _own_hedges(mine)
    if "according" in own and any(t.norm == "according" for t in theirs):
        own.discard("according")  # the sentence's own source, copied: no doubt of its own
    if own:
        return ""
    sure = any(t.norm in SURE for t in mine)
    for j in _hedges(theirs, ability=sure):
        k = _governed(theirs, j)
        if k >= 0 and says(mine, theirs[k].norm):
            return (
                f"'{theirs[k].norm}' said for certain where the passage only says "
                f"'{theirs[j].text.lower()}'"
            )
    return ""
