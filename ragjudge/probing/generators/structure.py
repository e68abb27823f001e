"""Must-pass kinds that change how a supported sentence is written, not what it says."""

from __future__ import annotations

import functools
import itertools
import random
import re
from dataclasses import dataclass

from ragjudge.data._gold import GoldRecord
from ragjudge.probing._probe import Skip, Variant
from ragjudge.probing._registry import Pool, generator
from ragjudge.probing._text import (
    candidate_sentences,
    language,
    names,
    sentences,
    words,
)


@generator(
    kind="context_sentence",
    expect="pass",
    summary="a sentence of the context, word for word",
)
def context_sentence(row: GoldRecord, *, rng: random.Random, pool: Pool) -> Variant | Skip:
    """The answer is one sentence of the context as it stands."""
    found = candidate_sentences(row)
    if not found:
        return Skip("no sentence fit to answer with")
    sentence = found[rng.randrange(len(found))]
    return Variant(answer=sentence, before=sentence, after=sentence, language=language(sentence))


# --- shared: one sentence's words moved about --------------------------------------------

#: Words that open a sentence and are no name: lowercased when they move inside a sentence.
_COMMON_OPENERS = {
    "en": {"the", "a", "an", "he", "she", "it", "they", "we", "this", "these", "those", "that",
           "his", "her", "its", "their", "our", "there", "many", "most", "some", "several",
           "each", "every", "one", "both", "all", "such", "other", "another", "no", "any"},
    "de": {"der", "die", "das", "ein", "eine", "er", "sie", "es", "wir", "dies", "diese",
           "dieser", "dieses", "sein", "seine", "ihr", "ihre", "viele", "einige", "man"},
    "fr": {"le", "la", "les", "un", "une", "il", "elle", "ils", "elles", "nous", "ce", "cette",
           "ces", "son", "sa", "ses", "leur", "leurs", "on", "plusieurs", "de", "des", "du"},
    "es": {"el", "la", "los", "las", "un", "una", "él", "ella", "ellos", "ellas", "este",
           "esta", "estos", "estas", "su", "sus", "muchos", "varios", "nosotros"},
}  # fmt: skip


def _lower_first(text: str, *, lang: str, known: _Known) -> str | None:
    """`text` with its first word lowercased when that word is no name (a common opener, or
    a word the context also writes lowercase); kept when the context writes it capitalized
    inside a sentence (a name); None when it cannot tell."""
    first = words(text)[:1]
    if not first:
        return None
    word = first[0]
    if word.islower() or word == "I":
        return text
    lowered = word[0].lower() + word[1:]
    common = word.lower() in _COMMON_OPENERS.get(lang, set())
    second = words(text)[1:2]
    if second and second[0][0].isupper() and not common:
        return text if (word, second[0]) in known.inner_pairs else None
    if word.isupper() and len(word) > 1:
        return text if word in known.inner else None
    if common or (lowered.islower() and lowered in known.lower):
        at = text.index(word)
        return text[:at] + lowered + text[at + len(word) :]
    if word in known.inner:
        return text  # written capitalized inside a sentence: a name
    return None


def _upper_first(text: str) -> str:
    at = next((i for i, ch in enumerate(text) if ch.isalpha()), None)
    return text if at is None else text[:at] + text[at].upper() + text[at + 1 :]


def _has_word(text: str, vocabulary: set[str]) -> bool:
    return any(w.lower() in vocabulary for w in words(text))


#: Words that tie a clause to another, report speech, or negate: a clause holding one is not
#: simple enough to move a phrase around it.
_TIES = {
    "en": {"that", "which", "who", "whom", "whose", "where", "when", "while", "because",
           "although", "though", "if", "unless", "after", "before", "until", "since", "and",
           "or", "but", "as", "whereas", "whilst", "so", "thus", "therefore", "however", "yet",
           "versus", "vs", "compared", "mentions", "mentioned", "notes", "noted", "claims",
           "believes", "believed", "thinks", "argues", "argued", "announced", "said", "says",
           "say", "told", "stated", "reported", "according", "claimed", "not", "n't", "never",
           "no", "nor", "only", "also", "even", "then", "respectively", "than"},
    "de": {"dass", "der", "die", "das", "welche", "welcher", "wenn", "als", "weil", "obwohl",
           "und", "oder", "aber", "nicht", "nie", "kein", "keine", "nur", "auch", "laut",
           "sagte"},
    "fr": {"que", "qui", "dont", "où", "quand", "lorsque", "parce", "si", "mais", "et", "ou",
           "ne", "pas", "jamais", "aussi", "seulement", "selon", "dit", "comme", "puis"},
    "es": {"que", "quien", "donde", "cuando", "porque", "si", "pero", "y", "o", "no", "nunca",
           "sólo", "solo", "también", "según", "dijo", "como", "luego"},
}  # fmt: skip

#: Personal pronouns: one in a main clause may no longer point where it did once a phrase
#: moves past it.
_PRONOUNS = {
    "en": {"he", "she", "it", "they", "him", "her", "them", "he's", "she's", "it's",
           "they're", "they'll", "he'll", "she'll", "it'll", "they’re", "they’ll", "it’s"},
    "fr": {"il", "elle", "ils", "elles", "lui", "eux"},
    "es": {"él", "ella", "ellos", "ellas", "le", "lo", "les"},
    "de": {"er", "sie", "es", "ihm", "ihn"},
}  # fmt: skip


@dataclass(frozen=True)
class _Known:
    """What the row's passages say about words, worked out once for every kind here.

    Attributes:
        lang: The passages' language.
        sentences: The sentences fit to answer with (`candidate_sentences`).
        plain: Those of them fit to rewrite (`_plain`).
        passages: Every passage cut into sentences, in order.
        lower: The words the passages write in lowercase.
        inner: The capitalized words the passages write inside a sentence (names).
        inner_pairs: Two such words in a row (`Lake Ferto`).
    """

    lang: str
    sentences: tuple[str, ...]
    plain: frozenset[str]
    passages: tuple[tuple[str, ...], ...]
    lower: frozenset[str]
    inner: frozenset[str]
    inner_pairs: frozenset[tuple[str, str]]


_INNER = re.compile(r"(?<=[a-z,] )([A-Z][\w'’\-]*)(?: ([A-Z][\w'’\-]*))?")


@functools.lru_cache(maxsize=4096)
def _known_of(contexts: tuple[str, ...]) -> _Known:
    text = " ".join(" ".join(p.split()) for p in contexts)
    inner = _INNER.findall(text)
    fit = tuple(candidate_sentences(GoldRecord(id="", answer="", contexts=list(contexts))))
    return _Known(
        lang=language(" ".join(fit[:20]) if fit else text[:1000]),
        sentences=fit,
        plain=frozenset(s for s in fit if _plain(s)),
        passages=tuple(tuple(sentences(" ".join(p.split()))) for p in contexts),
        lower=frozenset(w for w in words(text) if w.islower()),
        inner=frozenset(first for first, _ in inner),
        inner_pairs=frozenset((a, b) for a, b in inner if b),
    )


def _known(row: GoldRecord) -> _Known:
    """The row's `_Known`, worked out once for all the kinds of this module."""
    return _known_of(tuple(row.contexts))


#: A sentence that ends on a word (not an abbreviation like `D.C.`).
_ENDS_CLEAN = r"(?:[^\W_]{2}|[^\W_]%)\.$"


def _plain(sentence: str) -> bool:
    """No quotes, no tokenized spacing (`word ,`), no debris: a sentence to rewrite."""
    return not re.search(r"[\"“”#*<>]| [,.;:!?)]| 's\b|\( |'\w{4,}|www|http| - ", sentence)


def _negated(text: str, lang: str) -> bool:
    return bool(re.search(r"n['’]t\b", text)) or _has_word(text, _NEGATIONS[lang])


_NEGATIONS = {
    "en": {"not", "never", "no", "nor", "none", "nothing", "neither", "cannot"},
    "de": {"nicht", "nie", "niemals", "kein", "keine", "keinen", "keiner", "weder"},
    "fr": {"ne", "pas", "jamais", "aucun", "aucune", "ni", "rien"},
    "es": {"no", "nunca", "ningún", "ninguno", "ninguna", "ni", "nada", "jamás"},
}


_POSSESSIVES = {
    "en": {"his", "her", "its", "their"},
    "fr": {"son", "sa", "ses", "leur", "leurs"},
    "es": {"su", "sus"},
    "de": {"sein", "seine", "seinen", "ihr", "ihre", "ihren"},
}


# --- clause_order ------------------------------------------------------------------------

#: Words that open a phrase or clause that may stand first or last (lowercase).
_FRONTED = {
    "en": ("in", "on", "at", "during", "after", "before", "by", "since", "because",
           "although", "though", "when", "once", "until", "unless", "if"),
    "fr": ("en", "pendant", "après", "avant", "depuis", "parce que", "bien que", "lorsque",
           "quand", "si", "dès"),
    "es": ("en", "durante", "después de", "antes de", "desde", "porque", "aunque",
           "cuando", "si"),
}  # fmt: skip

#: Fronted phrases that link to what came before: moved last they read oddly or change.
_LINKS = re.compile(
    r"^(?:in (?:fact|addition|contrast|particular|general|other words|short|turn|total|"
    r"practice|summary|conclusion|the meantime|the end|this|that|these|those|such|it|"
    r"which|its|his|her|their)|on (?:the other hand|the contrary|this|that|average)|"
    r"at (?:the same time|least|most|first|last|times|this|that)|once (?:again|more)|"
    r"in a (?:sense|way|word|nutshell)|by (?:contrast|the way|then|now)|"
    r"after (?:all|that|this)|before (?:that|this)|since (?:then|that)|"
    r"en (?:effet|outre|revanche|fait|particulier|général|plus|bref|somme|ce)|"
    r"en (?:efecto|cambio|general|particular|resumen|realidad|concreto|este|esta))\b",
    re.IGNORECASE,
)

_SECOND_CLAUSE = re.compile(
    r"\b(?:but|if|so|whereas|while|although|though|however|mais|si|pero|aunque)\b|[,;]\s*"
    r"(?:and|et|y)\b|\b(?:and|et|y) (?:he|she|it|they|we|I|you|there|il|elle|ils|ellos)\b"
)

_NOT_GERUNDS = {
    "building", "buildings", "morning", "evening", "during", "nothing", "something",
    "anything", "everything", "ceiling", "spring", "string", "thing", "things", "king",
    "wing", "ring", "wedding", "clothing", "housing", "funding", "ending", "beginning",
}  # fmt: skip


def _gerund(word: str) -> bool:
    """A word in `-ing` that may be a verb (`trying`, `reminding`), a few nouns aside."""
    return word.islower() and word.endswith("ing") and len(word) > 5 and word not in _NOT_GERUNDS


#: Words of time: a fronted phrase with one (or a number) is a time, and a time moved last
#: still dates the whole clause.
_TIMES = {
    "year", "years", "century", "centuries", "decade", "decades", "month", "months", "week",
    "weeks", "day", "days", "morning", "evening", "night", "afternoon", "season", "era",
    "period", "age", "war", "summer", "winter", "spring", "autumn", "fall", "time", "times",
    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "today",
    "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december", "jahr", "jahren", "année", "ans", "siècle", "mois",
    "semaine", "jour", "año", "años", "siglo", "mes", "semana", "día", "guerra", "guerre",
    "janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre",
    "octobre", "novembre", "décembre", "enero", "febrero", "marzo", "abril", "mayo", "junio",
    "julio", "agosto", "septiembre", "octubre", "noviembre", "diciembre",
}  # fmt: skip

#: Openers of a phrase (not a clause): what follows them up to the comma has no verb.
_PREPOSITIONS = {"in", "on", "at", "during", "by", "en", "pendant", "durante", "dès"}
_SUBJECTS = {
    "en": {"i", "you", "he", "she", "it", "we", "they"},
    "fr": {"je", "tu", "il", "elle", "on", "nous", "vous", "ils", "elles"},
    "es": {"yo", "él", "ella", "nosotros", "ellos", "ellas"},
    "de": {"ich", "er", "sie", "es", "wir"},
}

#: "because", after a word that would make fronting it change the claim.
_BECAUSE = {"en": "because", "fr": "parce que", "es": "porque", "de": "weil"}
_BECAUSE_BLOCKED = {
    "not", "only", "partly", "mainly", "largely", "just", "simply", "probably", "perhaps",
    "possibly", "precisely", "exactly", "primarily", "solely", "part", "is", "was", "are",
    "were", "be", "been", "pas", "seulement", "est", "était", "c'est", "no", "solo", "sólo",
    "es", "era", "fue", "ne", "n'est",
}  # fmt: skip


@generator(
    kind="clause_order",
    expect="pass",
    summary="a context sentence with a phrase or clause moved, the meaning kept",
)
def clause_order(row: GoldRecord, *, rng: random.Random, pool: Pool) -> Variant | Skip:
    """`In 2019, X did Y.` -> `X did Y in 2019.`; `Because Y, X.` -> `X because Y.`;
    `X because Y.` -> `Because Y, X.` (English, French, Spanish; German word order is left
    alone: a moved phrase there moves the verb too)."""
    known = _known(row)
    lang = known.lang
    if lang == "de":
        return Skip("German word order")
    made: list[tuple[str, str]] = []
    for sentence in known.sentences:
        if sentence not in known.plain or not re.search(_ENDS_CLEAN, sentence):
            continue
        if "," not in sentence and f" {_BECAUSE[lang]} " not in sentence:
            if not re.search(r"\d\d\d\d\.$", sentence):
                continue
        for move in (_fronted_last, _because_first, _date_first):
            after = move(sentence, lang=lang, known=known)
            if after:
                made.append((sentence, after))
    if not made:
        return Skip("no phrase to move in a simple clause")
    before, after = made[rng.randrange(len(made))]
    return Variant(answer=after, before=before, after=after, language=lang)


def _fronted_last(sentence: str, *, lang: str, known: _Known) -> str | None:
    """`In 2019, X did Y.` -> `X did Y in 2019.`: one comma, after a phrase that opens with
    a word of `_FRONTED`; the main clause simple (no tie, no negation, no second clause)."""
    if sentence.count(",") != 1 or ";" in sentence or ":" in sentence:
        return None
    front, main = (part.strip() for part in sentence[:-1].split(",", 1))
    lowered = front.lower()
    opener = next((o for o in _FRONTED.get(lang, ()) if lowered.startswith(o + " ")), None)
    if opener is None or _LINKS.match(lowered) or len(words(front)) < 2:
        return None
    if not 3 <= len(words(main)) <= 14 or _has_word(main, _TIES[lang]) or "(" in main:
        return None
    if _negated(main, lang) or any(_gerund(w) for w in words(main)):
        return None  # a gerund offers the moved phrase a second home
    if opener in _PREPOSITIONS and (
        len(words(front)) > 8 or _has_word(front, _TIES[lang] | _SUBJECTS[lang])
    ):
        return None  # the comma does not close a phrase
    if opener in _PREPOSITIONS and not (re.search(r"\d", front) or _has_word(front, _TIMES)):
        return None  # "In Ottawa, ... to the Red Cross": a place moved last may attach to a noun
    if opener == "by" and _has_word(main, {"was", "were", "is", "are", "been", "be"}):
        return None  # "routed by the end of the day": read as the agent
    if _has_word(main, _PRONOUNS[lang]) or (names(front) and _has_word(main, _POSSESSIVES[lang])):
        return None  # "After John left, he ..." -> "He ... after John left": he is no longer John
    if not (words(main)[0][0].isupper() or words(main)[0].lower() in _COMMON_OPENERS[lang]):
        return None  # "..., president of Magdalen.": the comma closes no fronted phrase
    moved = _lower_first(main, lang=lang, known=known)
    if moved is None:
        return None
    return f"{_upper_first(moved)} {front[0].lower()}{front[1:]}."


_YEAR_AT_END = {
    "en": re.compile(
        r"^(?P<main>[^,;:]+?) (?P<when>(?:in|on) (?:(?:\d{1,2} )?(?:January|February|March|April|"
        r"May|June|July|August|September|October|November|December) (?:\d{1,2}, )?)?"
        r"(?:1[5-9]|20)\d\d)\.$"
    ),
    "fr": re.compile(
        r"^(?P<main>[^,;:]+?) (?P<when>en (?:(?:janvier|février|mars|avril|mai|juin|juillet|"
        r"août|septembre|octobre|novembre|décembre) )?(?:1[5-9]|20)\d\d)\.$"
    ),
    "es": re.compile(
        r"^(?P<main>[^,;:]+?) (?P<when>en (?:(?:enero|febrero|marzo|abril|mayo|junio|julio|"
        r"agosto|septiembre|octubre|noviembre|diciembre) de )?(?:1[5-9]|20)\d\d)\.$"
    ),
}
#: A past participle right before the date, per language: `the house built in 1990` dates the
#: house, not the clause, unless an auxiliary makes it the verb (`was built in 1990`).
_PARTICIPLE = {
    "en": re.compile(r"(?:ed|en|built|made|held|born|set|put|shot|sold|won|bought|found|"
                     r"led|left|lost|paid|said|sent|spent|taken|told|written|begun)$"),
    "fr": re.compile(r"(?:é|ée|és|ées|it|ite|u|ue|us|ues|is|ise)$"),
    "es": re.compile(r"(?:ado|ada|ados|adas|ido|ida|idos|idas|cho|cha|to|ta)$"),
}  # fmt: skip
_AUX_BEFORE = {
    "en": {"was", "were", "is", "are", "been", "be", "had", "has", "have"},
    "fr": {"est", "sont", "été", "était", "étaient", "a", "ont", "avait", "fut"},
    "es": {"fue", "fueron", "es", "son", "sido", "ha", "han", "había", "era"},
}


def _date_first(sentence: str, *, lang: str, known: _Known) -> str | None:
    """`X did Y in 2019.` -> `In 2019, X did Y.`: one year, at the very end, after a simple
    clause (no comma, no tie, no negation), and no bare participle right before it."""
    pattern = _YEAR_AT_END.get(lang)
    match = pattern.match(sentence) if pattern else None
    if match is None or len(re.findall(r"\b(?:1[5-9]|20)\d\d\b", sentence)) != 1:
        return None
    main, when = match.group("main"), match.group("when")
    parts = words(main)
    if not 3 <= len(parts) <= 14 or _has_word(main, _TIES[lang]) or _negated(main, lang):
        return None
    if any(_gerund(w) for w in parts) or "(" in main or re.search(r"\d", main):
        return None
    if re.search(r"\b(?:of|de|des|du|del)\b", main):
        return None  # "the completion of a move on 5 March 1963": the date may be the move's
    if _PARTICIPLE[lang].search(parts[-1]) and (
        len(parts) < 2 or parts[-2].lower() not in _AUX_BEFORE[lang]
    ):
        return None  # "the company bought the house built in 1990"
    if not (parts[0].lower() in _COMMON_OPENERS[lang] | _SUBJECTS[lang] or parts[0] in known.inner):
        return None  # no subject opens the clause
    moved = _lower_first(main, lang=lang, known=known)
    if moved is None:
        return None
    return f"{_upper_first(when)}, {moved}."


def _because_first(sentence: str, *, lang: str, known: _Known) -> str | None:
    """`X because Y.` -> `Because Y, X.` (`parce que`, `porque`): one `because`, at most the
    comma before it, X simple and not negated."""
    word = _BECAUSE[lang]
    found = list(re.finditer(rf",?\s+{word}\s+", sentence))
    if len(found) != 1 or sentence.count(",") > (1 if found[0].group(0).startswith(",") else 0):
        return None
    main, reason = sentence[: found[0].start()].strip(), sentence[found[0].end() : -1].strip()
    if ";" in sentence or ":" in sentence or len(words(main)) < 3 or len(words(reason)) < 2:
        return None
    if words(main)[-1].lower() in _BECAUSE_BLOCKED or _has_word(main, _TIES[lang]):
        return None
    if _negated(main, lang) or len(words(main)) > 16 or _has_word(main, {"reason", "why"}):
        return None
    if not (words(main)[0][0].isupper() and _lower_first(main, lang=lang, known=known)):
        return None
    if words(main)[0].lower() not in _COMMON_OPENERS[lang] | _SUBJECTS[lang] and (
        words(main)[0] not in known.inner
    ):
        return None  # "Definitely better to know ...": no subject opens the main clause
    if _SECOND_CLAUSE.search(reason) or _has_word(reason, {"and", "et", "y", "und"}):
        return None  # "because Y but Z": Z may not belong to the reason
    if _has_word(main, _PRONOUNS[lang]) and names(reason, skip_first=False):
        return None
    moved = _lower_first(main, lang=lang, known=known)
    if moved is None:
        return None
    return f"{_upper_first(word)} {reason}, {moved}."


# --- split_merge ---------------------------------------------------------------------------

#: `, and` before a subject pronoun: two full clauses (per language: the conjunction, the
#: pronouns that open a clause).
_AND = {"en": "and", "de": "und", "fr": "et", "es": "y"}
_CLAUSE_SUBJECTS = {
    "en": ("he", "she", "it", "they", "we", "i", "there"),
    "de": ("er", "sie", "es", "wir", "ich"),
    "fr": ("il", "elle", "ils", "elles", "nous", "je", "on"),
    "es": ("él", "ella", "ellos", "ellas", "nosotros"),
}
#: Words in the first clause that could reach over the second (a condition, a report, a
#: time clause): then the clauses may not be cut apart.
_SCOPE = {
    "en": {"if", "when", "whenever", "unless", "because", "although", "though", "while",
           "after", "before", "since", "once", "until", "as", "said", "says", "say", "told",
           "stated", "reported", "claimed", "argued", "believes", "believed", "thinks",
           "according", "that", "whether", "both", "either", "neither"},
    "de": {"wenn", "falls", "als", "weil", "obwohl", "während", "nachdem", "bevor", "seit",
           "sagte", "sagt", "dass", "laut", "ob", "sowohl", "entweder", "weder"},
    "fr": {"si", "quand", "lorsque", "parce", "bien", "pendant", "après", "avant", "depuis",
           "dit", "selon", "que", "soit", "ni"},
    "es": {"si", "cuando", "porque", "aunque", "mientras", "después", "antes", "desde",
           "dijo", "según", "que", "tanto", "ni"},
}  # fmt: skip
#: Words that open a sentence and lean on the one before: no `, and` before them.
_CONNECTORS = {
    "however", "but", "and", "so", "also", "then", "thus", "therefore", "moreover",
    "furthermore", "yet", "still", "meanwhile", "instead", "otherwise", "nevertheless",
    "aber", "doch", "jedoch", "und", "mais", "cependant", "et", "pero", "sin", "y",
}  # fmt: skip
#: Past-tense verbs that can share an English pronoun subject: `He moved to Paris and died
#: there.` -> `He moved to Paris. He died there.`
_SHARED_SUBJECT_VERBS = {
    "became", "died", "won", "moved", "joined", "left", "returned", "founded", "wrote",
    "released", "married", "lived", "went", "made", "took", "began", "started", "graduated",
    "studied", "worked", "served", "played", "spent", "retired", "appeared", "published",
    "produced", "directed", "earned", "attended", "led", "remained", "continued", "signed",
    "created", "developed", "built", "taught", "toured", "recorded", "settled",
}  # fmt: skip
_AUXILIARIES = {
    "was", "were", "is", "are", "has", "have", "had", "will", "would", "can", "could", "may",
    "might", "must", "should", "did", "does", "do", "been", "being",
}  # fmt: skip


@generator(
    kind="split_merge",
    expect="pass",
    summary="a context sentence split in two at `, and`, or two adjacent ones merged",
)
def split_merge(row: GoldRecord, *, rng: random.Random, pool: Pool) -> Variant | Skip:
    """`A, and he B.` -> `A. He B.`; `He A and died B.` -> `He A. He died B.` (English);
    `A. B.` -> `A, and B.` or `A; B.` (two sentences that stand next to each other)."""
    known = _known(row)
    lang = known.lang
    found = sorted(set(known.sentences))
    made: list[tuple[str, str]] = []
    for sentence in found:
        if sentence in known.plain and re.search(_ENDS_CLEAN, sentence):
            after = _split(sentence, lang=lang)
            if after:
                made.append((sentence, after))
    merges = _merges(lang=lang, known=known)
    if merges:
        made.append(merges[rng.randrange(len(merges))])
    if not made:
        return Skip("no two clauses to split or sentences to merge")
    made.sort()
    before, after = made[rng.randrange(len(made))]
    return Variant(answer=after, before=before, after=after, language=lang)


def _split(sentence: str, *, lang: str) -> str | None:
    """`A, and he B.` -> `A. He B.`, or (English) `He A and died B.` -> `He A. He died B.`"""
    subjects = "|".join(_CLAUSE_SUBJECTS[lang])
    conj = _AND[lang]
    found = list(re.finditer(rf",? {conj} (?=(?:{subjects}) )", sentence, re.IGNORECASE))
    if len(found) == 1:
        first, second = sentence[: found[0].start()], sentence[found[0].end() :]
        if _splittable(first, lang=lang) and len(words(second)) >= 3:
            first = first.strip()
            return f"{first}{'' if first.endswith('.') else '.'} {_upper_first(second)}"
    if lang != "en" or sentence.count(" and ") != 1 or "," in sentence or ";" in sentence:
        return None
    subject = words(sentence)[0]
    first, second = sentence.split(" and ", 1)
    verb = words(second)[0] if words(second) else ""
    if subject not in ("He", "She", "They", "We", "I") or verb not in _SHARED_SUBJECT_VERBS:
        return None
    if (
        not _splittable(first, lang=lang)
        or _has_word(first, _AUXILIARIES)
        or _negated(sentence, lang)
    ):
        return None
    return f"{first.strip()}. {subject} {second}"


def _opens_with_subject(text: str, *, lang: str, known: _Known) -> bool:
    """Whether `text` opens with a subject: a common opener (`The`, `He`) or a name (a word
    the context writes capitalized inside a sentence)."""
    first = words(text)[0]
    if first.lower() in _COMMON_OPENERS[lang] | _SUBJECTS[lang]:
        return True
    return first[0].isupper() and first in known.inner


def _splittable(first: str, *, lang: str) -> bool:
    return len(words(first)) >= 4 and not _has_word(first, _SCOPE[lang]) and ";" not in first


def _merges(*, lang: str, known: _Known) -> list[tuple[str, str]]:
    """`A. B.` -> `A, and B.` / `A; B.` for two sentences that stand next to each other in a
    passage, both fit to answer with, 40 words at most together."""
    out: list[tuple[str, str]] = []
    for parts in known.passages:
        for a, b in itertools.pairwise(parts):
            if a not in known.plain or b not in known.plain:
                continue
            if not re.search(_ENDS_CLEAN, a) or b[-1] not in ".!" or re.search("[;:?]", a + b):
                continue
            if len(words(a)) + len(words(b)) > 40:
                continue
            rest = _lower_first(b, lang=lang, known=known)
            if rest is None:
                continue
            opener = words(b)[0]
            subject = _opens_with_subject(b, lang=lang, known=known)
            if not (subject and _opens_with_subject(a, lang=lang, known=known)) or (
                "," in a or opener.lower() in _CONNECTORS or _has_word(a, _SCOPE[lang])
            ):
                out.append((f"{a} {b}", f"{a[:-1]}; {rest}"))
            else:
                joined = f", {_AND[lang]} " if lang in ("en", "de") else f" {_AND[lang]} "
                out.append((f"{a} {b}", f"{a[:-1]}{joined}{rest}"))
                out.append((f"{a} {b}", f"{a[:-1]}; {rest}"))
    return out


# --- synonym -------------------------------------------------------------------------------

#: Safe synonyms, per language: `(form, replacement)`, each a word form with its inflection
#: (`purchased` -> `bought`), one way only, chosen where the replacement means the same in
#: any sentence. A form may carry a regex guard on what follows (`attempted(?= to )`).
SYNONYMS: dict[str, tuple[tuple[str, str], ...]] = {
    "en": (
        ("purchased", "bought"), ("purchasing", "buying"), ("(?<=to )purchase", "buy"),
        ("began", "started"), ("begun", "started"), ("begins", "starts"),
        ("commenced", "started"), ("approximately", "about"),
        ("roughly(?= [\\d$£€]| half| a | one | two | three | ten )", "about"),
        ("numerous", "many"), ("frequently", "often"), ("rapidly", "quickly"),
        ("sufficient", "enough"), ("currently", "now"), ("subsequently", "later"),
        ("completed", "finished"), ("occurred(?! to )", "happened"),
        ("occurs(?! to )", "happens"), ("assisted", "helped"), ("(?<=to )assist", "help"),
        ("attempted(?= to )", "tried"), ("attempts(?= to )", "tries"), ("resided", "lived"),
        ("resides", "lives"), ("constructed", "built"), ("(?<=to )construct", "build"),
        ("enormous", "huge"), ("nearly", "almost"), ("entire", "whole"),
        ("stated(?= that )", "said"), ("prior to", "before"),
        ("due to(?= (?:the|a|an|his|her|its|their|this|that|these|those)\\b)", "because of"),
        ("commonly(?! (?:known|called|referred|named)\\b)", "often"),
        ("physician", "doctor"), ("physicians", "doctors"), ("automobile", "car"),
        ("automobiles", "cars"), ("movie", "film"), ("movies", "films"),
        ("famous", "well-known"), ("annual", "yearly"), ("shortly after", "soon after"),
        ("utilized", "used"), ("(?<=to )utilize", "use"), ("utilizes", "uses"),
        ("inhabitants", "residents"),
        ("(?<!more )(?<!most )(?<!less )difficult", "hard"),
        ("(?<!at )(?<!by and )large(?! (?:intestine|number|numbers|amount|amounts|part|"
         "parts|extent|majority|scale|print|cap|hadron)\\b)", "big"),
        ("(?<=to )obtain", "get"), ("in order to", "to"),
        ("extremely", "very"), ("requires", "needs"), ("required(?= to )", "needed"),
        ("initially", "at first"), ("permitted(?= to )", "allowed"),
    ),
    "de": (
        ("ungefähr", "etwa"), ("circa", "etwa"), ("zahlreiche", "viele"),
        ("zahlreichen", "vielen"), ("häufig", "oft"), ("beinahe", "fast"),
        ("derzeit", "zurzeit"), ("erhielt", "bekam"), ("erhielten", "bekamen"),
        ("rasch", "schnell"), ("Arzt", "Doktor"), ("Automobil", "Auto"),
        ("beginnt", "startet"), ("jährlich", "jedes Jahr"),
    ),
    "fr": (
        ("environ", "à peu près"), ("fréquemment", "souvent"), ("rapidement", "vite"),
        ("actuellement", "à présent"), ("presque", "quasiment"), ("médecin", "docteur"),
        ("débuta", "commença"), ("acheta", "acquit"), ("immédiatement", "tout de suite"),
    ),
    "es": (
        ("aproximadamente", "alrededor de"), ("comenzó", "empezó"),
        ("comenzaron", "empezaron"), ("comienza", "empieza"), ("frecuentemente", "a menudo"),
        ("rápidamente", "deprisa"), ("actualmente", "hoy en día"), ("automóvil", "coche"),
        ("compró", "adquirió"), ("inmediatamente", "enseguida"), ("casi", "prácticamente"),
    ),
}  # fmt: skip


@functools.lru_cache(maxsize=8)
def _synonym_pattern(lang: str) -> re.Pattern[str]:
    """One pattern for every form of `lang` (group `s<i>` for `SYNONYMS[lang][i]`)."""
    forms = "|".join(f"(?P<s{i}>{form})" for i, (form, _) in enumerate(SYNONYMS[lang]))
    return re.compile(rf"(?<![\w\-])(?:{forms})(?![\w\-])", re.IGNORECASE)


@functools.lru_cache(maxsize=8)
def _synonym_triggers(lang: str) -> frozenset[str]:
    """The longest word of every form of `lang`: a sentence with none is passed over."""
    found = set()
    for form, _ in SYNONYMS[lang]:
        bare = re.sub(r"^(?:\(\?<[=!][^()]*\))+", "", form).split("(")[0]
        found.add(max(re.findall(r"[^\W\d_]+", bare), key=len).lower())
    return frozenset(found)


@generator(
    kind="synonym",
    expect="pass",
    summary="a context sentence with one word replaced by a safe synonym (purchased -> bought)",
)
def synonym(row: GoldRecord, *, rng: random.Random, pool: Pool) -> Variant | Skip:
    """One word of a context sentence replaced by a synonym from a short curated list,
    inflection kept; never inside a name or a quote."""
    known = _known(row)
    lang = known.lang
    made: list[tuple[str, str, str, str]] = []
    for sentence in known.sentences:
        if sentence not in known.plain or not _synonym_triggers(lang) & {
            w.lower() for w in words(sentence)
        }:
            continue
        for match in _synonym_pattern(lang).finditer(sentence):
            new = SYNONYMS[lang][int(str(match.lastgroup)[1:])][1]
            old = match.group(0)
            if not _free_word(sentence, match.start(), match.end(), lang=lang):
                continue
            replaced = new[0].upper() + new[1:] if old[0].isupper() else new
            after = sentence[: match.start()] + replaced + sentence[match.end() :]
            if lang == "en":
                after = _article(after, match.start())
            made.append((sentence, after, old, replaced))
    if not made:
        return Skip("no word with a safe synonym")
    _, after, old, new = made[rng.randrange(len(made))]
    return Variant(answer=after, before=old, after=new, language=lang)


def _article(sentence: str, at: int) -> str:
    """`a` / `an` before the word at `at` made to agree with it (`an enormous` -> `a huge`)."""
    head = re.search(r"\b([Aa]n?) $", sentence[:at])
    if not head:
        return sentence
    vowel = sentence[at : at + 1].lower() in "aeiou"
    article = head.group(1)[0] + ("n" if vowel else "")
    return sentence[: head.start(1)] + article + sentence[head.end(1) :]


def _free_word(sentence: str, start: int, end: int, *, lang: str) -> bool:
    """Whether `sentence[start:end]` is a plain word, not a piece of a name: lowercase (or
    the sentence's first word; German nouns aside), no capitalized word right next to it."""
    old = sentence[start:end]
    if old[0].isupper() and start != _first_letter(sentence) and lang != "de":
        return False
    if old.isupper() and len(old) > 1:
        return False
    before, after = sentence[:start].split()[-1:], sentence[end:].split()[:1]
    return not (after and after[0][0].isupper() and lang != "de") and not (
        before
        and before[0][0].isupper()
        and start != _first_letter(sentence)
        and lang != "de"
        and old[0].isupper()
    )


def _first_letter(text: str) -> int:
    return next((i for i, ch in enumerate(text) if ch.isalpha()), 0)


# --- list_subset ---------------------------------------------------------------------------

#: Words that count, bound or close a list, or make its members act together: a list near
#: one of them may not lose a member (`the three members are A, B and C`, `A, B and C
#: founded the band`, `between A, B and C`).
_COUNTED = {
    "en": {"two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "both",
           "all", "each", "every", "only", "none", "neither", "either", "respectively",
           "between", "among", "consist", "consists", "consisted", "comprise", "comprises",
           "comprised", "comprising", "composed", "together", "jointly", "formed", "founded",
           "co-founded", "merged", "combined", "married", "members", "member", "total",
           "altogether", "sole", "exclusively", "entire", "whole", "trio", "duo", "quartet",
           "pair", "couple", "namely", "following", "first", "last", "second", "third", "than",
           "versus", "vs", "or", "nor", "not", "no", "never"},
    "de": {"zwei", "drei", "vier", "fünf", "beide", "beiden", "alle", "jeder", "nur",
           "zwischen", "bestehen", "besteht", "bestand", "gemeinsam", "zusammen", "gründeten",
           "mitglieder", "sowohl", "oder", "nicht"},
    "fr": {"deux", "trois", "quatre", "cinq", "tous", "toutes", "chaque", "seulement", "seuls",
           "seules", "entre", "composé", "composée", "comprend", "ensemble", "fondé",
           "fondèrent", "membres", "ou", "ne", "pas"},
    "es": {"dos", "tres", "cuatro", "cinco", "ambos", "ambas", "todos", "todas", "cada", "solo",
           "sólo", "únicamente", "entre", "compuesto", "compuesta", "consiste", "juntos",
           "fundaron", "miembros", "o", "no"},
}  # fmt: skip
#: Words that make a list an exception or a bound: a member dropped from it would now be
#: included (`everywhere except A, B and C`).
_EXCEPT = {"except", "excluding", "exception", "apart", "without", "besides", "other", "but",
           "mixture", "blend", "combination", "mix", "made", "consisting", "containing",
           "außer", "ausgenommen", "ohne", "sauf", "excepté", "hormis", "sans", "excepto",
           "salvo", "menos", "sin"}  # fmt: skip
_OPENS_CLAUSE = {
    "when", "if", "after", "before", "while", "although", "though", "because", "since", "as",
    "once", "unless", "until", "in", "on", "at", "during", "for", "to", "with", "by",
    "wenn", "als", "weil", "obwohl", "nachdem", "quand", "si", "lorsque", "après", "avant",
    "cuando", "aunque", "después", "antes", "en", "durante",
}  # fmt: skip
_LIST_AND = {"en": ("and",), "de": ("und",), "fr": ("et",), "es": ("y", "e")}
#: Function words: a lowercase list member holds none (`like your age` is no member).
_LIST_STOP = {
    "the", "a", "an", "with", "for", "of", "to", "in", "on", "by", "at", "from", "as", "such",
    "like", "including", "especially", "particularly", "mainly", "mostly", "e", "g", "your",
    "our", "their", "his", "her", "its", "my", "this", "that", "these", "those", "which", "who",
    "is", "are", "was", "were", "be", "and", "or", "but", "not", "also", "then", "there", "it",
    "they", "he", "she", "we", "you", "i", "has", "have", "had", "him", "them", "me", "us",
    "before", "after", "into", "over", "under", "about", "through", "during", "without",
    "within", "again", "so", "very", "too", "concerning", "regarding", "involving", "using",
    "following", "according", "containing", "featuring", "der", "die", "das", "und", "mit",
    "von", "le", "la", "les", "et", "de", "des", "du", "el", "los", "las", "y", "con", "por",
    "para", "en", "que",
}  # fmt: skip
_NAME_JOINERS = {"of", "the", "de", "la", "le", "van", "von", "der", "del", "da", "du", "y"}


def _shape(item: str) -> str:
    """`name` (capitalized words), `word` (one to three lowercase words) or `` (neither)."""
    parts = item.split()
    if not parts or not all(re.fullmatch(r"[^\W\d_][\w'’\-]*", p) for p in parts):
        return ""
    if parts[0][0].isupper() and parts[-1][0].isupper():
        if all(p[0].isupper() or p in _NAME_JOINERS for p in parts) and len(parts) <= 4:
            return "name"
        return ""
    if all(p.islower() for p in parts) and len(parts) <= 3 and not _LIST_STOP & set(parts):
        return "word"
    return ""


@generator(
    kind="list_subset",
    expect="pass",
    summary="a list 'A, B and C' of a context sentence shortened to 'A and C' (nothing counts it)",
)
def list_subset(row: GoldRecord, *, rng: random.Random, pool: Pool) -> Variant | Skip:
    """A middle member dropped from a list of names or of words (`Paris, London and Rome` ->
    `Paris and Rome`) in a sentence where nothing counts, bounds or closes the list and no
    copula makes it the whole of something."""
    known = _known(row)
    lang = known.lang
    made: list[tuple[str, str, str]] = []
    for sentence in known.sentences:
        if "," not in sentence or sentence not in known.plain or re.search(r"[:;()?]", sentence):
            continue
        capitals = [w for w in words(sentence) if w[0].isupper()]
        if lang != "de" and len(capitals) * 2 > len(words(sentence)):
            continue  # a title or a heading: its commas may be part of a name
        if _has_word(sentence, _COUNTED[lang] | _EXCEPT) or re.search(
            r"\d", _without_years(sentence)
        ):
            continue
        for conj in _LIST_AND[lang]:
            made += _shortened(sentence, conj)
    if not made:
        return Skip("no list that may lose a member")
    before, after, _ = made[rng.randrange(len(made))]
    return Variant(answer=after, before=before, after=after, language=lang)


def _without_years(text: str) -> str:
    return re.sub(r"\b1[5-9]\d\d\b|\b20\d\d\b", "", text)


def _shortened(sentence: str, conj: str) -> list[tuple[str, str, str]]:
    """Each way of dropping one middle member of the list that ends in `, conj C`."""
    out: list[tuple[str, str, str]] = []
    for match in re.finditer(rf",? {conj} ", sentence):
        head, tail = sentence[: match.start()], sentence[match.end() :]
        segments = head.split(",")
        if len(segments) < 2:
            continue
        middle: list[str] = []
        for seg in reversed(segments[1:]):
            if not _shape(seg.strip()):
                break
            middle.insert(0, seg.strip())
        if not middle:
            continue
        shape = _shape(middle[0])
        if any(_shape(m) != shape for m in middle):
            continue
        if shape == "word" and len({len(m.split()) for m in middle}) > 1:
            continue  # "disgusting meal, bizarre mannerisms, paranoia": no even list
        at = len(segments) - len(middle) - 1
        first_seg = segments[at].strip()
        if not first_seg or not _same_tail(first_seg, shape):
            continue
        if at == 0 and words(first_seg)[0].lower() in _OPENS_CLAUSE:
            continue  # "When gardening, wear gloves and shoes.": that comma closes a clause
        size = len(middle[0].split())
        if shape == "word" and (
            len(first_seg.split()) < size or _LIST_STOP & set(first_seg.lower().split()[-size:])
        ):
            continue  # "a gruesome, disgusting meal, bizarre mannerisms": no first member
        if shape == "name" and re.search(r"\b(?:of|the|for|of the)\s+\S+$", first_seg):
            continue  # "... of the Environment, Food and Rural Affairs": one long name
        last = _head_item(tail, shape)
        after_last = tail[len(last) :]
        if re.match(rf"\s*(?:,\s*(?!(?:{_CLAUSE_GOES_ON})\b)|{conj} )", after_last) or re.search(
            rf"\b(?:{conj}|or) \S+$", first_seg
        ):
            continue  # "colleges and universities, hospitals and clinics, ...": pairs in a list
        if re.search(rf"\b(?:{_COPULA}|from|between|of)\s+(?:\S+\s+){{0,3}}\S+$", first_seg) or (
            re.match(rf"\s+(?:{_COPULA})\s+(?:the|all|only|both|its|his|her|their)\b", after_last)
        ):
            continue  # "the colours are red, white and blue": the list is the whole of it
        if not last or (shape == "name" and "," in after_last):
            continue  # "Springfield, Illinois and Dayton, Ohio"; "Brian Jean, Leader and MLA, said"
        oxford = match.group(0).startswith(",")
        for i, dropped in enumerate(middle):
            kept = middle[:i] + middle[i + 1 :]
            prefix = ",".join(segments[: len(segments) - len(middle)])
            listed = "".join(f", {m}" for m in kept)
            joiner = f", {conj} " if oxford and kept else f" {conj} "
            out.append((sentence, f"{prefix}{listed}{joiner}{tail}", dropped))
    return out


_COPULA = (
    "is|are|was|were|be|been|being|became|become|remain|remained|ist|sind|war|waren|"
    "est|sont|était|étaient|es|son|era|eran|fue|fueron"
)
_CLAUSE_GOES_ON = "and|but|while|which|who|as|thereby|so|or|whereas|with|when|before|after"


def _same_tail(segment: str, shape: str) -> bool:
    """Whether the first member (the end of `segment`) has the list's shape."""
    last = segment.split()[-1]
    if shape == "name":
        return last[0].isupper() and last.isalpha()
    return last.islower() and last.isalpha() and last not in _LIST_STOP


def _head_item(tail: str, shape: str) -> str:
    """The last member, at the start of `tail`: a name run, or (for words) one to three
    lowercase words that end the sentence or the clause."""
    if shape == "name":
        match = re.match(
            r"(?:[A-Z][\w'’\-]*)(?: (?:of |the |de |la |van |von )?[A-Z][\w'’\-]*)*", tail
        )
        return match.group(0) if match else ""
    match = re.match(r"([a-z][\w\-]*(?: [a-z][\w\-]*){0,2})(?=[.,!?]|$)", tail)
    return match.group(1) if match else ""
