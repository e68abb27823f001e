"""Kinds about quantities: a number's value or unit changed (must fail), the same number
written another way or a figure computed from stated ones (must pass)."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from decimal import Decimal

from ragjudge.data._gold import GoldRecord
from ragjudge.probing._probe import Skip, Variant
from ragjudge.probing._registry import Pool, generator
from ragjudge.probing._text import choose, replace_once
from ragjudge.probing.generators._numbers import (
    CAPACITY,
    NUMBER_WORDS,
    Number,
    bound_before,
    flat,
    fmt,
    in_passages,
    is_year,
    number_words,
    safe,
    statements,
)

#: Unit ladders per language: each rung is a unit's forms (singular, plural[, German dative
#: plural]); a swap moves one rung up or down a ladder and keeps the form. Percent is left out
#: (percent and percentage points differ in meaning, not in unit), and so are units one letter
#: long (`m` is metres or million) and scale words (`million` -> `billion` changes the value,
#: which is `number_value`'s edit, not the unit).
UNIT_LADDERS: dict[str, list[list[tuple[str, ...]]]] = {
    "en": [
        [("second", "seconds"), ("minute", "minutes"), ("hour", "hours"), ("day", "days"),
         ("week", "weeks"), ("month", "months"), ("year", "years")],
        [("millimeter", "millimeters"), ("centimeter", "centimeters"), ("meter", "meters"),
         ("kilometer", "kilometers"), ("mile", "miles")],
        [("millimetre", "millimetres"), ("centimetre", "centimetres"), ("metre", "metres"),
         ("kilometre", "kilometres"), ("mile", "miles")],
        [("mm", "mm"), ("cm", "cm")],
        [("km", "km"), ("mile", "miles")],
        [("inch", "inches"), ("foot", "feet"), ("yard", "yards"), ("mile", "miles")],
        [("milligram", "milligrams"), ("gram", "grams"), ("kilogram", "kilograms"),
         ("tonne", "tonnes")],
        [("mg", "mg"), ("kg", "kg")],
        [("milliliter", "milliliters"), ("liter", "liters"), ("gallon", "gallons")],
        [("millilitre", "millilitres"), ("litre", "litres"), ("gallon", "gallons")],
        [("dollar", "dollars"), ("euro", "euros")],
        [("acre", "acres"), ("hectare", "hectares")],
        [("KB", "KB"), ("MB", "MB"), ("GB", "GB"), ("TB", "TB")],
        [("kilobyte", "kilobytes"), ("megabyte", "megabytes"), ("gigabyte", "gigabytes"),
         ("terabyte", "terabytes")],
        [("watt", "watts"), ("kilowatt", "kilowatts"), ("megawatt", "megawatts"),
         ("gigawatt", "gigawatts")],
    ],
    "de": [
        [("Sekunde", "Sekunden", "Sekunden"), ("Minute", "Minuten", "Minuten"),
         ("Stunde", "Stunden", "Stunden"), ("Tag", "Tage", "Tagen"),
         ("Woche", "Wochen", "Wochen"), ("Monat", "Monate", "Monaten"),
         ("Jahr", "Jahre", "Jahren")],
        [("Millimeter",), ("Zentimeter",), ("Meter",), ("Kilometer",)],
        [("mm",), ("cm",)],
        [("Milligramm",), ("Gramm",), ("Kilogramm",), ("Tonne", "Tonnen", "Tonnen")],
        [("mg",), ("kg",)],
        [("Milliliter",), ("Liter",)],
        [("Dollar",), ("Euro",)],
    ],
    "fr": [
        [("seconde", "secondes"), ("minute", "minutes"), ("heure", "heures"),
         ("jour", "jours"), ("semaine", "semaines"), ("mois", "mois"), ("an", "ans")],
        [("millimètre", "millimètres"), ("centimètre", "centimètres"), ("mètre", "mètres"),
         ("kilomètre", "kilomètres")],
        [("mm", "mm"), ("cm", "cm")],
        [("milligramme", "milligrammes"), ("gramme", "grammes"),
         ("kilogramme", "kilogrammes"), ("tonne", "tonnes")],
        [("mg", "mg"), ("kg", "kg")],
        [("millilitre", "millilitres"), ("litre", "litres")],
        [("dollar", "dollars"), ("euro", "euros")],
    ],
    "es": [
        [("segundo", "segundos"), ("minuto", "minutos"), ("hora", "horas"), ("día", "días"),
         ("semana", "semanas"), ("mes", "meses"), ("año", "años")],
        [("milímetro", "milímetros"), ("centímetro", "centímetros"), ("metro", "metros"),
         ("kilómetro", "kilómetros")],
        [("mm", "mm"), ("cm", "cm")],
        [("miligramo", "miligramos"), ("gramo", "gramos"), ("kilogramo", "kilogramos"),
         ("tonelada", "toneladas")],
        [("mg", "mg"), ("kg", "kg")],
        [("mililitro", "mililitros"), ("litro", "litros")],
        [("dólar", "dólares"), ("euro", "euros")],
    ],
}  # fmt: skip

#: Currency signs a swap may trade for one another (`$3` -> `€3`).
CURRENCY_SIGNS = ("$", "€", "£")

#: Words after a unit that make it a rate (`24 hours a day`): a swap could make it nonsense.
_RATE = re.compile(
    r"^\s*(?:a|an|per|each|every|/|pro|je|par|por|al|à|la|de cada)(?![^\W_])", re.IGNORECASE
)
#: Words before a time quantity that make it a duration: a shorter one may read as entailed.
_DURATION = re.compile(
    r"(?<![^\W_])(?:for|over|spanning|lasting|lasted|seit|während|pendant|depuis|durante|desde"
    r"|hace)\s+(?:[^\W\d_]+\s+)?$",
    re.IGNORECASE,
)
#: Words of a rule or a condition: a bound in its subject narrows the other way (`a heart rate
#: of less than 60 is called a bradycardia`: so is one of less than 30).
_RESTRICTOR = re.compile(
    r"(?<![^\W_])(?:if|when|whenever|unless|any|anyone|anything|those|whose|who|called|"
    r"considered|defined|classified|qualif\w*|eligible|counts? as|known as|wenn|falls|gilt|"
    r"si|quand|lorsque|cuando|considerad[oa]s?|considéré\w*)(?![^\W_])",
    re.IGNORECASE,
)
_PERCENT_AFTER = re.compile(r"^\s?(?:%|percent\b|per cent\b|Prozent\b|pour cent\b|por ciento\b)")
_PERCENT_WORDS = {"en": "percent", "de": "Prozent", "fr": "pour cent", "es": "por ciento"}

#: Magnitude words a number may be written out with, per language: (pattern, power of ten).
_MAGNITUDES: dict[str, tuple[tuple[str, int], ...]] = {
    "en": (("million", 6), ("billion", 9)),
    "de": (("Millionen", 6), ("Million", 6), ("Milliarden", 9), ("Milliarde", 9)),
    "fr": (("millions", 6), ("million", 6), ("milliards", 9), ("milliard", 9)),
    "es": (("mil millones", 9), ("millones", 6), ("millón", 6)),
}


@dataclass(frozen=True)
class _Spot:
    """A number found in a context sentence, with the sentence and its language."""

    sentence: str
    number: Number
    lang: str


def _spots(row: GoldRecord, *, must_fail: bool, loose: bool = False) -> list[_Spot]:
    """Every safe number of every candidate sentence of `row` (statements only; for a
    must-fail kind, no sentence with a negation); with `loose`, every number but years."""
    found: list[_Spot] = []
    for statement in statements(row):
        if must_fail and statement.negated:
            continue
        for number, is_safe in statement.numbers:
            if is_safe or (loose and not is_year(number)):
                found.append(_Spot(statement.text, number, statement.lang))
    return found


def _window(sentence: str, start: int, end: int, new: str) -> tuple[str, str]:
    """The edited span with a word either side, before and after the edit."""
    left = re.search(r"(?:\S+\s+)?$", sentence[:start])
    right = re.match(r"(?:\s*\S+)?", sentence[end:])
    lead = left.group(0) if left else ""
    tail = right.group(0) if right else ""
    return lead + sentence[start:end] + tail, lead + new + tail


def _variant(spot: _Spot, start: int, end: int, new: str) -> Variant:
    before, after = _window(spot.sentence, start, end, new)
    answer = replace_once(spot.sentence, start, end, new)
    answer = answer[0].upper() + answer[1:]
    return Variant(answer=answer, before=before, after=after, language=spot.lang)


def _is_duration(spot: _Spot) -> bool:
    """Whether `spot`'s number is a length of time after `for`, `over`, `seit`... ."""
    if not _DURATION.search(spot.sentence[: spot.number.start]):
        return False
    following = re.findall(r"[^\W\d_]+", spot.sentence[spot.number.end :])[:2]
    times = {form for forms in UNIT_LADDERS.get(spot.lang, [[]])[0] for form in forms}
    return any(word in times for word in following)  # for ten (consecutive) years


def _needs_an(text: str) -> bool:
    """Whether an English number written `text` is read with a vowel first (`an 8`, `an
    eleven`)."""
    return bool(re.match(r"[aeiouAEIOU]|8|1[18](?:$|[^\d,]|,\d{3}(?!\d))", text))


def _representable(value: Decimal, decimals: int) -> bool:
    return value > 0 and value == value.quantize(Decimal(1).scaleb(-decimals))


def _new_values(spot: _Spot, bound: str | None) -> list[Decimal]:
    """Values `spot`'s number may become: written in its own form, at least a third away (half
    for an estimate), on the side a bound leaves unentailed, no year, no percent over 100."""
    n = spot.number
    value = n.value
    if n.word:
        pool = [Decimal(v) for v in set(NUMBER_WORDS[n.lang].values())]
        pool = [v for v in pool if (v <= 12) == (value <= 12)]
    else:
        pool = [value * f for f in (Decimal("0.5"), Decimal("1.5"), Decimal(2))]
        if value <= 12 and n.decimals == 0:
            pool += [value + d for d in (-4, -3, -2, 2, 3, 4)]
        if n.decimals:
            pool += [value + d for d in (-2, -1, 1, 2)]
    percent = bool(_PERCENT_AFTER.match(spot.sentence[n.end :]))
    found = re.search(r"(?<![^\W_])(an?)\s+[$€£]?$", spot.sentence[: n.start], re.IGNORECASE)
    article = found.group(1).lower() if found and n.lang == "en" else None
    ratio = Decimal("1.5") if bound == "about" else Decimal("1.3")
    out = []
    for new in sorted(set(pool)):
        if not _representable(new, n.decimals) or new == value or new == 1 or value == 1:
            continue
        if max(new, value) / min(new, value) < ratio:
            continue
        if (bound == "low" and new < value) or (bound == "high" and new > value):
            continue
        if (percent and new > 100 >= value) or (not n.grouped and 1000 <= new <= 2099):
            continue
        if article and _needs_an(_write(new, n)) != (article == "an"):
            continue  # a three set -> a eleven set
        out.append(new)
    return out


def _spellings(value: Decimal, like: Number) -> list[str]:
    """Ways `value` may stand in a passage: as `like` writes it, plain digits, number words."""
    out = [fmt(value, like=like), f"{value.normalize():f}"]
    if value == value.to_integral_value():
        out += [f"{int(value):,}", *number_words(int(value), like.lang)]
    return out


def _write(value: Decimal, like: Number) -> str:
    if like.word:
        word = number_words(int(value), like.lang)[0]
        return word.capitalize() if like.text[0].isupper() else word
    return fmt(value, like=like)


@generator(
    kind="number_value",
    expect="fail",
    summary="a number's value changed (not a year; the new value in no passage)",
)
def number_value(row: GoldRecord, *, rng: random.Random, pool: Pool) -> Variant | Skip:
    """A context sentence with one number's value changed, written as before (`24` -> `36`,
    `1.5 million` -> `2.5 million`, `nine` -> `six`). A bound moves it the unentailed way
    (`more than 30` -> `more than 45`); a sentence with a negation is left alone."""
    spots = _spots(row, must_fail=True)
    if not spots:
        return Skip("no sentence with a plain number")
    text = flat(row.contexts)
    rng.shuffle(spots)
    for spot in spots:
        if spot.sentence.count(spot.number.text) > 1:
            continue
        bound = bound_before(spot.sentence, spot.number)
        if bound == "window":
            continue
        if CAPACITY.search(spot.sentence):
            continue  # can hold 20 -> 10, 2 hours can make a difference -> 5: may be entailed
        if bound is None and _is_duration(spot):
            bound = "low"  # for 20 years -> for 10 years may read as entailed
        if bound in ("low", "high") and _RESTRICTOR.search(spot.sentence):
            continue  # a rate of less than 60 is called ... -> less than 30: entailed
        values = [
            v
            for v in _new_values(spot, bound)
            if not in_passages(text, *_spellings(v, spot.number))
        ]
        if values:
            new = values[rng.randrange(len(values))]
            return _variant(spot, spot.number.start, spot.number.end, _write(new, spot.number))
    return Skip("no number whose new value is absent from the passages")


def _units(lang: str) -> dict[str, list[tuple[int, list[tuple[str, ...]], int]]]:
    """Each unit form of `lang` -> (form index, ladder, rung) of every ladder it is on."""
    table: dict[str, list[tuple[int, list[tuple[str, ...]], int]]] = {}
    for ladder in UNIT_LADDERS.get(lang, []):
        for rung, forms in enumerate(ladder):
            for index, form in enumerate(forms):
                entry = (index if forms.count(form) == 1 else -1, ladder, rung)
                if entry not in table.setdefault(form, []):
                    table[form].append(entry)
    return table


_UNIT_TABLES = {lang: _units(lang) for lang in UNIT_LADDERS}
_UNIT_WORD = {  # a unit word right after a number, the longest form first, case kept
    lang: re.compile(
        " ("
        + "|".join(re.escape(f) for f in sorted(table, key=len, reverse=True))
        + r")(?![\w/²³\-])"
    )
    for lang, table in _UNIT_TABLES.items()
}


def _unit_after(spot: _Spot) -> tuple[int, int, list[str]] | None:
    """The unit word right after `spot`'s number: its span and the units it may become."""
    table = _UNIT_TABLES.get(spot.lang, _UNIT_TABLES["en"])
    after = spot.sentence[spot.number.end :]
    match = _UNIT_WORD.get(spot.lang, _UNIT_WORD["en"]).match(after)
    if match:
        form = match.group(1)
        rest = after[match.end() :]
        if _RATE.match(rest):
            return None
        targets: list[str] = []
        steps: tuple[int, ...] = (-1, 1)
        if table[form][0][1] is UNIT_LADDERS[spot.lang][0] and _DURATION.search(
            spot.sentence[: spot.number.start]
        ):
            steps = (1,)  # for 11 years -> for 11 months may read as entailed
        for index, ladder, rung in table[form]:
            for step in steps:
                if 0 <= rung + step < len(ladder):
                    forms = ladder[rung + step]
                    if index < 0:  # a form both singular and plural (`km`): the number tells
                        index = 0 if spot.number.value == 1 else 1
                    target = forms[min(index, len(forms) - 1)]
                    if target != form and target not in targets:
                        targets.append(target)
        start = spot.number.end + 1
        return start, start + len(form), targets
    return None


@generator(
    kind="unit",
    expect="fail",
    summary="a quantity's unit swapped within its family, the number kept (months -> weeks)",
)
def unit(row: GoldRecord, *, rng: random.Random, pool: Pool) -> Variant | Skip:
    """A context sentence with one quantity's unit moved one step along its family (`24 months`
    -> `24 weeks`, `km` -> `miles`, `$` -> `€`). Not under a bound
    (`at least 3 years` -> `at least 3 months` is entailed), not in a rate (`24 hours a day`),
    not in a sentence with a negation; the new quantity stands in no passage."""
    spots = _spots(row, must_fail=True)
    text = flat(row.contexts)
    rng.shuffle(spots)
    for spot in spots:
        if bound_before(spot.sentence, spot.number) in ("low", "high", "window"):
            continue
        if CAPACITY.search(spot.sentence):
            continue  # can record 350 hours -> 350 minutes, 2 hours can help -> 2 days
        found = _unit_after(spot)
        if found:
            start, end, targets = found
            targets = [
                t for t in targets
                if not in_passages(text, f"{spot.number.text} {t}")
            ]  # fmt: skip
            if targets:
                return _variant(spot, start, end, targets[rng.randrange(len(targets))])
        sign = spot.sentence[max(0, spot.number.start - 1) : spot.number.start]
        ahead = spot.sentence[: max(0, spot.number.start - 1)]
        if sign in CURRENCY_SIGNS and not re.search(r"[^\W_]$", ahead):
            signs = [
                s for s in CURRENCY_SIGNS
                if s != sign and not in_passages(text, s + spot.number.text)
                and s not in text
            ]  # fmt: skip
            if signs:
                new = signs[rng.randrange(len(signs))]
                return _variant(spot, spot.number.start - 1, spot.number.start, new)
    return Skip("no quantity with a unit to swap")


def _formats(spot: _Spot) -> list[tuple[str, int, int, str]]:
    """Other ways to write `spot`'s number, each as (way, start, end, new text)."""
    n, sentence = spot.number, spot.sentence
    out: list[tuple[str, int, int, str]] = []
    plain = Number(n.start, n.end, n.text, n.value, n.decimals, grouped=False, lang=n.lang)
    grouped = Number(n.start, n.end, n.text, n.value, n.decimals, grouped=True, lang=n.lang)
    if (
        n.word
        and re.match(r" [^\W\d_]", sentence[n.end :])
        and not re.match(r" (?:of|and|or|to|in|von|und|de|et|ou|y|o)\b", sentence[n.end :])
    ):
        out.append(("word", n.start, n.end, fmt(n.value, like=plain)))  # two issues -> 2 issues
    elif n.grouped and not 1000 <= n.value <= 2099:
        out.append(("grouping", n.start, n.end, fmt(n.value, like=plain)))
    elif not n.grouped and n.value >= 10000:
        out.append(("grouping", n.start, n.end, fmt(n.value, like=grouped)))
    percent = _PERCENT_AFTER.match(sentence[n.end :])
    if percent and not n.word:
        word = _PERCENT_WORDS.get(spot.lang, "percent")
        sign = "%" if spot.lang == "en" else "\u00a0%"
        new = f"{n.text} {word}" if "%" in percent.group(0) else n.text + sign
        out.append(("percent", n.start, n.end + len(percent.group(0)), new))
    for name, power in _MAGNITUDES.get(spot.lang, ()):
        # 3,5 millones de euros -> 3.500.000 euros; 3,5 millions d'euros -> 3 500 000 euros
        match = re.match(rf" {name}(?P<de> de(?= )| d['’](?=\w))?(?![^\W_])", sentence[n.end :])
        if match and not n.word:
            whole = n.value.scaleb(power)
            if whole == whole.to_integral_value():
                full = Number(n.start, n.end, n.text, whole, 0, grouped=True, lang=n.lang)
                space = " " if (match.group("de") or "").endswith(("'", "’")) else ""
                out.append(
                    ("magnitude", n.start, n.end + match.end(), fmt(whole, like=full) + space)
                )
            break
    return out


@generator(
    kind="number_format",
    expect="pass",
    summary="a number written another way, the same value (1,000 / 1000; 5% / 5 percent)",
)
def number_format(row: GoldRecord, *, rng: random.Random, pool: Pool) -> Variant | Skip:
    """A context sentence with one number written another way that states the same value
    exactly: thousands grouped or not, `%` or `percent`, `3.5 million` or `3,500,000`, `nine`
    or `9`."""
    spots = _spots(row, must_fail=False)
    options = [(spot, edit) for spot in spots for edit in _formats(spot)]
    if not options:
        return Skip("no number to write another way")
    way = choose(rng, {edit[0] for _, edit in options})  # each way as likely, however many
    options = [(spot, edit) for spot, edit in options if edit[0] == way]
    spot, (_, start, end, new) = options[rng.randrange(len(options))]
    return _variant(spot, start, end, new)


#: Percentage points, per language: the difference of two percentages.
_POINTS = {
    "en": "percentage points",
    "de": "Prozentpunkte",
    "fr": "points de pourcentage",
    "es": "puntos porcentuales",
}

#: `A of the B nouns` per language: the share a percentage can state (`9 of the 30 pilots`).
_SHARE = {
    "en": (r" (?:out )?of (?:the|their|its|his|her|our) ", "{pct}% of {det} {total}"),
    "de": (r" (?:der|von den) ", "{pct}\u00a0% der {total}"),
    "fr": (r" (?:des|sur les) ", "{pct}\u00a0% des {total}"),
    "es": (r" de (?:los|las) ", "el {pct}\u00a0% de {det} {total}"),
}

#: Verbs of a change `from A to B`, by direction, and how a difference is inserted.
_CHANGE = {
    "en": (
        r"(?P<verb>\b(?:rose|risen|rising|increased|increasing|grew|grown|growing|climbed|jumped"
        r"|soared|went up|gone up)|\b(?:fell|fallen|falling|dropped|dropping|declined|declining"
        r"|decreased|decreasing|sank|slipped|went down|gone down))\s+from\s+$",
        " to ",
        "by {diff}, ",
        _POINTS["en"],
    ),
    "de": (
        r"(?P<verb>\b(?:stieg|gestiegen|wuchs|gewachsen|erhöhte sich|kletterte)|\b(?:sank|"
        r"gesunken|fiel|gefallen|ging zurück))\s+von\s+$",
        " auf ",
        "um {diff} ",
        _POINTS["de"],
    ),
}
_UP = re.compile(
    r"rose|risen|rising|increas|grew|grown|growing|climbed|jumped|soared|up|stieg|gestiegen|wuchs"
    r"|gewachsen|erhöhte|kletterte"
)

#: A sentence stating the sum of two quantities, per language.
_TOTAL = {
    "en": "The total of the {a} and the {b} is {c}.",
    "de": "{a} und {b} ergeben zusammen {c}.",
    "fr": "{a} et {b} font au total {c}.",
    "es": "{a} y {b} suman en total {c}.",
}
#: A sentence stating the difference of two quantities, per language.
_DIFFERENCE = {
    "en": "The difference between the {a} and the {b} is {c}.",
    "de": "Der Unterschied zwischen {a} und {b} beträgt {c}.",
    "fr": "La différence entre {a} et {b} est de {c}.",
    "es": "La diferencia entre {a} y {b} es de {c}.",
}
_MAGNITUDE_WORDS = (
    "million|billion|trillion|thousand|Millionen|Milliarden|millions|milliards|millones"
)
_NOT_NOUNS = frozenset(
    """of to in and or the a an for at on by with from than as percent per cent more less over
    under about who which that were was are is have has had und oder der die das von mit für
    zu im et ou de des du le la les en à par y o el los las con por para times time bit bits
    square cubic mal fois veces fold but while each every including into after before since
    this last year per""".split()
)


def _share(spot: _Spot, spots: list[_Spot]) -> Variant | None:
    """`9 of the 30 pilots` -> `30% of the 30 pilots` when the percentage is exact."""
    pattern, template = _SHARE.get(spot.lang, _SHARE["en"])
    part = spot.number
    rest = spot.sentence[part.end :]
    link = re.match(pattern, rest, re.IGNORECASE)
    if spot.lang == "en" and not link:  # 9 out of 10 dentists -> 9 out of 10 (90%) dentists
        link = re.match(r" out of ", rest)
        template = "{part} out of {total} ({pct}%)"
    if not link or part.value <= 1 or bound_before(spot.sentence, part):
        return None
    total = next(
        (s.number for s in spots if s.sentence == spot.sentence and s.number.start ==
         part.end + link.end()), None
    )  # fmt: skip
    if total is None or not safe(spot.sentence, total):
        return None
    if not part.value < total.value or total.decimals or part.decimals:
        return None
    if not re.match(r" [^\W\d_]{3,}", spot.sentence[total.end :]):
        return None  # the total counts something named right after it
    if _unit_after(_Spot(spot.sentence, total, spot.lang)) or _PERCENT_AFTER.match(
        spot.sentence[total.end :]
    ):
        return None
    pct = part.value * 100 / total.value
    if pct != pct.quantize(Decimal("0.1")):
        return None
    shown = fmt(pct.normalize() if pct % 1 else pct.quantize(Decimal(1)),
                like=Number(0, 0, "", pct, 0 if pct % 1 == 0 else 1, lang=spot.lang))  # fmt: skip
    det = link.group(0).split()[-1]  # the, their, los, las
    new = template.format(pct=shown, total=total.text, det=det, part=part.text)
    return _variant(spot, part.start, total.end, new)


def _change(spot: _Spot, spots: list[_Spot]) -> Variant | None:
    """`rose from 5% to 8%` -> `rose by 3 percentage points, from 5% to 8%`."""
    if spot.lang not in _CHANGE:
        return None
    verbs, link, insert, points = _CHANGE[spot.lang]
    start = spot.number
    sentence = spot.sentence
    head = sentence[: start.start]
    sign = head[-1:] if head[-1:] in CURRENCY_SIGNS else ""
    lead = re.search(verbs, head[: len(head) - len(sign)])
    if not lead or bound_before(sentence, start):
        return None
    affix = ""
    for piece in re.findall(r"\s?%|\s?[^\W\d_]+", sentence[start.end :])[:2]:
        if piece.strip() == link.strip():
            break
        affix += piece
    expected = start.end + len(affix) + len(link) + len(sign)
    end = next((s.number for s in spots if s.sentence == sentence and s.number.start == expected),
               None)  # fmt: skip
    if end is None or sentence[start.end + len(affix) : expected] != link + sign:
        return None
    if affix and not sentence[end.end :].startswith(affix):
        return None
    if start.word != end.word or start.value == end.value:
        return None
    up = bool(_UP.search(lead.group("verb")))
    if up != (end.value > start.value):
        return None
    diff = abs(end.value - start.value)
    like = start if start.decimals >= end.decimals else end
    written = fmt(diff, like=like)
    if affix.strip() == "%" or affix.strip().lower() in {"percent", "prozent"}:
        amount = f"{written} {points}"
    else:
        amount = f"{sign}{written}{affix}"
    new = insert.format(diff=amount)
    at = lead.end() - len(re.search(r"\S+\s+$", lead.group(0)).group(0))  # type: ignore[union-attr]
    return _variant(spot, at, at, new)


#: A quantity right before another (`10 hours 45 minutes`, `eight hours 10 minutes`).
_COMPOUND = re.compile(
    r"(?:\d[\d.,]*|(?<![^\W_])(?:"
    + "|".join(sorted({w for ws in NUMBER_WORDS.values() for w in ws}))
    + r"))\s+[^\W\d_]+,?\s*$",
    re.IGNORECASE,
)


def _measure(spot: _Spot) -> tuple[str, str] | None:
    """The currency sign and noun (with a magnitude word) `spot`'s number counts, when it is a
    plain count or sum: `$3 billion` -> (`$`, `billion`), `600 species` -> (``, `species`)."""
    a, sentence = spot.number, spot.sentence
    if _PERCENT_AFTER.match(sentence[a.end :]):  # 11.6% and 10.2%: a difference in points
        if a.word or bound_before(sentence, a) or not safe(sentence, a):
            return None
        return None if _COMPOUND.search(sentence[: a.start]) else ("", "%")
    noun_a = re.match(
        rf" ((?:(?:{_MAGNITUDE_WORDS}) )?[^\W\d_]{{3,}})(?![\w\-])",
        sentence[a.end :],
        re.IGNORECASE,
    )
    sign = sentence[a.start - 1 : a.start] if sentence[a.start - 1 : a.start] in "$€£" else ""
    if (not noun_a and not sign) or a.value <= 1 or a.word or bound_before(sentence, a):
        return None
    if not safe(sentence, a):
        return None
    noun = noun_a.group(1) if noun_a else ""
    last = noun.split()[-1] if noun else ""
    if _COMPOUND.search(sentence[: a.start - len(sign)]):
        return None  # 10 hours 45 minutes: a part of a compound quantity
    following = re.match(r"\s*([^\W\d_]*)", sentence[a.end + 1 + len(noun) :] if noun else "")
    if noun and following and following.group(1) and following.group(1).lower() not in _NOT_NOUNS:
        return None  # 70 basis points, 26 years old: the noun goes on
    if sign and noun:  # $40 fee, $3 billion in fees: the sign (and magnitude) is the unit
        magnitude = re.match(rf"(?:{_MAGNITUDE_WORDS})\b", noun, re.IGNORECASE)
        noun = magnitude.group(0) if magnitude else ""
    elif last.lower() in _NOT_NOUNS or (noun and spot.lang != "de" and not last.islower()):
        return None
    if noun and not re.search(r"[aeiouyäöüéèáíóú]", last.lower()):
        return None  # 203 sqq., 12 pp.: an abbreviation, a reference, no count
    return sign, noun


def _combine(a: _Spot, b: _Spot, measure: tuple[str, str], *, joined: bool) -> Variant | None:
    """The total (`joined`) or the difference of two quantities of one measure."""
    x, y = a.number, b.number
    if x.decimals != y.decimals or x.value == y.value:
        return None
    big, small = (x, y) if x.value >= y.value else (y, x)
    c = x.value + y.value if joined else big.value - small.value
    like = x if x.grouped or not y.grouped else y
    if c <= 1 or (not like.grouped and 1000 <= c <= 2099):
        return None
    sign, noun = measure
    tail = f" {noun}" if noun else ""
    first, second = (x, y) if joined else (big, small)
    parts = [f"{sign}{n}{tail}" for n in (first.text, second.text, fmt(c, like=like))]
    if noun == "%":  # percentages are not added; their difference is in points
        if joined:
            return None
        sign_ = "%" if a.lang == "en" else "\u00a0%"
        parts = [first.text + sign_, second.text + sign_, f"{fmt(c, like=like)} {_POINTS[a.lang]}"]
    template = (_TOTAL if joined else _DIFFERENCE).get(a.lang, _TOTAL["en"])
    answer = template.format(a=parts[0], b=parts[1], c=parts[2])
    answer = answer[0].upper() + answer[1:]
    before = a.sentence if a.sentence == b.sentence else f"{a.sentence} {b.sentence}"
    return Variant(answer=answer, before=before, after=answer, language=a.lang)


def _total(spot: _Spot, spots: list[_Spot]) -> Variant | None:
    """Two quantities of one noun (or one currency) in one sentence -> their total when `and`
    joins them, else their difference."""
    measure = _measure(spot)
    if measure is None:
        return None
    a, sentence = spot.number, spot.sentence
    sign, noun = measure
    for other in spots:
        b = other.number
        if other.sentence != sentence or b.start <= a.end or _measure(other) != measure:
            continue
        percent = _PERCENT_AFTER.match(sentence[a.end :])
        width = percent.end() if noun == "%" and percent else len(noun) + 1 if noun else 0
        between = sentence[a.end + width : b.start - len(sign)]
        if re.search(r"\d|[;:()]|\b(?:loss|losses|deficit|minus|negative)\b", between) or (
            len(between.split()) > 12
        ):
            continue
        joined = re.fullmatch(r",?\s+(?:and|und|et|y)\s+(?:[^\W\d_]+\s+){0,2}", between)
        if joined and re.search(r"\b(?:of|der|des|de|than|als|que)\b", between):
            continue
        made = _combine(spot, other, measure, joined=bool(joined))
        if made:
            return made
    return None


def _across(row: GoldRecord, spots: list[_Spot]) -> list[Variant]:
    """The difference of two quantities of one measure in two sentences of one passage."""
    passages = [" ".join(p.split()) for p in row.contexts]
    groups: dict[tuple[int, str, str], list[_Spot]] = {}
    for spot in spots:
        measure = _measure(spot)
        if measure is None or re.search(r"\b(?:loss|losses|deficit)\b", spot.sentence):
            continue
        where = next((i for i, p in enumerate(passages) if spot.sentence in p), -1)
        groups.setdefault((where, *measure), []).append(spot)
    made: list[Variant] = []
    for (_, sign, noun), found in groups.items():
        for i, a in enumerate(found):
            b = next((b for b in found[i + 1 :] if b.sentence != a.sentence), None)
            variant = _combine(a, b, (sign, noun), joined=False) if b else None
            if variant:
                made.append(variant)
                break
    return made


@generator(
    kind="arithmetic",
    expect="pass",
    summary="a figure computed exactly from stated ones (a share, a change, a total)",
)
def arithmetic(row: GoldRecord, *, rng: random.Random, pool: Pool) -> Variant | Skip:
    """A claim computed exactly from figures a context sentence states: a share as a
    percentage (`9 of the 30 pilots` -> `30% of the 30 pilots`), the size of a stated change
    (`rose from 5% to 8%` -> `rose by 3 percentage points, from 5% to 8%`), the total of two
    quantities of one noun joined in one sentence, or else the difference of two quantities of
    one noun or currency in one sentence or passage."""
    spots = _spots(row, must_fail=False, loose=True)
    made: list[Variant] = []
    for spot in spots:
        if safe(spot.sentence, spot.number):
            made += [v for v in (_share(spot, spots), _total(spot, spots)) if v]
        change = _change(spot, spots)
        if change:
            made.append(change)
    if not made:  # figures in two sentences of one passage
        made = _across(row, spots)
    if not made:
        return Skip("no figures to compute from")
    return made[rng.randrange(len(made))]
