"""Numbers as values: ranges, approximations, scales, currencies, percentages, written numbers.

`number_values` reads every quantity of a text as a `Quantity` (an interval of values, a kind
and a unit), so that "has 500 employees" is supported by "employs around 450-550 people",
"$4.2 million" by "4,200,000 dollars" and "five hundred" by "500". `supports` decides whether a
quantity of the context covers one of a statement; `same_slot` whether two quantities measure
the same thing (same kind and unit), so that a different value there is a contradiction rather
than something the context does not say.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import NamedTuple

from ragjudge.offline.text import ENGLISH_NUMBER_WORDS, STOPWORDS, cjk_numerals

__all__ = [
    "MONTH_NAMES",
    "Quantity",
    "dimension",
    "is_measure",
    "may_agree",
    "month_number",
    "number_values",
    "quantity_text",
    "same_slot",
    "supports",
    "unit_key",
    "value_places",
    "value_years",
]

_UNITS_WORDS = {
    **ENGLISH_NUMBER_WORDS,
    # German, French, Spanish: the small numbers that answers write out
    "eins": 1, "zwei": 2, "drei": 3, "vier": 4, "fünf": 5, "sechs": 6, "sieben": 7, "acht": 8,
    "neun": 9, "zehn": 10, "zwanzig": 20, "hundert": 100, "tausend": 1000,
    "deux": 2, "trois": 3, "quatre": 4, "cinq": 5, "sept": 7, "huit": 8, "neuf": 9, "dix": 10,
    "vingt": 20, "cent": 100, "mille": 1000,
    "dos": 2, "tres": 3, "cuatro": 4, "cinco": 5, "seis": 6, "siete": 7, "ocho": 8,
    "nueve": 9, "diez": 10, "veinte": 20, "cien": 100, "mil": 1000,
    "elf": 11, "zwölf": 12, "dreizehn": 13, "vierzehn": 14, "fünfzehn": 15, "sechzehn": 16,
    "siebzehn": 17, "achtzehn": 18, "neunzehn": 19, "dreißig": 30, "vierzig": 40,
    "fünfzig": 50, "sechzig": 60, "siebzig": 70, "achtzig": 80, "neunzig": 90,
    "onze": 11, "douze": 12, "treize": 13, "quatorze": 14, "quinze": 15, "trente": 30,
    "quarante": 40, "cinquante": 50, "soixante": 60,
    "doce": 12, "trece": 13, "catorce": 14, "quince": 15, "dieciséis": 16, "diecisiete": 17,
    "dieciocho": 18, "diecinueve": 19, "treinta": 30, "cuarenta": 40, "cincuenta": 50,
    "sesenta": 60, "setenta": 70, "ochenta": 80, "noventa": 90,
    # Italian and Portuguese ("due", "once", "seize" are English words: left out)
    "tre": 3, "quattro": 4, "cinque": 5, "sette": 7, "nove": 9, "dieci": 10, "undici": 11,
    "dodici": 12, "tredici": 13, "quindici": 15, "venti": 20, "trenta": 30, "quaranta": 40,
    "cinquanta": 50, "cento": 100, "dois": 2, "duas": 2, "três": 3, "sete": 7, "oito": 8,
    "dez": 10, "doze": 12, "treze": 13, "catorze": 14, "vinte": 20, "trinta": 30,
    "quarenta": 40, "cinquenta": 50, "cem": 100,
    "два": 2, "две": 2, "три": 3, "четыре": 4, "пять": 5, "шесть": 6, "семь": 7, "восемь": 8,
    "девять": 9, "десять": 10, "одиннадцать": 11, "двенадцать": 12, "пятнадцать": 15,
    "двадцать": 20, "тридцать": 30, "сорок": 40, "пятьдесят": 50, "сто": 100,
    "тысяча": 1000, "тысячи": 1000, "тысяч": 1000,
    "ventuno": 21, "ventidue": 22, "ventitré": 23, "ventiquattro": 24, "venticinque": 25,
    "ventisei": 26, "ventisette": 27, "ventotto": 28, "ventinove": 29,
    **{  # "veinticinco", with or without the accents of "veintidós", "veintitrés", "veintiséis"
        "veinti" + word: 20 + value
        for words in (
            "uno dós trés cuatro cinco séis siete ocho nueve",
            "uno dos tres cuatro cinco seis siete ocho nueve",
        )
        for value, word in enumerate(words.split(), start=1)
    },
}  # fmt: skip
#: Written numbers that multiply what comes before them ("cinq mille", "quinze mil").
_MULTIPLYING = frozenset(["hundert", "tausend", "cent", "mille", "cien", "mil", "cento", "cem",
                          "сто", "тысяча", "тысячи", "тысяч"])  # fmt: skip
_SCALES = {
    "hundred": 1e2, "thousand": 1e3, "k": 1e3, "million": 1e6, "m": 1e6, "mn": 1e6,
    "billion": 1e9, "bn": 1e9, "b": 1e9, "trillion": 1e12, "millionen": 1e6, "millions": 1e6,
    "milliarden": 1e9, "milliards": 1e9, "millones": 1e6, "mil millones": 1e9,
    "万": 1e4, "億": 1e8, "亿": 1e8, "千": 1e3, "百": 1e2,
}  # fmt: skip
_APPROX = (
    r"(?:about|around|approximately|approx\.?|roughly|nearly|almost|some|circa|ca\.?|~|"
    r"over|more than|less than|under|up to|at least|at most|close to|"
    r"etwa|ungefähr|rund|fast|über|environ|près de|plus de|presque|aproximadamente|"
    r"alrededor de|cerca de|casi|más de|約|およそ|约|大约|近)"
)
_CURRENCY = {"$": "usd", "€": "eur", "£": "gbp", "¥": "jpy", "円": "jpy", "元": "cny"}
_CURRENCY_WORDS = {
    "dollar": "usd", "dollars": "usd", "usd": "usd", "euro": "eur", "euros": "eur",
    "eur": "eur", "pound": "gbp", "pounds": "gbp", "yen": "jpy", "yuan": "cny",
}  # fmt: skip
_NUM = r"\d+(?:[.,\u202f ]\d{3})*(?:[.,]\d+)?"
_SCALE_RE = (
    r"(?:\s*(?:hundred|thousand|million|billion|trillion|millionen|milliarden|millions|"
    r"milliards|millones|bn|mn|k|m|b)\b|[万億亿千])?"
)
_RANGE_SEP = r"\s*(?:-|–|—|〜|～|~|to|bis|à)\s*"
_APPROX_WORDS = tuple(
    w.replace("\\", "")
    for w in _APPROX.removeprefix("(?:").removesuffix(")").replace("\\.?", "").split("|")
)
_PERCENT = r"\s*(?:%|percent\b|per cent\b|prozent\b|pour cent\b|por ciento\b|％)"
_PERCENT_RE = re.compile(_PERCENT, re.IGNORECASE)
_QUANTITY_RE = re.compile(
    rf"(?P<cur>[$€£¥]\s*)?(?P<a>{_NUM})(?P<sa>{_SCALE_RE})"
    rf"(?:(?P<sep>{_RANGE_SEP})(?P<cur2>[$€£¥])?\s*(?P<b>{_NUM})(?P<sb>{_SCALE_RE}))?"
    rf"(?P<pct>{_PERCENT})?"
    r"(?P<after>\s*[^\W\d_]+)?",
    re.IGNORECASE,
)
_HAS_DIGIT_RE = re.compile(r"\d")
# "between 200 and 250" is the range 200-250 (read as "200 - 250", positions kept).
_BETWEEN_RE = re.compile(
    r"\b(between|zwischen|entre)(\s+[$€£¥]?\d[\d.,]*(?:\s*(?:hundred|thousand|million|billion|%))?)"
    r"(\s+)(and|und|et|y)(\s+)(?=[$€£¥]?\d)",
    re.IGNORECASE,
)
# One-letter scales ("$5m", "€2 b") mean millions and billions only beside a currency;
# "320 m" is 320 metres.
_LETTER_SCALES = frozenset({"k", "m", "b"})
_LOWER_WORD_RE = re.compile(r"[^\W\d_]+")
_NUMBER_WORDS = frozenset(_UNITS_WORDS)
# Words after a number that are not what it counts: the function words of every language.
_UNIT_STOP = STOPWORDS
# One-letter words after a number are "and", "in", "to" ("fondata nel 1990 e ha"), no unit.
_ONE_LETTER_WORDS = frozenset({"e", "y", "i", "a", "o", "u", "и", "в", "с"})
_TOLERANCE = 0.1
# "2 millions d'habitants", "2 millones de habitantes": what is counted comes after "de".
_LINKS = frozenset({"de", "d", "of", "di", "du", "des"})
# A German past participle after a number ends its clause ("wurde 1998 gegründet"): it is
# not the number's unit.
_PARTICIPLE_RE = re.compile(r"ge[a-zäöüß]{3,}(?:t|en)$")
_COUNTED_RE = re.compile(r"['’]?\s*([^\W\d_]+)")
_ATTACHED_DIGITS_RE = re.compile(r"(?<=[A-Za-z])\d+")
_QUARTER_RE = re.compile(r"\bQ([1-4])\b")
# Times of day: "7 am", "7:30 p.m.", "19:00", "7 o'clock" (the hour as a number: 19.5).
_CLOCK_RE = re.compile(
    r"(?<![\d.,:])(?P<h>[01]?\d|2[0-3])(?::(?P<m>[0-5]\d))?\s*(?:(?P<ap>[ap])\.?\s?m\b\.?"
    r"|(?P<oc>o['’]clock\b))"
    r"|(?<![\d.,:])(?P<h24>[01]?\d|2[0-3]):(?P<m24>[0-5]\d)(?![\d:])",
    re.IGNORECASE,
)
_FRACTION_NUMERATORS = {"a": 1.0, "an": 1.0, "one": 1.0, "two": 2.0, "three": 3.0}
_FRACTION_DENOMINATORS = {
    "third": 3.0, "thirds": 3.0, "quarter": 4.0, "quarters": 4.0, "fifth": 5.0, "fifths": 5.0,
    "tenth": 10.0, "tenths": 10.0, "two": 2.0, "three": 3.0, "four": 4.0, "five": 5.0,
    "six": 6.0, "ten": 10.0,
}  # fmt: skip
# "half of", "a third of", "two-thirds of", "three quarters of", "one in five", "1 in 4"
_FRACTION_RE = re.compile(
    r"\b(?:(?P<num>a|an|one|two|three)[\s-]+(?P<den>thirds?|quarters?|fifths?|tenths?)(?=\s+of\b)"
    r"|(?P<half>half)(?=\s+of\b)"
    r"|(?:one|1)\s+in\s+(?P<den2>two|three|four|five|six|ten|\d{1,3})\b)",
    re.IGNORECASE,
)
_PERIOD_HALF_RE = re.compile(r"(?:first|second|latter|former|last|next)\s+$", re.IGNORECASE)
_FRACTION_HINT_RE = re.compile(r"half|third|quarter|fifth|tenth|\b(?:one|1)\s+in\s", re.IGNORECASE)
_CLOCK_HINT_RE = re.compile(r":\d|\d\s?[ap]\.?\s?m|clock", re.IGNORECASE)
_ORDINAL_SUFFIXES = frozenset({"st", "nd", "rd", "th"})
#: Ordinal words; "first" is left out: it orders events as often as it ranks ("at first").
_ORDINAL_WORDS = {
    w: i
    for i, w in enumerate(
        """second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth
        thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth
        twentieth""".split(),
        start=2,
    )
}
# Words making a number a bound: "more than 2 million" is any value from 2 million up.
_MIN_WORDS = (
    "more than", "over", "above", "at least", "upwards of", "in excess of", "exceeding",
    "no fewer than", "no less than", "mehr als", "über", "mindestens", "plus de", "au moins",
    "más de", "al menos", "por lo menos",
)  # fmt: skip
_MAX_WORDS = (
    "less than", "fewer than", "under", "below", "at most", "up to", "no more than",
    "not more than", "weniger als", "höchstens", "bis zu", "moins de", "au plus", "menos de",
    "hasta", "como máximo",
)  # fmt: skip
_BOUND_RE = re.compile(
    r"(?<![^\W\d_])(?:(?P<min>"
    + "|".join(map(re.escape, _MIN_WORDS))
    + r")|(?P<max>"
    + "|".join(map(re.escape, _MAX_WORDS))
    + r"))$"
)
#: English month names and their abbreviations, as a regex alternation.
MONTHS = (
    "january|february|march|april|may|june|july|august|september|october|november|december|"
    "jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec"
)
_MONTH_BEFORE_RE = re.compile(rf"\b({MONTHS})\.?\s+$", re.IGNORECASE)
_YEAR_SLACK = 2.0


class Quantity(NamedTuple):
    """One quantity of a text.

    Attributes:
        low: Smallest value meant.
        high: Largest value meant (== low for a plain number).
        approx: Whether the text hedges it ("around", "about", "約").
        kind: "year", "percent", "money:<currency>" or "number".
        unit: The word after the number, lower-cased ("employees", "年"), or "".
        start: Character offset of the quantity in the text.
        end: Its end offset.
        bound: "min" for a lower bound ("more than 2 million", "at least 500"), "max" for an
            upper one ("fewer than 20", "up to 5%"), "" for a value or a range.
    """

    low: float
    high: float
    approx: bool
    kind: str
    unit: str
    start: int
    end: int
    bound: str = ""


def _is_cjk(char: str) -> bool:
    return "\u3040" <= char <= "\u30ff" or "\u3400" <= char <= "\u9fff"


def _to_float(text: str) -> float | None:
    raw = text.replace("\u202f", "").replace(" ", "")
    if re.fullmatch(r"\d{1,3}(,\d{3})+(\.\d+)?", raw):
        raw = raw.replace(",", "")
    elif re.fullmatch(r"\d{1,3}(\.\d{3})+(,\d+)?", raw):  # 4.200.000,5 (continental)
        raw = raw.replace(".", "").replace(",", ".")
    elif re.fullmatch(r"\d+,\d{1,2}", raw):  # 4,2 (decimal comma)
        raw = raw.replace(",", ".")
    else:
        raw = raw.replace(",", "")
    try:
        return float(raw)
    except ValueError:
        return None


def _as_range(m: re.Match[str]) -> str:
    """`_BETWEEN_RE`'s match as a dash range of the same length."""
    keyword, first, gap, conj, space = m.groups()
    return " " * len(keyword) + first + gap + "-" + " " * (len(conj) - 1) + space


def _scale(word: str) -> float:
    w = word.strip().lower()
    return _SCALES.get(w, 1.0) if w else 1.0


def _words_value(text: str) -> float | None:
    total = current = 0.0
    seen = False
    for word in re.split(r"[\s-]+", text.lower()):
        if word in ("and", "a", "an") or not word:
            continue
        if word == "half":  # "four and a half"
            current += 0.5
            continue
        if word == "dozen":
            current = (current or 1) * 12
            seen = True
            continue
        if word in _UNITS_WORDS:
            value = _UNITS_WORDS[word]
            if word in _MULTIPLYING:
                current = (current or 1) * value
            else:
                current += value
            seen = True
        elif word == "hundred":
            current = (current or 1) * 100
            seen = True
        elif word in ("thousand", "million", "billion"):
            total += (current or 1) * _SCALES[word]
            current = 0.0
            seen = True
    return total + current if seen else None


@lru_cache(maxsize=65536)
def number_values(text: str) -> tuple[Quantity, ...]:
    """Every quantity of a text, in order.

    Args:
        text: Any text.

    Returns:
        The quantities: digits (with ranges, scales, currencies and percentages) and written
        numbers ("five hundred", "twenty-five").
    """
    has_digit = bool(_HAS_DIGIT_RE.search(text))
    # read first, as a whole: "Q3", "a third of", "7 pm"
    out: list[Quantity] = [
        *(_iso_dates(text) if has_digit and "-" in text else ()),
        *(_quarters(text) if "Q" in text else ()),
        *(_fractions(text) if _FRACTION_HINT_RE.search(text) else ()),
        *(_clock_times(text) if has_digit and _CLOCK_HINT_RE.search(text) else ()),
    ]
    taken: list[tuple[int, int]] = [(q.start, q.end) for q in out]
    # digits inside a word ("COVID19", "A4", "Q3") are no number: masked, offsets kept
    matches: Iterable[re.Match[str]] = ()
    scan = text
    if has_digit:
        scan = _ATTACHED_DIGITS_RE.sub(_mask, _BETWEEN_RE.sub(_as_range, text))
        for lo, hi in taken:  # read already ("Q3", "1 in 4", "7 pm"): no digits to read again
            scan = scan[:lo] + _HAS_DIGIT_RE.sub(_mask, scan[lo:hi]) + scan[hi:]
        matches = _QUANTITY_RE.finditer(scan)
    for m in matches:
        a = _to_float(m.group("a"))
        if a is None:
            continue
        b = _to_float(m.group("b")) if m.group("b") else None
        sa = _scale(m.group("sa") or "")
        sb = _scale(m.group("sb") or "") if b is not None else 1.0
        split = b is not None and sa == sb == 1.0 and _is_year(m.group("a"), a, None, 1.0, "")
        if split and b is not None and b <= 31 and b == int(b) and not m.group("pct"):
            split = bool(_MONTH_AFTER_RE.match(scan, m.end("b")))  # "1773 – 14 February 1855"
        else:
            split = False
        if b is not None and sa == 1.0 and (split or (sb != 1.0 and a > b)):
            # "in 2000 to 1.5 million": no range "2000-1.5 million" but two quantities
            second = m.start("cur2") if m.group("cur2") else m.start("b")
            out.append(_plain_quantity(text, m.group("a"), a, m.start("a"), m.end("a")))
            tail = [q for q in number_values(text[second:]) if q.start == 0][:1]
            out.extend(q._replace(start=q.start + second, end=q.end + second) for q in tail)
            taken.append((m.start(), m.end()))
            continue
        cur = (m.group("cur") or m.group("cur2") or "").strip()
        letter = (m.group("sa") or "").strip().lower()
        if (
            letter in _LETTER_SCALES
            and not cur
            and ((m.group("after") or "").strip().lower() not in _CURRENCY_WORDS)
        ):
            sa = 1.0  # "320 m": a unit, not a scale
        else:
            letter = ""
        if b is not None and sa == 1.0 and sb != 1.0:
            sa = sb  # "4-5 million"
        season = (
            b is not None
            and sa == sb == 1.0
            and _is_year(m.group("a"), a, None, 1.0, "")
            and len(m.group("b")) == 2
            and m.group("sep").strip() in ("-", "–", "—")
        )
        if season and b is not None:  # "the 2016-17 season": 2016 to 2017 ("1999-00": 2000)
            b = a // 100 * 100 + b + (100 if a % 100 > b else 0)
        low = a * sa
        high = b * sb if b is not None else low
        if high < low:
            low, high = high, low
        after = letter or (m.group("after") or "").strip().lower()
        after_end = m.end("after")
        if m.group("after") and _HAS_DIGIT_RE.search(text, m.start("after"), after_end):
            after = ""  # digits masked as letters ("19:11" read already): no unit
        day_of = None
        if b is None and (m.group("after") or "").lower() in _ORDINAL_SUFFIXES:
            day_of = _MONTH_BEFORE_RE.search(text, max(0, m.start() - 12), m.start())
        if day_of and a == int(a) and 1 <= a <= 31:  # "February 27th": the day, as "27 February"
            name = day_of.group(1).lower()
            day = Quantity(a, a, False, "number", name, m.start("a"), after_end)
            out.append(day)
            taken.append((m.start(), after_end))
            continue
        if b is None and (m.group("after") or "").lower() in _ORDINAL_SUFFIXES:  # "3rd place"
            out.append(_ordinal(scan, a, m.start("a"), after_end))
            taken.append((m.start(), after_end))
            continue
        if after in _LINKS and m.group("pct") is None:  # "2 millones de habitantes"
            counted = _COUNTED_RE.match(scan, after_end)
            if counted and counted.group(1).lower() not in _UNIT_STOP:
                after, after_end = counted.group(1).lower(), counted.end()
        if after and _is_cjk(after[0]):
            after = _cjk_counter(after)  # a counter word (人, 年, 円) or a unit (公里, 小时)
        month = after == "may" and (m.group("after") or "").strip()[:1] == "M"  # "5 May"
        unit = (
            ""
            if (after in _UNIT_STOP or after in _ONE_LETTER_WORDS)
            and not letter
            and after not in _CURRENCY_WORDS
            and not month
            else after
        )
        if _PARTICIPLE_RE.match(unit):  # German verb-final clauses: "1998 gegründet"
            unit = ""
        if (  # "a 2014 Indian film", "the 2016 Summer Olympics": a year, not 2014 Indians
            unit
            and (m.group("after") or "").strip()[:1].isupper()
            and unit not in _CURRENCY_WORDS
            and not month_number(unit)
            and _is_year(m.group("a"), a, b, sa, "")
        ):
            unit = ""
        written = _UNITS_WORDS.get(unit, 100) < 100 and not month_number(unit) and not letter
        if written:  # "Abell 2744 nine massive clusters": another number, no unit
            unit = ""
        if not cur and not m.group("pct") and b is None and a == int(a) and a <= 31:
            month = _MONTH_BEFORE_RE.search(text, max(0, m.start() - 12), m.start())
            if month:  # "March 3, 2020", "January 9 report": the day of that month
                unit = month.group(1).lower()
        decade = after == "s" and b is None and sa == 1.0 and 1500 <= a <= 2090 and a % 10 == 0
        if cur:
            kind = "money:" + _CURRENCY[cur]
        elif unit in _CURRENCY_WORDS:
            kind, unit = "money:" + _CURRENCY_WORDS[unit], ""
        elif unit and unit[0] in _CURRENCY:
            kind, unit = "money:" + _CURRENCY[unit[0]], unit[1:]
        elif m.group("pct"):
            kind = "percent"
        elif decade:  # "the 1990s": any year of the decade
            kind, unit, high = "year", "", a + 9
        elif season:
            kind = "year"
        elif _is_year(m.group("a"), a, b, sa, unit):
            kind = "year"
        else:
            kind = "number"
        if unit.startswith("年") and kind == "year":
            unit = ""
        end = (
            m.end("sa")
            if letter
            else after_end
            if unit and m.group("after")
            else m.end("pct")
            if m.group("pct")
            else m.end("sb")
            if b is not None
            else m.end("sa")
        )
        approx = _approx_before(text, m.start())
        bound = _bound_before(text, m.start()) if b is None else ""
        out.append(Quantity(low, high, approx, kind, unit[:12], m.start(), end, bound))
        taken.append((m.start(), end if written else m.end()))
    ordinals: list[tuple[int, int, int]] = []
    for start, stop in _word_number_runs(text, ordinals):
        if any(s <= start < e for s, e in taken) or text[start:stop].lower() in ("a", "one"):
            continue
        value = _words_value(text[start:stop])
        if value is None:
            continue
        rest = text[stop : stop + 20]
        percent = _PERCENT_RE.match(rest)
        if percent:  # "four percent"
            out.append(Quantity(value, value, False, "percent", "", start, stop + percent.end()))
            taken.append((start, stop + percent.end()))
            continue
        word = re.match(r"\s*([^\W\d_]+)", rest)
        after = word.group(1).lower() if word else ""
        unit = "" if after in _UNIT_STOP else after
        kind = "number"
        if after in _CURRENCY_WORDS:  # "four and a half billion dollars"
            kind, unit = "money:" + _CURRENCY_WORDS[after], ""
        approx = _approx_before(text, start)
        bound = _bound_before(text, start)
        out.append(Quantity(value, value, approx, kind, unit[:12], start, stop, bound))
    for start, stop, rank in ordinals:
        if not any(s <= start < e for s, e in taken):
            out.append(_ordinal(text, float(rank), start, stop))
    for start, stop, value in cjk_numerals(text):
        if any(s <= start < e for s, e in taken):
            continue
        out.append(_cjk_quantity(text, start, stop, value))
    out.sort(key=lambda q: q.start)
    return tuple(out)


def _cjk_quantity(text: str, start: int, stop: int, value: int) -> Quantity:
    """A Chinese / Japanese numeral run as a quantity; the character after it is its counter."""
    after = text[stop : stop + _LONGEST_CJK_UNIT]
    unit = _cjk_counter(after) if after and _is_cjk(after[0]) else ""
    kind = "number"
    if unit in _CURRENCY:
        kind, unit = "money:" + _CURRENCY[unit], ""
    elif unit == "年" and 1500 <= value <= 2100 and text[stop - 1] not in "十百千万萬亿億":
        kind, unit = "year", ""  # "一九九五年", not "两千年" (two thousand years)
    approx = _approx_before(text, start)
    return Quantity(float(value), float(value), approx, kind, unit, start, stop + len(unit))


def _plain_quantity(text: str, raw: str, value: float, start: int, end: int) -> Quantity:
    """A bare number with nothing after it: a year or a plain number."""
    kind = "year" if _is_year(raw, value, None, 1.0, "") else "number"
    return Quantity(value, value, _approx_before(text, start), kind, "", start, end)


def _mask(digits: re.Match[str]) -> str:
    return "x" * len(digits.group())


def _ordinal(text: str, value: float, start: int, stop: int) -> Quantity:
    """An ordinal ("3rd", "third"): what it ranks is the word after it ("third quarter"). A
    day before its month is a day, as the date "31 August" or "2022-08-31" is ("31st
    August")."""
    counted = _COUNTED_RE.match(text, stop)
    word = counted.group(1).lower() if counted else ""
    unit = "" if not word or word in _UNIT_STOP else word
    kind = "number" if month_number(unit) else "ordinal"
    return Quantity(value, value, False, kind, unit[:12], start, stop)


_ISO_DATE_RE = re.compile(
    r"(?<![\d-])(1[5-9]\d\d|20\d\d)-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])(?![\d-])"
)
_MONTH_AFTER_RE = re.compile(rf"\s+(?:{MONTHS})\b", re.IGNORECASE)
_MONTH_NAMES_IN_ORDER = MONTHS.split("|")[:12]


def _iso_dates(text: str) -> list[Quantity]:
    """Dates written "1936-06-11", read as "11 June 1936" is: the year, and the day with its
    month as unit."""
    out = []
    for m in _ISO_DATE_RE.finditer(text):
        year, month, day = (float(g) for g in m.groups())
        name = _MONTH_NAMES_IN_ORDER[int(month) - 1]
        out.append(Quantity(year, year, False, "year", "", m.start(1), m.end(1)))
        out.append(Quantity(day, day, False, "number", name, m.start(2), m.end(3)))
    return out


def _quarters(text: str) -> list[Quantity]:
    """Fiscal quarters written "Q3" (as "third quarter" reads)."""
    return [
        Quantity(float(m.group(1)), float(m.group(1)), False, "ordinal", "quarter", *m.span())
        for m in _QUARTER_RE.finditer(text)
    ]


def _fractions(text: str) -> list[Quantity]:
    """Shares said in words, as percentages: "half of", "a third of", "two-thirds of",
    "one in five" (approximate: people round to them)."""
    out = []
    for m in _FRACTION_RE.finditer(text):
        if m.group("half"):
            if _PERIOD_HALF_RE.search(text, max(0, m.start() - 8), m.start()):
                continue  # "the first half of 2020": a period, not a share
            share: float | None = 0.5
        else:
            word = (m.group("den") or m.group("den2")).lower()
            den = _FRACTION_DENOMINATORS.get(word) or _to_float(word)
            num = _FRACTION_NUMERATORS.get((m.group("num") or "one").lower(), 1.0)
            share = num / den if den else None
        if share is None or not 0 < share <= 1:
            continue
        value = round(100 * share, 1)
        bound = _bound_before(text, m.start())
        out.append(Quantity(value, value, True, "percent", "", m.start(), m.end(), bound))
    return out


def _clock_times(text: str) -> list[Quantity]:
    """Times of day, as the hour of a 24-hour clock ("7:30 pm" is 19.5)."""
    out = []
    for m in _CLOCK_RE.finditer(text):
        hour = int(m.group("h") or m.group("h24"))
        minutes = int(m.group("m") or m.group("m24") or 0)
        half = (m.group("ap") or "").lower()
        if half and not 1 <= hour <= 12:
            continue
        if half == "p" and hour < 12:
            hour += 12
        elif half == "a" and hour == 12:
            hour = 0
        value = hour + minutes / 60
        approx = _approx_before(text, m.start())
        bound = _bound_before(text, m.start())
        out.append(Quantity(value, value, approx, "clock", "", *m.span(), bound))
    return out


def _bound_before(text: str, start: int) -> str:
    """ "min" after "more than", "at least"...; "max" after "fewer than", "up to"...; else ""
    (the longest phrase decides: "no more than" is a maximum)."""
    found = _BOUND_RE.search(text[max(0, start - 24) : start].rstrip(" $€£¥").lower())
    return "" if found is None else str(found.lastgroup)


def quantity_text(text: str, quantity: Quantity) -> str:
    """A quantity as its text writes it, with the words making it a bound ("no more than
    2,000 mg"), white space collapsed.

    Args:
        text: The text `quantity` was read from (`number_values`).
        quantity: One of its quantities.

    Returns:
        The words, or "" when the offsets do not fit the text.
    """
    start = quantity.start
    if quantity.bound:
        head = text[max(0, start - 24) : start]
        found = _BOUND_RE.search(head.rstrip(" $€£¥").lower())
        if found is not None:
            start = start - len(head) + found.start()
    return " ".join(text[start : quantity.end].split())


def _is_year(raw: str, a: float, b: float | None, scale: float, unit: str) -> bool:
    plain = b is None and scale == 1.0 and "," not in raw and "." not in raw
    return plain and 1500 <= a <= 2100 and unit in ("", "年")


def _approx_before(text: str, start: int) -> bool:
    """Whether an approximation word ("around", "約") stands right before a number."""
    tail = text[max(0, start - 24) : start].rstrip(" $€£¥.").lower()
    for word in _APPROX_WORDS:
        if tail.endswith(word):
            cut = len(tail) - len(word)
            return (
                cut == 0
                or not tail[cut - 1].isalpha()
                or not word[0].isalpha()
                or _is_cjk(word[0])  # "员工约500人": no spaces between words
            )
    return False


_RUN_WORDS = frozenset(["hundred", "thousand", "million", "billion", "dozen", "and", "a", "half"])
#: Words that start a written number when a scale follows: "a thousand", "a dozen".
_SCALE_WORDS = frozenset(["hundred", "thousand", "million", "billion", "dozen"])


def _word_number_runs(text: str, ordinals: list[tuple[int, int, int]]) -> list[tuple[int, int]]:
    """Spans of written numbers ("five hundred", "twenty-five"), found word by word; the
    ordinal words on the way ("third") are appended to `ordinals` as (start, end, value)."""
    runs: list[tuple[int, int]] = []
    start = stop = -1
    words = list(_LOWER_WORD_RE.finditer(text))
    for i, m in enumerate(words):
        word = m.group(0).lower()
        if word in _ORDINAL_WORDS:
            ordinals.append((m.start(), m.end(), _ORDINAL_WORDS[word]))
        joined = start >= 0 and text[stop : m.start()].strip(" -") == ""
        if joined and (word in _NUMBER_WORDS or word in _RUN_WORDS):
            stop = m.end()
            continue
        if start >= 0:
            runs.append((start, stop))
            start = -1
        following = words[i + 1].group(0).lower() if i + 1 < len(words) else ""
        if word in _NUMBER_WORDS or (word in ("a", "an") and following in _SCALE_WORDS):
            start, stop = m.start(), m.end()
    if start >= 0:
        runs.append((start, stop))
    out = []
    for a, b in runs:
        while re.search(r"(?i)\s(?:and|a|an)$", text[a:b]):
            b = a + text[a:b].rstrip().rfind(" ")
        out.append((a, b))
    return out


def supports(context: Quantity, claim: Quantity) -> bool:
    """Whether a context quantity covers a claimed one (value, range and hedges considered).

    Args:
        context: A quantity of the context.
        claim: A quantity of the statement.

    Returns:
        True when the claimed interval lies within the context's (widened by 10% when either
        side is approximate; by two years for years), or equals it, or is a claimed range of
        years holding the context's ("the 1990s" against 1995). Kinds must be compatible: a
        percentage never supports a count, a year only a year or a plain number; units of one
        dimension are compared converted ("1.2 km" supports "1,200 metres", "12 miles" never
        "12 km").
    """
    if not _compatible(context.kind, claim.kind):
        return False
    if claim.kind == "ordinal" and context.unit and claim.unit and context.unit != claim.unit:
        return False  # "third quarter" is not "third place"
    months = month_number(context.unit), month_number(claim.unit)
    if months[0] and months[1] and months[0] != months[1]:
        return False  # "16 August" is not "16 February"
    if bool(months[0]) != bool(months[1]) and context.unit and claim.unit:
        return False  # "6 April" is a day, not "6 serious mishaps"
    if claim.bound == context.bound == "max":
        # "up to 5,000 mg" where it says "no more than 2,000 mg": an upper bound states a
        # limit (an allowance, a cap), and a higher one is another limit, not a weaker claim
        return supports(context._replace(bound=""), claim._replace(bound=""))
    if claim.bound:
        return _bound_supports(context, claim)
    dims = _dimension(context.unit), _dimension(claim.unit)
    if dims[0] and dims[0] == dims[1] and _unit_key(context.unit) != _unit_key(claim.unit):
        return _converted_supports(context, claim)  # "1.2 km" is "1,200 metres"
    approx = context.approx or claim.approx
    if "year" in (context.kind, claim.kind):  # "around 1995": a year or two, not 10%
        slack = _YEAR_SLACK if approx else 0.0
        lo, hi = context.low - slack - 1e-9, context.high + slack + 1e-9
        if claim.low < claim.high and claim.low <= context.low and context.high <= claim.high:
            return True  # "in the 1990s" where it says 1995
    else:
        tol = _TOLERANCE if approx else 0.0
        lo = context.low - abs(context.low) * tol - 1e-9
        hi = context.high + abs(context.high) * tol + 1e-9
    if context.low < context.high and claim.low == claim.high and not _narrow(context, claim):
        # a value inside a wide range ("0-222", "123-4567": often not a range at all) is not
        # said by it; its ends are
        near_low = abs(claim.low - context.low) <= context.low - lo
        near_high = abs(claim.low - context.high) <= hi - context.high
        return near_low or near_high
    if claim.low >= lo and claim.high <= hi:
        return True
    if claim.approx and claim.low <= context.high and context.low <= claim.high:
        return True  # "around 500" vs "450-550"
    # "between 40 and 50 boats" where it says 45: a vaguer claim of the same value
    return context.low == context.high and claim.low < context.low < claim.high


def may_agree(a: Quantity, b: Quantity) -> bool:
    """Whether two quantities, one of them a bound, can describe one value ("over 2 million"
    and "2.5 million" can; "fewer than 2 million" and "2.5 million" cannot).

    Args:
        a: One quantity.
        b: Another.

    Returns:
        True when either is a bound and their intervals meet; two upper bounds ("up to
        5,000" and "no more than 2,000") are two limits, so only when their values agree.
    """
    if not (a.bound or b.bound):
        return False
    if a.bound == b.bound == "max":  # two limits: one limit only if the same value
        plain_a, plain_b = a._replace(bound=""), b._replace(bound="")
        return supports(plain_a, plain_b) or supports(plain_b, plain_a)
    (a_lo, a_hi), (b_lo, b_hi) = _interval(a), _interval(b)
    return a_lo <= b_hi and b_lo <= a_hi


def _bound_supports(context: Quantity, claim: Quantity) -> bool:
    """Whether a context quantity supports a claimed bound: a value past the bound, of the same
    unit where both name one ("more than 354,000 followers" is not 587,000 on Twitter) and, for
    a lower bound, near it (at most `_BOUND_REACH` times it: "more than 100" is no way to say
    2,007)."""
    if claim.unit and context.unit and _unit_key(claim.unit) != _unit_key(context.unit):
        dims = _dimension(context.unit), _dimension(claim.unit)
        if not (dims[0] and dims[0] == dims[1]):
            return False  # "more than 354,000 followers" is not 587,000 on Twitter
    if "year" in (context.kind, claim.kind) and context.kind != claim.kind:
        return False  # a year is no count past a bound
    (lo, hi), (claim_lo, claim_hi) = _interval(context), _interval(claim)
    if not (claim_lo <= lo and hi <= claim_hi):
        return False
    if claim.bound == "min" and context.bound != "min" and claim_lo > 0:
        return hi <= claim_lo * _BOUND_REACH
    if claim.bound == "max" and not context.bound and claim_hi > 0 < lo:
        return lo * _BOUND_REACH >= claim_hi  # "up to 40 users" is no way to say 1
    return True


def _narrow(context: Quantity, claim: Quantity) -> bool:
    """Whether a context range can hold a claimed value: a range of one unit whose top is at
    most twice its bottom ("between 3 and 5 days" holds "4 days"; "17-2016" holds nothing);
    of years, two years at most ("the 1995-96 season" holds 1996; "the 1970s" or "from 1990
    to 1998" does not say which year)."""
    if "year" in (context.kind, claim.kind) or all(map(_year_like, (context.low, context.high))):
        return context.high - context.low <= 1
    same_unit = _unit_key(context.unit) == _unit_key(claim.unit) or not claim.unit
    return same_unit and 0 < context.low and context.high <= 2 * context.low


def _year_like(value: float) -> bool:
    """Whether a value could be a year (a whole number from 1500 to 2099): a range of two
    ("1952-1984") is read as years whatever kind it was given."""
    return value == int(value) and 1500 <= value <= 2099


#: How far past a lower bound a value may be for the bound to say it ("more than 200" for 280).
_BOUND_REACH = 1.5


def _interval(q: Quantity) -> tuple[float, float]:
    """The values a quantity allows: a bound is open on one side."""
    if q.bound == "min":
        return q.low, math.inf
    if q.bound == "max":
        return -math.inf, q.high
    return q.low, q.high


def _converted_supports(context: Quantity, claim: Quantity) -> bool:
    """Two units of one dimension, compared in its base unit: "12 miles" never supports
    "12 km", "1.2 km" supports "1,200 metres" and "about 19 km" supports "12 miles"
    (conversions are rounded, so 2% either way; 10% when either side is approximate)."""
    f_context, f_claim = _FACTORS[_unit_key(context.unit)], _FACTORS[_unit_key(claim.unit)]
    tol = _TOLERANCE if context.approx or claim.approx else _CONVERSION_TOLERANCE
    lo, hi = context.low * f_context, context.high * f_context
    lo, hi = lo - abs(lo) * tol - 1e-9, hi + abs(hi) * tol + 1e-9
    return lo <= claim.low * f_claim and claim.high * f_claim <= hi


def _compatible(a: str, b: str) -> bool:
    if a == b:
        return True
    loose = {"number", "year"}
    if a in loose and b in loose:
        return True
    return (a == "number" and b.startswith("money:")) or (b == "number" and a.startswith("money:"))


#: Units written in Chinese or Japanese, as the English unit they are (a one-character
#: counter such as 人 or 年 stays itself).
_CJK_UNITS = {
    "公里": "km", "千米": "km", "キロメートル": "km", "米": "metre", "メートル": "metre",
    "厘米": "cm", "センチ": "cm", "毫米": "mm", "英里": "mile", "公斤": "kg", "千克": "kg",
    "キログラム": "kg", "克": "gram", "グラム": "gram", "吨": "tonne", "トン": "tonne",
    "小时": "hour", "小時": "hour", "時間": "hour", "分钟": "minute", "分鐘": "minute",
    "秒": "second",
}  # fmt: skip
_LONGEST_CJK_UNIT = max(map(len, _CJK_UNITS))


def _cjk_counter(after: str) -> str:
    """The unit or counter a Chinese or Japanese number is followed by: the longest unit of
    `_CJK_UNITS` the text starts with ("公里" of "公里，"), else its first character ("人")."""
    for size in range(min(len(after), _LONGEST_CJK_UNIT), 1, -1):
        if after[:size] in _CJK_UNITS:
            return after[:size]
    return after[:1]


_UNIT_ALIASES = {
    alias: unit
    for unit, aliases in {
        # English, then German, French and Spanish forms (plurals the suffix rule of
        # `unit_key` does not reach: "Monate", "mois", "meses")
        "km": "kilometre kilometres kilometer kilometers kms kilomètre kilomètres kilómetro "
        "kilómetros",
        "kg": "kilogram kilograms kilo kilos kgs kilogramm kilogramme kilogrammes kilogramo "
        "kilogramos",
        "cm": "centimetre centimetres centimeter centimeters zentimeter centimètre centimètres "
        "centímetro centímetros",
        "mm": "millimetre millimetres millimeter millimeters millimètre millimètres milímetro "
        "milímetros",
        "metre": "metres meter meters m mètre mètres metro metros",
        "mile": "miles mi meile meilen milla millas",
        "ft": "foot feet",
        "inch": "inches",
        "yard": "yards yd yds",
        "gram": "grams g gramm gramme grammes gramo gramos",
        "mg": "milligram milligrams milligramm milligramme milligrammes miligramo miligramos",
        "tonne": "tonnes tonnen tonelada toneladas",
        "lb": "lbs",
        "ounce": "ounces oz",
        "litre": "litres liter liters litro litros",
        "ml": "millilitre millilitres milliliter milliliters mililitro mililitros",
        "gallon": "gallons",
        "acre": "acres",
        "hectare": "hectares ha hektar hectárea hectáreas",
        "kb": "kilobyte kilobytes",
        "mb": "megabyte megabytes",
        "gb": "gigabyte gigabytes",
        "tb": "terabyte terabytes",
        "watt": "watts",
        "kw": "kilowatt kilowatts",
        "mw": "megawatt megawatts",
        "gw": "gigawatt gigawatts",
        "hour": "hours hr hrs h stunde stunden heure heures hora horas",
        "minute": "minutes min mins minuten minuto minutos",
        "second": "seconds sec secs sekunde sekunden seconde secondes segundo segundos",
        "day": "days tag tage tagen jour jours día días dia dias",
        "week": "weeks woche wochen semaine semaines semana semanas",
        "month": "months monat monate monaten mois mes meses",
        "year": "years yr yrs jahr jahre jahren ans año años",
    }.items()
    for alias in aliases.split()
} | _CJK_UNITS


def same_slot(a: Quantity, b: Quantity) -> bool:
    """Whether two quantities measure the same thing, so different values contradict.

    Args:
        a: One quantity.
        b: Another.

    Returns:
        True for two years, two percentages, two sums of the same currency, or two numbers
        counting the same unit ("100 employees" / "500 employees").
    """
    if a.kind != b.kind:
        return False
    if a.kind in ("year", "percent", "clock") or a.kind.startswith("money:"):
        return True
    if not (a.unit and b.unit):
        return False
    dim = _dimension(a.unit)
    return _unit_key(a.unit) == _unit_key(b.unit) or (bool(dim) and dim == _dimension(b.unit))


#: Each unit in its dimension's base unit (metre, kilogram, second).
_FACTORS = {
    "km": 1000.0, "metre": 1.0, "mile": 1609.344, "ft": 0.3048, "cm": 0.01, "mm": 0.001,
    "yard": 0.9144, "inch": 0.0254,
    "kg": 1.0, "gram": 0.001, "mg": 1e-6, "ton": 1000.0, "tonne": 1000.0, "lb": 0.45359237,
    "ounce": 0.028349523125,
    "hour": 3600.0, "minute": 60.0, "second": 1.0, "day": 86400.0, "week": 604800.0,
    "month": 2629746.0, "year": 31556952.0,  # a twelfth of a Gregorian year; the year
    "litre": 1.0, "ml": 0.001, "gallon": 3.785411784,
    "acre": 4046.8564224, "hectare": 10000.0,
    "kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
    "watt": 1.0, "kw": 1e3, "mw": 1e6, "gw": 1e9,
}  # fmt: skip
_DIMENSIONS = {
    **dict.fromkeys(("km", "metre", "mile", "ft", "cm", "mm", "yard", "inch"), "length"),
    **dict.fromkeys(("kg", "gram", "mg", "ton", "tonne", "lb", "ounce"), "mass"),
    **dict.fromkeys(("hour", "minute", "second", "day", "week", "month", "year"), "time"),
    **dict.fromkeys(("litre", "ml", "gallon"), "volume"),
    **dict.fromkeys(("acre", "hectare"), "area"),
    **dict.fromkeys(("kb", "mb", "gb", "tb"), "data"),
    **dict.fromkeys(("watt", "kw", "mw", "gw"), "power"),
}
#: How far a value converted to another unit may be from the other's (rounding).
_CONVERSION_TOLERANCE = 0.02


def is_measure(unit: str) -> bool:
    """Whether a unit measures length, mass, time, volume, area, data or power (and so
    converts to the others of its dimension)."""
    return bool(_dimension(unit))


def dimension(unit: str) -> str:
    """What a unit measures ("length", "mass", "time", "volume", "area", "data", "power"), or
    "" when unknown or none ("employees")."""
    return _dimension(unit)


def unit_key(unit: str) -> str:
    """A unit as one word for all its forms: "kilometres", "km" and "Kilometer" are "km",
    "Monate" and "months" "month"; a counted noun loses its plural ("employees": "employee")."""
    return _unit_key(unit)


def _dimension(unit: str) -> str:
    """What a unit measures ("length", "mass", "time"...), or "" when unknown."""
    return _DIMENSIONS.get(_unit_key(unit), "") if unit else ""


def _unit_key(unit: str) -> str:
    u = _UNIT_ALIASES.get(unit.lower(), unit.lower())
    for suffix in ("ies", "es", "s"):
        if u.endswith(suffix) and len(u) > len(suffix) + 2:
            return u[: -len(suffix)] + ("y" if suffix == "ies" else "")
    return u


# What may stand between a value and the year it is given for: "1.2 million in 2000",
# "$5.2 billion for fiscal 2021", "4% (2019)"; and between a year and its value: "in 2021,
# revenue was $5.2 billion", "2021: $5.2 billion".
_YEAR_AFTER_RE = re.compile(
    r"[\s,]*\(?(?:(?:in|for|during|by|as of|at the end of|in the year|im jahr|en|in fiscal|"
    r"for fiscal|in fy|for fy)\s+)?(?:the\s+)?(?:fiscal\s+(?:year\s+)?|fy\s*)?",
    re.IGNORECASE,
)
_YEAR_BEFORE_RE = re.compile(r"[\s,:)]*(?:[^\W\d_]+[\s,]+){0,4}", re.IGNORECASE)


def value_years(text: str, quantities: Sequence[Quantity]) -> list[tuple[Quantity, Quantity]]:
    """The values of a text paired with the year each is given for.

    A value takes the year right after it ("1.2 million in 2000"), else the year shortly
    before it with no other value between ("in 2021, revenue was $5.2 billion") when that
    year has not already been taken by a value before it.

    Args:
        text: The text the quantities were read from (one sentence).
        quantities: Its quantities, in order (`number_values`).

    Returns:
        `(value, year)` pairs.
    """
    pairs: list[tuple[Quantity, Quantity]] = []
    taken: set[int] = set()
    for i, q in enumerate(quantities):
        if q.kind == "year":
            continue
        after = quantities[i + 1] if i + 1 < len(quantities) else None
        if (
            after is not None
            and after.kind == "year"
            and _YEAR_AFTER_RE.fullmatch(text, q.end, after.start)
        ):
            pairs.append((q, after))
            taken.add(after.start)
            continue
        before = quantities[i - 1] if i > 0 else None
        if (
            before is not None
            and before.kind == "year"
            and before.start not in taken
            and _YEAR_BEFORE_RE.fullmatch(text, before.end, q.start)
        ):
            pairs.append((q, before))
            taken.add(before.start)
    return pairs


#: A value given for a place: "300 people in Berlin", "120 in Paris", "$4 million at the Leeds
#: site" (at most two words between the value and the preposition).
_PLACE_AFTER_RE = re.compile(
    r"[\s,]*(?:[^\W\d_]+\s+){0,2}?(?:in|at)\s+(?:the\s+)?(?P<name>[A-Z][^\W\d_]+)"
)
_MONTH_NAMES = frozenset(MONTHS.split("|"))
_MONTHS_BY_LANGUAGE = (
    "january february march april may june july august september october november december",
    "januar februar märz april mai juni juli august september oktober november dezember",
    "janvier février mars avril mai juin juillet août septembre octobre novembre décembre",
    "enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre",
)
_MONTH_NUMBER = (
    {name: k + 1 for names in _MONTHS_BY_LANGUAGE for k, name in enumerate(names.split())}
    | {
        abbr: k + 1
        for k, abbr in enumerate("jan feb mar apr may jun jul aug sep oct nov dec".split())
    }
    | {"sept": 9}
)


def month_number(word: str) -> int:
    """The month a word names (1-12), in English, German, French or Spanish, else 0.

    Example:
        >>> month_number("August"), month_number("févr"), month_number("Sept"), month_number("x")
        (8, 0, 9, 0)
    """
    return _MONTH_NUMBER.get(word.lower().rstrip("."), 0)


#: The month names in English, German, French and Spanish (lower case): a date's month.
MONTH_NAMES = frozenset(_MONTH_NUMBER)


def value_places(text: str, quantities: Sequence[Quantity]) -> list[tuple[Quantity, str]]:
    """The values of a text paired with the place each is given for, the name right after it
    ("300 people in Berlin and 120 in Paris" gives 300: "berlin", 120: "paris").

    Args:
        text: The text the quantities were read from.
        quantities: Its quantities, in order (`number_values`).

    Returns:
        `(value, place)` pairs, the place lower-cased.
    """
    pairs: list[tuple[Quantity, str]] = []
    for i, q in enumerate(quantities):
        if q.kind == "year":
            continue
        match = _PLACE_AFTER_RE.match(text, q.end)
        limit = quantities[i + 1].start if i + 1 < len(quantities) else len(text)
        if match and match.end() <= limit:
            place = match.group("name").lower()
            if place not in _MONTH_NAMES:
                pairs.append((q, place))
    return pairs
