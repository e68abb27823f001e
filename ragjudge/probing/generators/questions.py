"""Kinds read with the question: an abstention where the context lacks the answer (must pass)
or has it (must fail), and a short answer (yes / no, a name, a number) right or wrong once read
with its question.

Only rows labeled faithful (`faithful == 1`) are trusted as right answers: a short answer is
taken from such a row's answer, never guessed.
"""

from __future__ import annotations

import itertools
import random
import re

from ragjudge.data._gold import GoldRecord
from ragjudge.probing._probe import Skip, Variant
from ragjudge.probing._registry import Pool, generator
from ragjudge.probing._text import (
    choose,
    content_words,
    language,
    language_counts,
    names,
    sentences,
    word_pattern,
    words,
)

__all__ = [
    "ABSTENTIONS",
    "NO",
    "YES",
    "abstention",
    "false_abstention",
    "is_question",
    "is_yes_no_question",
    "question_language",
    "short_answer_right",
    "short_answer_wrong",
    "yes_no",
]

#: Ways to say the context does not give the answer, per language.
ABSTENTIONS: dict[str, tuple[str, ...]] = {
    "en": (
        "The context does not say.",
        "The provided context does not answer this question.",
        "The passages do not mention this.",
        "I cannot answer this from the given context.",
        "The context gives no information about this.",
    ),
    "de": (
        "Der Kontext sagt dazu nichts.",
        "Die Passagen beantworten diese Frage nicht.",
        "Der gegebene Kontext enthält dazu keine Angaben.",
    ),
    "fr": (
        "Le contexte ne le dit pas.",
        "Les passages ne répondent pas à cette question.",
        "Le contexte fourni ne donne aucune information à ce sujet.",
    ),
    "es": (
        "El contexto no lo dice.",
        "Los pasajes no responden a esta pregunta.",
        "El contexto proporcionado no da información sobre esto.",
    ),
}

#: The word for yes and for no, per language.
YES = {"en": "yes", "de": "ja", "fr": "oui", "es": "sí"}
NO = {"en": "no", "de": "nein", "fr": "non", "es": "no"}

#: Words that open a question, per language (lowercase).
_WH = {
    "en": ("what", "which", "who", "whom", "whose", "when", "where", "why", "how"),
    "de": ("was", "welche", "welcher", "welches", "wer", "wen", "wem", "wann", "wo", "warum",
           "wie", "wieso", "weshalb", "woher", "wohin"),
    "fr": ("que", "quel", "quelle", "quels", "quelles", "qui", "quand", "où", "pourquoi",
           "comment", "combien", "qu'est-ce", "lequel", "laquelle"),
    "es": ("qué", "cuál", "cuáles", "quién", "quiénes", "cuándo", "dónde", "por qué", "cómo",
           "cuánto", "cuántos", "cuánta", "cuántas"),
}  # fmt: skip

#: Verbs that open a yes/no question, per language (lowercase).
_AUX = {
    "en": ("is", "are", "was", "were", "do", "does", "did", "can", "could", "has", "have",
           "had", "will", "would", "should", "may", "might", "must", "shall"),
    "de": ("ist", "sind", "war", "waren", "hat", "haben", "hatte", "hatten", "kann", "können",
           "konnte", "wird", "werden", "wurde", "wurden", "gibt", "gab", "gehört", "gehören"),
    "fr": ("est-ce", "est-il", "est-elle", "sont-ils", "sont-elles", "a-t-il", "a-t-elle",
           "ont-ils", "était-il", "était-elle", "peut-on"),
    "es": (),
}  # fmt: skip

#: Words in a question that ask for a number.
_NUMBER_ASKED = re.compile(
    r"\b(?:when|year|years|how many|how much|how old|how long|age|date|percentage|percent|"
    r"population|number|wann|jahr|wie viele|wie alt|quand|année|combien|cuándo|año|cuántos|"
    r"cuántas)\b",
    re.IGNORECASE,
)


def is_question(text: str) -> bool:
    """Whether `text` asks something: it ends with `?` (a Spanish one may open with `¿`), or
    opens with a question word or a verb that opens a yes/no question."""
    stripped = text.strip()
    if not stripped:
        return False
    if stripped.endswith("?") or stripped.startswith("¿"):
        return True
    first = _first_words(stripped, 1)
    return any(first in _WH[lang] or first in _AUX[lang] for lang in _WH)


def question_language(question: str) -> str:
    """The language of a question: the one its first word belongs to alone (`Wann`,
    `Quand`, `¿Cuándo`), else the one whose function words it uses most, by two words at
    least over English (a short English question may hold a `die` or a `la`)."""
    first = _first_words(question.strip().lstrip("¿"), 1)
    if question.strip().startswith("¿"):
        return "es"
    owners = [lang for lang in _WH if first in _WH[lang] or first in _AUX[lang]]
    if len(owners) == 1:
        return owners[0]
    lang = language(question)
    if lang == "en":
        return lang
    counts = language_counts(question)
    return lang if counts[lang] - counts["en"] >= 2 else "en"


def _first_words(text: str, n: int) -> str:
    return " ".join(w.lower() for w in words(text)[:n])


def is_yes_no_question(question: str) -> bool:
    """Whether `question` asks for yes or no: it opens with a verb (`Is`, `Did`, `Ist`,
    `Est-ce`, or in Spanish any non-question word before `?`), asks no question word and
    offers no alternatives (`A or B?`)."""
    lang = question_language(question)
    lowered = question.lower()
    if re.search(r"\b(?:or|oder|ou|o)\b", lowered):
        return False
    head = question.strip().lstrip("¿").strip()
    first = _first_words(head, 1)
    if any(first in _WH[code] for code in _WH) or first.startswith("qu"):
        return False
    if first in _AUX["en"] or first in _AUX["de"] or first in _AUX["fr"]:
        return True
    return lang == "es" and question.strip().endswith("?") and "¿" in question


def yes_no(answer: str) -> tuple[str, str] | None:
    """`(lang, "yes" | "no")` when `answer` is a bare yes or no, or opens with one
    (`"Yes, both are ..."`); None otherwise."""
    first = words(answer)[:1]
    if not first:
        return None
    word = first[0].lower()
    rest = answer.strip()[len(first[0]) :].strip()
    if rest and not re.match(r"[,.;!]", rest):
        return None
    for lang in YES:
        if word == YES[lang] or (lang == "es" and word == "si" and not rest):
            return lang, "yes"
    for lang in NO:
        if word == NO[lang]:
            return lang, "no"
    return None


def _context_text(row: GoldRecord) -> str:
    return " ".join(" ".join(p.split()) for p in row.contexts)


def _answered_from_context(row: GoldRecord) -> bool:
    """Whether the row's (faithful) answer states something the context holds, in one place:
    one context sentence, or two adjacent ones, holds every content word of a short answer (4
    in 5 of a longer one's) and most (3 in 4) of the question's own content words, so that the
    context speaks of what is asked, not only of the answer (a yes or a no needs the question's
    words alone)."""
    asked = content_words(row.question)
    said = yes_no(row.answer) is not None
    own = set() if said else content_words(row.answer) - asked
    long = len(words(row.answer)) > 6
    if not said and (not own or (long and len(own) < 3)):
        return False
    need = len(own) if len(words(row.answer)) <= 6 else 0.8 * len(own)
    for window in _windows(row):
        found = content_words(window)
        if len(own & found) >= need and len(asked & found) >= 0.75 * len(asked) > 0:
            return True
    return False


#: A sentence end with no space before the next sentence (`"Easy".Deadpool`, `its hits.The`).
_GLUED = re.compile(
    r"(?<=[a-z][.!?][\"”’)])(?=[A-Z])|(?<=[a-z][\"”’)][.!?])(?=[A-Z])|(?<=[a-z][.!?])(?=[A-Z][a-z])"
)


def _windows(row: GoldRecord) -> list[str]:
    """Each sentence of each passage, and each two adjacent sentences of one passage (a
    sentence glued to the next without a space, as `"Easy".Deadpool`, is cut there too)."""
    out: list[str] = []
    for passage in row.contexts:
        glued = _GLUED.sub(" ", passage)
        found = sentences(" ".join(glued.split()))
        out.extend(found)
        out.extend(f"{a} {b}" for a, b in itertools.pairwise(found))
    return out


def _real_question(row: GoldRecord) -> Skip | None:
    if not row.question.strip():
        return Skip("no question")
    if not is_question(row.question):
        return Skip("the question is not a question")
    return None


@generator(
    kind="abstention",
    expect="pass",
    summary="'the context does not say' with the question asked of an unrelated context",
)
def abstention(row: GoldRecord, *, rng: random.Random, pool: Pool) -> Variant | Skip:
    """The row's question asked of another group's passages that share no content word with
    the question or the answer; the answer says the context does not give it."""
    missing = _real_question(row)
    if missing:
        return missing
    other = pool.unrelated(row, rng)
    if other is None:
        return Skip("no unrelated context found")
    lang = question_language(row.question)
    answer = choose(rng, ABSTENTIONS[lang])
    return Variant(
        answer=answer,
        before=row.answer,
        after=answer,
        contexts=tuple(other.contexts),
        question=row.question,
        language=lang,
    )


@generator(
    kind="false_abstention",
    expect="fail",
    summary="'the context does not say' where the context does say",
)
def false_abstention(row: GoldRecord, *, rng: random.Random, pool: Pool) -> Variant | Skip:
    """A faithful answer that the context holds, replaced by an abstention."""
    missing = _real_question(row)
    if missing:
        return missing
    if row.faithful != 1:
        return Skip("row not labeled faithful")
    if row.task == "dialogue":
        return Skip("a dialogue turn is no answer to its question")
    if not _answered_from_context(row):
        return Skip("no context sentence holds the answer and the question's words")
    lang = question_language(row.question)
    answer = choose(rng, ABSTENTIONS[lang])
    return Variant(
        answer=answer, before=row.answer, after=answer, question=row.question, language=lang
    )


def _short_value(row: GoldRecord) -> tuple[str, str] | Skip:
    """The short answer a faithful row gives and what it is: `("yes"|"no", ...)` for a yes/no
    question, `("value", text)` for a name or a number of at most four words found in the
    context."""
    missing = _real_question(row)
    if missing:
        return missing
    if row.faithful != 1:
        return Skip("row not labeled faithful")
    if row.task == "dialogue":
        return Skip("a dialogue turn is no answer to its question")
    answer = row.answer.strip()
    said = yes_no(answer)
    if said is not None:
        if not is_yes_no_question(row.question):
            return Skip("yes or no to a question that is not yes/no")
        return said[1], answer
    value = answer.rstrip(".").strip()
    if not 1 <= len(words(value)) <= 4 or re.search(r"[,;:()\"“”]", value):
        return Skip("the answer is not short")
    if words(value)[-1].lower() in _FUNCTION_ENDS or not _looks_like_value(value):
        return Skip("the short answer is no name or number")
    if not word_pattern(value.lower()).search(_context_text(row).lower()):
        return Skip("the short answer is not in the context")
    has_digit = any(ch.isdigit() for ch in value)
    if has_digit != bool(_NUMBER_ASKED.search(row.question)):
        return Skip("the short answer does not fit its question")
    return "value", value


_FUNCTION_ENDS = {"the", "a", "an", "of", "and", "or", "in", "de", "der", "la", "le", "el"}


def _looks_like_value(value: str) -> bool:
    """A name (every word capitalized, small joining words aside) or a number."""
    parts = words(value)
    if any(ch.isdigit() for ch in value):
        return True
    return all(p[0].isupper() or p.lower() in _JOINERS for p in parts) and parts[0][0].isupper()


_JOINERS = {"of", "the", "and", "de", "van", "von", "der", "da", "del", "la", "le", "y", "du"}


def _capitalized(word: str, like: str) -> str:
    return word[:1].upper() + word[1:] if like[:1].isupper() else word


def _short_answer(row: GoldRecord) -> tuple[str, str, str] | Skip:
    """A faithful row's short answer as `(what, answer, language)`: `what` is `yes`, `no` or
    the kind of value; a yes or no is in the language it is said in (the question's when it
    is said in English)."""
    value = _short_value(row)
    if isinstance(value, Skip):
        return value
    what, answer = value
    lang = question_language(row.question)
    if what in ("yes", "no"):
        said = yes_no(answer)
        lang = said[0] if said and said[0] != "en" else lang
    return what, answer, lang


@generator(
    kind="short_answer_right",
    expect="pass",
    summary="a short answer (yes / no, a name, a number) right once read with its question",
)
def short_answer_right(row: GoldRecord, *, rng: random.Random, pool: Pool) -> Variant | Skip:
    """A faithful row's short answer: a bare yes or no (an answer opening `Yes,` / `No,` cut
    to the word), or a name or number of at most four words that the context contains."""
    value = _short_answer(row)
    if isinstance(value, Skip):
        return value
    what, answer, lang = value
    if what in ("yes", "no"):
        short = _capitalized((YES if what == "yes" else NO)[lang], answer)
        if words(answer) == [words(answer)[0]] and rng.random() < 0.5:
            short = answer.strip()
        return Variant(
            answer=short, before=row.answer, after=short, question=row.question, language=lang
        )
    return Variant(
        answer=answer, before=row.answer, after=answer, question=row.question, language=lang
    )


@generator(
    kind="short_answer_wrong",
    expect="fail",
    summary="a short answer wrong once read with its question (yes/no flipped, another name "
    "or number from the context)",
)
def short_answer_wrong(row: GoldRecord, *, rng: random.Random, pool: Pool) -> Variant | Skip:
    """A faithful row's short answer made wrong: yes and no swapped; a name replaced by the
    other option the question offers (`A or B?`) or by a name of as many words that the
    question and the context both name; a number replaced by another number of the same
    shape from the context."""
    value = _short_answer(row)
    if isinstance(value, Skip):
        return value
    what, answer, lang = value
    if what in ("yes", "no"):
        flipped = _capitalized((NO if what == "yes" else YES)[lang], answer)
        return Variant(
            answer=flipped, before=row.answer, after=flipped, question=row.question, language=lang
        )
    other = _other_value(row, answer, rng)
    if isinstance(other, Skip):
        return other
    return Variant(answer=other, before=answer, after=other, question=row.question, language=lang)


def _other_value(row: GoldRecord, value: str, rng: random.Random) -> str | Skip:
    context = _context_text(row)
    if any(ch.isdigit() for ch in value):
        return _other_number(value, context, rng)
    option = _other_option(row.question, value)
    if option:
        return option
    if " " not in value and _DEMONYM.search(value.split("-")[-1]):
        return Skip("a nationality or language: no other of its kind in the question")
    own = {w.lower() for w in words(value)}
    size = len(words(value))
    found = {
        text
        for text in _whole_names(row.question)
        if len(words(text)) == size
        and not own & {w.lower() for w in words(text)}
        and word_pattern(text).search(context)
        and text.lower() not in _NOT_NAMES
    }
    if not found:
        return Skip("no other name of the same shape in the question and context")
    return choose(rng, found)


_NOT_NAMES = {
    "what", "which", "who", "when", "where", "how", "why", "is", "are", "was", "were", "did",
    "do", "does", "the", "in", "according", "american", "english", "british",
}  # fmt: skip


def _other_option(question: str, value: str) -> str | None:
    """The other option of `A or B?` when the answer is one of them (`Who was born first,
    A or B?`)."""
    for sep in (" or ", " oder ", " ou ", " o "):
        at = question.lower().rfind(sep)
        if at < 0:
            continue
        left = _option(question[:at], from_end=True)
        right = _option(question[at + len(sep) :], from_end=False)
        if not (left and right):
            return None
        if left.lower() == value.lower():
            other = right
        elif right.lower() == value.lower():
            other = left
        else:
            return None
        if {w.lower() for w in words(other)} & {w.lower() for w in words(value)}:
            return None
        return other
    return None


_OPTION_JOINERS = _JOINERS | {"for", "in", "on", "at", "to", "from", "with", "a", "an"}


def _option(text: str, *, from_end: bool) -> str:
    """The name that ends `text` (`from_end`) or opens it: capitalized words, numbers and the
    small words between them, stopped at a comma, a lowercase word or the question's first
    word; after a comma the last segment that is a name whole."""
    segments = [seg.strip() for seg in re.split(r"[,;]", text)]
    if from_end and len(segments) > 1:
        whole = [seg for seg in segments[1:] if seg and _option(seg, from_end=False) == seg]
        if whole:
            return whole[-1]
    segment = segments[-1] if from_end else segments[0]
    tokens = segment.strip().rstrip("?!.").split()
    if from_end:
        tokens = tokens[::-1]
    kept: list[str] = []
    for i, token in enumerate(tokens):
        is_name = token[:1].isupper() or token[:1].isdigit()
        if from_end and i == len(tokens) - 1 and segment is segments[0]:
            break
        if is_name:
            kept.append(token)
        elif token.lower() in _OPTION_JOINERS and kept and i + 1 < len(tokens):
            kept.append(token)
        else:
            break
    while kept and not (kept[-1][:1].isupper() or kept[-1][:1].isdigit()):
        kept.pop()
    if from_end:
        kept = kept[::-1]
    name = " ".join(kept)
    return name if name and name.split()[0].lower() not in _NOT_NAMES else ""


def _whole_names(text: str) -> list[str]:
    """The names in `text` that stand whole: not cut at a number (`Level 3 Communications`,
    `Miss USA 1968`), no abbreviation (`U.S.`), not a piece of a quoted title (`"Stars in
    Their Eyes"`)."""
    quoted = [(m.start(), m.end()) for m in re.finditer(r'"[^"]*"|“[^”]*”', text)]
    out = []
    for start, end, name in names(text, skip_first=False):
        if "." in name or re.match(r"\s*\d", text[end:]) or re.search(r"\d\s*$", text[:start]):
            continue
        if _TITLE_GOES_ON.match(text[end:]) or _TITLE_CAME.search(text[:start]):
            continue
        if " " not in name and _DEMONYM.search(name.split("-")[-1]):
            continue
        inside = [(a, b) for a, b in quoted if a <= start and end <= b]
        if inside and text[inside[0][0] + 1 : inside[0][1] - 1].strip() != name:
            continue
        out.append(name)
    return out


_SMALL = r"(?:for|of|in|on|at|to|the|from|with|a|an)"
_TITLE_GOES_ON = re.compile(rf"\s+(?:{_SMALL}\s+)+[A-Z]")
_TITLE_CAME = re.compile(rf"(?:^|(?<=\s))[A-Z][\w'’]*\s+(?:{_SMALL}\s+)+$")
#: A word of a people or a language (`American`, `Chinese`, `English`, `French`): no name.
_DEMONYM = re.compile(r"(?:an|ese|ish|ch|i)$")


_NUMBER = re.compile(r"(?<![\w.,])\d[\d,.]*\d(?![\w])|(?<![\w.,])\d(?![\w.,])")


def _other_number(value: str, context: str, rng: random.Random) -> str | Skip:
    found = _NUMBER.findall(value)
    if len(found) != 1:
        return Skip("not one number in the short answer")
    number = found[0]
    shape = re.sub(r"\d", "9", number)
    others = {n for n in _NUMBER.findall(context) if re.sub(r"\d", "9", n) == shape}
    others.discard(number)
    if not others:
        return Skip("no other number of the same shape in the context")
    new = choose(rng, others)
    return value.replace(number, new, 1)
