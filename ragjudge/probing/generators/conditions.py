"""Must-fail kind that drops a condition or an exception, so that a claim made under a condition
("if ...", "unless ...", "except ...", "for members") becomes a general one.

The condition is cut where the sentence's own punctuation marks it off: a trailing clause that
runs to the sentence's end, a leading clause that ends at the first comma (not in German, whose
main clause would then open with its verb; after "Excluding ..." the claim may open on any
word), an exception set off by two commas, or an exception to a universal claim ("every state
except Mississippi", "everywhere except for A, B and C", before a "though" clause; not in
German, whose verb may follow the exception). What stays
must still read as a sentence, hold no other condition, and not stand as such in the context.

Only a bare, certain claim loses its condition (`limits_a_bare_claim`): not a hedged or vague
one ("many", "not much", "as much as", "should", "risk"), one that reports what was said or
threatened, one with a choice ("or") the clause may limit alone, or one that restates its
clause; and not a clause on a wish, view or choice ("if I want ...", "if they feel ..."), one
told in the past, or one that only points back ("if this is so"). A row whose question already
states the clause (a content word shared), or asks of the asker whom a clause on the hearer may
fit, is skipped.
"""

from __future__ import annotations

import random
import re

from ragjudge.data._gold import GoldRecord
from ragjudge.probing._probe import Skip, Variant
from ragjudge.probing._registry import Pool, generator
from ragjudge.probing._text import content_words, language, language_counts, words
from ragjudge.probing.generators.names import cached_sentences

__all__ = ["drop_conditions", "limits_a_bare_claim"]

#: Groups a claim can be limited to ("for members"), per language.
_GROUPS = {
    "en": (
        r"members|residents|subscribers|customers|students|employees|staff|guests|children|"
        r"adults|seniors|veterans|citizens|users|patients|holders|owners|visitors|passengers|"
        r"tenants|applicants|participants"
    ),
    "de": (
        r"Mitglieder|Kunden|Abonnenten|Einwohner|Studenten|Studierende|Mitarbeiter|Gäste|"
        r"Kinder|Erwachsene|Senioren|Besucher|Mieter|Inhaber"
    ),
    "fr": (
        r"membres|abonnés|clients|résidents|étudiants|employés|invités|enfants|adultes|"
        r"visiteurs|passagers|locataires|titulaires"
    ),
    "es": (
        r"socios|miembros|suscriptores|clientes|residentes|estudiantes|empleados|huéspedes|"
        r"niños|adultos|visitantes|pasajeros|inquilinos|titulares"
    ),
}

#: A condition or an exception that can close a sentence, per language.
_TRAILING = {
    "en": (
        r"only\s+(?:if|when)|if|unless|provided\s+that|providing\s+that|"
        r"as\s+long\s+as|so\s+long\s+as|on\s+(?:the\s+)?condition\s+that|"
        r"except(?:\s+(?:for|when|if|where|in|on|during))?|with\s+the\s+exception\s+of|"
        r"excluding"
    ),
    "de": (
        r"(?:nur\s+)?(?:wenn|falls|sofern)|solange|außer(?:\s+wenn|\s+falls)?|es\s+sei\s+denn|"
        r"ausgenommen|mit\s+Ausnahme\s+(?:von|der|des)"
    ),
    "fr": (
        r"(?:seulement\s+|uniquement\s+)?s['’]?(?:i|il|ils)\b|sauf(?:\s+si|\s+pour)?|"
        r"à\s+condition\s+(?:que|qu['’]|de|d['’])|pourvu\s+qu|tant\s+qu|à\s+moins\s+qu|"
        r"excepté|hormis|à\s+l['’]exception\s+d"
    ),
    "es": (
        r"(?:solo\s+|sólo\s+|solamente\s+|únicamente\s+)?si|salvo(?:\s+que|\s+si)?|"
        r"excepto(?:\s+si|\s+que)?|a\s+menos\s+que|siempre\s+(?:que|y\s+cuando)|"
        r"con\s+tal\s+(?:de\s+)?que|a\s+excepción\s+de"
    ),
}

#: A group a claim is limited to, closing the sentence ("free for registered members").
_FOR_GROUP = {
    "en": rf"(?:only\s+)?for\s+(?:(?!all\b|your\b|our\b|their\b|the\b|new\b)[a-z-]+\s+)?"
    rf"(?:{_GROUPS['en']})",
    "de": rf"(?:nur\s+)?für\s+(?:(?!alle\b|unsere\b|ihre\b)[a-zäöüß-]+\s+)?(?:{_GROUPS['de']})",
    "fr": rf"(?:seulement\s+|uniquement\s+)?pour\s+(?:les\s+)?(?:{_GROUPS['fr']})"
    r"(?:\s+[a-zéèêàç-]+)?",
    "es": rf"(?:solo\s+|sólo\s+)?para\s+(?:los\s+|las\s+)?(?:{_GROUPS['es']})"
    r"(?:\s+[a-záéíóúñ-]+)?",
}

#: A condition that can open a sentence before a comma (German is left out: its main clause
#: would then open with the verb).
_LEADING = {
    "en": (
        r"if|unless|provided(?:\s+that)?|as\s+long\s+as|so\s+long\s+as|"
        r"except(?:\s+(?:for|when|if|in|on|during))?|with\s+the\s+exception\s+of|excluding|"
        rf"for\s+(?:[\w'-]+\s+){{0,2}}(?:{_GROUPS['en']})"
    ),
    "fr": (
        r"s['’]?(?:i|il|ils)\b|sauf(?:\s+si)?|à\s+condition\s+(?:que|qu['’]|de|d['’])|"
        r"tant\s+qu|à\s+moins\s+qu|pourvu\s+qu|excepté|hormis|à\s+l['’]exception\s+d|"
        r"à\s+l['’]exclusion\s+d|"
        rf"pour\s+(?:\w+\s+){{0,2}}(?:{_GROUPS['fr']})"
    ),
    "es": (
        r"si|salvo(?:\s+que)?|excepto(?:\s+si)?|a\s+menos\s+que|siempre\s+(?:que|y\s+cuando)|"
        r"con\s+tal\s+(?:de\s+)?que|a\s+excepción\s+de|excluyendo|sin\s+contar|"
        rf"para\s+(?:\w+\s+){{0,2}}(?:{_GROUPS['es']})"
    ),
}

#: An exception set off by two commas inside a sentence ("All rooms, except the suites, ...").
_MIDDLE = {
    "en": r"except(?:\s+for)?|with\s+the\s+exception\s+of|excluding|unless|provided\s+that",
    "de": r"außer|ausgenommen|mit\s+Ausnahme\s+(?:von|der|des)|sofern|falls",
    "fr": r"sauf|excepté|hormis|à\s+l['’]exception\s+d",
    "es": r"salvo|excepto|a\s+excepción\s+de|menos",
}

#: Words before "if" that make it "whether" or another construction ("asked if", "as if").
_NOT_CONDITION_BEFORE = {
    "ask", "asks", "asked", "asking", "know", "knows", "knew", "see", "sees", "saw", "wonder",
    "wonders", "wondered", "check", "checks", "checked", "determine", "determines",
    "determined", "decide", "decides", "decided", "tell", "tells", "told", "test", "tests",
    "unclear", "unsure", "doubt", "as", "even", "what", "matter", "whether", "clear", "sure",
    "question", "out", "only", "and", "or", "but", "demande", "demandé", "savoir", "sais",
    "pregunta", "preguntó", "saber", "sé", "comme", "como", "fragt", "fragte", "ob",
}  # fmt: skip

#: Verbs after which "if" means "whether", a word or two on ("asked Chris if ...").
_ASKING = {
    "ask", "asks", "asked", "wonder", "wonders", "wondered", "know", "knew", "tell", "told",
    "see", "check", "checked", "decide", "decided", "demande", "demandé", "pregunta",
    "preguntó", "fragt", "fragte",
}  # fmt: skip

#: Words after a cue that make the phrase no condition ("if any", "if so", "unless otherwise").
_NOT_CONDITION_AFTER = {
    "any", "not", "so", "ever", "anything", "possible", "necessary", "needed", "applicable",
    "required", "appropriate", "desired", "at", "only", "otherwise", "nothing", "anyone",
    "non", "no", "nicht", "besoin", "nécessaire", "necesario", "posible", "of", "course",
}  # fmt: skip

#: First words a general claim cannot open with once its condition is gone (a pronoun that
#: pointed into the condition, or a verb of an inverted clause).
_DANGLING_START = {
    "it", "this", "that", "these", "those", "he", "she", "they", "his", "her", "its", "their",
    "such", "then", "can", "could", "will", "would", "may", "might", "must", "shall",
    "should", "do", "does", "did", "is", "are", "was", "were", "has", "have", "had", "and",
    "or", "but", "so", "il", "elle", "ils", "elles", "ce", "cela", "ça", "son", "sa", "ses",
    "leur", "leurs", "él", "ella", "ellos", "ellas", "esto", "eso", "su", "sus", "y", "et",
}  # fmt: skip

#: Last words a sentence cannot end with once what followed is gone.
_DANGLING_END = {
    "and", "or", "but", "the", "a", "an", "to", "of", "only", "even", "just", "than", "as",
    "that", "which", "who", "is", "are", "was", "were", "be", "und", "oder", "et", "ou", "y",
    "o", "que", "le", "la", "les", "el", "los", "las", "der", "die", "das", "nur", "seulement",
    "solo", "sólo", "also", "then", "not", "no", "like", "for", "with", "by", "in", "on",
}  # fmt: skip

#: First words of what follows a mid-sentence exception that tie it to the exception, not to
#: the claim ("..., except for a disturbance, which ...").
_JOINED = {
    "which", "who", "whom", "whose", "that", "where", "when", "while", "and", "but", "or",
    "as", "so", "in", "then", "because", "since", "although", "though", "if", "unless",
    "except", "qui", "que", "dont", "où", "quand", "et", "mais", "ou", "quien", "donde",
    "cuando", "y", "pero", "o", "der", "die", "das", "welche", "welcher", "wo", "wenn", "und",
    "aber", "oder",
}  # fmt: skip

_MODAL = re.compile(
    r"\b(?:will|would|may|might|can|could|must|should|shall|würde|kann|könnte|muss|"
    r"pourra|pourrait|peut|doit|devra|puede|podrá|podría|debe|deberá)\b|['’](?:ll|d)\b",
    re.IGNORECASE,
)

#: First words of a request, not a claim ("Please ...", "Don't hesitate ...").
_REQUEST = re.compile(
    r"(?:please|don['’]t|do not|feel|contact|call|click|let|make sure|remember|note|see|"
    r"visit|check|try|use|go|get|ask|email|write|suggest|consider|share|send|read|follow|"
    r"join|sign|subscribe|download|enter|add|remove|keep|avoid|take|put|place|turn|open|"
    r"close|wait|look|find|choose|select|apply|install|run|set|hold|press|pull|push|wash|"
    r"rinse|mix|stir|heat|cook|bake|just|maybe|perhaps|i (?:suggest|invite|recommend|"
    r"encourage|urge)|bitte|veuillez|n['’]hésitez|por favor|no dude)\b",
    re.IGNORECASE,
)

#: Modals and hedges that leave a claim hypothetical or loose once its condition is gone ("it
#: would be random", "spiders tend not to bite"), and a comment's time stamp ("1 year ago").
_HEDGE = re.compile(
    r"\b(?:would|could|might|may|würde|könnte|pourrait|serait|podría|sería|tends?|usually|"
    r"generally|often|typically|rarely|seldom|mostly|largely|barely|hardly|scarcely|"
    r"theoretically|in theory|"
    r"\d+ (?:years?|months?|weeks?|days?|hours?) ago)|['’]d\b",
    re.I,
)

#: Conditions that leave the claim as it is once dropped: on the hearer's wishes ("if you
#: want to ski, Big Bear is three hours north"), rhetorical ones, and mail formulas.
_NO_CONDITION = re.compile(
    r"\b(?:otherwise|autrement|sonst|of course|you(?:['’]re| are| were)? (?:like|will|want|wish|"
    r"prefer|need|have the urge|looking|interested|curious|wondering)|you['’]d like|questions?|"
    r"assist|help|interested|enough|anything|you ask me|all else fails|in doubt|any guide|"
    r"any indication)\b",
    re.I,
)

#: Words a general claim can open with once a leading condition is gone (a determiner, a
#: pronoun that points nowhere back): anything else may be the tail of the condition.
_OPENINGS = {
    "the", "a", "an", "these", "those", "there", "you", "we", "i", "one", "some", "many",
    "most", "all", "any", "each", "every", "no", "our", "your", "my", "both", "several",
    "few", "people", "le", "la", "les", "l", "un", "une", "des", "vous", "nous", "on", "je",
    "tous", "toutes", "el", "los", "las", "una", "unos", "unas", "usted", "ustedes",
    "nosotros", "se", "hay", "todos", "todas", "cada",
}  # fmt: skip

#: What a claim limited to a group grants ("free for members"): only then is the group a
#: condition, not a mere target ("times are tough for students").
_BENEFIT = re.compile(
    r"\b(?:free|available|open|discounts?|eligible|offered|included|allowed|permitted|"
    r"applies|apply|valid|reserved|mandatory|required|kostenlos|gratis|verfügbar|geöffnet|"
    r"erlaubt|gilt|gratuit|gratuite|disponible|ouvert|ouverte|réservé|réservée|valable|"
    r"permis|disponibles|abierto|abierta|válido|válida|permitido|reservado|reservada)\b",
    re.I,
)

#: A main claim that is vague or hedged, so it may stay true without its condition ("many
#: students feel ...", "there wasn't much ...", "by as much as 14 percent", "at a risk of",
#: "has dangerous implications", "DRS can be used"): only a bare, certain claim is cut.
_VAGUE = re.compile(
    r"\b(?:many|much|some|several|few|little|as much as|up to|should|risks?|risky|implications?|"
    r"potential(?:ly)?|(?:un)?likely|chances?|sometimes|occasionally|possibly|can be|"
    r"can (?:lead|cause|result|help|affect|make|harm|damage|hurt|increase|reduce|become|get|"
    r"happen|occur|take|have|mean)|viele?|einige|manche|mehrere|wenige?|Risiko|kann sein|"
    r"beaucoup|certaine?s|plusieurs|peu|risques?|peut être|peuvent être|muchos?|muchas?|"
    r"algun[oa]s|varios|varias|pocos|pocas|riesgos?|puede ser|pueden ser)\b",
    re.IGNORECASE,
)

#: A main claim that reports what someone said, threatened or promised: the clause may be
#: what was said ("threatening her if she did not testify"), not a condition on the claim.
_SAYING = re.compile(
    r"\b(?:threat\w*|said|says|say|warn\w*|told|tell|tells|promis\w*|vow\w*|insist\w*|"
    r"demand\w*|claim\w*|announc\w*|according|suggest\w*|argu\w*|recommend\w*|advis\w*|"
    r"sagte|sagt|drohte|droht|warnte|versprach|forderte|dit|déclar\w*|mena[cç]\w*|averti\w*|"
    r"promet\w*|dijo|dice|amenaz\w*|advirti\w*|prometi\w*|declar\w*)\b",
    re.IGNORECASE,
)

#: A condition on someone's wish, view or choice ("if I want a bigger plan", "if they feel we
#: have gone off course", "if host boards choose to do so"): a purpose, or a claim that holds
#: anyway, not a limit on it.
_WISH = re.compile(
    r"\b(?:wants?|wanted|wish\w*|like to|would like|plan\w*|hopes?|hoped|feels?|felt|"
    r"thinks?|thought|believes?|believed|choose|chooses|chose|decides?|decided|prefers?|"
    r"preferred|desire\w*|do so|deems?|see fit|sees fit|will|wollen|möchten?|glaubt|denkt|"
    r"entscheid\w*|wünsch\w*|veu\w+|voulez|souhait\w*|pens\w+|croi\w*|décid\w*|choisi\w*|"
    r"quier\w*|desea\w*|piens\w*|cree\w*|decid\w*|elig\w*|prefier\w*)\b",
    re.IGNORECASE,
)

#: A condition told in the past ("if he was on earth", "if she did not testify"): narration,
#: where the clause is often what someone said or a circumstance, not a limit on a claim.
_PAST_IF = re.compile(
    r"^(?:only\s+)?(?:if|unless|wenn|falls|si)\b.*\b(?:was|were|had|did|war|waren|hatte|"
    r"hatten|était|étaient|avait|avaient|era|eran|fue|fueron|había|habían)\b",
    re.IGNORECASE,
)


def limits_a_bare_claim(claim: str, dropped: str) -> bool:
    """Whether `dropped` limits `claim` so that `claim` alone says more: the claim is bare and
    certain (not hedged, no report of what was said), and the clause is no wish, view or
    choice and is not told in the past.

    Example:
        >>> limits_a_bare_claim("Many students binge drink.", "if they are in a clique")
        False
    """
    if _VAGUE.search(claim) or _SAYING.search(claim) or _FIRST_PERSON.search(claim):
        return False  # a first-person claim is a quote: its condition is the speaker's own
    if _OR.search(claim) and _IF.match(dropped):
        return False  # "X or Y if Z": the clause may limit the last choice only
    if _WISH.search(dropped) or _PAST_IF.search(dropped) or _BACK.search(dropped):
        return False
    if _PAST.search(claim) and _IF.match(dropped):
        return False  # narration ("everything was going well, as long as he left ...")
    return not _roots(claim) & _roots(dropped)  # "if the keeper saves it, the save counts"


def _roots(text: str) -> set[str]:
    return {w.removesuffix("s") for w in content_words(text) - _PERSONS}


#: Persons, modals and common words two clauses may share without the claim restating its condition.
_PERSONS = {
    "you", "your", "they", "their", "them", "she", "her", "his", "him", "its", "our", "can",
    "will", "vous", "votre", "nous", "ils", "elle", "usted", "ellos", "sie", "ihr", "wir",
    "you're", "we're", "they're", "i'm", "too", "than", "have", "has", "had", "need", "more",
    "less", "place", "get",
}  # fmt: skip


_OR = re.compile(r"\b(?:or|either|oder|ou|o)\b", re.IGNORECASE)
_FIRST_PERSON = re.compile(
    r"\b(?:I|I'm|I’m|me|my|we|our|ich|wir|je|j['’]|nous|yo|nosotros)\b", re.IGNORECASE
)
#: A clause that only points back ("if this is indeed so", "if that is true").
_BACK = re.compile(
    r"^\S+\s+(?:(?:this|that|it)\s+(?:is|was)\s+(?:indeed\s+|really\s+)?"
    r"(?:so|true|the case)|so|true)\b",
    re.IGNORECASE,
)
_PAST = re.compile(r"\b(?:was|were|had|did|war|waren|hatte|était|avait|era|fue|había)\b", re.I)
_IF = re.compile(
    r"(?:only\s+)?(?:if|unless|as long as|so long as|provided|for|für|pour|para|wenn|falls|"
    r"sofern|solange|si|"
    r"tant qu|à condition|siempre que|a menos que)\b",
    re.IGNORECASE,
)


_ANY_CUE = re.compile(
    r"\b(?:if|unless|except|excluding|provided that|as long as|wenn|falls|sofern|außer|es sei denn|"
    r"si|sauf|à condition|tant que|à moins|salvo|excepto|a menos que|siempre que)\b",
    re.IGNORECASE,
)


def drop_conditions(sentence: str) -> list[tuple[str, str]]:
    """Every way to drop one condition or exception from `sentence`, as `(dropped text, new
    sentence)`; empty when none can be dropped cleanly.

    Example:
        >>> drop_conditions("Guests can cancel free of charge if they book directly.")
        [('if they book directly', 'Guests can cancel free of charge.')]
    """
    if not _HINT.search(sentence):
        return []
    if (
        "?" in sentence
        or re.search(r"[\"“”«»\\]|\$(?!\d)|\. \.", sentence)
        or _REQUEST.match(sentence)
    ):
        return []
    if re.match(r"(?:\S+\s+){0,3}\S+:", sentence):
        return []  # a speaker's label or a heading ("Sales agent: ...", "File size: ...")
    first = language(sentence)
    out: list[tuple[str, str]] = []
    counts = language_counts(sentence)
    others = [] if counts[first] else [code for code in _TRAILING if code != first]
    for lang in (first, *others):  # others only where no language is told: "falls" is no "if"
        for dropped, new in (
            *_trailing(sentence, lang),
            *_leading(sentence, lang),
            *_middle(sentence, lang),
            *_universal(sentence, lang),
        ):
            if _clean(new) and limits_a_bare_claim(new, dropped) and (dropped, new) not in out:
                out.append((dropped, new))
        if out:
            break
    return out


#: A word every condition or exception above holds: a sentence without one is not read on.
_HINT = re.compile(
    r"\b(?:if|unless|provided|providing|long as|condition|except|exception|excluding|"
    r"exclusion|excluyendo|sin contar|wenn|falls|sofern|"
    r"solange|außer|sei denn|ausgenommen|ausnahme|si|s['’]ils?|sauf|pourvu|tant qu|moins qu|"
    r"excepté|hormis|salvo|excepto|menos|siempre|con tal|excepción|"
    + "|".join(_GROUPS.values())
    + r")\b",
    re.IGNORECASE,
)

_TRAILING_RE = {
    lang: re.compile(
        rf"(?P<main>.+?)(?P<sep>\s*,?\s+)(?P<cond>(?:{cue})(?:\s+[^,;:()]+?)?)(?P<end>\s*[.!])$",
        re.IGNORECASE,
    )
    for lang, cue in _TRAILING.items()
}
_FOR_GROUP_RE = {
    lang: re.compile(rf"(?P<main>.+?)\s+(?P<cond>{cue})(?P<end>\s*[.!])$", re.IGNORECASE)
    for lang, cue in _FOR_GROUP.items()
}


#: A German exception that is no clause and ends on a word in lower case: the main clause's
#: verb or predicate, which closes the sentence ("ist jeden Tag außer Montag geöffnet").
_GERMAN_VERB_CUT = re.compile(
    r"(?i:außer|ausgenommen|mit\s+Ausnahme)(?!\s+(?i:wenn|falls))\b.*\s[a-zäöüß]\w*$"
)


def _trailing(sentence: str, lang: str) -> list[tuple[str, str]]:
    pattern = _TRAILING_RE[lang]
    found = []
    group = _FOR_GROUP_RE[lang].match(sentence)
    if group and len(words(group.group("main"))) >= 4 and _BENEFIT.search(group.group("main")):
        found.append((group.group("cond"), group.group("main") + group.group("end").strip()))
    for match in _all_matches(pattern, sentence):
        main, cond = match.group("main"), match.group("cond")
        if lang in ("fr", "es") and match.group("sep").strip() != "," and _is_si(cond):
            continue  # "si" without a comma: often "so" or "whether"
        if not _conditional(main, cond):
            continue
        if lang == "de" and _GERMAN_VERB_CUT.match(cond):
            continue  # "jeden Tag außer Montag geöffnet": the verb would go with the exception
        found.append((cond, main.rstrip(" ,") + match.group("end").strip()))
    return found


#: An exclusion opening a sentence: what follows its comma is the claim, whatever its first
#: word ("Excluding these items, diluted earnings rose 35%").
_EXCLUDING = re.compile(r"(?:excluding|à\s+l['’]exclusion|excluyendo|sin\s+contar)\s", re.I)


def _leading(sentence: str, lang: str) -> list[tuple[str, str]]:
    if lang not in _LEADING:
        return []
    match = re.match(
        rf"(?P<cond>(?:{_LEADING[lang]})\b[^,;:]*?),\s+(?P<main>.+)$", sentence, re.IGNORECASE
    )
    if not match or len(words(match.group("cond"))) < 3:
        return []
    if re.match(r"(?:for|pour|para)\s", match.group("cond"), re.I) and not _BENEFIT.search(
        match.group("main")
    ):
        return []  # a point of view ("for those who escaped, it was frenzied"), no limit
    if not _conditional("", match.group("cond"), claim=match.group("main")):
        return []
    if re.match(r"[^,]{0,40},[^,]{0,40},?\s+(?:and|or|et|ou|y|o)\s", match.group("main")):
        return []  # the comma was a list's ("If the sun, heat, and salt ...")
    main = re.sub(r"^(?:then|alors|entonces)\s+", "", match.group("main"), flags=re.IGNORECASE)
    first = re.split(r"['’]", words(main)[0].lower())[0] if words(main) else ""
    excluding = _EXCLUDING.match(match.group("cond"))  # "Excluding these items, diluted ..."
    if first in _DANGLING_START or not (first in _OPENINGS or main[:1].isupper() or excluding):
        return []
    return [(match.group("cond"), main[0].upper() + main[1:])]


def _middle(sentence: str, lang: str) -> list[tuple[str, str]]:
    match = re.match(
        rf"(?P<a>.+?),\s+(?P<cond>(?:{_MIDDLE[lang]})\b[^,;:]+),\s+(?P<b>.+)$",
        sentence,
        re.IGNORECASE,
    )
    if not match or not match.group("b")[:1].islower():
        return []
    if words(match.group("b"))[0].lower() in _JOINED or len(words(match.group("a"))) > 8:
        return []
    if not _conditional(match.group("a"), match.group("cond")):
        return []
    return [(match.group("cond"), f"{match.group('a')} {match.group('b')}")]


#: An exception's cue after a universal claim, per language (not German: its verb may
#: close the sentence after the exception, "jeden Tag außer Montag geöffnet").
_EXCEPT = {
    "en": r"except(?:\s+for)?|excluding|with\s+the\s+exception\s+of",
    "fr": r"sauf|excepté|hormis|à\s+l['’]exception\s+d(?:e|u|es|['’])",
    "es": r"salvo|excepto|a\s+excepción\s+de",
}
#: Words of a universal claim, which an exception limits ("every state except Mississippi").
_UNIVERSAL = {
    "en": r"all|every|everywhere|everyone|everything|each|entire|whole|worldwide|always|never",
    "fr": r"tous|toutes|chaque|partout|toujours|jamais|entier|entière",
    "es": r"todos|todas|cada|siempre|nunca|entero|entera",
}
#: A clause that may follow an exception: it stays ("..., though ...").
_THOUGH = r"though|although|but|while|whereas|obwohl|aber|mais|bien\s+que|aunque|pero"
_UNIVERSAL_RE = {
    lang: re.compile(
        rf"(?P<main>.*?\b(?i:{_UNIVERSAL[lang]})\b[^,;:()]*?)\s+(?P<cond>(?i:{cue})\s+[^;:()]+?)"
        rf"(?P<end>,\s+(?i:{_THOUGH})\b[^;:()]*)?(?P<stop>\s*[.!])$"
    )
    for lang, cue in _EXCEPT.items()
}


def _universal(sentence: str, lang: str) -> list[tuple[str, str]]:
    """An exception to a universal claim that runs to the sentence's end (a list of names
    with its commas, "everywhere in Europe except for Albania, Andorra and Monaco") or to a
    "though" clause: the claim is then said of all."""
    if lang not in _UNIVERSAL_RE:
        return []
    match = _UNIVERSAL_RE[lang].match(sentence)
    if not match or re.search(r"\b(?:that|which|who|when|where|if)\b", match.group("cond")):
        return []  # a clause, not a list of things left out
    if not _conditional(match.group("main"), match.group("cond")):
        return []
    end = match.group("end") or ""
    return [(match.group("cond"), match.group("main") + end + match.group("stop").strip())]


def _all_matches(pattern: re.Pattern[str], sentence: str) -> list[re.Match[str]]:
    """The match of `pattern` on `sentence` (a trailing cue found from the left; one)."""
    match = pattern.match(sentence)
    return [match] if match else []


def _is_si(cond: str) -> bool:
    return bool(re.match(r"(?:solo\s+|sólo\s+|seulement\s+|uniquement\s+)?s['’]?i", cond, re.I))


def _conditional(main: str, cond: str, *, claim: str | None = None) -> bool:
    """Whether `cond` after `main` is a condition or an exception (not "asked if", "if any",
    "even if")."""
    last = [w.lower() for w in words(main)[-3:]]
    before = last[-1] if last else ""
    cue_words = [w.lower() for w in words(cond)]
    if before in _NOT_CONDITION_BEFORE or len(cue_words) < 2:
        return False
    if cue_words[0] in ("if", "si", "ob") and set(last) & _ASKING:
        return False  # "asked Chris if ...": whether
    cue_len = 2 if cue_words[0] in ("only", "nur", "seulement", "uniquement", "solo", "sólo") else 1
    after = cue_words[cue_len] if len(cue_words) > cue_len else ""
    if after in _NOT_CONDITION_AFTER:
        return False
    if cue_words[0] == "except" and after == "that":
        return False  # "except that": a "but", no exception
    if _MODAL.search(" ".join(cue_words[1:])) or re.search(r"[—–]|\s-\s", cond):
        return False  # the clause goes on into a consequence ("if we're late we may lose")
    if re.search(r"\bas long as\s+(?:\d|a\b|an\b|one|two|three|several)", cond, re.I):
        return False  # a length of time, no condition
    if re.search(r"\b(?:you|your|vous|votre|usted|du|sie)\b", cond, re.I) and not re.search(
        r"\b(?:you|your|vous|votre|vos|usted|su|du|dein|sie|ihr)\b", claim or main, re.I
    ):
        return False  # on the hearer only: "if you want to ski, Big Bear is three hours north"
    return not _NO_CONDITION.search(cond)


def _clean(new: str) -> bool:
    """Whether `new` still reads as a whole sentence holding no other condition."""
    body = new.rstrip(" .!")
    found = words(body)
    if _HEDGE.search(body) or _REQUEST.match(body) or body.count(",") >= 3:
        return False
    if len(found) < 4 or found[-1].lower() in _DANGLING_END or _ANY_CUE.search(body):
        return False
    return not body.endswith((",", ";", ":", "-", "–"))


def _stems(text: str) -> set[str]:
    return {w[:5] for w in content_words(text)}


def _asked(question: str, dropped: str) -> bool:
    """Whether the question already states the dropped condition (a content word of the
    clause, cut to its first five letters, is in the question: "harder to fall asleep in noisy
    environments?" against "if we are trying to sleep in a noisy environment"), or asks of the
    asker whom a condition on the hearer ("if you don't have an account") may fit."""
    if not question.strip():
        return False
    if re.search(r"\b(?:you|your|vous|votre|vos|usted|du|dein\w*|Sie|Ihr\w*)\b", dropped):
        return True
    return bool(_stems(question) & _stems(dropped))


#: A condition on a generic "you" ("if you're in a band, you're in a gang"): without it the
#: sentence is an aphorism no context can check, not a general claim.
_GENERIC_YOU = re.compile(
    r"(?:if|unless|when|wenn|falls|si)\s+(?:you|du|Sie|tu|vous|tú|usted)\b", re.IGNORECASE
)
#: An exclusion that opens a dropped condition ("excluding these items").
_EXCLUDING = re.compile(r"(?:excluding|excluyendo|à l['’]exclusion|ohne)\b", re.IGNORECASE)
#: A figure whose name keeps the exclusion ("adjusted earnings", "non-GAAP"): dropping
#: "excluding ..." leaves what the context states.
_KEEPS_EXCLUSION = re.compile(
    r"\b(?:adjusted|non-gaap|underlying|core|pro forma|ajust[ée]s?|ajustad[oa]s?|bereinigt\w*)\b",
    re.IGNORECASE,
)
#: A clause that names a rule rather than claims a fact ("the clause allowing the team to leave
#: if ..."): the condition belongs to the rule's description, and the sentence without it still
#: names the same rule.
_NAMES_A_RULE = re.compile(r"\b(?:allowing|permitting|requiring|letting|enabling)\b", re.I)


def _says_no_more(dropped: str, new: str) -> bool:
    """Whether the sentence without its condition claims no more, or nothing checkable."""
    if _GENERIC_YOU.match(dropped.strip()) or _NAMES_A_RULE.search(new):
        return True
    return bool(_EXCLUDING.match(dropped.strip()) and _KEEPS_EXCLUSION.search(new))


@generator(
    kind="dropped_condition",
    expect="fail",
    summary="a condition or exception dropped, so the claim becomes general",
)
def dropped_condition(row: GoldRecord, *, rng: random.Random, pool: Pool) -> Variant | Skip:
    """A context sentence with its condition ("if ...", "unless ...", "except ...", "for
    members", and their German, French and Spanish kin) cut off, so it claims more than the
    context; never where the general sentence stands in the context as it is."""
    text = " ".join(" ".join(c.split()) for c in row.contexts).lower()
    options: list[tuple[str, str, str]] = []
    for sentence in cached_sentences(row):
        rest = text.replace(sentence.lower(), " | ")
        for dropped, new in drop_conditions(sentence):
            if _asked(row.question, dropped) or _says_no_more(dropped, new):
                continue
            if new.rstrip(" .!").lower() not in rest:
                options.append((sentence, dropped, new))
    if not options:
        return Skip("no condition to drop")
    sentence, dropped, new = options[rng.randrange(len(options))]
    return Variant(answer=new, before=dropped, after="", language=language(sentence))
