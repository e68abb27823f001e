"""Kinds about dates: a date's day, month or year changed (must fail), the same date written
another way (must pass)."""

from __future__ import annotations

import calendar
import random
import re
from dataclasses import dataclass, replace

from ragjudge.data._gold import GoldRecord
from ragjudge.probing._lexicon import MONTHS, month_number
from ragjudge.probing._probe import Skip, Variant
from ragjudge.probing._registry import Pool, generator
from ragjudge.probing._text import language, replace_once
from ragjudge.probing.generators._numbers import flat, in_passages, statements

_YEAR = r"(?P<y>1[0-9]{3}|20[0-9]{2})"
_DAY = r"(?P<d>[12][0-9]|3[01]|0?[1-9])"


def _months(lang: str) -> str:
    names = MONTHS[lang]
    if lang in ("en", "de"):  # written with a capital: `may` and `march` stay verbs
        return "|".join(n.capitalize() for n in names)
    return "|".join(names + tuple(n.capitalize() for n in names))


#: Date patterns per language, most specific first; each names its parts (d, m, y) and its
#: form (`dmy`, `mdy`, `iso`, ...), which `_write` writes back.
_PATTERNS: dict[str, list[tuple[str, str]]] = {
    "en": [
        ("iso", rf"{_YEAR}-(?P<mm>0[1-9]|1[0-2])-(?P<dd>0[1-9]|[12][0-9]|3[01])"),
        ("mdy", rf"(?P<m>{_months('en')}) {_DAY}(?P<o>st|nd|rd|th)? ?, {_YEAR}"),
        ("dmy", rf"{_DAY}(?P<o>st|nd|rd|th)? (?P<m>{_months('en')}),? {_YEAR}"),
        ("my", rf"(?P<m>{_months('en')}),? {_YEAR}"),
        ("md", rf"(?P<m>{_months('en')}) {_DAY}(?P<o>st|nd|rd|th)?"),
        ("dm", rf"{_DAY}(?P<o>st|nd|rd|th)? (?P<m>{_months('en')})"),
        ("y", rf"(?<=\bin ){_YEAR}"),
    ],
    "de": [
        ("iso", rf"{_YEAR}-(?P<mm>0[1-9]|1[0-2])-(?P<dd>0[1-9]|[12][0-9]|3[01])"),
        ("dmy", rf"{_DAY}\. ?(?P<m>{_months('de')}) {_YEAR}"),
        ("my", rf"(?P<m>{_months('de')}) {_YEAR}"),
        ("dm", rf"{_DAY}\. ?(?P<m>{_months('de')})"),
        ("y", rf"(?:(?<=\bim Jahr )|(?<=\bim Jahre )){_YEAR}"),
    ],
    "fr": [
        ("iso", rf"{_YEAR}-(?P<mm>0[1-9]|1[0-2])-(?P<dd>0[1-9]|[12][0-9]|3[01])"),
        ("dmy", rf"(?:{_DAY}|(?P<first>1er)) (?P<m>{_months('fr')}) {_YEAR}"),
        ("my", rf"(?P<m>{_months('fr')}) {_YEAR}"),
        ("dm", rf"(?:{_DAY}|(?P<first>1er)) (?P<m>{_months('fr')})"),
        ("y", rf"(?<=\ben ){_YEAR}"),
    ],
    "es": [
        ("iso", rf"{_YEAR}-(?P<mm>0[1-9]|1[0-2])-(?P<dd>0[1-9]|[12][0-9]|3[01])"),
        ("dmy", rf"{_DAY} de (?P<m>{_months('es')}) del? {_YEAR}"),
        ("my", rf"(?P<m>{_months('es')}) del? {_YEAR}"),
        ("dm", rf"{_DAY} de (?P<m>{_months('es')})"),
        ("y", rf"(?<=\ben ){_YEAR}"),
    ],
}
_COMPILED = {
    lang: [(form, re.compile(rf"(?<![\w\-–/.,]){p}(?![\w\-–/]|[.,]\d)")) for form, p in pats]
    for lang, pats in _PATTERNS.items()
}

#: Words before a date that make it a bound or a window (`before 2 October 2019`, `since 1998`):
#: an earlier or later date may still be entailed.
_BOUND = re.compile(
    r"(?<![^\W_])(?:before|after|until|till|by|since|from|between|through|prior to|as of|"
    r"later than|earlier than|vor|nach|bis|seit|ab|zwischen|avant|après|jusqu'au|jusqu'en|"
    r"depuis|dès|entre|antes de|después de|hasta|desde|entre)(?: (?:the|dem|le|el))?\s*$",
    re.IGNORECASE,
)
#: What after a date makes it one end of a range (`2 October to 5 October`, `1998–2000`).
_RANGE_AFTER = re.compile(r"^\s*(?:-|–|to|and|or|until|bis|und|au|et|à|al|y|a)\s+\d", re.I)


@dataclass(frozen=True)
class _Date:
    """A date as it stands in a sentence: its span, form and parts (None when not written)."""

    start: int
    end: int
    text: str
    form: str
    lang: str
    day: int | None
    month: int | None
    year: int | None
    ordinal: bool = False
    capital: bool = True
    padded: bool = False


def dates(sentence: str, lang: str) -> list[_Date]:
    """The dates of `sentence` in `lang`'s patterns, not overlapping, in order."""
    found: list[_Date] = []
    taken: list[tuple[int, int]] = []
    for form, pattern in _COMPILED.get(lang, _COMPILED["en"]):
        for match in pattern.finditer(sentence):
            if any(match.start() < e and s < match.end() for s, e in taken):
                continue
            parts = match.groupdict()
            month_text = parts.get("m")
            month = month_number(month_text, lang) if month_text else None
            if parts.get("mm"):
                month = int(parts["mm"])
            day = int(parts["dd"]) if parts.get("dd") else None
            if parts.get("d"):
                day = int(parts["d"])
            if parts.get("first"):
                day = 1
            year = int(parts["y"]) if parts.get("y") else None
            if day and month and day > calendar.monthrange(2000, month)[1]:
                continue
            taken.append((match.start(), match.end()))
            found.append(
                _Date(match.start(), match.end(), match.group(0), form, lang, day, month, year,
                      ordinal=bool(parts.get("o")),
                      capital=bool(month_text and month_text[0].isupper()),
                      padded=(parts.get("d") or "").startswith("0"))
            )  # fmt: skip
    return sorted(found, key=lambda d: d.start)


def _ordinal(day: int) -> str:
    return "th" if 11 <= day <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")


def _month_name(date: _Date, month: int) -> str:
    name = MONTHS[date.lang][month - 1]
    return name.capitalize() if date.capital or date.lang in ("en", "de") else name


def _write(date: _Date, form: str | None = None) -> str:
    """`date` written in `form` (its own when None), in its language."""
    form = form or date.form
    d, m, y = date.day, date.month, date.year
    if form == "iso":
        return f"{y:04d}-{m:02d}-{d:02d}"
    if form == "y":
        return str(y)
    if form == "num":  # 2.10.2019, 02/10/2019
        return f"{d}.{m}.{y}" if date.lang == "de" else f"{d:02d}/{m:02d}/{y}"
    assert m is not None
    month = _month_name(date, m)
    day = ""
    if d is not None:
        day = "1er" if date.lang == "fr" and d == 1 else f"{d:02d}" if date.padded else str(d)
        day += _ordinal(d) if date.ordinal and date.lang == "en" else ""
    if form == "my":
        return {"es": f"{month} de {y}"}.get(date.lang, f"{month} {y}")
    if date.lang == "de":
        return f"{day}. {month} {y}" if form == "dmy" else f"{day}. {month}"
    if date.lang == "es":
        return f"{day} de {month} de {y}" if form == "dmy" else f"{day} de {month}"
    return {
        "dmy": f"{day} {month} {y}",
        "mdy": f"{month} {day}, {y}",
        "md": f"{month} {day}",
        "dm": f"{day} {month}",
    }[form]


@dataclass(frozen=True)
class _Found:
    sentence: str
    date: _Date


def _found(row: GoldRecord, *, must_fail: bool) -> list[_Found]:
    out: list[_Found] = []
    for statement in statements(row):
        sentence, lang = statement.text, statement.lang
        if (must_fail and statement.negated) or not re.search(r"\d", sentence):
            continue
        for date in dates(sentence, lang):
            if _RANGE_AFTER.match(sentence[date.end :]):
                continue
            if must_fail and _BOUND.search(sentence[: date.start]):
                continue
            following = re.match(r" ([A-ZÀ-Ý][\w'’\-]*)", sentence[date.end :])
            if date.form in ("y", "my") and following and lang != "de":
                continue  # the 1998 World Cup, in 2019 Census data
            out.append(_Found(sentence, date))
    return out


def _variant(found: _Found, new: str) -> Variant:
    date = found.date
    answer = replace_once(found.sentence, date.start, date.end, new)
    return Variant(answer=answer, before=date.text, after=new, language=date.lang)


def _changes(date: _Date, rng: random.Random) -> list[tuple[str, _Date]]:
    """Each part `date` writes (day, month, year), changed to a value drawn with `rng`."""
    out: list[tuple[str, _Date]] = []
    if date.day is not None:
        days = [d for d in range(1, 29) if abs(d - date.day) >= 2]
        out.append(("day", replace(date, day=days[rng.randrange(len(days))])))
    if date.month is not None:
        months = [
            m for m in range(1, 13)
            if m != date.month and (date.day or 1) <= calendar.monthrange(2001, m)[1]
        ]  # fmt: skip
        out.append(("month", replace(date, month=months[rng.randrange(len(months))])))
    if date.year is not None:
        top = max(date.year, 2024)
        years = [date.year + k for k in (-6, -5, -4, -3, -2, -1, 1, 2, 3, 4, 5, 6)]
        years = [y for y in years if y <= top]
        out.append(("year", replace(date, year=years[rng.randrange(len(years))])))
    return out


def _stated(new: _Date, part: str, text: str, known: list[_Date]) -> bool:
    """Whether the passages may state `new` (or its changed part) anywhere: then the change
    is not certainly unfaithful."""
    if in_passages(text, _write(new)):
        return True
    if part == "year" and in_passages(text, str(new.year)):
        return True
    if part == "month" and new.month is not None:
        names = {MONTHS[lang][new.month - 1] for lang in MONTHS}
        if in_passages(text, *names):
            return True
    for other in known:
        pairs = [(new.day, other.day), (new.month, other.month), (new.year, other.year)]
        if all(a == b for a, b in pairs if a is not None and b is not None):
            return True
    return False


@generator(
    kind="date",
    expect="fail",
    summary="a date's day, month or year changed (the new date in no passage)",
)
def date(row: GoldRecord, *, rng: random.Random, pool: Pool) -> Variant | Skip:
    """A context sentence with one part of a date changed (`2 October 2019` -> `2 April
    2019`, `in 1998` -> `in 1995`). Not after `before`, `since`, `until` and the like (an
    earlier or later date may be entailed), not in a range, not in a sentence with a negation;
    the new date, and a new month or year, stand in no passage."""
    found = _found(row, must_fail=True)
    if not found:
        return Skip("no sentence with a date")
    text = flat(row.contexts)
    known = [d for passage in row.contexts for d in dates(passage, language(passage))]
    rng.shuffle(found)
    for item in found:
        changes = _changes(item.date, rng)
        rng.shuffle(changes)
        for part, new in changes:
            if not _stated(new, part, text, known):
                return _variant(item, _write(new))
    return Skip("no date whose changed form is absent from the passages")


_OTHER_FORMS = {
    "en": {"dmy": ("mdy", "iso"), "mdy": ("dmy", "iso"), "iso": ("dmy", "mdy"), "dm": ("md",),
           "md": ("dm",)},
    "de": {"dmy": ("num", "iso"), "iso": ("dmy",)},
    "fr": {"dmy": ("num", "iso"), "iso": ("dmy",)},
    "es": {"dmy": ("num", "iso"), "iso": ("dmy",)},
}  # fmt: skip


@generator(
    kind="date_format",
    expect="pass",
    summary="a date written another way, the same day, month and year",
)
def date_format(row: GoldRecord, *, rng: random.Random, pool: Pool) -> Variant | Skip:
    """A context sentence with one date written another way (`2 October 2019` -> `October 2,
    2019` or `2019-10-02`; `2. Oktober 2019` -> `2.10.2019`), the same day, month and year."""
    options: list[tuple[_Found, str]] = []
    for item in _found(row, must_fail=False):
        if re.search(r"\bthe\s*$", item.sentence[: item.date.start], re.IGNORECASE):
            continue  # the 2nd of October: another form would not read
        for form in _OTHER_FORMS.get(item.date.lang, {}).get(item.date.form, ()):
            options.append((item, form))
    if not options:
        return Skip("no date to write another way")
    item, form = options[rng.randrange(len(options))]
    new = _write(replace(item.date, ordinal=False), form)
    return _variant(item, new)
