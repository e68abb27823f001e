"""Must-pass kinds that change how a supported sentence is written, not what it says."""

from __future__ import annotations

import functools
import random
import re

from ragjudge.data._gold import GoldRecord
from ragjudge.probe._probe import Skip, Variant
from ragjudge.probe._registry import Pool, generator
from ragjudge.probe._text import (
    candidate_sentences,
    language,
    names,
    sentences,
    word_pattern,
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


def _lower_first(text: str, *, lang: str, context: str) -> str | None:
    """`text` with its first word lowercased when that word is no name (a common opener, or
    a word the context also writes lowercase); kept when the context writes it capitalized
    inside a sentence (a name); None when it cannot tell."""
    first = words(text)[:1]
    if not first:
        return None
    word = first[0]
    if word.islower() or word == "I":
        return text
    second = words(text)[1:2]
    if second and second[0][0].isupper():
        return (
            text
            if re.search(rf"[a-z,] {re.escape(word)} {re.escape(second[0])}", context)
            else None
        )
    lowered = word[0].lower() + word[1:]
    if word.isupper() and len(word) > 1:
        return text if re.search(rf"[a-z,] {re.escape(word)}\b", context) else None
    if lowered in _COMMON_OPENERS.get(lang, set()) or (
        lowered.islower() and word_pattern(lowered).search(context)
    ):
        at = text.index(word)
        return text[:at] + lowered + text[at + len(word) :]
    if re.search(rf"[a-z,] {re.escape(word)}\b", context):
        return text  # written capitalized inside a sentence: a name
    return None


def _upper_first(text: str) -> str:
    at = next((i for i, ch in enumerate(text) if ch.isalpha()), None)
    return text if at is None else text[:at] + text[at].upper() + text[at + 1 :]


def _context_text(row: GoldRecord) -> str:
    return " ".join(" ".join(p.split()) for p in row.contexts)


def _has_word(text: str, vocabulary: set[str]) -> bool:
    return any(w.lower() in vocabulary for w in words(text))


#: Words that tie a clause to another, report speech, or negate: a clause holding one is not
#: simple enough to move a phrase around it.
_TIES = {
    "en": {"that", "which", "who", "whom", "whose", "where", "when", "while", "because",
           "although", "though", "if", "unless", "after", "before", "until", "since", "and",
           "or", "but", "as", "whereas", "whilst", "so", "thus", "therefore", "however", "yet", "versus", "vs", "compared", "mentions", "mentioned", "notes", "noted", "claims",
           "believes", "believed", "thinks", "argues", "argued", "announced", "said", "says", "say", "told", "stated", "reported", "according",
           "claimed", "not", "n't", "never", "no", "nor", "only", "also", "even", "then",
           "respectively", "than"},
    "de": {"dass", "der", "die", "das", "welche", "welcher", "wenn", "als", "weil", "obwohl",
           "und", "oder", "aber", "nicht", "nie", "kein", "keine", "nur", "auch", "laut",
           "sagte"},
    "fr": {"que", "qui", "dont", "où", "quand", "lorsque", "parce", "si", "mais", "et", "ou",
           "ne", "pas", "jamais", "aussi", "seulement", "selon", "dit", "comme", "puis"},
    "es": {"que", "quien", "donde", "cuando", "porque", "si", "pero", "y", "o", "no",
           "nunca", "sólo", "solo", "también", "según", "dijo", "como", "luego"},
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


@functools.lru_cache(maxsize=2048)
def _row_sentences(contexts: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(candidate_sentences(GoldRecord(id="", answer="", contexts=list(contexts))))


def _sentences(row: GoldRecord) -> tuple[str, ...]:
    """The row's candidate sentences, worked out once for all the kinds of this module."""
    return _row_sentences(tuple(row.contexts))


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
    r"at (?:the same time|least|most|first|last|times|this|that)|once (?:again|more)|in a (?:sense|way|word|nutshell)|by (?:contrast|the way|"
    r"then|now)|after (?:all|that|this)|before (?:that|this)|since (?:then|that)|"
    r"en (?:effet|outre|revanche|fait|particulier|général|plus|bref|somme|ce)|"
    r"en (?:efecto|cambio|general|particular|resumen|realidad|concreto|este|esta))\b",
    re.IGNORECASE,
)

_SECOND_CLAUSE = re.compile(
    r"\b(?:but|if|so|whereas|while|although|though|however|mais|si|pero|aunque)\b|[,;]\s*"
    r"(?:and|et|y)\b|\b(?:and|et|y) (?:he|she|it|they|we|I|you|there|il|elle|ils|ellos)\b"
)

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
    context = _context_text(row)
    lang = language(context[:3000])
    if lang == "de":
        return Skip("German word order")
    made: list[tuple[str, str]] = []
    for sentence in _sentences(row):
        if not _plain(sentence) or not re.search(r"[a-z0-9%]{2}\.$", sentence):
            continue
        if "," not in sentence and f" {_BECAUSE[lang]} " not in sentence:
            continue
        for move in (_fronted_last, _because_first):
            after = move(sentence, lang=lang, context=context)
            if after:
                made.append((sentence, after))
    if not made:
        return Skip("no phrase to move in a simple clause")
    before, after = made[rng.randrange(len(made))]
    return Variant(answer=after, before=before, after=after, language=lang)


def _fronted_last(sentence: str, *, lang: str, context: str) -> str | None:
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
    if _negated(main, lang) or re.search(
        r"\w+ing\b|\bto (?!(?:the|a|an|his|her|their|its|this)\b)[a-z]+", main
    ):
        return None  # a gerund or an infinitive offers the moved phrase a second home
    if opener in _PREPOSITIONS and (
        len(words(front)) > 8 or _has_word(front, _TIES[lang] | _SUBJECTS[lang])
    ):
        return None  # the comma does not close a phrase
    if _has_word(main, _PRONOUNS[lang]) or (names(front) and _has_word(main, _POSSESSIVES[lang])):
        return None  # "After John left, he ..." -> "He ... after John left": he is no longer John
    if not (words(main)[0][0].isupper() or words(main)[0].lower() in _COMMON_OPENERS[lang]):
        return None  # "..., president of Magdalen.": the comma closes no fronted phrase
    moved = _lower_first(main, lang=lang, context=context)
    if moved is None:
        return None
    return f"{_upper_first(moved)} {front[0].lower()}{front[1:]}."


def _because_first(sentence: str, *, lang: str, context: str) -> str | None:
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
    if not (words(main)[0][0].isupper() and _lower_first(main, lang=lang, context=context)):
        return None
    if words(main)[0].lower() not in _COMMON_OPENERS[lang] | _SUBJECTS[lang] and not re.search(
        rf"[a-z,] {re.escape(words(main)[0])}\b", context
    ):
        return None  # "Definitely better to know ...": no subject opens the main clause
    if _SECOND_CLAUSE.search(reason) or _has_word(reason, {"and", "et", "y", "und"}):
        return None  # "because Y but Z": Z may not belong to the reason
    if _has_word(main, _PRONOUNS[lang]) and names(reason, skip_first=False):
        return None
    moved = _lower_first(main, lang=lang, context=context)
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
    "created", "developed", "built", "taught", "toured", "recorded", "settled", "founded",
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
    context = _context_text(row)
    lang = language(context[:3000])
    found = sorted(set(_sentences(row)))
    candidate_sentences_set = set(found)
    made: list[tuple[str, str]] = []
    for sentence in found:
        if _plain(sentence) and re.search(r"[a-z0-9%]{2}\.$", sentence):
            after = _split(sentence, lang=lang)
            if after:
                made.append((sentence, after))
    merges = _merges(row, lang=lang, fit=candidate_sentences_set, context=context)
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


def _splittable(first: str, *, lang: str) -> bool:
    return len(words(first)) >= 4 and not _has_word(first, _SCOPE[lang]) and ";" not in first


def _merges(row: GoldRecord, *, lang: str, fit: set[str], context: str) -> list[tuple[str, str]]:
    """`A. B.` -> `A, and B.` / `A; B.` for two sentences that stand next to each other in a
    passage, both fit to answer with, 40 words at most together."""
    out: list[tuple[str, str]] = []
    for passage in row.contexts:
        parts = sentences(" ".join(passage.split()))
        for a, b in zip(parts, parts[1:]):
            if a not in fit or b not in fit or not (_plain(a) and _plain(b)):
                continue
            if (
                not re.search(r"[a-z0-9%]{2}\.$", a)
                or b[-1] not in ".!"
                or re.search("[;:?]", a + b)
            ):
                continue
            if len(words(a)) + len(words(b)) > 40:
                continue
            rest = _lower_first(b, lang=lang, context=context)
            if rest is None:
                continue
            opener = words(b)[0]
            subject = opener.lower() in _COMMON_OPENERS[lang] or rest.startswith(opener)
            if (
                not subject
                or "," in a
                or opener.lower() in _CONNECTORS
                or _has_word(a, _SCOPE[lang])
            ):
                out.append((f"{a} {b}", f"{a[:-1]}; {rest}"))
            else:
                joined = f", {_AND[lang]} " if lang in ("en", "de") else f" {_AND[lang]} "
                out.append((f"{a} {b}", f"{a[:-1]}{joined}{rest}"))
                out.append((f"{a} {b}", f"{a[:-1]}; {rest}"))
    return out
