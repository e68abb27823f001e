"""Must-fail kind `direction`: a direction reversed (rose -> fell, before -> after, more -> less).

Each pair is swapped in both directions, in the same grammatical form (`increased` ->
`decreased`, `rising` -> `falling`; de `stieg` -> `sank`, fr `hausse` -> `baisse`, es
`aumentó` -> `disminuyó`). A word only swaps where it reads as a direction: `before`/`after`
before a date or an event, `more`/`less` before `than` or an adjective, `gained`/`lost`
before an amount; never in an idiom (`gave rise to`, `named after`, `higher education`). A
sentence that already holds both sides of a pair, or a negation, is skipped.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence

from ragjudge.data._gold import GoldRecord
from ragjudge.probing._probe import Skip, Variant
from ragjudge.probing._registry import Pool, generator
from ragjudge.probing.generators._rewrite import Replace, rewrite, rules

__all__ = ["direction"]

#: Word pairs whose two sides name opposite directions, per language: one form each.
_PAIRS: dict[str, Sequence[tuple[str, str]]] = {
    "en": (
        ("rose", "fell"), ("rises", "falls"), ("rising", "falling"), ("risen", "fallen"),
        ("increased", "decreased"), ("increases", "decreases"), ("increasing", "decreasing"),
        ("increase", "decrease"), ("grew", "shrank"), ("climbed", "dropped"),
        ("higher", "lower"), ("highest", "lowest"), ("above", "below"),
        ("gained", "lost"), ("more", "less"), ("fewer", "more"),
        ("before", "after"), ("earlier than", "later than"), ("upward", "downward"),
        ("went up", "went down"), ("goes up", "goes down"), ("north of", "south of"),
        ("east of", "west of"), ("northern", "southern"), ("eastern", "western"),
        ("northward", "southward"), ("boosted", "reduced"),
        ("raised", "lowered"), ("surged", "plunged"), ("soared", "plummeted"),
        ("jumped", "slumped"), ("over", "under"), ("at least", "at most"),
        ("maximum", "minimum"), ("strengthened", "weakened"), ("improved", "worsened"),
        ("accelerated", "slowed"),
    ),
    "de": (
        ("stieg", "sank"), ("stiegen", "sanken"), ("steigt", "sinkt"), ("steigen", "sinken"),
        ("gestiegen", "gesunken"), ("Anstieg", "Rückgang"), ("höher", "niedriger"),
        ("mehr", "weniger"), ("vor", "nach"), ("oberhalb", "unterhalb"), ("zugenommen",
        "abgenommen"), ("erhöht", "gesenkt"), ("nördlich", "südlich"), ("östlich", "westlich"),
    ),
    "fr": (
        ("hausse", "baisse"), ("augmente", "diminue"), ("augmentent", "diminuent"),
        ("augmenté", "diminué"), ("plus", "moins"), ("avant", "après"),
        ("supérieur", "inférieur"), ("supérieure", "inférieure"), ("supérieurs", "inférieurs"),
        ("supérieures", "inférieures"), ("au nord", "au sud"), ("à l'est", "à l'ouest"),
        ("augmentation", "diminution"),
    ),
    "es": (
        ("aumentó", "disminuyó"), ("aumenta", "disminuye"), ("aumentaron", "disminuyeron"),
        ("aumentan", "disminuyen"), ("subió", "bajó"), ("subieron", "bajaron"),
        ("más", "menos"), ("antes", "después"), ("aumento", "descenso"),
        ("superior", "inferior"), ("superiores", "inferiores"), ("al norte", "al sur"),
    ),
}  # fmt: skip

#: Where a word of a pair must not be swapped: an idiom or a use that names no direction.
_NOT_HERE: dict[str, str] = {
    "en": r"(?:gave|give|gives|giving|rise) rise to|rose to (?:fame|prominence|power|the)|"
    r"named after|after all|look\w* after|the day after|shortly before|soon before|"
    r"higher (?:education|learning|ed|court)|lower (?:house|chamber|court|case)|"
    r"(?:see|shown|listed|mentioned|described|noted|given|discussed) (?:above|below)|"
    r"the above|lost (?:to|his|her|their|its|my|our|the|a|an|in|out|track|touch|contact|"
    r"interest|sight|control|consciousness)|raised (?:in|by|on|as|from|to|a|an|awareness|"
    r"concerns?|questions?|funds?|money|the issue|the question)|more (?:or less|and more|than "
    r"ever)|no more|any more|once more|the more|what is more|more of|increase in the number|"
    r"before (?:the (?:court|committee|congress|parliament|senate|judge|jury))|"
    r"(?:appeared|testified|came|come|brought|went) before|before you|after you|"
    r"gained (?:access|entry|admission|independence|fame|popularity|control|recognition)|"
    r"(?:fell|falling|falls|fallen) (?:in love|ill|asleep|silent|apart|victim|short|under|"
    r"into|through|on|out)|(?:rising|rises|risen) (?:into|up|star)|"
    r"(?:fell|falling|falls|fallen|lost|losing|loses) to (?-i:[A-Z])|"
    r"(?:lost|gained|won|drew) \d+\s*[-–:]\s*\d|"
    r"(?:rise|rose|rises|rising) above|continues (?:above|below)|(?:higher|lower) (?:up|down)|"
    r"(?:lower|higher|raise) (?:the|a|an|your|its|their|his|her|our|my|this|that|these|those)\b|"
    r"(?:head|scroll|go|look|read|watch|listen|find|check|continue|video|click|"
    r"photos?|pictured|image|gallery) (?:above|below)|"
    r"(?:to|will|would|can|could|may|might|should|must|help|helps|helped) (?:lower|raise)|"
    r"(?:comment|comments|posted|listed|shown|see|click|link|form|details|read|below|above)"
    r" (?:above|below)|(?:above|below)(?! (?:\d|[a-z]))|"
    r"dropped (?:out|off|by|in|the|a|an|his|her|their|its)|climbed (?:up|the|a|aboard|into)",
    "de": r"nach (?:Angaben|Ansicht|Meinung|Berlin|Hause|oben|unten)|vor allem|nach wie vor|"
    r"mehr oder weniger|nicht mehr|vor Ort",
    "fr": r"plus ou moins|ne \w+ plus|n['’]\w+ plus|de plus en plus|non plus|en plus|"
    r"au plus|plus tard|avant tout|d['’]après",
    "es": r"más o menos|más bien|además|cada vez más|antes que nada|no \w+ más|por lo menos|"
    r"a menos|al menos",
}
#: What must follow a word for it to read as a direction (absent: any word).
_CONTEXT: dict[str, str] = {
    "before": r"(?:\d{4}\b|(?:the |his |her |its |their )?(?:end|start|beginning|war|election|"
    r"death|birth|release|launch|opening|season|game|match|vote|merger|crisis|pandemic|"
    r"deadline|summer|winter|spring|autumn|fall|january|february|march|april|may|june|july|"
    r"august|september|october|november|december)\b|[a-z]+ing\b)",
    "more": r"(?:than\b|(?:likely|important|popular|common|expensive|difficult|effective|"
    r"efficient|powerful|successful|accurate|stable|frequent|useful|complex|dangerous|"
    r"severe|serious|intense|valuable|favorable|favourable|sensitive|prominent|"
    r"competitive|aggressive|active|rapid|widely|frequently|quickly|slowly|easily|often|"
    r"reliable|productive|profitable|vulnerable|visible|affordable|attractive)\b)",
    "gained": r"(?:\d|(?:about|nearly|almost|more than|over|around|some|roughly) \d|"
    r"(?:weight|ground|value|points|seats|votes|momentum|market share)\b)",
    "climbed": r"(?:to\b|by\b|from\b|\d)",
    "over": r"(?:[$£€]?\d)",
    "improved": r"(?:to\b|by\b|from\b|\d|(?:significantly|markedly|slightly|dramatically|"
    r"steadily|further)\b|[.,;])",
    "accelerated": r"(?:to\b|by\b|from\b|\d|[.,;]|in\b)",
    "at least": r"(?:[$£€]?\d)",
    "maximum": r"(?:of [$£€]?\d|[$£€]?\d)",
    "rising": r"(?:to\b|by\b|from\b|\d|(?!star)[a-z]{3,}s\b)",
    "grew": r"(?:to\b|by\b|from\b|\d|(?:about|nearly|almost|roughly|more than) \d)",
    "raised": r"(?:(?:the|its|their|his|her) (?:price|prices|rate|rates|tax|taxes|limit|"
    r"fee|fees|wage|wages|salary|minimum|threshold|level|levels)\b)",
}
for _a, _b in (("after", "before"), ("less", "more"), ("fewer", "more"), ("lost", "gained"),
               ("dropped", "climbed"), ("lowered", "raised"),
               ("shrank", "grew"), ("falling", "rising"), ("surged", "climbed"),
               ("plunged", "climbed"), ("soared", "climbed"), ("plummeted", "climbed"),
               ("jumped", "climbed"), ("slumped", "climbed"), ("under", "over"),
               ("at most", "at least"), ("minimum", "maximum"), ("worsened", "improved"),
               ("slowed", "accelerated")):  # fmt: skip
    _CONTEXT[_a] = _CONTEXT[_b]
#: Plural or countable nouns take `fewer`, not `less`: `more people` stays unswapped.
_NEGATION = {
    "en": r"not|n['’]t|no|never|neither|nor|without|cannot",
    "de": r"nicht|kein\w*|nie|niemals",
    "fr": r"ne|n['’]|pas|jamais|sans",
    "es": r"no|nunca|jamás|sin|ni",
}


#: A compass adjective names a direction before a place or a part of one, not in a name
#: (`northern silky oak`) or a group (`Western officials`).
_COMPASS = {"northern", "southern", "eastern", "western"}
_PLACE = re.compile(
    r"(?:hemisphere|region|border|coast|edge|tip|end|side|half|part|suburbs?|province|state|"
    r"city|shore|bank|slopes?|flank|outskirts|districts?|areas?|parts)\b|[A-Z]"
)


def _swap(old: str, new: str, lang: str) -> Replace:
    follow = _CONTEXT.get(old.lower()) if lang == "en" else None

    def replace(match: re.Match[str]) -> str | None:
        rest = match.string[match.end() :].lstrip()
        if follow is not None and not re.match(follow, rest.lower()):
            return None
        if lang == "en" and old.lower() in _COMPASS and not _PLACE.match(rest):
            return None
        return new

    return replace


def _table() -> dict[str, list[tuple[str, Replace]]]:
    table: dict[str, list[tuple[str, Replace]]] = {}
    for lang, pairs in _PAIRS.items():
        table[lang] = []
        for a, b in pairs:
            table[lang].append((re.escape(a), _swap(a, b, lang)))
            if not (lang == "en" and a == "fewer"):
                table[lang].append((re.escape(b), _swap(b, a, lang)))
    return table


_RULES = rules(_table())
_OR = {"en": "and|or|nor", "de": "und|oder", "fr": "et|ou", "es": "y|o|e|u"}
_ALTERNATIVES = {
    "en": r"\bwhether\b",
    "de": r"\bob\b",
    "fr": r"\bque\s+ce\s+soit\b",
    "es": r"\bya\s+sea\b",
}
_TRAPS = {
    lang: re.compile(rf"(?<!\w)(?:{p})(?!\w)", re.IGNORECASE) for lang, p in _NOT_HERE.items()
}
_NEGATIVE = {
    lang: re.compile(rf"(?<![\w'’])(?:{p})(?!\w)", re.IGNORECASE) for lang, p in _NEGATION.items()
}
_SIDES = {
    lang: [
        re.compile(rf"(?<![\w'’\-])(?:{re.escape(a)}|{re.escape(b)})(?![\w\-])", re.IGNORECASE)
        for a, b in pairs
    ]
    for lang, pairs in _PAIRS.items()
}


#: A direction word coordinated with another word (`lower and uppercase`, `more or less`,
#: `before or after`), or alternatives weighed (`whether ... more or ...`): no claim of one
#: direction to reverse.
def _coordinated(lang: str, pairs: Sequence[tuple[str, str]]) -> re.Pattern[str]:
    word = "|".join(re.escape(w) for pair in pairs for w in pair)
    conj = _OR[lang]
    return re.compile(
        rf"(?<![\w'’\-])(?:{word})(?:\s*,)?\s+(?:{conj})\s"
        rf"|(?<!\w)(?:{conj})\s+(?:{word})(?![\w\-])|{_ALTERNATIVES[lang]}",
        re.IGNORECASE,
    )


_COORDINATED = {lang: _coordinated(lang, pairs) for lang, pairs in _PAIRS.items()}


def _safe(sentence: str, lang: str) -> bool:
    """No idiom of a pair's word, no negation, no direction word coordinated with another,
    and no pair whose both sides are here."""
    if _TRAPS[lang].search(sentence) or _NEGATIVE[lang].search(sentence):
        return False
    if _COORDINATED[lang].search(sentence):
        return False
    for side in _SIDES[lang]:
        if len({m.group(0).lower() for m in side.finditer(sentence)}) > 1:
            return False
    return True


@generator(
    kind="direction",
    expect="fail",
    summary="a direction reversed in a context sentence (rose -> fell, before -> after)",
)
def direction(row: GoldRecord, *, rng: random.Random, pool: Pool) -> Variant | Skip:
    """A context sentence with one direction word turned the other way."""
    del pool
    return rewrite(row, rng=rng, table=_RULES, guard=_safe, nothing="no direction word to reverse")
