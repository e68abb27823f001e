"""Must-fail kind `negation`: a clause's polarity flipped, a negation added or removed.

Only where the grammar is certain: a negation goes after a copula, a perfect auxiliary or a
modal (`is` -> `is not`, `can` -> `cannot`; de `ist nicht`, fr `n'est pas`, es `no es`), and
comes out of an auxiliary (`was not` -> `was`, `did not win` -> `won` for a verb this module
can inflect, `ne ... pas`, `nicht`, `no`). A sentence with a second negation, a negative word
(`without`, `fail`, `unless`) or an `only` trap is skipped, never double-negated.
"""

from __future__ import annotations

import random
import re

from ragjudge.data._gold import GoldRecord
from ragjudge.probing._probe import Skip, Variant
from ragjudge.probing._registry import Pool, generator
from ragjudge.probing.generators._rewrite import Replace, Rule, rewrite, rules

__all__ = ["negation", "past_tense", "third_person"]

#: Words that make a sentence negative or a negation unsafe to add or remove, per language.
_NEGATIVE = {
    "en": r"not|n['’]t|no|never|none|nobody|nothing|nowhere|neither|nor|without|cannot|"
    r"hardly|barely|scarcely|rarely|seldom|only|except|unless|fail\w*|lack\w*|unable|"
    r"refus\w*|den(?:y|ies|ied)|prevent\w*|avoid\w*|unlikely|impossible|whether|doubt\w*|"
    r"unclear|nor|rather|instead|neither|few|little|lest|if|how|know when|know what|"
    r"forecast|predict|ask\w*|wonder\w*",
    "de": r"nicht|kein\w*|nie|niemals|niemand|nichts|weder|noch|ohne|nur|kaum|außer|ob|wenn|falls",
    "fr": r"ne|n['’]|pas|jamais|rien|personne|aucun\w*|ni|sans|seulement|guère|plus|sauf|si",
    "es": r"no|nunca|jamás|nadie|nada|ningun\w*|ninguna|ni|tampoco|sin|s[oó]lo|solamente|"
    r"únicamente|apenas|salvo|excepto|si",
}
#: Contracted negations: en `n't`, fr `n'` before a vowel.
_CONTRACTED = r"n['’]t(?!\w)|(?<![\w'’])n['’](?=[^\W\d_])"
_NEGATIVE_RE = {
    lang: re.compile(rf"(?<![\w'’])(?:{p})(?!\w)|{_CONTRACTED}", re.IGNORECASE)
    for lang, p in _NEGATIVE.items()
}
#: The negations this module removes (a sentence must hold exactly one, and no other word of
#: `_NEGATIVE` beyond it).
_REMOVABLE = {
    "en": re.compile(r"(?<![\w'’])(?:not|never|no|cannot)(?!\w)|n['’]t(?!\w)", re.IGNORECASE),
    "de": re.compile(r"(?<![\w'’])(?:nicht|kein|keinen|keinem|keines)(?!\w)", re.IGNORECASE),
    "fr": re.compile(r"(?<![\w'’])(?:ne|pas)(?!\w)|(?<![\w'’])n['’](?=\w)", re.IGNORECASE),
    "es": re.compile(r"(?<![\w'’])no(?!\w)", re.IGNORECASE),
}

_IRREGULAR_PAST = {
    "be": "was", "become": "became", "begin": "began", "break": "broke", "bring": "brought",
    "build": "built", "buy": "bought", "catch": "caught", "choose": "chose", "come": "came",
    "do": "did", "draw": "drew", "drink": "drank", "drive": "drove", "eat": "ate", "fall": "fell",
    "feel": "felt", "fight": "fought", "find": "found", "fly": "flew", "forget": "forgot",
    "get": "got", "give": "gave", "go": "went", "grow": "grew", "have": "had", "hear": "heard",
    "hold": "held", "keep": "kept", "know": "knew", "lead": "led", "leave": "left",
    "lose": "lost", "make": "made", "mean": "meant", "meet": "met", "pay": "paid",
    "run": "ran", "say": "said", "see": "saw", "sell": "sold", "send": "sent", "show": "showed",
    "sing": "sang", "sit": "sat", "speak": "spoke", "spend": "spent", "stand": "stood",
    "take": "took", "teach": "taught", "tell": "told", "think": "thought", "throw": "threw",
    "understand": "understood", "win": "won", "write": "wrote", "rise": "rose",
    "appear": "appeared", "happen": "happened", "open": "opened", "offer": "offered",
    "enter": "entered", "visit": "visited", "suffer": "suffered", "consider": "considered",
}  # fmt: skip
_MODAL_NOT = {"can": "cannot"}
#: Words before which `can`, `will`, `must` ... are nouns (`a can of`, `free will`).
_DETERMINERS = {"a", "the", "his", "her", "its", "their", "my", "your", "our", "free", "good"}
_PARTICIPLES = (
    r"been|[a-z]{2,}ed|become|made|taken|given|seen|done|written|shown|known|grown|begun|gone|"
    r"left|held|led|built|sold|found|brought|bought|told|won|lost|met|paid|kept|spent|sent|"
    r"chosen|spoken|broken|driven|risen|fallen|thought|taught|caught|fought|become|put|set"
)


def past_tense(verb: str) -> str | None:
    """The English simple past of a base-form `verb`, or None when its spelling is unsure
    (a consonant-vowel-consonant ending may double)."""
    verb = verb.lower()
    if verb in _IRREGULAR_PAST:
        return _IRREGULAR_PAST[verb]
    if not verb.isalpha() or len(verb) < 3:
        return None
    if verb.endswith("e"):
        return verb + "d"
    if verb[-1] == "y" and verb[-2] not in "aeiou":
        return verb[:-1] + "ied"
    if re.search(r"[^aeiou][aeiou][^aeiouwxy]$", verb):
        return None
    return verb + "ed"


def third_person(verb: str) -> str | None:
    """The English third person singular present of a base-form `verb`."""
    verb = verb.lower()
    special = {"be": "is", "have": "has", "do": "does", "go": "goes"}
    if verb in special:
        return special[verb]
    if not verb.isalpha() or len(verb) < 2:
        return None
    if re.search(r"(?:s|sh|ch|x|z|o)$", verb):
        return verb + "es"
    if verb[-1] == "y" and verb[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def _en_add(match: re.Match[str]) -> str | None:
    aux, rest = match.group(1), match.group(2)
    head = match.string[: match.start()].split()
    if head and head[-1].lower() in _DETERMINERS | {"that", "as", "what", "there", "here"}:
        return None
    if aux.lower() == "can":
        return f"{_MODAL_NOT['can']}{rest}"
    return f"{aux} not{rest}"


def _en_do(match: re.Match[str]) -> str | None:
    aux, verb = match.group(1).lower(), match.group(2)
    if verb.lower() in {"be", "only", "even", "just", "always", "necessarily"}:
        return None
    if verb.lower().endswith("ly"):
        return None
    if aux.startswith("did"):
        return past_tense(verb)
    if aux.startswith("does"):
        return third_person(verb)
    return verb


_FR_VOWEL = re.compile(r"(?i)[aeiouéèêàâîôûh]")


def _fr_add(match: re.Match[str]) -> str | None:
    verb, rest = match.group(1), match.group(2)
    head = match.string[: match.start()]
    last = head.split()[-1].lower() if head.split() else ""
    if head.endswith(("'", "’")) or last in {"le", "la", "les", "lui", "leur", "y", "en", "se"}:
        return None
    if last in {"à", "de", "du", "des", "au", "aux", "le", "l"}:
        return None
    ne = "n'" if _FR_VOWEL.match(verb) else "ne "
    return f"{ne}{verb} pas{rest}"


def _fr_remove(match: re.Match[str]) -> str | None:
    return match.group(1)


def _es_add(match: re.Match[str]) -> str | None:
    head = match.string[: match.start()].split()
    clitics = {"lo", "la", "le", "les", "los", "las", "se", "me", "te", "nos", "os", "que"}
    if head and head[-1].lower() in clitics - {"que"}:
        return None
    return f"no {match.group(0)}"


_AFTER_NOT = (
    r"(?!only|just|even|necessarily|always|all|until|yet|quite|entirely|completely|fully|"
    r"much|very|too|so|as|more|less|least|to|a\b|an\b|one\b)"
)

_NOT_AFTER = (
    r"(?!not|no|also|only|just|even|still|always|merely|simply|first|there|never|yet|then|"
    r"often|sometimes|usually|now|already|kind|sort|like|"
    r"[a-z]+ly\b)"
)

_ADD: dict[str, list[tuple[str, Replace]]] = {
    "en": [
        (rf"(is|are|was|were)( {_NOT_AFTER}[a-z]\w*)", _en_add),
        (rf"(has|have|had)( (?:{_PARTICIPLES}))", _en_add),
        (rf"(can|will|would|should|must)( {_NOT_AFTER}(?:be|have|[a-z]{{3,}}))", _en_add),
    ],
    "de": [
        (
            r"(ist|sind|war|waren)( (?!nicht|kein|ein|eine[rnms]?|der|die|das|den|dem|des|auch|"
            r"nur|zu|in|im|am|an|auf|bei|von|vom|mit|für|nach|seit|aus|noch|schon|erst)"
            r"[a-zäöüß]\w*)",
            r"\1 nicht\2",
        ),
        (
            r"(kann|können|wird|werden|muss|müssen|soll|sollen)( (?!nicht|kein|ein|eine[rnms]?|"
            r"der|die|das|den|dem|des|auch|nur|sich|noch|schon|erst)[a-zäöüß]\w*)",
            r"\1 nicht\2",
        ),
    ],
    "fr": [
        (r"(c)['’]est( [a-zéèêàâîôû]\w*)", r"ce n'est pas\2"),
        (r"(il|elle|on) y a( [a-zéèêàâîôû]\w*)", r"\1 n'y a pas\2"),
        (
            r"(est|sont|était|étaient|a|ont|avait|avaient|peut|peuvent|doit|doivent|va|vont|"
            r"sera|seront)( (?!pas|plus|jamais|que|à|au|aux|de|du|des|aussi|déjà|encore)"
            r"[a-zéèêàâîôû][\w'’]*)",
            _fr_add,
        ),
    ],
    "es": [
        (
            r"(?:es|son|era|eran|fue|fueron|está|están|estaba|estaban|puede|pueden|tiene|tienen|"
            r"tenía|ha|han|había|habían|será|serán)(?= (?!no\b|también|solo|sólo|ya|aún|todavía)"
            r"[a-záéíóúñ])",
            _es_add,
        ),
    ],
}
_REMOVE: dict[str, list[tuple[str, Replace]]] = {
    "en": [
        (rf"(is|are|was|were|has|have|had|will|would|should|must) not (?={_AFTER_NOT}[a-z])",
         r"\1 "),
        (rf"(is|are|was|were|has|have|had|would|should|could)n['’]t (?={_AFTER_NOT}[a-z])",
         r"\1 "),
        (rf"(?:cannot|can['’]t) (?={_AFTER_NOT}[a-z])", "can "),
        (rf"won['’]t (?={_AFTER_NOT}[a-z])", "will "),
        (r"(does|did|do) not ((?!be\b)[a-z]{2,})", _en_do),
        (r"(does|did|do)n['’]t ((?!be\b)[a-z]{2,})", _en_do),
        (r"(?<=has |ave |had )never (?=been|[a-z]+ed )", ""),
        (r"(there (?:are|were)) no (?!longer|more|one|less|fewer)(?=[a-z])", r"\1 "),
    ],
    "de": [
        (r"(?<!gar )(?<!noch )(?<!überhaupt )nicht (?!nur|mehr|einmal|zuletzt)(?=[\wäöü])", ""),
        (r"k(ein|einen|einem|eines) (?=[A-ZÄÖÜ])", r"\1 "),
    ],
    "fr": [
        (r"ce n['’]est pas (?!que|seulement|plus)(?=\w)", "c'est "),
        (r"ne ((?:(?:l['’]|s['’]|le |la |les |se |lui |leur |y |en )?)\w+) pas(?= (?!que|"
         r"seulement|plus)\w)", _fr_remove),
        (r"n['’]((?:y |en )?\w+) pas(?= (?!que|seulement|plus)\w)", _fr_remove),
    ],
    "es": [
        (r"no (?=(?!s[oó]lo|obstante|más|menos|solamente|tanto|sólo)[a-záéíóúñ]{2,})", ""),
    ],
}  # fmt: skip
_ADD_RULES = rules(_ADD)
_REMOVE_RULES = rules(_REMOVE)


def _pick(sentence: str, lang: str) -> list[Rule]:
    """The rules for `sentence`: add a negation to a sentence without one, remove the one
    negation of a sentence with nothing else negative; none otherwise."""
    negative = [m.group(0) for m in _NEGATIVE_RE[lang].finditer(sentence)]
    if not negative:
        return _ADD_RULES.get(lang, [])
    removable = [m.group(0) for m in _REMOVABLE[lang].finditer(sentence)]
    if lang == "fr":
        # `ne ... pas` is one negation written as two words.
        ne = [w for w in removable if w.lower() in ("ne", "n'", "n’")]
        one = len(ne) == 1 and removable.count("pas") == 1 and len(negative) == 2
    else:
        one = len(negative) == 1 and len(removable) == 1
    return _REMOVE_RULES.get(lang, []) if one else []


@generator(
    kind="negation",
    expect="fail",
    summary="a negation added to or removed from a context sentence ('is' -> 'is not')",
)
def negation(row: GoldRecord, *, rng: random.Random, pool: Pool) -> Variant | Skip:
    """A context sentence with its polarity flipped in one clause."""
    del pool
    return rewrite(row, rng=rng, table=_pick, nothing="no clause safe to negate")
