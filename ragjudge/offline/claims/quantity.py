"""Quantity: a number with its unit, its scale and what it counts, against the quantities of
the aligned context sentences.

The numbers are read by `ragjudge.offline.numbers` (`number_values`: values, ranges, scales,
currencies, percentages, written numbers, units in their forms); this module compares them:

- another unit with the same value is a conflict ("24 weeks" where the passage says "24
  months", "€3.50" where it says "$3.50", "5 percentage points" where it says "5%"), unless the
  passage gives the value in the statement's unit too or converts to it ("2 years" / "24
  months");
- a value the passage gives for another thing is a conflict when the passage gives another
  value for the statement's thing ("500 employees" where it says "500 stores and 200
  employees");
- another value in the same slot is a conflict (`value_conflict`, `given_for_another`);
- the same value written another way ("1,500" / "1500" / "one thousand five hundred", "50%" /
  "half of") is the same quantity, as `supports` reads it;
- a sum or difference of two quantities of one unit in the passage is supported
  (`derived`: "the difference between the 30 minutes and the 10 minutes is 20 minutes").
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TypeVar

from ragjudge.offline.claims._copied import swapped_words
from ragjudge.offline.claims._words import same_word
from ragjudge.offline.numbers import (
    Quantity,
    dimension,
    is_measure,
    may_agree,
    month_number,
    number_values,
    quantity_text,
    same_slot,
    supports,
    unit_key,
)

if TYPE_CHECKING:
    from ragjudge.offline.index import ContextIndex
    from ragjudge.offline.text import Token

__all__ = [
    "OPERATION_WORDS",
    "conflict",
    "conflicts",
    "copied_swap",
    "derived",
    "given_for_another",
    "show",
    "value_conflict",
]

#: Kinds of quantity this module compares: years, ranks and times of day are dates and
#: orders, which the number rule (`value_conflict`) reads.
_SKIPPED = frozenset({"year", "ordinal", "clock"})
#: A number of percentage points: the difference of two percentages, not a percentage.
_POINTS_RE = re.compile(
    r"\s*(?:percentage[\s-]points?|prozentpunkte?n?|points?\s+de\s+pourcentage"
    r"|puntos?\s+porcentuales?)\b",
    re.IGNORECASE,
)
#: Words that state a sum or a difference, and the words of percentage points: found in the
#: context when the figure they state is computed from it (`derived`).
OPERATION_WORDS = frozenset(
    """total totals sum combined together altogether difference differ gap more fewer less
    percentage points point
    insgesamt zusammen ergeben unterschied differenz mehr weniger prozentpunkte prozentpunkt
    beträgt
    différence total font plus moins pourcentage
    diferencia suman suma total más menos puntos porcentuales""".split()
)
#: Words of a statement that make a figure of one passage sentence a sum or a difference of
#: two others ("rose by", "in total", "more than"), when the statement does not repeat them.
_MARKERS = OPERATION_WORDS | frozenset(
    """by rose grew increased fell dropped decreased declined
    um stieg sank wuchs de par por""".split()
)
_WORD_RE = re.compile(r"[^\W\d_]+")


def _points(text: str, q: Quantity) -> bool:
    """Whether a quantity of a text is a number of percentage points ("3 percentage points",
    "3 Prozentpunkte")."""
    digits = re.match(r"[\d.,\s]*", text[q.start :])
    at = q.start + (digits.end() if digits else 0)
    return bool(_POINTS_RE.match(text, at))


_PERCENT_CUT_RE = re.compile(
    r".*?(?:%|％|\bper\s?cent\b|\bprozent\b|\bpour cent\b|\bpor ciento\b)", re.IGNORECASE
)


def _quote(text: str, q: Quantity) -> str:
    """A quantity as its text writes it: a percentage ends at its sign ("5%", not "5% last"),
    percentage points take their words ("5 percentage points")."""
    if _points(text, q):
        digits = re.match(r"[\d.,\s]*", text[q.start :])
        at = q.start + (digits.end() if digits else 0)
        found = _POINTS_RE.match(text, at)
        if found:
            return " ".join(text[q.start : found.end()].split())
    written = quantity_text(text, q)
    unit = re.match(r"\s+([^\W\d_]+)", text[q.end :])
    money = (
        q.kind.startswith("money:") and written[:1].isdigit() and written[-1:].isdigit()
    )  # "20 dollars"
    if unit and (money or unit.group(1).lower() == q.unit):  # a written number ends before it
        written = f"{written} {unit.group(1)}"
    if q.kind == "percent":
        cut = _PERCENT_CUT_RE.match(written)
        return cut.group(0) if cut else written
    return written


def _measure(q: Quantity, text: str) -> str:
    """What a quantity is counted in, as one key: the currency of a sum ("money:usd"),
    "percent", "points" (of a percentage), the unit of a measure ("month", "km") or the
    counted noun ("employe"), "" for a bare number."""
    if q.kind.startswith("money:") or q.kind == "percent":
        return q.kind
    if _points(text, q):
        return "points"
    return unit_key(q.unit) if q.unit else ""


def _same_thing(a: str, b: str) -> bool:
    """Whether two units or counted nouns are one ("months" / "month", "km" / "kilometres",
    "Mitarbeiter" / "Mitarbeitern")."""
    return unit_key(a) == unit_key(b) or same_word(a.lower(), b.lower())


def _said(q: Quantity, theirs: Sequence[Quantity], text: str, said: str) -> bool:
    """Whether the sentences give a quantity in its own unit (or one converting to it)."""
    for c in theirs:
        if not supports(c, q):
            continue
        mine, other = _measure(q, text), _measure(c, said)
        if mine == "points" or other == "points":
            if mine == other:
                return True
            continue
        if not (q.unit and c.unit) or _same_thing(q.unit, c.unit):
            return True
        if dimension(q.unit) and dimension(q.unit) == dimension(c.unit):
            return True  # converted by `supports`
    return False


def _same_value(a: Quantity, b: Quantity) -> bool:
    return abs(a.low - b.low) < 1e-9 and abs(a.high - b.high) < 1e-9 and a.bound == b.bound


def _other_unit(q: Quantity, text: str, theirs: Sequence[Quantity], said: str) -> str:
    """The same value the passage gives in another unit of the statement's kind: another
    currency, another unit of one dimension, percent for percentage points."""
    mine = _measure(q, text)
    for c in theirs:
        if c.kind in _SKIPPED or not _same_value(q, c):
            continue
        other = _measure(c, said)
        if mine == other:
            continue
        money = mine.startswith("money:") and other.startswith("money:")
        share = {mine, other} == {"percent", "points"}
        dim = dimension(q.unit) if q.unit else ""
        measure = bool(dim) and dim == dimension(c.unit) and not _same_thing(q.unit, c.unit)
        if money or share or measure:
            return f"'{_quote(text, q)}' where the passage says '{_quote(said, c)}'"
    return ""


def _other_thing(q: Quantity, text: str, theirs: Sequence[Quantity], said: str) -> str:
    """The value the passage gives for another thing, where it gives another value for the
    statement's ("500 employees" where it says "500 stores and 200 employees")."""
    if not q.unit or dimension(q.unit) or _measure(q, text) == "points":
        return ""
    given = [c for c in theirs if c.unit and _same_value(q, c) and not _same_thing(q.unit, c.unit)]
    if not given:
        return ""
    for c in theirs:
        if c.unit and _same_thing(q.unit, c.unit) and c.kind == q.kind and not supports(c, q):
            if may_agree(q, c):
                continue
            return (
                f"'{_quote(text, q)}' where the passage says "
                f"'{_quote(said, c)}' ('{_quote(said, given[0])}')"
            )
    return ""


def conflict(statement: str, sentence: str) -> str:
    """A quantity of the statement the sentence gives in another unit, or for another thing.

    Args:
        statement: The statement text.
        sentence: A context sentence aligned with it (or several, joined).

    Returns:
        The reason ("'24 weeks' where the passage says '24 months'"), or "".
    """
    return conflicts(statement, [sentence])


def conflicts(statement: str, sentences: Sequence[str]) -> str:
    """`conflict` against the aligned sentences together: a quantity any of them gives in the
    statement's unit is no conflict, whatever another says.

    Args:
        statement: The statement text.
        sentences: The context sentences that say most of it.

    Returns:
        The first reason, or "".
    """
    mine = [q for q in number_values(statement) if q.kind not in _SKIPPED]
    if not mine:
        return ""
    read = [(s, number_values(s)) for s in sentences]
    for q in mine:
        if any(_said(q, theirs, statement, s) for s, theirs in read):
            continue
        for s, theirs in read:
            found = _other_unit(q, statement, theirs, s) or _other_thing(q, statement, theirs, s)
            if found:
                return found
    return ""


def _operands(
    q: Quantity, text: str, pool: Sequence[tuple[Quantity, str, int]]
) -> tuple[Quantity, Quantity, str, str] | None:
    """Two quantities of one measure whose sum or difference is `q` (exactly), with the text
    each was read from and the operation ("+" or "-")."""
    mine = _measure(q, text)
    if q.kind in _SKIPPED or q.low != q.high or q.bound or q.approx:
        return None
    for i, (a, a_text, _) in enumerate(pool):
        for b, b_text, _ in pool[i + 1 :]:
            measure = _measure(a, a_text)
            one_range = a.start == b.start and a_text == b_text  # "from 70 to 160": one measure
            if not mine and not (one_range and not measure):
                continue
            if measure != _measure(b, b_text) or not (measure or one_range) or measure == "points":
                continue
            if (measure == "percent") != (mine == "points") or (
                measure != mine and measure != "percent"
            ):
                continue  # a difference of percentages is in points, never in percent
            if measure not in ("percent", mine) and not _same_thing(a.unit, b.unit):
                continue
            if a.low != a.high or b.low != b.high or a.low == b.low:
                continue
            scale = max(abs(a.low), abs(b.low), 1.0) * 1e-9
            if abs(a.low + b.low - q.low) < scale and mine != "points":
                return a, b, a_text, "+"
            if abs(abs(a.low - b.low) - q.low) < scale:
                big, small = (a, b) if a.low > b.low else (b, a)
                texts = a_text if big is a else b_text
                return big, small, texts, "-"
    return None


def _ends(quantities: Sequence[Quantity]) -> list[Quantity]:
    """Quantities with a range read as its two ends ("rose from 70 to 160": 70 and 160)."""
    out: list[Quantity] = []
    for q in quantities:
        if q.low < q.high and not q.bound:
            out += [q._replace(high=q.low), q._replace(low=q.high)]
        else:
            out.append(q)
    return out


def derived(
    statement: str, sentences: Sequence[str], context: Sequence[str] = ()
) -> list[tuple[Quantity, str]]:
    """The quantities of a statement that are the sum or difference of two quantities of one
    measure in the passage (same unit, same currency; a difference of percentages in
    percentage points), computed exactly.

    A sum or difference is taken from two quantities the statement repeats (anywhere in the
    context), or from two of one sentence of the passage when the statement says it computes
    ("by", "total", "difference"): a figure that only happens to equal the difference of two
    unrelated figures is not supported.

    Args:
        statement: The statement text.
        sentences: The sentences of the aligned passage.
        context: The other sentences of the context.

    Returns:
        `(quantity, reason)` pairs ("'20 minutes' is 30 minutes - 10 minutes"), in order.
    """
    mine = number_values(statement)
    if not mine:
        return []
    pool = [(c, s, k) for k, s in enumerate(sentences) for c in _ends(number_values(s))]
    rest = [(c, s, -1) for s in context for c in _ends(number_values(s))]
    if len(pool) + len(rest) < 2:
        return []
    words = {w.lower() for w in _WORD_RE.findall(statement)}
    marked = bool(words & _MARKERS)
    out: list[tuple[Quantity, str]] = []
    for q in mine:
        others = [r for r in mine if r is not q]
        repeated = [
            (c, s, k)
            for c, s, k in (*pool, *rest)
            if any(supports(c, r) and _same_value(c, r) for r in others)
        ]
        found = _operands(q, statement, repeated)
        if found is None and marked:
            for k in range(len(sentences)):
                found = _operands(q, statement, [p for p in pool if p[2] == k])
                if found:
                    break
        if found is None:
            continue
        a, b, _, op = found
        out.append(
            (
                q,
                f"'{_quote(statement, q)}' is {_plain(a)} {op} {_plain(b)} "
                "(computed from the passage)",
            )
        )
    return out


def _plain(q: Quantity) -> str:
    """A value as the reason writes it: "30 minutes", "33%", "138,000,000 USD"."""
    value = _number(q.low)
    if q.kind == "percent":
        return f"{value}%"
    if q.kind.startswith("money:"):
        return f"{value} {q.kind.removeprefix('money:').upper()}"
    return f"{value} {q.unit}" if q.unit else value


def value_conflict(
    quantities: tuple[Quantity, ...],
    supported: list[bool],
    passage: tuple[Quantity, ...],
    texts: tuple[str, str] = ("", ""),
    context: Sequence[tuple[Quantity, str]] = (),
) -> str:
    """A claimed quantity the context lacks where the passage gives another in the same slot.

    Args:
        quantities: The statement's quantities (`number_values`).
        supported: Whether the context supports each (`supports`).
        passage: The quantities of the best passage.
        texts: The statement's and the passage block's text: a bound is quoted as written
            ("'up to 4,500 mg' not supported: the passage says 'no more than 2,000 mg'").
        context: Every quantity of the context with the text of its block: a claimed value
            the context gives elsewhere, between other words, does not fill the slot where
            the passage has another ("spend up to 200 grand on" against "spend up to 100
            grand on ... It cost 200 grand").

    Returns:
        The reason ("'1,200 employees' where the passage says '500 employees'"), or "".
    """
    for q, ok in zip(quantities, supported, strict=True):
        # a number between the words that hold another in the passage stands in for it, unless
        # the context gives its value between those words too, or the passage gives it a count
        # of something ("45 stores in Ohio and 12 in Texas": a count's place may differ)
        beside = [c for c in passage if _same_neighbours(q, c, texts)]
        counted = bool(q.unit) and not month_number(q.unit)
        if (
            beside
            and not any(supports(c, q) for c in beside)
            and not (counted and any(supports(c, q) for c in passage))
            and not any(
                supports(c, q) and _same_neighbours(q, c, (texts[0], text)) for c, text in context
            )
        ):
            return _other_value(q, beside[0], texts)
        if ok:
            continue
        rivals = [c for c in passage if same_slot(q, c) and not may_agree(q, c)]
        if not rivals:
            continue
        # the passage's value nearest the claim is the one it stands in for ("until 8 pm"
        # against "from 9 am to 5 pm": 5 pm)
        c = min(rivals, key=lambda c: abs((c.low + c.high) - (q.low + q.high)))
        return _other_value(q, c, texts)
    return ""


def _other_value(q: Quantity, c: Quantity, texts: tuple[str, str]) -> str:
    """The reason for a claimed value where the passage gives another: a bound quoted as
    written."""
    mine, theirs = quantity_text(texts[0], q), quantity_text(texts[1], c)
    if (q.bound or c.bound) and mine and theirs:
        return f"'{mine}' not supported: the passage says '{theirs}'"
    return f"{show(q)} where the passage says {show(c)}"


def _same_neighbours(claim: Quantity, other: Quantity, texts: tuple[str, str]) -> bool:
    """Whether two values of one kind, unit and bound stand between the same words, so one
    stands in for the other ("joining only two other winners" / "joining only six other
    winners"; "spend up to 200 grand on" / "spend up to 100 grand on"; "held for more than 40
    years." / "held for more than 20 years."): two words on one side and one on the other (a
    sentence's end is a word), one of them a word of four letters or more; or three words on
    one side, two of them of four letters or more ("carries nine hundred passengers across the"
    / "carries four hundred passengers across the"), but for a date."""
    if claim.kind != other.kind or claim.unit != other.unit or claim.bound != other.bound:
        return False
    (b1, a1), (b2, a2) = _around(texts[0], claim), _around(texts[1], other)
    # a date's parts are numbers too, which the words skip: one side is no slot for a date
    dated = (
        claim.kind == "year"
        or bool(month_number(claim.unit))
        or any(
            math.isfinite(v) and v == int(v) and 1000 <= v <= 2099 for v in (claim.low, claim.high)
        )
        or bool(_DATE_PART_RE.search(texts[0][max(0, claim.start - 2) : claim.end + 2]))
    )
    for before, after in ((2, 1), (1, 2)) if dated else ((2, 1), (1, 2), (0, 3), (3, 0)):
        mine = b1[len(b1) - before :] + a1[:after]
        theirs = b2[len(b2) - before :] + a2[:after]
        if (
            len(b1) >= before
            and len(a1) >= after
            and mine == theirs
            and sum(len(w) >= 4 and w != _END for w in mine) >= (1 if before and after else 2)
        ):
            return True
    return False


#: A number written as part of a date ("1464-05-15", "3/14/2020").
_DATE_PART_RE = re.compile(r"\d[-/]\d")
#: The sentence's end, as a word beside a quantity ("held for more than 40 years.").
_END = "</s>"
_SENTENCE_END_RE = re.compile(r"[.!?](?:\s|$)")


def _around(text: str, q: Quantity) -> tuple[list[str], list[str]]:
    """The three words before and after a quantity in its sentence, lower-cased, the
    sentence's end read as a word (`_END`); fewer at the text's start."""
    if not text or q.end > len(text):
        return [], []
    head = text[max(0, q.start - 60) : q.start]
    ends = list(_SENTENCE_END_RE.finditer(head))
    before = _WORD_RE.findall(head[ends[-1].end() :] if ends else head)[-3:]
    tail = text[q.end : q.end + 60]
    stop = _SENTENCE_END_RE.search(tail)
    after = _WORD_RE.findall(tail[: stop.start()] if stop else tail)[:3]
    if stop is not None and len(after) < 3:
        after.append(_END)
    return [w.lower() for w in before], [w.lower() for w in after]


_Key = TypeVar("_Key")  # what a value is given for: a year (Quantity) or a place (str)


def given_for_another(
    claimed: Sequence[tuple[Quantity, _Key]],
    passage: Sequence[tuple[Quantity, _Key]],
    *,
    same: Callable[[_Key, _Key], bool],
    show: Callable[[_Key], str],
) -> str:
    """A value given for the wrong year or place: the passage gives it for another and gives
    another value of the same slot for the claimed one ("1.2 million in 2020" against "from 1.2
    million in 2000 to 1.5 million in 2020"; "120 people in Berlin" against "300 people in
    Berlin and 120 in Paris").

    Args:
        claimed: The statement's `(value, key)` pairs (`value_years`, `value_places`).
        passage: The best passage's pairs.
        same: Whether the passage's key is the claimed one.
        show: How a key is written in the reason.

    Returns:
        The reason, or "".
    """
    for value, key in claimed:
        if any(supports(v, value) and same(k, key) for v, k in passage):
            continue
        if not any(supports(v, value) and not same(k, key) for v, k in passage):
            continue
        for v, k in passage:
            # given for a year or place, two bare numbers of one kind share the slot as well
            slot = same_slot(v, value) or (v.kind == value.kind and v.unit == value.unit)
            if same(k, key) and slot and not supports(v, value):
                return f"{_show(value)} in {show(key)} where the passage says {_show(v)}"
    return ""


def show(q: Quantity) -> str:
    """A quantity as a reason quotes it: "'1,200,000 employees'", "'at least 500'",
    "'19:30'"."""
    if q.kind == "clock":  # the hour of a 24-hour clock: 19.5 is 19:30
        return f"'{int(q.low):02d}:{round(q.low % 1 * 60):02d}'"
    value = _number(q.low) if q.low == q.high else f"{_number(q.low)}-{_number(q.high)}"
    bound = {"min": "at least ", "max": "at most "}.get(q.bound, "")
    return f"'{bound}{value}{' ' + q.unit if q.unit else ''}'"


_show = show


def _number(value: float) -> str:
    """A value as people write it: 1,200,000 rather than 1.2e+06."""
    if value == int(value) and abs(value) >= 10_000:
        return f"{int(value):,}"
    return f"{value:g}"


def copied_swap(index: ContextIndex, tokens: Sequence[Token]) -> str:
    """A number, or the unit word after one, that a statement puts in a context sentence it
    otherwise copies: the words around it read alike there (`ragjudge.offline.claims._copied`)
    with another number or unit in its place ("across 12 years." where the context says
    "across 12 months.", "when she was four and" where it says "when she was two and"). A
    number written another way is one stem ("four" / "4"); a date or a converted measure
    changes more than one word, and is read by `value_conflict`.

    Args:
        index: The context's index (`spaced_stems`).
        tokens: The statement's tokens.

    Returns:
        The statement's word with the context's, as a note; "" where none.
    """
    stems = [t.stem for t in tokens]
    for k, token in enumerate(tokens):
        unit = k > 0 and tokens[k - 1].is_number and is_measure(token.norm)
        if not (token.is_number or unit):
            continue
        for theirs in swapped_words(index.spaced_stems, stems, k):
            other = _another_unit(token, theirs) if unit else _another_number(token.stem, theirs)
            if other:
                return f"'{token.text}' where the passage says '{theirs}'"
    return ""


def _another_number(mine: str, theirs: str) -> bool:
    """Whether a word of the context is a number of another value ("2" for "4"; not "08" for
    "8", "99,9" for "99.9", nor "2.8" of "2.8 million" for "2800000")."""
    if not (_NUMBER_RE.fullmatch(mine) and _NUMBER_RE.fullmatch(theirs)):
        return False
    try:
        a, b = sorted(abs(float(w.replace(",", "."))) for w in (mine, theirs))
    except ValueError:  # "1.2.3"
        return False
    if a == b:
        return False
    # a scale written out or not ("2.8 million" / "2,800,000"): a power of ten apart
    return a == 0 or abs(math.log10(b / a) - round(math.log10(b / a))) > 1e-9


def _another_unit(token: Token, theirs: str) -> bool:
    """Whether a word of the context (a stem) is another unit than the statement's, not the
    same one written another way ("millenia" / "millennia", "m" / "metres")."""
    mine = unit_key(token.norm)
    forms = (theirs, theirs + "s", theirs + "e", theirs + "es")  # a stem: "metr", "mil"
    return (
        not _NUMBER_RE.fullmatch(theirs)
        and theirs[:4] != token.stem[:4]
        and all(unit_key(form) != mine for form in forms)
    )


_NUMBER_RE = re.compile(r"\d[\d.,]*")
