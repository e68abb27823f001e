"""Atomic statements: one claim each, with its subject named.

`atomic_statements` cuts an answer into sentences and clauses (`segment_statements`), then
further into one claim per piece:

- coordinated clauses ("X was founded in 1995 and has 500 employees", "..., he also made ...",
  "..., and might expand to 1000 by next year"), the second clause taking the first's subject;
- comma splices with a pronoun subject, relative clauses (", which ...", ", who ...", also
  embedded: "The firm, which was founded in 1990, sells shoes") and appositions ("Einstein, a
  German-born physicist, developed ...");
- lists ("sells shoes, bags and hats": one claim per item);
- coordination in English, German, French, Spanish, Italian, Portuguese, Dutch and Russian;
- "grew from X in 2020 to Y now" (what was, and what is);
- clauses of languages written without spaces, at "、" and "，", and Korean clauses at their
  connective endings ("-었고", "-이며").

Pronoun subjects ("He", "It", "They", "His", "the company") are replaced by the subject they
refer to: the previous statement's subject, or the name the question asks about. Hedged and
future claims ("might", "plans to", "by next year") stay statements of their own, so the
verdicts can call them unsure. Each statement keeps the character span of the answer it came
from, for labels that point into the answer.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from ragjudge.offline.claims import abstention, change
from ragjudge.offline.claims import answer as answer_claim
from ragjudge.offline.text import STOPWORDS, is_cjk, is_filler, is_hangul, segment_statements

__all__ = [
    "DISPUTED_RE",
    "HEDGE_RE",
    "SPECULATIVE_RE",
    "Statement",
    "atomic_statements",
    "is_hedged",
]


class Statement(NamedTuple):
    """One atomic statement.

    Attributes:
        text: The claim as judged (pronoun subject resolved, clause subject supplied).
        start: Start offset of the answer text it came from.
        end: End offset of the answer text it came from.
    """

    text: str
    start: int
    end: int


#: German "plant" (plans) before what a plan takes (an article, a number, "zu", "bis", ...);
#: English "plant" (a factory) stays a noun.
_DE_PLANT = (
    r"plant(?=,| \d| (?:den|die|das|dem|der|ein|eine|einen|einem|zu|für|bis|im|noch|bereits|"
    r"nun|jetzt|ab)\b)"
)

HEDGE_RE = re.compile(
    r"\b(?:(?-i:might|may|could|would)|possibly|perhaps|maybe|probably|likely|unlikely|"
    r"expected to|plans? to|planning to|planned to|intends? to|aims? to|hopes? to|going to|"
    r"appears? to|seems? to|(?-i:will|shall)|"
    r"next (?:year|month|week|decade|quarter)|in the future|by \d{4}|soon|"
    r"könnte|vielleicht|wahrscheinlich|wird|" + _DE_PLANT + r"|nächstes jahr|pourrait|peut-être|"
    r"probablement|prévoit|l'année prochaine|podría|quizás|quizá|probablemente|planea|"
    r"el próximo año)\b|かもしれ|予定|来年|可能|计划|明年|(?<!已)将",  # "已将": has (done)
    re.IGNORECASE,
)

#: What makes a context sentence speculative: it says a thing is planned, proposed or expected,
#: not that it happened. Epistemic "may", "could", "likely" are left out: explanatory contexts
#: use them for what their readers take as facts (measured on lfqa: forcing those statements
#: unsure cost 3 points of balanced accuracy), and so are "will" and "would".
SPECULATIVE_RE = re.compile(
    r"\b(?:expected to|plans? to|planning to|planned to|intends? to|aims? to|hopes? to|"
    r"going to|proposed|proposes|considering|considers|prévoit|planea|beabsichtigt|"
    + _DE_PLANT
    + r"|"
    r"rumou?r(?:s|ed)?|in talks|negotiating|weighing (?:whether|an? |the possibility)|mulling|"
    r"expects? (?:[\w'&.-]+ ){1,4}to|"
    r"forecasts? to|forecasted to|predicted to|projected to|scheduled to|scheduled for|"
    r"(?:is|are|was|were) set to|"
    r"postponed|postpones|deferred|delayed|rescheduled|pushed back|verschoben|reporté|reportée|"
    r"aplazado|aplazada|pospuesto|pospuesta)\b|予定|计划|計画|延期|検討|考虑|考慮|拟|擬",
    re.IGNORECASE,
)

#: What makes a context sentence report a thing as denied, doubted or unlikely: a statement
#: saying the thing plainly is not supported by it ("the law will pass" against "it is unlikely
#: that the law will pass").
DISPUTED_RE = re.compile(
    r"\b(?:denied|denies|deny|denying|unlikely|doubtful|no evidence|refuted|disputed|"
    r"debunked|dismissed (?:the )?(?:claim|report|rumou?r)s?|rejected (?:the )?(?:claim|report)s?|"
    r"bestritt|bestreitet|dementiert|unwahrscheinlich|nié|démenti|improbable|negó|niega|"
    r"desmintió)\b",
    re.IGNORECASE,
)

_PRONOUNS = {
    "he": "", "she": "", "it": "", "they": "", "this": "", "his": "'s", "her": "'s",
    "its": "'s", "their": "'s", "er": "", "sie": "", "es": "", "il": "", "elle": "",
    "ils": "", "elles": "", "él": "", "ella": "", "ellos": "",
    "он": "", "она": "", "оно": "", "они": "", "lui": "", "lei": "", "ele": "", "ela": "",
    "hij": "", "zij": "", "het": "",
}  # fmt: skip
#: Possessives that open a clause after a comma where English would say "and its"
#: ("открыт в 1932 году, его длина 500 метров"); left as they are in the statement.
_OPENING_POSSESSIVES = frozenset({"его", "её", "ее", "их"})
_AUX = frozenset(
    """is are was were has have had will would can could may might must shall should does did
    do also then later still became becomes become remains remained plans planned intends
    aims hopes employs employed ist sind war waren hat haben hatte wird wurde kann könnte est
    sont était a ont avait sera peut pourrait es son era fue tiene tienen tenía puede podría
    será compte emploie possède cuenta emplea posee beschäftigt zählt besitzt
    был была было были является являются имеет имеют есть стал стала è ha hanno era erano fu
    sono é tem têm foi foram heeft hebben werd werden""".split()
)
_IRREGULAR_PAST = frozenset(
    """won made wrote became went took gave found led began left built held ran sold bought
    grew fell rose brought kept met paid put said saw sent set spent stood taught told thought
    understood wore broke chose drove ate flew forgot froze hid knew lost rode rang sang sank
    spoke stole swam threw woke hit cut shut hurt cost quit spread struck fought caught sought
    swept slept felt meant dealt burst""".split()
)
#: Verbs in -s that are rarely nouns: "... and makes electric cars" is a clause of its own.
_S_VERBS = frozenset(
    """makes produces operates owns sells provides includes contains manufactures develops
    builds requires describes serves represents receives creates publishes generates attracts
    offers""".split()
)
#: A verb of a language whose verbs have no English ending, known by what follows it: a number
#: or an article ("..., pèse 14 kg et coûte 499 euros", "und bietet einen Service").
_FOREIGN_VERB = (
    r"[a-zà-ÿß]\w*\s+(?:\d|(?:le|la|les|un|une|des|du|el|los|las|una|unos|der|das|den|dem|ein|"
    r"eine|einen|einem|il|lo|gli|uno|os|um|uma)\s)"
)
_COORD_RE = re.compile(
    r"(?:,\s*|\s+)(?:and|but|und|aber|et|mais|y|pero|e|ma|mas|en|maar|и|но|а)\s+"
    r"(?=(?:\w+\s+)?\w)|,\s+(?=(?:he|she|it|they|we|er|sie|il|elle|ils|él|ella|он|она|они|"
    r"его|её|ее|их)\s+\w)"
    r"|,\s+(?=[a-z]\w*(?:ed|s)\s+\w)"
    r"|,\s+(?=(?:hat|ist|war|wird|hatte|est|était|tiene|tenía|es|fue|ha|è|tem|é)\s+\w)"
    rf"|,\s+(?={_FOREIGN_VERB})",
    re.IGNORECASE,
)
_FOREIGN_VERB_RE = re.compile(rf"(?![a-z]+(?:ing|ly)\s){_FOREIGN_VERB}")
_LATER_AND_RE = re.compile(r"\s(?:and|und|et|y|e|и)\s", re.IGNORECASE)
_DETERMINER_NEXT_RE = re.compile(
    r"[a-z]\w*s\s+(?:the|a|an|his|her|its|their|many|several|more|over|about|around|nearly|"
    r"almost|\d+)\b"
    # "flows through", "runs along": a verb in -s before a preposition of place few nouns take
    r"|[a-z]\w*[^\Ws]s\s+(?:through|into|across|along|between|towards?)\b"
    # "focuses on", "runs for", "ends at": verbs in -s that few plural nouns share, before the
    # preposition they take
    r"|(?:focuses|relies|depends|speciali[sz]es|concentrates|lies|belongs|consists|stretches|"
    r"remains|ends|runs|borders|competes|lives|works|invests|participates|operates|serves)\s+"
    r"(?:on|at|for|to|from|with|in|into|as|of|until|near)\b"
)
_RELATIVE_RE = re.compile(r",\s+(?:which|who|whose|where|der|die|das|qui|que|quien|que)\s+", re.I)
_APPOSITION_RE = re.compile(
    r"^(?P<subj>(?:[A-Z][\w'’.-]*\s+){0,3}[A-Z][\w'’.-]*),\s+"
    r"(?P<np>(?:a|an|the)\s+[^,]{3,80}(?:,\s+(?:a|an|the)\s+[^,]{3,80})?),\s+(?P<rest>.+)$"
)
#: A name, then what it is, opening the sentence: "The lead author, Dr. Anjali Mehta, is ...".
_NAMED_APPOSITION_RE = re.compile(
    r"^(?P<np>(?:The|A|An)\s+[a-z][^,]{2,60}),\s+"
    r"(?P<name>(?:[A-Z][\w'’.-]*\s+){1,3}[A-Z][\w'’.-]*),\s+(?P<rest>[a-z].+)$"
)
#: A name, then what it is, closing the sentence: "... was led by Halima Yusuf, a geologist".
_TRAILING_APPOSITION_RE = re.compile(
    r"^(?P<head>.{8,}?\b(?P<name>(?:[A-Z][\w'’.-]*\s+){0,3}[A-Z][\w'’-]*)),\s+"
    r"(?P<np>(?:a|an|the)\s+[a-z][^,;]{2,80}?)(?P<end>[.!?]?)$"
)
#: A verb inside what follows the name: then it is a clause, not what the name is.
_NP_VERB_RE = re.compile(
    r"\b(?:is|are|was|were|has|have|had|will|would|can|could|may|might|says|said|\w+ed)\b"
)
# "The drug, approved in 2019, may help": the participle's phrase is a claim of its own.
_IRREGULAR_PARTICIPLES = "led|built|made|born|written|known|held|run|owned|sold"
_PARTICIPIAL_APPOSITION_RE = re.compile(
    r"^(?P<subj>[^,]{2,60}),\s+(?P<phrase>(?:\w+(?:ed|ado|ada|ados|adas|ido|ida|idos|idas|ée|é|"
    rf"és|ées|ato|ata)|{_IRREGULAR_PARTICIPLES})"
    r"\s+(?:by|in|on|at|from|for|as|en|por|par|à|dans|da|nel|nella|em)\b[^,]{2,80}),\s+"
    r"(?P<rest>[a-zà-ÿ].*)$"
)
_ENGLISH_PARTICIPLE_RE = re.compile(
    rf"(?:\w+ed|{_IRREGULAR_PARTICIPLES})\s+(?:by|in|on|at|from|for|as)\b"
)
#: A year written in digits: a phrase with one speaks of the past ("was approved in 2019").
_YEAR_RE = re.compile(r"\b(?:1[5-9]|20)\d\d\b")
_FROM_TO_RE = re.compile(
    r"^(?P<pre>.*?)\b(?P<verb>(?:has |have |had )?(?:grown|grew|increased|rose|risen|fallen|fell|"
    r"dropped|declined|gone|went|expanded|shrunk|shrank|climbed|jumped|changed))\s+from\s+"
    r"(?P<x>.+?)\s+to\s+(?P<y>.+?)$",
    re.IGNORECASE,
)
_PARTICIPLE_RE = re.compile(
    r",\s+(?=(?:\w+ly\s+)?(?:known|regarded|considered|acknowledged|recognized|recognised|"
    r"described|called|named|seen|credited|praised|remembered|celebrated)\b)",
    re.IGNORECASE,
)
_COPULA_RELATIVE_RE = re.compile(
    r"^(?P<subj>[^,]{2,60}?)\s+(?P<cop>is|was|are|were)\s+(?P<np>(?:a|an|the)\s+[^,]{2,80}?)"
    r"\s+(?:who|that)\s+(?P<rel>[^,]{3,160})$"
)
_EMBEDDED_RELATIVE_RE = re.compile(
    r"^(?P<head>[^,]{2,60}?),\s+(?:which|who)\s+(?P<rel>[^,]{3,120}),\s+(?P<rest>[a-z].*)$"
)
_LIST_AND_RE = re.compile(r",?\s+(?:and|und|et|y|e|и)\s+(?=\S)(?!.*\s(?:and|und|et|y|e|и)\s)")
_MAX_ITEM_WORDS = 2  # longer pieces are more often clauses or phrases than items (lfqa: -1 point)
#: Where CJK clauses part: a comma not between digits ("300,000,000円" is one number), and
#: the Japanese comma "、" only after a verb's joining form (`_JA_JOINING`).
_CJK_CLAUSE_RE = re.compile(r"(?<!\d)[，,]|[，,](?!\d)|、")
_ZH_SUBORDINATORS = ("因为", "由于", "虽然", "尽管", "如果", "为了", "随着", "除了")
#: Kana that end a Japanese verb or adjective joining the next clause ("設立され、", "増え、"),
#: and the endings that look like one but end a phrase ("改修工事のため、").
_JA_JOINING = frozenset("しきちびみりいえけせてねべめれげが")
_JA_PHRASE_ENDS = ("ため", "ので", "から", "には", "では", "とは", "ては")
# Korean joins clauses with a connective ending: "-고" after a past or future marker ("설립되었고"),
# "-며" after a copula or "하" ("이며", "하며").
_KOREAN_CLAUSE_RE = re.compile(r"(?<=[었았였했됐겠]고)\s+|(?<=[이하]며)\s+")
_MIN_WORDS = 3
_MIN_CJK_CHARS = 5
_WORD_RE = re.compile(r"[^\W_]+", re.UNICODE)


def is_hedged(text: str) -> bool:
    """Whether a claim is hedged, speculative or about the future.

    Args:
        text: A statement.

    Returns:
        True when it says "might", "may", "plans to", "by next year", "かもしれ", ...
    """
    return bool(HEDGE_RE.search(text))


def _words(text: str) -> list[str]:
    return _WORD_RE.findall(text)


def _is_verbish(word: str) -> bool:
    w = word.lower()
    if w in _AUX or w in _IRREGULAR_PAST or w in _S_VERBS:
        return True
    # "died", "used": four letters will do, but not "need", "seed", "shed"
    return w.endswith("ed") and (len(w) > 4 or (len(w) == 4 and not w.endswith("eed")))


def _verb_at(word: str, after: str) -> bool:
    """Whether a word before `after` is verb-like: French "a" (has) only before a participle
    or a number, never the English article ("and a good fit")."""
    if word.lower() == "a":
        return bool(_FRENCH_HAS_NEXT_RE.match(after))
    return _is_verbish(word)


def _opens_with_verb(text: str, *, s_verbs: bool = True) -> bool:
    words = text.split(maxsplit=2)
    if not words:
        return False
    first = words[0].strip(",")
    if not s_verbs and first.lower() in _S_VERBS:
        return False
    return _verb_at(first, words[1] if len(words) > 1 else "")


def _subject(clause: str) -> str:
    """The words before the clause's first verb-like word ("The company" of "The company was")."""
    words = list(re.finditer(r"\S+", clause))
    for i, match in enumerate(words):
        if i == 0:
            continue
        word = match.group(0).strip(",;:.!?")
        after = words[i + 1].group(0) if i + 1 < len(words) else ""
        # "The park covers 50 hectares": a verb in -s
        if _verb_at(word, after) or (i < 4 and _DETERMINER_NEXT_RE.match(clause, match.start())):
            # "The company, which was founded ...": the subject is "The company"
            return _TRAILING_RELATIVE_RE.sub("", clause[: words[i - 1].end()].strip())
    # "The drug reduces fever": a lower-case word in -s after "the" and a noun
    if len(words) > 3 and words[0].group(0) in ("The", "A", "An"):
        if _S_VERB_RE.fullmatch(words[2].group(0)) and words[1].group(0).isalpha():
            return clause[: words[1].end()].strip()
    return ""


_S_VERB_RE = re.compile(r"[a-z]{3,}[^su]s")


_TRAILING_RELATIVE_RE = re.compile(r"(?:,\s*|\s+)(?:which|who|that|whose)$", re.IGNORECASE)


#: What follows French "a" (has) where English "a" is an article: a participle or a number
#: ("Marie a gagné", "il a 30 ans").
_FRENCH_HAS_NEXT_RE = re.compile(
    r"(?:\w*(?:é|ée|és|ées)|eu|fait|dit|pris|mis|écrit|construit|ouvert|perdu|vendu|connu|reçu|"
    r"vécu|un|une|des|du|\d\S*)$"
)


_ARTICLE_RE = re.compile(r"(?:a|an)\s", re.IGNORECASE)
_INNER_ARTICLE_RE = re.compile(r"(?<=\S)\s(?:a|an)\s")
_FRACTION_NEXT_RE = re.compile(r"\s*an?\s+(?:half|quarter)\b", re.IGNORECASE)


def _split_coordination(text: str) -> list[str]:
    """Coordinated clauses, the later ones given the first one's subject when they lack one."""
    pieces = [text]
    out: list[str] = []
    for piece in pieces:
        cursor = 0
        parts: list[str] = []
        for match in _COORD_RE.finditer(piece):
            right = piece[match.end() :]
            first = right.split(maxsplit=1)[0].strip(",") if right.strip() else ""
            pronoun = first.lower() in _PRONOUNS or first.lower() in _OPENING_POSSESSIVES
            left = piece[cursor : match.start()]
            if len(_words(left)) < _MIN_WORDS or len(_words(right)) < 2:
                continue
            hedge = bool(HEDGE_RE.match(right))  # "... and plans to expand", "und plant, ..."
            # "sees him as a good player and a leader": two objects of one verb
            objects = (
                bool(_ARTICLE_RE.match(right))
                and bool(_INNER_ARTICLE_RE.search(left))
                and not _ARTICLE_ITEM_RE.search(left)  # "X, a library and a pool": a list
            )
            if not (
                pronoun
                or hedge
                or objects
                or _opens_with_verb(right)
                or _DETERMINER_NEXT_RE.match(right)
                or _foreign_verb(right)
                or (match.group(0).lstrip()[:1] == "," and _own_subject(right))
            ):
                continue
            if _FRACTION_NEXT_RE.match(right):
                continue  # "four and a half billion": one number
            if match.group(0).strip() == "," and not pronoun and not _LATER_AND_RE.search(right):
                continue  # "A, B and C" is a list of clauses; a lone comma joins much else
            if match.group(0).strip() == "," and _is_opening_phrase(left.rsplit(":", 1)[-1]):
                # a phrase put before the clause, no claim of its own: split off, it would take
                # its condition or hedge from the clause ("Excluding these items, earnings
                # rose ..."; "Maybe, it is ...")
                continue
            parts.append(left)
            cursor = match.end()
        parts.append(piece[cursor:])
        subject = _subject(parts[0])
        article = _INNER_ARTICLE_RE.search(parts[0])
        for i, part in enumerate(parts):
            part = part.strip().rstrip(",")
            if i > 0 and article and _ARTICLE_RE.match(part) and not _has_verb(part):
                out.append(f"{parts[0][: article.start()].strip()} {part}")
                continue
            if (
                i > 0
                and subject
                and (
                    _opens_with_verb(part)
                    or HEDGE_RE.match(part)
                    or _DETERMINER_NEXT_RE.match(part)
                    or _foreign_verb(part)
                )
            ):
                part = f"{subject} {part}"
            out.append(part)
    return out


#: Words that open a phrase put before a clause that qualifies it (a condition, a hedge, a
#: source), beside `_FRONTING`'s prepositions.
_QUALIFYING_OPENERS = frozenset(
    """if unless except excluding including apart provided given based according maybe perhaps
    probably possibly likely reportedly allegedly apparently presumably""".split()
)
#: The most words such a phrase has.
_OPENING_PHRASE_WORDS = 8


def _is_opening_phrase(text: str) -> bool:
    """Whether a text is a phrase put before a clause ("Excluding these items", "Based on the
    passage", "Maybe", "In 2020"): it opens with a preposition, a condition, a hedge or a
    source, and is short."""
    words = _words(text)
    return 0 < len(words) <= _OPENING_PHRASE_WORDS and words[0].lower() in _OPENERS


def _foreign_verb(text: str) -> bool:
    """Whether a clause opens with a verb known by what follows it (`_FOREIGN_VERB_RE`)."""
    first = text.split(maxsplit=1)[0].lower() if text.strip() else ""
    return first not in STOPWORDS and bool(_FOREIGN_VERB_RE.match(text))


_SUBJECT_OPENERS = frozenset("the a an his her its their our my".split())
_NOT_SUBJECTS = frozenset("there here it this that which who what when where".split())


def _own_subject(clause: str) -> bool:
    """Whether a clause after ", and" has a subject of its own: ", and Berlin is the capital"."""
    subject = _subject(clause)
    words = _words(subject)
    if not words or len(words) > 3 or subject.lower() in _DETERMINERS:
        return False
    if not re.fullmatch(r"[\w'’ -]+", subject) or words[0].lower() in _NOT_SUBJECTS:
        return False
    if not (words[0][0].isupper() or words[0].lower() in _SUBJECT_OPENERS):
        return False
    return _opens_with_verb(clause[len(subject) :].strip())  # "Berlin is", not "Swiss, is"


def _has_verb(phrase: str) -> bool:
    """Whether a phrase opening with an article goes on with a verb: "a storm hit the coast" is
    a clause, "a leader" an object."""
    for word in (w.strip(",.;").lower() for w in phrase.split()[2:5]):
        if word in ("that", "which", "who", "whose", "where"):
            return False  # "a house that was built": the verb is the relative clause's
        if _is_verbish(word):
            return True
    return False


def _split_participle(text: str) -> list[str]:
    """Split off a participial phrase: "X was a physicist, widely acknowledged to be ..."."""
    match = _PARTICIPLE_RE.search(text)
    if not match:
        return [text]
    left, right = text[: match.start()], text[match.end() :]
    subject = _subject(left)
    if not subject or len(_words(left)) < _MIN_WORDS or len(_words(right)) < 3:
        return [text]
    return [left, f"{subject} was {right}"]


#: A participial phrase put before the subject: "Born in 1950 in Lagos, she studied law" says
#: that she was born in 1950 in Lagos, and that she studied law.
_FRONTED_PARTICIPLE_RE = re.compile(
    r"(?P<verb>Born|Founded|Established|Built|Raised|Educated|Created|Designed|Released|"
    r"Published|Elected|Appointed|Named|Opened|Launched|Formed|Located|Based|Situated|"
    r"Headquartered)\s+(?P<phrase>(?:in|at|by|near)\s[^,]{3,80}),\s+(?P<rest>\S.*)",
    re.DOTALL,
)
_STATIVE_PARTICIPLES = frozenset({"located", "based", "situated", "headquartered"})
#: A subordinate clause before the main one: "Although the plan was approved in March,
#: construction has not started" says both.
_SUBORDINATE_RE = re.compile(
    r"(?i:although|though|even though|whereas|after|because|since|once)\s+(?P<sub>[^,]{8,160}),"
    r"\s+(?P<main>\S.*)",
    re.DOTALL,
)


def _split_fronted(text: str) -> list[str]:
    """Split a participial phrase or a subordinate clause put before the main clause into a
    claim of its own, when both sides have a subject of their own (the participle takes the
    main clause's)."""
    participle = _FRONTED_PARTICIPLE_RE.match(text)
    if participle:
        rest = participle.group("rest")
        subject = _subject(rest)
        if subject and len(_words(subject)) <= 4:
            verb = participle.group("verb").lower()
            copula = "is" if verb in _STATIVE_PARTICIPLES else "was"
            claim = f"{subject} {copula} {verb} {participle.group('phrase')}"
            return [_capitalized(claim), _capitalized(rest)]
    clause = _SUBORDINATE_RE.match(text)
    if clause:
        sub, main = clause.group("sub"), clause.group("main")
        if _clause_has_subject(sub) and _clause_has_subject(main):
            return [sub, main]
    return [text]


def _capitalized(text: str) -> str:
    return text[:1].upper() + text[1:]


def _clause_has_subject(clause: str) -> bool:
    """Whether a clause opens with a subject and goes on with a verb ("the plan was approved",
    "construction has not started", "she left"), not a bare phrase ("the war", "asked")."""
    subject = _subject(clause)
    words = _words(subject)
    if not words or len(words) > 5 or words[0].lower() in ("there", "here", "it", "this"):
        return False  # "it is possible for water to boil": no subject to claim anything of
    rest = clause[len(subject) :].strip()
    # "the turbines never ran"; "World War II" has no verb (German "War" is one: lower case)
    return rest[:1].islower() and any(_is_verbish(w.strip(",.;:")) for w in rest.split()[:3])


def _split_relative(text: str) -> list[str]:
    copula = _COPULA_RELATIVE_RE.match(text)
    if copula and (
        _opens_with_verb(copula.group("rel")) or _DETERMINER_NEXT_RE.match(copula.group("rel"))
    ):
        # "Curie was a physicist who won two Nobel Prizes": who won them is Curie
        subject = copula.group("subj")
        if len(_words(subject)) <= 6 and subject.lower() not in _DETERMINERS:
            return [
                f"{subject} {copula.group('cop')} {copula.group('np')}",
                f"{subject} {copula.group('rel')}",
            ]
    embedded = _EMBEDDED_RELATIVE_RE.match(text)
    if embedded and len(_words(embedded.group("head"))) <= 6:
        head = embedded.group("head").strip()
        return [f"{head} {embedded.group('rest')}", f"{head} {embedded.group('rel').strip()}"]
    match = _RELATIVE_RE.search(text)
    if not match:
        return [text]
    left, right = text[: match.start()], text[match.end() :]
    short = len(_words(left)) <= 4 and _subject(text) == left.strip()
    if short and len(_words(right)) >= 2 and _opens_with_verb(right):
        return [f"{left.strip()} {right}"]  # "The company, which was founded in 1990"
    if len(_words(left)) < _MIN_WORDS or len(_words(right)) < 2:
        return [text]
    names = re.findall(r"(?:[A-Z][\w'’-]*\s+)*[A-Z][\w'’-]*", left)
    head = names[-1] if names and left.rstrip().endswith(names[-1]) else " ".join(_words(left)[-2:])
    return [left, f"{head} {right}"]


#: A list item after a comma that opens with an article ("..., a library").
_ARTICLE_ITEM_RE = re.compile(r",\s+(?:a|an|the)\s+[^,]+$", re.IGNORECASE)
#: Where a list's first item starts when the others open with an article: after the last
#: of these words ("funding for | two new schools, a library and a pool").
_ITEM_OPENERS = frozenset("for of with in on at to from by including".split())
_ITEM_ARTICLE_RE = re.compile(r"(?:a|an|the)\s+", re.IGNORECASE)
_ARTICLES = frozenset({"a", "an", "the"})


def _split_article_list(first: str, items: list[str]) -> list[str]:
    """The claims of a list whose later items open with an article ("a library"); [] when
    its first item cannot be told from what comes before it."""
    if any(
        len(_words(_ITEM_ARTICLE_RE.sub("", item, count=1))) > _MAX_ITEM_WORDS for item in items
    ):
        return []
    words = first.split()
    lowered = [w.lower() for w in words]
    # the item starts after its opener, or at its own article
    cut = max(
        (
            i - 1 if w in _ARTICLES else i
            for i, w in enumerate(lowered)
            if w in _ITEM_OPENERS or w in _ARTICLES
        ),
        default=-1,
    )
    head, item = words[: cut + 1], words[cut + 1 :]
    if cut < 1 or not 1 <= len(item) <= _MAX_ITEM_WORDS + 1:
        return []
    prefix = " ".join(head)
    return [f"{prefix} {' '.join(item)}", *(f"{prefix} {it}" for it in items)]


def _split_list(text: str) -> list[str]:
    """ "X sells shoes, bags and hats" -> one claim per item: "X sells shoes", "X sells bags", ...

    The items after the first are the short pieces between the commas and after the last
    "and"; the first item is as many words before the first comma as the shortest of them
    (more while they are capitalized: "New York"). Items with a verb are clauses, not items.
    """
    body = text.rstrip(" .!?")
    match = _LIST_AND_RE.search(body)
    if not match or "," not in body[: match.start()]:
        return [text]
    first, *middle = [p.strip() for p in body[: match.start()].split(",")]
    items = [*middle, body[match.end() :].strip()]
    if all(_ITEM_ARTICLE_RE.match(item) for item in items) and not any(
        _is_verbish(w) for item in items for w in _words(item)[1:]
    ):
        return _split_article_list(first, items) or [text]
    sizes = [len(_words(item)) for item in items]
    if not items or min(sizes) < 1 or max(sizes) > _MAX_ITEM_WORDS:
        return [text]
    if any(_is_verbish(w) or w.lower() in _PRONOUNS for item in items for w in _words(item)):
        return [text]
    words = first.split()
    n = min(sizes)
    while n < len(words) and words[-n][:1].isupper() and words[-n - 1][:1].isupper():
        n += 1
    prefix = " ".join(words[:-n])
    if len(_words(prefix)) < 2:
        return [text]
    return [f"{prefix} {item}" for item in (" ".join(words[-n:]), *items)]


def _split_apposition(text: str) -> list[str]:
    match = _APPOSITION_RE.match(text)
    if match:
        subj = match.group("subj")
        return [
            *_split_apposition(f"{subj} {match.group('rest')}"),
            f"{subj} is {match.group('np')}",
        ]
    match = _NAMED_APPOSITION_RE.match(text)
    if match and _opens_with_verb(match.group("rest")):
        name = match.group("name")
        return [
            *_split_apposition(f"{name} {match.group('rest')}"),
            f"{name} is {_lower_article(match.group('np'))}",
        ]
    match = _TRAILING_APPOSITION_RE.match(text)
    if match and not _NP_VERB_RE.search(match.group("np")):
        name, end = match.group("name"), match.group("end")
        return [f"{match.group('head')}{end}", f"{name} is {match.group('np')}{end}"]
    match = _PARTICIPIAL_APPOSITION_RE.match(text)
    if match and len(_words(match.group("subj"))) <= 6:
        subj, phrase = match.group("subj"), match.group("phrase")
        copula = ""
        if _ENGLISH_PARTICIPLE_RE.match(phrase):  # "approved in 2019", "led by Elon Musk"
            copula = "was " if _YEAR_RE.search(phrase) else "is "
        return [f"{subj} {match.group('rest')}", f"{subj} {copula}{phrase}"]
    return [text]


def _lower_article(phrase: str) -> str:
    first, _, rest = phrase.partition(" ")
    return f"{first.lower()} {rest}"


def _split_from_to(text: str) -> list[str]:
    match = _FROM_TO_RE.match(text)
    if not match or change.conflict(text):
        return [text]  # "fell from 70 to 160": split, the figures would lose the verb they deny
    pre = match.group("pre").strip()
    x, y = match.group("x").strip(), match.group("y").strip(" .")
    unit = re.match(r"[\d.,]+\s+([^\W\d_]+)", x)
    if unit and re.fullmatch(r"[\d.,]+(?:\s+\S+)?", y) and unit.group(1) not in y:
        number, _, rest = y.partition(" ")
        y = f"{number} {unit.group(1)} {rest}".strip()
    subject = re.sub(r"\s+(?:has|have|had)$", "", pre)
    # "grew from 100 employees to 500": had / has; "revenue grew from $10 million": was / is
    counted = re.match(r"[\d.,]+\s+(?:hundred\s+|thousand\s+|million\s+|billion\s+)?([^\W\d_]+)", x)
    owned = counted is not None and counted.group(1).lower() not in STOPWORDS
    past, present = ("had", "has") if owned else ("was", "is")
    then = past if _YEAR_RE.search(y) else present
    return [f"{subject} {past} {x}".strip(), f"{subject} {then} {y}".strip()]


def _split_cjk(text: str) -> list[str]:
    japanese = _has_kana(text)
    pieces, cursor = [], 0
    for m in _CJK_CLAUSE_RE.finditer(text):
        before = text[cursor : m.start()].rstrip()
        if m.group() == "、" and not (
            japanese and before[-1:] in _JA_JOINING and not before.endswith(_JA_PHRASE_ENDS)
        ):
            continue  # a Chinese list's comma, or a Japanese comma after a phrase
        pieces.append(before.strip())
        cursor = m.end()
    pieces.append(text[cursor:].strip())
    # "因为维修，体育馆关闭": a clause of cause, condition or concession belongs to the next one
    for i in range(len(pieces) - 2, -1, -1):
        if pieces[i].startswith(_ZH_SUBORDINATORS):
            pieces[i : i + 2] = [pieces[i] + "，" + pieces[i + 1]]
    if len(pieces) < 2:
        return [text]
    out: list[str] = []
    for piece in pieces:
        chars = sum(1 for c in piece if is_cjk(c) or c.isdigit())
        if out and (chars < _MIN_CJK_CHARS or sum(1 for c in out[-1] if is_cjk(c)) < 2):
            out[-1] = out[-1] + "、" + piece
        else:
            out.append(piece)
    if len(out) > 1 and sum(1 for c in out[-1] if is_cjk(c) or c.isdigit()) < _MIN_CJK_CHARS:
        out[-2] = out[-2] + "、" + out.pop()
    return _carry_cjk_subject(out)


#: Where a Chinese clause's predicate starts ("该公司|成立于1995年"): the text before it is the
#: subject that later clauses opening with one of these leave out ("拥有500名员工").
_ZH_PREDICATE_RE = re.compile(
    r"是|拥有|有|成立|创立|设立|位于|建于|计划|将|约有|共有|目前|雇用|雇佣|担任|出任|负责|"
    r"曾|在|于|以前|此前|毕业|出生|生于"
)
#: A CJK clause opening with a personal pronoun ("彼は", "他"): its subject is the last one named.
_CJK_PRONOUN_RE = re.compile(r"^(?:彼女|彼ら|彼|他们|她们|他|她|它)")
_JA_TOPIC_RE = re.compile(r"^(.{1,12}?)は")


def _has_kana(text: str) -> bool:
    """Whether a text has hiragana or katakana: Japanese, not Chinese."""
    return any("\u3040" <= c <= "\u30ff" for c in text)


def _ja_topic(clause: str) -> re.Match[str] | None:
    """The topic of a Japanese clause, up to and with its "は" (the topic alone: group 1)."""
    topic = _JA_TOPIC_RE.match(clause)
    return topic if topic and _has_kana(clause) else None


def _zh_subject(clause: str) -> str:
    """The Chinese words before a clause's predicate ("该公司" of "该公司成立于1995年"), or ""."""
    predicate = _ZH_PREDICATE_RE.search(clause)
    if (
        predicate
        and 2 <= predicate.start() <= 8
        and all(is_cjk(c) for c in clause[: predicate.start()])
    ):
        return clause[: predicate.start()]
    return ""


def _cjk_subject(clause: str) -> str:
    """The subject a CJK clause names: the topic before "は", or the Chinese words before the
    predicate; "" when it opens with a pronoun or names none."""
    if _CJK_PRONOUN_RE.match(clause):
        return ""
    topic = _ja_topic(clause)
    return topic.group(1) if topic else _zh_subject(clause)


def _carry_cjk_subject(clauses: list[str]) -> list[str]:
    """Give later clauses the first one's subject: the topic before "は" in Japanese, the
    words before the predicate in Chinese ("该公司成立于1995年，拥有500名员工" ->
    "该公司拥有500名员工")."""
    if len(clauses) < 2:
        return clauses
    first = clauses[0]
    topic = _ja_topic(first)
    if topic:
        head = topic.group(0)
        return [first] + [c if "は" in c else head + c for c in clauses[1:]]
    head = _zh_subject(first)
    if head:
        return [first] + [head + c if _ZH_PREDICATE_RE.match(c) else c for c in clauses[1:]]
    return clauses


def _antecedent(question: str) -> str:
    """The name a question asks about ("Albert Einstein" of "Who was Albert Einstein?")."""
    names = re.findall(r"(?:[A-Z][\w'’-]+\s+)*[A-Z][\w'’-]+", question)
    names = [n for n in names if n.split()[0].lower() not in _QUESTION_WORDS]
    return max(names, key=len) if names else ""


_REFERENCE_HEADS = """company firm business corporation organization organisation group band
team club city town country village region state film movie book novel album song series show
university school college museum hospital church river lake mountain island bridge building
tower stadium player singer actor actress author writer artist president leader party brand
product app drug vaccine device ship game""".split()
_REFERENCE_RE = re.compile(
    rf"(?i:the|this|that)\s+(?P<head>{'|'.join(_REFERENCE_HEADS)})\b(?P<pos>['’]s)?"
)
_PLURAL_PRONOUN_RE = re.compile(r"(?i:they|their|ils|elles|ellos|ellas|они|их)\b")
_NAME_PAIR_RE = re.compile(
    r"(?:[A-Z][\w'’.-]*\s+)*[A-Z][\w'’.-]*\s+(?:and|und|et|y|e|и)\s+(?:[A-Z][\w'’.-]*\s+)*"
    r"[A-Z][\w'’.-]*"
)
_DETERMINERS = frozenset("the this that these those a an".split())
_RIVAL_RE = re.compile(r"\b(?:the|a|an|its|his|her|their)\s|\s[A-Z]")
_NAME_RE = re.compile(r"(?:[A-Z][\w'’.&-]*\s+)*[A-Z][\w'’.&-]*")

_QUESTION_WORDS = frozenset(
    "who what when where why how which whom whose is are was were do does did can could tell "
    "describe explain name list give".split()
)


#: Words that open a phrase put before the subject: "In 2020 she ...", "After the war the
#: company ...", "Im Mai kamen ...".
_FRONTING = frozenset(
    """in on at after before during since until by for from with without under despite following
    through throughout within last dans après avant depuis pendant lors en tras después antes
    durante desde""".split()
)
#: What opens a phrase put before a clause (`_is_opening_phrase`).
_OPENERS = _FRONTING | _QUALIFYING_OPENERS
#: German puts the verb second: after "Im Mai" comes the verb, and the subject only after it.
_GERMAN_FRONTING = frozenset("im am nach seit vor während wegen bei ab bis".split())
_ENGLISH_VERB_RE = re.compile(r"(?:is|are|was|were|has|have|had|will|would|could|can|\w{2,}ed)")
_SUBJECT_STARTS = frozenset(
    """he she it they we i the a an his her its their this these those der die das ein eine le
    la les un une el los las il elle ils elles er sie es él ella ellos""".split()
)


def _fronted(text: str) -> int:
    """Where the subject starts after a phrase put before it: 0 when the clause opens with its
    subject, -1 when no subject follows the phrase ("Im Mai kamen zwei Luchse zur Welt": the
    verb comes next), else the offset of the subject ("In 2020 she was ..." -> "she")."""
    words = list(re.finditer(r"\S+", text[:200]))
    first = words[0].group(0).lower() if words else ""
    if first in _GERMAN_FRONTING:
        return -1
    if len(words) < 3 or first not in _FRONTING:
        return 0
    for k, match in enumerate(words[1:9], start=1):
        word = match.group(0)
        if words[k - 1].group(0).endswith(","):
            return match.start()  # "In March, the company ..."
        if k < 2:
            continue
        before = words[k - 1].group(0)
        bare = word.strip(",.;:").lower()
        if bare in _SUBJECT_STARTS and before.lower() not in _SUBJECT_STARTS:
            return match.start()  # "After the war | the company", "In 2020 | she"
        if word[:1].isupper() and not before[:1].isupper():
            return match.start()  # "In 2020 | Apple released"
        if _ENGLISH_VERB_RE.fullmatch(bare):
            return -1  # "In 2020 was founded ...": no subject of its own
    return -1


def _clause_subject(clause: str) -> str:
    """The subject a later pronoun can mean: `_subject` after any fronted phrase."""
    offset = _fronted(clause)
    return _subject(clause[offset:]) if offset >= 0 else ""


def _resolve(text: str, antecedent: str, *, named: bool = True) -> str:
    """Replace a leading pronoun subject or possessive with the antecedent.

    A short reference ("The company", "This film's") is replaced only by a name (capitalized
    words), and only when the statement before named nothing else it could mean (`named`):
    "Acme was founded in 1990. The company employs 200 people" -> "Acme employs 200 people".
    A phrase before the subject stays: "In 2020 she was appointed" -> "In 2020 Ingrid Solberg
    was appointed".
    """
    if not antecedent:
        return text
    offset = _fronted(text)
    if offset > 0:
        return text[:offset] + _resolve(text[offset:], antecedent, named=named)
    reference = _REFERENCE_RE.match(text)
    if reference:
        name = antecedent.removeprefix("The ").removeprefix("the ")
        head = reference.group("head").lower()
        is_name = bool(_NAME_RE.fullmatch(name)) and name.lower() not in _DETERMINERS
        if named and is_name and head not in name.lower():
            return antecedent + (reference.group("pos") or "") + text[reference.end() :]
        return text
    match = re.match(r"(\w+)\b", text)
    if not match:
        return text
    word = match.group(1)
    suffix = _PRONOUNS.get(word.lower())
    if suffix is None:
        return text
    if word.lower() == "this" and not _opens_with_verb(text[match.end() :], s_verbs=False):
        return text  # "This incident resulted in": a determiner, not a pronoun
    if (
        word.lower() in ("es", "sie", "il", "elle", "it", "this")
        and not text[match.end() :].strip()
    ):
        return text
    return antecedent + suffix + text[match.end() :]


#: Applied in this order, each to every piece the one before it gave.
_SPLITTERS = (
    _split_fronted,
    _split_apposition,
    _split_coordination,
    _split_relative,
    _split_list,
    _split_participle,
    _split_from_to,
)


_PERSONAL_PRONOUN_RE = re.compile(r"(?:He|She|His|Her|he|she|his|her)\b")
_THING_PRONOUN_RE = re.compile(r"(?:It|Its|it|its)\b")
#: A person's name: two to four capitalized words ("John Smith", "Marie Curie"), unless a
#: place preposition opens it ("in New York") or a word of a thing is in it ("Bolt Inc",
#: "European Championships").
_PERSON_RE = re.compile(r"(?<![\w'’.&-])(?:[A-Z][a-z'’-]+\s+){1,3}[A-Z][a-z'’-]+")
_PLACE_BEFORE_RE = re.compile(r"(?:in|at|from|to|near|of|on|into|across)\s+$", re.IGNORECASE)
_THING_WORDS = frozenset(
    """Inc Corp Ltd LLC Group Company Co University College School Museum Bank Institute
    Foundation Hospital Bridge Street River Lake Mountain City County State Republic Kingdom
    Park Center Centre Airport Council Party Ministry Department Agency Times Post News Cup
    League Championship Award Prize War Act Festival Game Olympic Series Island Nation
    Union Club Team""".split()
)


def _is_thing(name: str) -> bool:
    """Whether an antecedent is a thing, not a person: "The company", "Bolt Inc"."""
    words = name.split()
    if not words:
        return False
    singular = {w.removesuffix("s") for w in words}  # "Championships", "Cups"
    return words[0] in ("The", "the", "A", "An", "This") or bool(_THING_WORDS & singular)


def _last_person(text: str) -> str:
    """The last person's name in a statement (see `_PERSON_RE`) not after a place preposition."""
    found = ""
    for match in _PERSON_RE.finditer(text):
        name = match.group(0)
        if not _is_thing(name) and not _PLACE_BEFORE_RE.search(text[: match.start()]):
            found = name
    return found


def atomic_statements(*, question: str, answer: str) -> list[Statement]:
    """Split an answer into atomic statements with resolved subjects.

    Args:
        question: The question (its named subject resolves a leading "He" or "It").
        answer: The answer text.

    Returns:
        The statements in order; [] when the answer has nothing to verify.
    """
    fused = answer_claim.fuse(question, answer)
    if fused:  # a short answer means something only with its question
        start = len(answer) - len(answer.lstrip())
        return [Statement(fused, start, len(answer.rstrip()))]
    out: list[Statement] = []
    antecedent = _antecedent(question)
    group = ""  # the last "X and Y" named: what "they" means when one thing is the subject
    cjk_antecedent = ""
    person = ""  # the last name that "he" or "she" can mean
    thing = False  # whether the last statement's subject was "it": no "he" or "she"
    rivals = False
    for start, end in segment_statements(answer):
        text = answer[start:end]
        if any(is_cjk(c) for c in text):
            pieces = _split_cjk(text)
        elif any(is_hangul(c) for c in text):
            pieces = [p for p in _KOREAN_CLAUSE_RE.split(text) if p.strip()]
        else:
            pieces = [text]
        claims = pieces
        for split in _SPLITTERS:
            claims = [claim for piece in claims for claim in split(piece)]
        for claim in claims:
            claim = claim.strip().strip(",;")
            if not claim or is_filler(claim):
                continue
            if any(is_cjk(c) for c in claim[:3]):
                pronoun = _CJK_PRONOUN_RE.match(claim)
                if pronoun and cjk_antecedent:  # "彼は以前…" after "山本健太氏は…"
                    claim = cjk_antecedent + claim[pronoun.end() :]
                cjk_antecedent = _cjk_subject(claim) or cjk_antecedent
                out.append(Statement(claim, start, end))
                continue
            plural = _PLURAL_PRONOUN_RE.match(claim)
            meant = group if plural and group else antecedent
            if person and _PERSONAL_PRONOUN_RE.match(claim) and (thing or _is_thing(meant)):
                meant = person  # "Acme was founded by John Smith. He sold it": Smith sold it
            thing = bool(_THING_PRONOUN_RE.match(claim))
            resolved = _resolve(claim, meant, named=not rivals)
            person = _last_person(resolved) or person
            names = _NAME_PAIR_RE.findall(resolved)
            group = names[-1].rstrip(".") if names else group
            subject = _clause_subject(resolved)
            if subject and not re.match(r"(?i)(?:there|here)\b", subject):
                antecedent = subject
            elif not antecedent and _fronted(resolved) >= 0:
                antecedent = _antecedent(resolved)
            # "Apple released the iPhone. The device ...": another thing the reference could mean
            rivals = bool(_RIVAL_RE.search(resolved[len(subject) :] if subject else resolved))
            claimed = answer_claim.with_choice(resolved, question)  # a choice, as in short
            out.append(Statement(abstention.with_question(claimed, question), start, end))
    return out
