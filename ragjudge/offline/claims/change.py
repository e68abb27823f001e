"""Change: a statement whose verb of change goes the other way than its own figures ("the number
of students fell from 70 to 160"; "manufacturing has risen from 40% to 12%"). The statement
contradicts itself, so no context can say it: the verdict is no, whatever the passage says.

The verb (rose, increased, grew, fell, declined, dropped ... in English and German) is read
with the first figure after its "from" (von) and the next figure of the same kind after a
"to" (auf, bis); years are left out ("fell from 2010 to 2015" is a span of time)."""

from __future__ import annotations

import re

from ragjudge.offline.numbers import number_values

__all__ = ["conflict"]

_UP = (
    r"rose|risen|rise|rises|rising|increased|increases|increasing|grew|grown|grows|growing|"
    r"climbed|climbs|jumped|jumps|soared|surged|went up|gone up|gained|expanded|"
    r"stieg|gestiegen|wuchs|gewachsen|erhöhte|erhöht"
)
_DOWN = (
    r"fell|fallen|falls|falling|dropped|drops|declined|declines|declining|decreased|decreases|"
    r"decreasing|shrank|shrunk|shrinks|plunged|plummeted|slumped|went down|gone down|sank|"
    r"sunk|contracted|gesunken|fiel|gefallen|sinkt|verringerte|verringert"
)
#: A verb of change, up to three words, then "from": the figures follow.
_CHANGE_RE = re.compile(
    rf"(?i)\b(?:(?P<up>{_UP})|(?P<down>{_DOWN}))\b(?:\W+\w+){{0,3}}?\W+(?:from|von)\b"
)
_TO_RE = re.compile(r"(?i)\b(?:to|auf|bis)\b")
#: A rank, whose figure falls as it rises ("dropped from 3rd to 10th place", "No. 2").
_RANK_RE = re.compile(
    r"(?i)\d(?:st|nd|rd|th)\b|\b(?:first|second|third|place|rank\w*|position|spot|seed\w*|"
    r"number|platz|rang)\b|\bno\.|#"
)
#: The most characters between "from" and the second figure.
_REACH = 80


def _figures(text: str, start: int) -> tuple[str, float, str, float] | None:
    """The figure a change goes from and the one it goes to, after offset `start`: each as its
    text and value."""
    after = [q for q in number_values(text) if q.start >= start and q.start - start <= _REACH]
    if not after or after[0].kind == "year":
        return None
    first = after[0]
    raw = text[first.start : first.end]
    sides = _TO_RE.split(raw, maxsplit=1)
    if len(sides) == 2:  # one range, "70 to 160": its sides in the order written
        old, new = (number_values(side) for side in sides)
        if len(old) == 1 and len(new) == 1:
            return sides[0].strip(), old[0].low, sides[1].strip(), new[0].low
        return None
    for q in after[1:]:
        if q.kind == first.kind and _TO_RE.search(text[first.end : q.start]):
            return raw, first.low, text[q.start : q.end], q.low
    return None


def conflict(statement: str) -> str:
    """A change the statement's own figures go against.

    Args:
        statement: The statement text.

    Returns:
        The reason ("'fell' from 70 to 160"), or "".

    Example:
        >>> conflict("Enrolment fell from 70 to 160 students.")
        "'fell' from 70 to 160: the figures rise"
        >>> conflict("Enrolment rose from 70 to 160 students.")
        ''
    """
    for match in _CHANGE_RE.finditer(statement):
        figures = _figures(statement, match.end())
        if figures is None:
            continue
        old, low, new, high = figures
        if _RANK_RE.search(statement[match.start() : match.end() + _REACH + 20]):
            continue
        if all(v.is_integer() and 1000 <= v <= 2100 for v in (low, high)):
            continue  # "from 2010 to 2015": years read as plain numbers
        up = match.group("up") is not None
        if (up and high < low) or (not up and high > low):
            word = (match.group("up") or match.group("down")).lower()
            way = "fall" if up else "rise"
            return f"'{word}' from {old} to {new}: the figures {way}"
    return ""
