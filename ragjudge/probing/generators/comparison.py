"""Must-fail kind `comparison`: a comparison changed (largest -> second-largest, twice -> half).

A rank moves one place (`the largest` -> `the second-largest`, `the most popular` -> `the
second most popular`, `the first` -> `the second`, `the fourth` -> `the fifth`), a multiple
turns over (`twice as` -> `half as`), or a comparative takes its opposite before `than`
(`older than` -> `younger than`); de `der größte` -> `der zweitgrößte`, `doppelt so` ->
`halb so`; fr `le plus grand` -> `le deuxième plus grand`, `premier` -> `deuxième`; es `el
más grande` -> `el segundo más grande`, `primera` -> `segunda`. `more than X` is the
`direction` kind's. A rank inside a group (`one of the largest`), a title (`the first
lady`), a sentence with two ranks, or a negation is skipped.
"""

from __future__ import annotations

import random
import re

from ragjudge.data._gold import GoldRecord
from ragjudge.probing._probe import Skip, Variant
from ragjudge.probing._registry import Pool, generator
from ragjudge.probing.generators._rewrite import Replace, rewrite, rules

__all__ = ["comparison"]

_SUPERLATIVES = (
    "largest", "biggest", "highest", "oldest", "longest", "tallest", "smallest", "greatest",
    "youngest", "earliest", "deepest", "fastest", "richest", "strongest", "heaviest", "busiest",
    "closest", "lowest", "widest", "best", "worst", "poorest", "wealthiest", "hottest",
    "coldest", "wettest", "driest", "cheapest", "shortest", "brightest", "newest",
)  # fmt: skip
#: A word that owns a rank: an article or a possessive.
_OWNER = (
    r"the|its|his|her|their|our|(?!(?:it|that|there|what|he|she|who|here|where)['’])[a-z]+['’]s"
)
#: Comparatives and their opposites (before `than`).
_OPPOSITES = {
    "en": (
        ("older", "younger"), ("larger", "smaller"), ("bigger", "smaller"), ("longer", "shorter"),
        ("faster", "slower"), ("better", "worse"), ("heavier", "lighter"), ("wider", "narrower"),
        ("stronger", "weaker"), ("richer", "poorer"), ("taller", "shorter"),
        ("warmer", "colder"), ("cheaper", "costlier"),
    ),
    "de": (("älter", "jünger"), ("größer", "kleiner"), ("länger", "kürzer"), ("besser",
           "schlechter"), ("schneller", "langsamer")),
    "fr": (),
    "es": (("mayor", "menor"),),
}  # fmt: skip


_ORDINALS = (
    "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
    "eleventh",
)  # fmt: skip
#: A word that ranks: an ordinal or a superlative (a sentence may hold one; two is a trap:
#: `the largest city and the second largest port`).
_RANK = re.compile(
    rf"(?<![\w\-])(?:{'|'.join(_ORDINALS)}|{'|'.join(_SUPERLATIVES)}|most|runner-up|"
    r"\d+(?:st|nd|rd|th))(?![\w])",
    re.IGNORECASE,
)


def _next_ordinal(match: re.Match[str]) -> str:
    """`the fourth` -> `the fifth`."""
    return f"{match.group(1)} {_ORDINALS[_ORDINALS.index(match.group(2).lower()) + 1]}"


def _opposites(lang: str, than: str) -> list[tuple[str, Replace]]:
    out: list[tuple[str, Replace]] = []
    for a, b in _OPPOSITES[lang]:
        out.append((rf"{a}(?= {than}\b)", b))
        if not (lang == "en" and b == "smaller" and a == "bigger"):
            out.append((rf"{b}(?= {than}\b)", a))
    return out


def _es_second(match: re.Match[str]) -> str:
    article = match.group(1)
    return f"{article} {'segunda' if article.lower() in ('la', 'las') else 'segundo'} más"


_TABLE: dict[str, list[tuple[str, Replace]]] = {
    "en": [
        (rf"({_OWNER}) ({'|'.join(_SUPERLATIVES)})(?= (?!part\b|way\b|interests?\b)[a-z])",
         r"\1 second-\2"),
        (rf"({_OWNER}) most(?= (?:[a-z]+(?:al|ic|ive|ous|ful|ar|ent|ant|ble|ed|ing)|common|"
         r"recent|likely|frequent|prominent|senior|difficult|expensive)\b)",
         r"\1 second most"),
        (rf"({_OWNER}) first(?= (?!of\b|time\b|and\b|half\b|quarter\b|lady\b|minister\b|"
         r"class\b|aid\b|name\b|person\b|language\b|cousin\b|floor\b|place\b|sight\b|"
         r"hand\b|step\b|priority\b|amendment\b|two\b|three\b|four\b|five\b|six\b|seven\b|eight\b|nine\b|"
         r"ten\b|few\b|couple\b)[a-z])", r"\1 second"),
        (rf"({_OWNER}) ({'|'.join(_ORDINALS[1:-1])})(?= (?!half\b|quarter\b|cousin\b|"
         r"of\b|and\b|or\b|place\b|time\b|world\b|nature\b|hand\b|is\b|was\b|amendment\b)"
         r"[a-z])",
         _next_ordinal),
        (r"twice as", "half as"),
        (r"half as(?= [a-z]+ as\b)", "twice as"),
        (r"(?:twice|double) the(?= (?:size|number|amount|rate|price|length|height|weight|"
         r"population|level|speed|value|cost)\b)", "half the"),
        *_opposites("en", "than"),
    ],
    "de": [
        (r"((?:der|die|das|den|dem|des) )(größte|älteste|höchste|längste|wichtigste|"
         r"beste|größten|ältesten|höchsten|längsten|wichtigsten|besten)", r"\1zweit\2"),
        (r"((?:der|die|das|den|dem|des) )erste([nrs]?)(?= [A-ZÄÖÜ])", r"\1zweite\2"),
        (r"doppelt so", "halb so"),
        *_opposites("de", "als"),
    ],
    "fr": [
        (r"(?<=est )(le|la) plus(?= (?!de\b|que\b|en\b|tard\b)[a-zéèê]{3,})",
         r"\1 deuxième plus"),
        (r"(le|la) premi(?:er|ère)(?= [a-zéèê])", r"\1 deuxième"),
        (r"(les) premi(?:ers|ères)(?= [a-zéèê])", r"\1 deuxièmes"),
        (r"deux fois plus", "deux fois moins"),
    ],
    "es": [
        (r"(el|la|los|las) más(?= (?!de\b|que\b)[a-záéíóú]{3,})", _es_second),
        (r"(el|la) ([a-záéíóúñ]{3,}) más(?= (?!de\b|que\b)[a-záéíóú]{3,})",
         lambda m: f"{m.group(1)} {'segunda' if m.group(1) == 'la' else 'segundo'} "
         f"{m.group(2)} más"),
        (r"(el) primer(?:o)?(?= [a-záéíóú])", r"\1 segundo"),
        (r"(la) primera(?= [a-záéíóú])", r"\1 segunda"),
        (r"el doble de", "la mitad de"),
        *_opposites("es", "que"),
    ],
}  # fmt: skip
_RULES = rules(_TABLE)

_REFUSE = {
    "en": r"not|n['’]t|no|never|cannot|without|one of|one the|among|some of|many of|"
    r"several of|few of|"
    r"best of|be the first|at least|at most|at best|at first|first time|for the first|if|than ever",
    "de": r"nicht|kein\w*|nie|einer der|eine der|eines der|zweit\w*|dritt\w*",
    "fr": r"ne|n['’]|pas|jamais|un des|une des|l['’]un des|l['’]une des|deuxième|second\w*",
    "es": r"no|nunca|uno de|una de|segund\w*|tercer\w*",
}
_REFUSE_RE = {
    lang: re.compile(rf"(?<![\w'’])(?:{p})(?!\w)|n['’]t(?!\w)", re.IGNORECASE)
    for lang, p in _REFUSE.items()
}


def _safe(sentence: str, lang: str) -> bool:
    """No negation, no rank within a group (`one of the largest`), one rank at most."""
    if _REFUSE_RE[lang].search(sentence):
        return False
    return lang != "en" or len(_RANK.findall(sentence)) <= 1


@generator(
    kind="comparison",
    expect="fail",
    summary="a comparison changed in a context sentence (largest -> second-largest, twice -> half)",
)
def comparison(row: GoldRecord, *, rng: random.Random, pool: Pool) -> Variant | Skip:
    """A context sentence whose rank, multiple or comparative is changed."""
    del pool
    return rewrite(row, rng=rng, table=_RULES, guard=_safe, nothing="no comparison to change")
