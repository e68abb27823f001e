"""Numbers in a sentence, as words see them: where a number stands, its value, how it is
written, and whether it is safe to edit (no year, no part of a name, ID or range).

Shared by the quantity and date generators (`quantities.py`, `dates.py`); a private module, so
the generator package does not register it as a family of kinds.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from decimal import Decimal

from ragjudge.data._gold import GoldRecord
from ragjudge.probing._lexicon import MONTHS
from ragjudge.probing._text import candidate_sentences, language

__all__ = [
    "ANY_NUMBER",
    "CAPACITY",
    "NEGATIONS",
    "Number",
    "bound_before",
    "flat",
    "fmt",
    "has_negation",
    "in_passages",
    "is_year",
    "number_words",
    "numbers",
    "safe",
    "statements",
]

#: Number words 2-12 and the tens, per language (lowercase). "one" is left out (one of,
#: no one), and so are words with another common sense (French "neuf": new).
NUMBER_WORDS: dict[str, dict[str, int]] = {
    "en": {
        "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
        "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "twenty": 20, "thirty": 30,
        "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
    },
    "de": {
        "zwei": 2, "drei": 3, "vier": 4, "fünf": 5, "sechs": 6, "sieben": 7, "acht": 8,
        "neun": 9, "zehn": 10, "elf": 11, "zwölf": 12, "zwanzig": 20, "dreißig": 30,
        "vierzig": 40, "fünfzig": 50, "sechzig": 60, "siebzig": 70, "achtzig": 80,
    },
    "fr": {
        "deux": 2, "trois": 3, "quatre": 4, "cinq": 5, "six": 6, "sept": 7, "huit": 8,
        "dix": 10, "onze": 11, "douze": 12, "vingt": 20, "trente": 30, "quarante": 40,
        "cinquante": 50, "soixante": 60,
    },
    "es": {
        "dos": 2, "tres": 3, "cuatro": 4, "cinco": 5, "seis": 6, "siete": 7, "ocho": 8,
        "nueve": 9, "diez": 10, "once": 11, "doce": 12, "veinte": 20, "treinta": 30,
        "cuarenta": 40, "cincuenta": 50, "sesenta": 60,
    },
}  # fmt: skip

#: Negation words per language: a sentence with one is left alone by the must-fail kinds
#: (under a negation a smaller or larger value can still be entailed).
NEGATIONS: dict[str, tuple[str, ...]] = {
    "en": ("not", "no", "never", "none", "nobody", "nothing", "neither", "nor", "without",
           "cannot", "n't"),
    "de": ("nicht", "kein", "keine", "keinen", "keinem", "keiner", "keines", "nie", "niemals",
           "ohne", "weder"),
    "fr": ("ne", "n'", "pas", "jamais", "aucun", "aucune", "sans", "ni", "personne", "rien"),
    "es": ("no", "nunca", "ningún", "ninguna", "ninguno", "sin", "ni", "jamás", "nadie", "nada"),
}  # fmt: skip

#: Words before a number that make it a bound: `low` (the value is a minimum), `high` (a
#: maximum), `about` (an estimate).
BOUNDS: dict[str, dict[str, tuple[str, ...]]] = {
    "low": {
        "en": ("more than", "over", "at least", "above", "exceeding", "upwards of",
               "in excess of", "greater than", "no fewer than", "no less than", "minimum of",
               "a minimum of", "beyond", "as many as", "as much as", "well over", "+", ">", "≥",
               "up to", "as long as", "as high as", "as large as", "as big as", "as far as",
               "as tall as", "as old as", "as great as", "as deep as", "as wide as", "as heavy as",
               ">="),
        "de": ("mehr als", "über", "mindestens", "ab", "wenigstens", "gut", "bis zu"),
        "fr": ("plus de", "plus d'", "au moins", "au-delà de", "supérieur à", "dès", "jusqu'à"),
        "es": ("más de", "al menos", "por lo menos", "como mínimo", "superior a", "desde",
               "hasta"),
    },
    "high": {
        "en": ("less than", "fewer than", "under", "below", "at most", "nearly",
               "almost", "just under", "within", "no more than", "maximum of", "a maximum of",
               "not more than", "short of", "shy of", "barely", "only", "just", "<", "≤", "<="),
        "de": ("weniger als", "unter", "höchstens", "fast", "knapp", "beinahe", "nur",
               "bis", "innerhalb von", "binnen"),
        "fr": ("moins de", "moins d'", "au plus", "presque", "près de", "seulement",
               "à peine", "en moins de", "dans les"),
        "es": ("menos de", "como máximo", "casi", "apenas", "solo", "sólo",
               "dentro de"),
    },
    "about": {
        "en": ("about", "around", "approximately", "roughly", "some", "an estimated",
               "estimated", "circa", "c.", "~", "approx.", "almost", "some"),
        "de": ("etwa", "rund", "ungefähr", "circa", "ca.", "zirka", "gut", "an die"),
        "fr": ("environ", "quelque", "quelques", "à peu près", "autour de", "près de",
               "une vingtaine"),
        "es": ("unos", "unas", "alrededor de", "aproximadamente", "cerca de", "aprox."),
    },
}  # fmt: skip

#: Words before a number that make it a window of time or of a list (`in the past 10 years`,
#: `the first three months`): a wider or narrower window may still be entailed.
_WINDOW = re.compile(
    r"(?<![^\W_])(?:past|last|next|first|final|initial|opening|closing|previous|coming|recent|"
    r"within|over the|during the|best|worst|biggest|largest|smallest|leading|"
    r"letzten|nächsten|ersten|vergangenen|innerhalb|derniers|dernières|prochains|prochaines|"
    r"premiers|premières|últimos|últimas|próximos|próximas|primeros|primeras)$"
)

#: A superlative after a number (`the 100 most interesting`, `the ten largest`): a window too.
_SUPERLATIVE_AFTER = re.compile(
    r"\s+(?:most|least|best|worst|largest|biggest|smallest|highest|lowest|top|leading|[a-z]+est)"
    r"(?![^\W_])|\s+(?:meistgenutzten|größten|plus|más|mejores|meilleur[es]*)(?![^\W_])",
)

#: Words that make a sentence about what can or may be (`can record 350 hours`, `two hours
#: can make a difference`): a smaller or a larger quantity may then be entailed.
CAPACITY = re.compile(
    r"(?<![^\W_])(?:can|could|may|might|able|allows?|allowing|capable|enough|holds?|stores?|"
    r"lasts?|supports?|kann|können|könnte|peut|peuvent|pourrait|puede|pueden|podría)(?![^\W_])",
    re.IGNORECASE,
)

#: Words after a number that make it a bound (`65 or older`).
BOUNDS_AFTER = re.compile(
    r"^\s*(?:\+|or (?:more|older|over|above|less|fewer|younger|under|so)|and (?:over|above|up|"
    r"older|more)|plus\b|oder (?:mehr|älter|weniger)|und mehr|ou plus|ou moins|et plus|"
    r"o más|o menos|y más)",
    re.IGNORECASE,
)

#: Words before a number that make it a label, not a quantity (`chapter 3`, `flight 93`).
LABELS = frozenset(
    """number no nr num version v chapter season episode page pages room flight route line
    model type class grade level phase step act article section paragraph verse volume vol
    issue series code id pin highway interstate platform gate track channel block unit apartment
    suite floor round stage week day game match race part figure fig table rule title amendment
    psalm lot bus exit size mark mk hole lane pier berth seat row box tier division district ward
    precinct tranche batch lap heat kapitel staffel folge seite zimmer nummer artikel absatz band
    linie gleis klasse stufe teil typ modell chapitre saison épisode chambre numéro ligne classe
    niveau tome modèle partie capítulo temporada episodio página habitación número artículo
    línea clase nivel tipo modelo parte top""".split()
)

#: All-capital words that may follow a quantity (`380 MW`): no name.
UNIT_ABBREVIATIONS = frozenset("KB MB GB TB KW MW GW KWH MWH USD EUR GBP CHF BC AD".split())

_MONTH_WORDS = frozenset(m for months in MONTHS.values() for m in months)

_DIGITS = {
    "en": r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?",
    "de": r"\d{1,3}(?:\.\d{3})+(?:,\d+)?|\d+(?:,\d+)?",
    "es": r"\d{1,3}(?:\.\d{3})+(?:,\d+)?|\d+(?:,\d+)?",
    "fr": r"\d{1,3}(?:[ \u00a0\u202f]\d{3})+(?:,\d+)?|\d+(?:,\d+)?",
}
_NUMBER = {
    lang: re.compile(rf"(?<![\w.,\-–—/:#@'’])(?:{pattern})(?![\w\-–—/:@]|[.,]\d)")
    for lang, pattern in _DIGITS.items()
}
#: What before a number makes it one end of a range, a ratio or part of a compound number.
_NOT_ALONE = (
    r"(?:\b(?:between|zwischen|entre)\b(?:\W+\w+){0,4}\W*"
    r"|\b(?:one|1|ein|eine|un|une|uno|una|\d+)\s+(?:in|out of|of every|von|sur|de cada|sobre)\s*"
    r"|\b(?:hundred|thousand|hundert|tausend|cent|mille|cien|mil)\s+(?:and|und|et|y)\s*)$"
)
#: What before a number makes it the second end of a range (`10 days to two weeks`, `two or
#: three`, `3% to 5%`).
_RANGE_BEFORE = (
    r"(?:\d|(?<![^\W_])(?:"
    + "|".join(sorted({"one", *(w for ws in NUMBER_WORDS.values() for w in ws)}))
    + r"))(?:%|\s+per cent|\s+[^\W\d_]+)?(?:\s*[-–]|\s+(?:to|or|bis|à|ou|oder|o|a))\s*[$€£]?\s*$"
)
#: A comparison before a number (`more change than in the nine centuries before`): a smaller
#: or larger number may still be entailed.
_THAN = re.compile(r"(?<![^\W_])(?:than|als|que)(?:\s+[^\W\d_]+){1,4}\s*[$€£]?$", re.I)

#: What after a number makes it the first end of a range (`10 days to two weeks`, `2-3`).
_RANGE_AFTER = (
    r"\s*(?:%\s*|per cent\s+|[^\W\d_]+\s+)?(?:[-–]|(?:to|or|bis|à|ou|o|oder|a)\s)\s*[$€£]?(?:\d|(?:"
    + "|".join(sorted({w for ws in NUMBER_WORDS.values() for w in ws}))
    + r")(?![^\W_]))"
)
_WORD_NUMBER = {
    lang: re.compile(rf"(?<![^\W_])(?:{'|'.join(words)})(?![^\W_]|[\-–])", re.IGNORECASE)
    for lang, words in NUMBER_WORDS.items()
}
#: Any digit or number word of any language: a quick test before a sentence is read.
ANY_NUMBER = re.compile(
    rf"\d|(?<![^\W_])(?:{'|'.join(sorted({w for ws in NUMBER_WORDS.values() for w in ws}))})"
    r"(?![^\W_])",
    re.IGNORECASE,
)
_NEGATION = {
    lang: re.compile(
        r"n['’]t|(?<![^\W_])n['’]|(?<![^\W_])(?:"
        + "|".join(re.escape(w) for w in words if "'" not in w)
        + r")(?![^\W_])",
        re.IGNORECASE,
    )
    for lang, words in NEGATIONS.items()
}
_SEPARATORS = {"en": (",", "."), "de": (".", ","), "es": (".", ","), "fr": ("\u00a0", ",")}


@dataclass(frozen=True)
class Number:
    """One number as it stands in a sentence.

    Attributes:
        start: Where it starts in the sentence.
        end: Where it ends.
        text: The number as written (`1,500`, `2.5`, `nine`).
        value: Its value.
        decimals: Digits after the decimal mark (0 for a word).
        grouped: Whether its thousands are grouped (`1,500`).
        word: Whether it is written as a word.
        lang: The language its separators were read in.
    """

    start: int
    end: int
    text: str
    value: Decimal
    decimals: int = 0
    grouped: bool = False
    word: bool = False
    lang: str = "en"


def numbers(sentence: str, lang: str) -> list[Number]:
    """The numbers of `sentence` read with `lang`'s separators, digits and number words, in
    order."""
    lang = lang if lang in _DIGITS else "en"
    point = _SEPARATORS[lang][1]
    found: list[Number] = []
    for match in _NUMBER[lang].finditer(sentence):
        text = match.group(0)
        whole = text.split(point)[0]
        grouped = any(c in whole for c in ",. \u00a0\u202f")
        plain = re.sub(r"[ \u00a0\u202f]", "", text)
        if lang == "en":
            plain = plain.replace(",", "")
        else:
            plain = plain.replace(".", "").replace(",", ".")
        decimals = len(plain.split(".")[1]) if "." in plain else 0
        found.append(
            Number(match.start(), match.end(), text, Decimal(plain), decimals, grouped, lang=lang)
        )
    words_of = NUMBER_WORDS.get(lang, {})
    for match in _WORD_NUMBER[lang].finditer(sentence):
        word = match.group(0)
        first = not re.search(r"[^\W_]", sentence[: match.start()])
        value = words_of.get(word.lower() if first else word)  # a capital inside: a name's
        if value is not None and sentence[max(0, match.start() - 1)] not in "-–":
            found.append(
                Number(match.start(), match.end(), word, Decimal(value), word=True, lang=lang)
            )
    return sorted(found, key=lambda n: n.start)


def fmt(value: Decimal, *, like: Number) -> str:
    """`value` written the way `like` is (decimals, grouping, separators, language)."""
    thousands, point = _SEPARATORS.get(like.lang, _SEPARATORS["en"])
    if like.lang == "fr" and like.grouped:
        thousands = next((c for c in like.text if c in " \u00a0\u202f"), "\u00a0")
    text = f"{value:.{like.decimals}f}"
    whole, _, fraction = text.partition(".")
    if like.grouped:
        whole = f"{int(whole):,}".replace(",", thousands)
    return whole + (point + fraction if fraction else "")


def is_year(number: Number) -> bool:
    """A whole number 1000-2099 written without grouping: it may be a year."""
    return (
        not number.word
        and not number.grouped
        and number.decimals == 0
        and 1000 <= number.value <= 2099
    )


def safe(sentence: str, number: Number) -> bool:
    """Whether `number` is a quantity that may be edited: no year, no part of a date, a name, an
    ID, a list marker, a range or a time; no leading zero, no ordinal."""
    if is_year(number) or (not number.word and len(re.sub(r"\D", "", number.text)) > 9):
        return False
    if not number.word and number.text.startswith("0") and not number.text.startswith("0."):
        if not re.match(r"0[.,]\d", number.text):
            return False
    before = sentence[: number.start]
    after = sentence[number.end :]
    prev = re.search(r"([^\W_][\w'’.]*)\W*$", before)
    nxt = re.match(r"\W*([^\W_][\w'’]*)", after)
    if re.search(r"[(\[]\s*$", before) and re.match(r"\s*[)\]]", after):
        return False  # (2), [3]: a list marker or a footnote
    if re.search(_NOT_ALONE, before, re.IGNORECASE) or _THAN.search(before):
        return False
    if re.match(r"[\ufe0f\u20e3]", after) or re.search(
        r"\b(?:between|both|point|dot|comma|komma|virgule|coma)\s*$", before, re.I
    ):
        return False
    if number.word and (
        (prev and prev.group(1).lower() in {*NUMBER_WORDS[number.lang], "one", "eins", "un", "uno"})
        or (
            nxt
            and nxt.group(1).lower()
            in {
                *NUMBER_WORDS[number.lang],
                "hundred",
                "thousand",
                "hundert",
                "tausend",
                "cent",
                "mille",
                "cien",
                "mil",
            }
        )
    ):
        return False  # twelve fifty, two hundred
    if re.search(r"[#№]\s*$", before) or re.match(r"\s*(?:[:/x×]\s*\d|\.\d|st\b|nd\b|rd\b|th\b)",
                                                  after):  # fmt: skip
        return False
    if prev:
        word = prev.group(1)
        if word.lower().rstrip(".") in LABELS or word.lower() in _MONTH_WORDS:
            return False
        first = not re.search(r"[^\W_]", before[: prev.start(1)])
        if word[0].isupper() and not first and before[prev.end(1) :].strip() == "":
            return False  # Boeing 747, Apollo 11
    if nxt:
        word = nxt.group(1)
        gap = after[: nxt.start(1)]
        if word.lower() in _MONTH_WORDS or word.lower() in {"am", "pm", "a.m", "p.m", "uhr", "h"}:
            return False
        capital = word[0].isupper() and number.lang != "de" and word not in UNIT_ABBREVIATIONS
        if capital and gap.strip() in {"", "$", "€", "£"}:
            return False  # 30 Rock, 3 Doors Down
    if re.search(_RANGE_BEFORE, before, re.IGNORECASE):
        return False  # 10 days to two weeks, 2 or 3
    if re.search(r"\d\s*(?:[-–]|\b(?:to|and|or|bis|à|et|ou|y|a|und|oder))?\s*[$€£]?\s*$", before):
        return False  # the second end of a range: 10 to 20, 2 or 3
    return not re.match(_RANGE_AFTER, after, re.IGNORECASE)


def bound_before(sentence: str, number: Number) -> str | None:
    """`low`, `high` or `about` when a bound word stands right before `number` (a currency
    sign between them allowed) or a bound phrase right after it (`65 or older`: `low`);
    `window` after `past`, `next`, `first`, `within` and the like."""
    before = re.sub(r"[$€£]\s*$", "", sentence[: number.start]).lower().rstrip()
    if _WINDOW.search(before) or _SUPERLATIVE_AFTER.match(sentence[number.end :]):
        return "window"
    # the phrase right before, or one word before (`under freaking two`), or before the
    # first number of a pair (`over 200 laps and 500 miles`)
    heads = [before, re.sub(r"\s*[^\W\d_]+$", "", before)]
    pair = re.search(r"[$€£]?\d[\d.,]*(?:\s+[^\W\d_]+)?\s+(?:and|or|und|oder|et|ou|y|o)$", before)
    if pair:
        heads.append(before[: pair.start()].rstrip())
    converted = re.search(  # at least 1 inch (2.5 cm): the bound holds for both
        r"[$€£]?\d[\d.,]*(?:\s*[^\W\d_]+){0,2}\s*\((?:about|approximately|around|roughly|c\.)?\s*$",
        before,
    )
    if converted:
        heads.append(before[: converted.start()].rstrip())
    for head in heads:
        kind = _bound_at_end(head)
        if kind:
            return kind
    after = sentence[number.end :]
    after = re.sub(r"^\s*(?:%|[^\W\d_]+)?", "", after, count=1)  # 65 years or older
    if BOUNDS_AFTER.match(sentence[number.end :]) or BOUNDS_AFTER.match(after):
        return "low"
    return None


def _bound_at_end(before: str) -> str | None:
    for kind in ("low", "high", "about"):
        for lang_words in BOUNDS[kind].values():
            for phrase in lang_words:
                if before.endswith(phrase) and (
                    len(before) == len(phrase)
                    or not before[-len(phrase) - 1].isalnum()
                    or not phrase[0].isalnum()
                ):
                    return kind
    return None


def has_negation(sentence: str, lang: str) -> bool:
    """Whether `sentence` has a negation word of `lang` (or of English)."""
    return any(_NEGATION[code].search(sentence) for code in {lang, "en"} if code in _NEGATION)


def in_passages(passages: str, *texts: str) -> bool:
    """Whether any of `texts` stands in `passages` (from `flat`) as a whole token (case
    ignored)."""
    for text in texts:
        needle = " ".join(text.split()).lower()
        if (
            needle
            and needle in passages
            and re.search(rf"(?<![\w.,]){re.escape(needle)}(?![\w]|[.,]\d)", passages)
        ):
            return True
    return False


def flat(passages: list[str] | tuple[str, ...]) -> str:
    """The passages as one lowercased string, spaces made single (for `in_passages`)."""
    return " ".join(" ".join(p.split()) for p in passages).lower()


def number_words(value: int, lang: str) -> list[str]:
    """The number words of `lang` for `value` (empty when it has none in the list)."""
    return [w for w, v in NUMBER_WORDS.get(lang, {}).items() if v == value]


@dataclass(frozen=True)
class Statement:
    """A candidate sentence of a row with a digit or a number word, read once for every kind.

    Attributes:
        text: The sentence.
        lang: Its language.
        negated: Whether it has a negation word.
        numbers: Its numbers, each with whether it is `safe` to edit.
    """

    text: str
    lang: str
    negated: bool
    numbers: tuple[tuple[Number, bool], ...]


def statements(row: GoldRecord) -> tuple[Statement, ...]:
    """The candidate sentences of `row` that state a number (no question), read once and
    kept: the quantity and date kinds all ask for them, row after row."""
    return _statements(tuple(row.contexts))


@functools.lru_cache(maxsize=8192)
def _statements(contexts: tuple[str, ...]) -> tuple[Statement, ...]:
    row = GoldRecord(id="", answer="", contexts=list(contexts))
    out = []
    for sentence in candidate_sentences(row):
        if "?" in sentence or not ANY_NUMBER.search(sentence):
            continue
        lang = language(sentence)
        found = tuple((n, safe(sentence, n)) for n in numbers(sentence, lang))
        out.append(Statement(sentence, lang, has_negation(sentence, lang), found))
    return tuple(out)
