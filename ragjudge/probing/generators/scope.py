"""Must-fail kind `quantifier`: a claim's scope widened to all (some / most / "9 of 30" -> all).

A part becomes the whole where the grammar stays right: `some`, `many`, `most`, `several`
before a plural noun or `of the` become `all` (where they lead a clause or follow a
preposition, never as a verb's object); `9 of the 30 pilots` becomes `all 30 pilots`, `45%
of voters` and `the majority of the voters` become `all (of the) voters`; `often`,
`sometimes`, `usually` become `always`; `partly` becomes `entirely`; `almost all` loses its
hedge (de `einige`/`viele` -> `alle`, `oft` -> `immer`; fr `certains` -> `tous les`,
`souvent` -> `toujours`; es `algunos` -> `todos los`, `a menudo` -> `siempre`). A sentence
with a negation or an `all` of its own is skipped, and so are time spans (`many years` is no
group of years the sentence speaks of).
"""

from __future__ import annotations

import random
import re

from ragjudge.data._gold import GoldRecord
from ragjudge.probing._probe import Skip, Variant
from ragjudge.probing._registry import Pool, generator
from ragjudge.probing.generators._rewrite import Replace, rewrite, rules

__all__ = ["quantifier"]

#: Nouns after which a quantifier counts time or times, not members of a group.
_TIME = (
    r"(?:seconds|minutes|hours|days|weeks|months|years|decades|centuries|times|occasions|"
    r"moments|ways|things|others|people's|aspects|respects|reasons|factors|kinds|types|sorts|"
    r"tens|dozens|hundreds|thousands|millions|billions|issues|problems|news|physics|"
    r"mathematics|economics|politics|means|series|lens|bus|gas)"
)
#: One word that may stand between a quantifier and its noun (`many young people`); not a
#: number word (`several thousand people` -> `all thousand people` widens nothing).
_ADJECTIVE = (
    r"(?!more\b|less\b|fewer\b|such\b|very\b|of\b|other\b|times\b|the\b|different\b|"
    r"various\b|numerous\b|good\b|hundred\b|thousand\b|million\b|billion\b|dozen\b)[a-z]{3,}"
)
#: A plural noun (a lowercase word ending in `s`, not `ss`/`us`/`is`), or `people`.
_PLURAL = rf"(?!{_TIME}\b)(?:[a-z]+[^suí\W]s|people|children|men|women|staff)\b"


_NUMBER_WORDS = (
    "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen twenty"
).split()


def _int(text: str) -> int | None:
    if text.lower() in _NUMBER_WORDS:
        return _NUMBER_WORDS.index(text.lower()) + 1
    return int(text.replace(",", "")) if re.fullmatch(r"\d{1,3}(?:,\d{3})*|\d+", text) else None


#: Words after which a bare `some X` / `many X` is a clause's subject or a place's members.
_LEAD = {"in", "on", "at", "for", "from", "among", "across", "but", "that", "while", "where"}


def _group_all(match: re.Match[str]) -> str | None:
    """`some X` -> `all X` where `X` is a clause's subject (at the start, after a
    conjunction) or a preposition's object (`in some cases`), never a verb's object or a
    list's item."""
    head = match.string[: match.start()]
    last = head.split()[-1].lower() if head.split() else ""
    return "all" if not head.strip() or last in _LEAD else None


def _share_all(match: re.Match[str]) -> str | None:
    """`45% of the voters` -> `all of the voters`; `45% of voters` -> `all voters`, where the
    share leads a clause (not `by 45% of`, `over 45% of`, `the 45% of`)."""
    if _group_all(match) is None:
        return None
    return "all of the " if match.group(0).rstrip().endswith(" the") else "all "


def _group_all_of(match: re.Match[str]) -> str | None:
    """`the majority of the voters` / `half of the voters` -> `all of the voters` where it
    leads a clause."""
    if _group_all(match) is None:
        return None
    return "all of the" if match.group(0).endswith("the") else "all of"


def _part_of_whole(match: re.Match[str]) -> str | None:
    """`9 of the 30` -> `all 30`; `9 of 30` -> `all 30`."""
    if match.group(3):
        return None
    part, whole = _int(match.group(1)), _int(match.group(2))
    if part is None or whole is None or not 0 < part < whole:
        return None
    return f"all {match.group(2)}"


_TABLE: dict[str, list[tuple[str, Replace]]] = {
    "en": [
        (r"(?:some|many|most|several|a few) of the(?= (?!best|worst|most|\w+est\b)[a-z])",
         "all of the"),
        (rf"(?:some|many|most|several)(?= (?:{_ADJECTIVE} )?{_PLURAL})", _group_all),
        (r"(?:almost|nearly|virtually|practically) (?=all\b|every\b|always\b)", ""),
        (r"(?:the|a) majority of(?= the [a-z]+s\b)", _group_all_of),
        (r"half of the(?= [a-z]+s\b)", _group_all_of),
        (r"\d{1,2}(?:\.\d+)? ?(?:%|percent|per cent) of (?:the )?"
         r"(?=(?!his\b|its\b|this\b|us\b|was\b)[a-z]+s\b)", _share_all),
        (r"(?<!most )(?<!more )(?<!very )(?<!less )(?<!quite )"
         r"(?:often|sometimes|usually|frequently|occasionally|typically|generally)"
         r"(?= (?:be|is|are|was|were|has|have|had|[a-z]{3,}(?:s|ed)\b))", "always"),
        (r"(is|are|was|were) (?:often|sometimes|usually|frequently|occasionally|typically)"
         r"(?= [a-z])", r"\1 always"),
        (r"(?:partly|partially)", "entirely"),
        (rf"(\d[\d,]*|{'|'.join(_NUMBER_WORDS)}) (?:out )?of (?:the |its |their )?(\d[\d,]*)"
         r"(?: (all|every))?"
         r"(?= [a-z]+s\b)", _part_of_whole),
    ],
    "de": [
        (r"(?:einige|manche|viele|mehrere)(?= [A-ZÄÖÜ])", "alle"),
        (r"die meisten(?= [A-ZÄÖÜ])", "alle"),
        (r"(?:oft|häufig|manchmal|meistens|gelegentlich)", "immer"),
        (r"(?:teilweise|teils)", "vollständig"),
        (r"(?:fast|nahezu|beinahe) (?=alle\b|immer\b)", ""),
    ],
    "fr": [
        (r"certains(?= [a-zéèê])", "tous les"),
        (r"certaines(?= [a-zéèê])", "toutes les"),
        (r"(?:souvent|parfois|quelquefois|généralement|fréquemment)", "toujours"),
        (r"(?:presque|quasiment) (?=tous\b|toutes\b|toujours\b)", ""),
        (r"(?:partiellement|en partie)", "entièrement"),
    ],
    "es": [
        (r"(?:algunos|muchos|varios)(?= [a-záéíóúñ]+s\b)", "todos los"),
        (r"(?:algunas|muchas|varias)(?= [a-záéíóúñ]+s\b)", "todas las"),
        (r"la mayoría de los(?= [a-z])", "todos los"),
        (r"la mayoría de las(?= [a-z])", "todas las"),
        (r"(?:a menudo|a veces|frecuentemente|generalmente)", "siempre"),
        (r"(?:casi) (?=todos\b|todas\b|siempre\b)", ""),
        (r"(?:parcialmente|en parte)", "totalmente"),
    ],
}  # fmt: skip


_RULES = rules(_TABLE)
_REFUSE = {
    "en": r"not|n['’]t|no|never|none|neither|nor|without|all|every|always|each|entire|entirely|"
    r"whole|only|except|how|as many|so many|too many|the most|at most|most of all|most likely|"
    r"some \d|many of whom|some of whom|most of whom|one another|any|"
    r"result\w* in (?:some|many|several|most)",
    "de": r"nicht|kein\w*|nie|alle\w*|immer|jede[rsnm]?|nur|außer|ganz\w*|vollständig",
    "fr": r"ne|n['’]|pas|jamais|tous|toutes|tout|toujours|chaque|seulement|sauf|entièrement",
    "es": r"no|nunca|todos|todas|todo|toda|siempre|cada|s[oó]lo|salvo|excepto|totalmente",
}
_REFUSE_RE = {
    lang: re.compile(rf"(?<![\w'’])(?:{p})(?!\w)|n['’]t(?!\w)", re.IGNORECASE)
    for lang, p in _REFUSE.items()
}


def _safe(sentence: str, lang: str) -> bool:
    """No negation, no universal already, no superlative `most`, no `how many`."""
    return not _REFUSE_RE[lang].search(sentence)


@generator(
    kind="quantifier",
    expect="fail",
    summary="a claim's scope widened to all (some / most / '9 of 30' -> all, often -> always)",
)
def quantifier(row: GoldRecord, *, rng: random.Random, pool: Pool) -> Variant | Skip:
    """A context sentence whose part-of-a-group claim is made about the whole group."""
    del pool
    return rewrite(row, rng=rng, table=_RULES, guard=_safe, nothing="no quantifier to widen")
