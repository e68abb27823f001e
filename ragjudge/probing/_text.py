"""Words, not meaning: sentences, words, names and languages, for the probe generators.

Deliberately small and independent of every judge (no `ragjudge.offline`, no `ragjudge.lm`):
a probe must not share a judge's parsing, or a blind spot could hide itself.
"""

from __future__ import annotations

import functools
import random
import re
from collections.abc import Iterable, Sequence

from ragjudge.data._gold import GoldRecord
from ragjudge.probing._lexicon import MONTHS

__all__ = [
    "LANGUAGES",
    "candidate_sentences",
    "choose",
    "content_words",
    "language",
    "language_counts",
    "names",
    "replace_once",
    "sentences",
    "word_pattern",
    "words",
]

#: The languages the lexicons cover.
LANGUAGES = ("en", "de", "fr", "es")

_WORD = re.compile(r"[^\W_]+(?:['’\-][^\W_]+)*", re.UNICODE)
_ABBREV = re.compile(
    r"\b(?:Mr|Mrs|Ms|Dr|Prof|St|Jr|Sr|Inc|Ltd|Co|Corp|vs|etc|No|Vol|Fig|al|e\.g|i\.e|U\.S|"
    r"Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec|Nr|bzw|ca|Mme|Sr|Sra|z\.B|d\.h)\.$"
)
_BOUNDARY = re.compile(r"(?<=[.!?])[\"'”’)\]]*\s+(?=[\"'“‘(\[]?[A-ZÀ-ÖØ-Þ0-9¿¡])")

#: A German month name: `2. Oktober` is a date, no sentence end.
_GERMAN_MONTH = re.compile(rf"(?:{'|'.join(m.capitalize() for m in MONTHS['de'])})\b")

_STOPWORDS = {
    "en": {
        "the",
        "and",
        "of",
        "to",
        "is",
        "was",
        "in",
        "that",
        "it",
        "for",
        "with",
        "are",
        "on",
        "a",
        "an",
        "by",
        "at",
        "from",
        "did",
        "does",
        "when",
        "what",
        "who",
        "how",
        "which",
        "were",
        "has",
        "had",
        "his",
        "her",
        "their",
        "not",
        "this",
    },
    "de": {
        "wer",
        "hat",
        "wann",
        "wie",
        "welche",
        "welcher",
        "der",
        "die",
        "das",
        "und",
        "ist",
        "nicht",
        "ein",
        "eine",
        "mit",
        "den",
        "von",
        "im",
        "dem",
        "des",
        "über",
        "nach",
        "auf",
        "sich",
        "auch",
        "wurde",
        "wird",
        "sind",
        "einige",
    },
    "fr": {
        "quel",
        "quelle",
        "quand",
        "où",
        "comment",
        "le",
        "vous",
        "nous",
        "sans",
        "avec",
        "la",
        "les",
        "et",
        "est",
        "des",
        "une",
        "un",
        "du",
        "pas",
        "dans",
        "pour",
        "en",
        "au",
        "aux",
        "sur",
        "par",
        "qui",
        "ont",
        "sont",
        "il",
        "elle",
        "été",
    },
    "es": {
        "quién",
        "qué",
        "cuándo",
        "dónde",
        "cómo",
        "cuál",
        "el",
        "la",
        "los",
        "las",
        "y",
        "es",
        "del",
        "una",
        "un",
        "por",
        "con",
        "para",
        "en",
        "al",
        "lo",
        "su",
        "sus",
        "fue",
        "son",
        "está",
        "que",
        "se",
    },
}


def words(text: str) -> list[str]:
    """The words of `text` (letters and digits, inner apostrophes and hyphens kept)."""
    return _WORD.findall(text)


def word_pattern(word: str) -> re.Pattern[str]:
    """A pattern that finds `word` as a whole word (case kept)."""
    return re.compile(rf"(?<![^\W_]){re.escape(word)}(?![^\W_])")


def content_words(text: str) -> set[str]:
    """The lowercased words of `text` that are not function words of any covered language."""
    stop = set().union(*_STOPWORDS.values())
    return {w.lower() for w in words(text) if w.lower() not in stop and len(w) > 2}


def language(text: str) -> str:
    """The covered language whose function words `text` uses most (`en` on a tie or none)."""
    counts = language_counts(text)
    best = max(counts.values())
    return "en" if best == 0 or counts["en"] == best else max(counts, key=lambda k: counts[k])


def sentences(text: str) -> list[str]:
    """`text` cut into sentences at `.`, `!` or `?` before a capital or digit, not after a
    common abbreviation or an initial."""
    out: list[str] = []
    start = 0
    for match in _BOUNDARY.finditer(text):
        head = text[start : match.start()].rstrip()
        last = head.split()[-1] if head.split() else ""
        if _ABBREV.search(last) or re.fullmatch(r"[A-Z]\.", last):
            continue
        if re.fullmatch(r"\d{1,2}\.", last) and _GERMAN_MONTH.match(text, match.end()):
            continue  # am 2. Oktober: a German date, no sentence end
        out.append(head.strip())
        start = match.end()
    tail = text[start:].strip()
    if tail:
        out.append(tail)
    return [s for s in out if s]


def candidate_sentences(row: GoldRecord, *, min_words: int = 5, max_words: int = 40) -> list[str]:
    """The context sentences fit to be an answer: `min_words`-`max_words` words, starting
    with a capital letter or digit, ending with `.`, `!` or `?`, no line breaks, no
    unbalanced brackets or quotes, no list or table debris (cached per set of passages:
    every kind asks it of every row)."""
    return list(_candidates(tuple(row.contexts), min_words, max_words))


@functools.lru_cache(maxsize=8192)
def _candidates(contexts: tuple[str, ...], min_words: int, max_words: int) -> tuple[str, ...]:
    out: list[str] = []
    seen: set[str] = set()
    for passage in contexts:
        for sentence in sentences(" ".join(passage.split())):
            n = len(words(sentence))
            if not (min_words <= n <= max_words) or sentence in seen:
                continue
            if not re.match(r"[\"“]?[A-ZÀ-ÖØ-Þ0-9]", sentence) or sentence[-1] not in ".!?":
                continue
            if any(sentence.count(a) != sentence.count(b) for a, b in ("()", "[]", "{}")):
                continue
            if sentence.count('"') % 2 or re.search(r"[|•●▪]|\s-\s-|_{2,}|\.{3}|…", sentence):
                continue
            seen.add(sentence)
            out.append(sentence)
    return tuple(out)


_NAME = re.compile(
    r"(?<![^\W_])(?:[A-ZÀ-ÖØ-Þ][\w’'\-.]*[^\W_]|[A-Z])(?:\s+(?:(?:de|van|von|der|da|del|la|le|of|"
    r"the|y)\s+)?(?:[A-ZÀ-ÖØ-Þ][\w’'\-.]*[^\W_]|[A-Z]\.?))*"
)


def names(sentence: str, *, skip_first: bool = True) -> list[tuple[int, int, str]]:
    """Capitalized runs in `sentence` as `(start, end, text)`: candidate names. The sentence's
    first word is no name when `skip_first` unless the run goes on past it; an all-capital run
    of one word is kept (an acronym)."""
    found = []
    for match in _NAME.finditer(sentence):
        start, end, text = match.start(), match.end(), match.group(0).rstrip(".")
        end = start + len(text)
        if skip_first and start == _first_word_start(sentence) and " " not in text:
            continue
        found.append((start, end, text))
    return found


def _first_word_start(sentence: str) -> int:
    match = re.search(r"[^\W_]", sentence)
    return match.start() if match else 0


def replace_once(text: str, start: int, end: int, new: str) -> str:
    """`text` with `text[start:end]` replaced by `new`."""
    return text[:start] + new + text[end:]


def choose(rng: random.Random, items: Sequence[str] | Iterable[str]) -> str:
    """One of `items`, drawn with `rng` from a sorted copy (the draw does not depend on the
    order a set was built in)."""
    ordered = sorted(items)
    return ordered[rng.randrange(len(ordered))]


def language_counts(text: str) -> dict[str, int]:
    """How many function words of each covered language `text` uses (what `language` weighs)."""
    lowered = [w.lower() for w in words(text)]
    return {lang: sum(w in stop for w in lowered) for lang, stop in _STOPWORDS.items()}
