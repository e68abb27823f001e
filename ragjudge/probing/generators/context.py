"""Must-fail kinds about what the context holds: a detail added that no passage has, and a
supported sentence judged against no context or an unrelated one."""

from __future__ import annotations

import functools
import random
import re

from ragjudge.data._gold import GoldRecord
from ragjudge.probing._lexicon import MONTHS
from ragjudge.probing._probe import Skip, Variant
from ragjudge.probing._registry import Pool, generator
from ragjudge.probing._text import choose, content_words, language, words
from ragjudge.probing.generators.names import GAZETTEER, cached_sentences, key_words

__all__ = ["shorten"]

#: Past-tense verbs of an event that a date or a place can be added to ("was founded ...").
#: A verb in the past tense: a regular one, or an irregular one ("began", "won").
_EVENT = re.compile(
    r"\b(?:[a-z]{3,}ed|began|became|came|went|gave|took|made|wrote|written|grew|left|led|met|"
    r"ran|saw|sang|spoke|told|found|brought|bought|built|fought|held|kept|lost|paid|sent|"
    r"spent|stood|taught|thought|won|chose|drew|drove|fell|flew|rose|rode|shook|stole|wore|"
    r"broke|sold|shot|born|died|beat|hit|put|set|quit|split|struck|sank|swam|threw|caught|"
    r"dug|fed|fled|hung|laid|lent|meant|slept|spun|tore|woke|won)\b"
)
#: Words that already place a sentence in time: a date would clash or pile up.
_WHEN = re.compile(
    r"\b(?:1[5-9]\d\d|20\d\d|\d{4}s|yesterday|today|tomorrow|tonight|last|next|ago|"
    r"century|decade|recently|currently|now|since|until|during|when|after|before|later|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|season|year|years|month|"
    r"week|weeks|earlier|" + "|".join(MONTHS["en"]) + r")\b",
    re.IGNORECASE,
)
#: Words before a verb that make it no finite past one ("being released", "are formed").
_NOT_FINITE = {
    "to", "being", "be", "been", "is", "are", "am", "will", "can", "would", "could", "should",
    "may", "might", "must", "shall", "the", "a", "an", "of", "do", "does", "not", "get", "gets",
    "has", "have", "had", "having", "who", "which", "that", "both", "all",
}  # fmt: skip
_SUBORDINATE = re.compile(
    r"\b(?:that|which|who|whom|whose|while|whether|although|though|because|if|as|where|"
    r"can|could|would|will|may|might|should|must)\b|[,;:\"“”]",
    re.IGNORECASE,
)
_NEGATION = re.compile(r"\b(?:not|never|no|nor|neither|without)\b|n['’]t\b", re.IGNORECASE)
#: Sentences that make no claim to check (a greeting, a speaker's label, a link).
_NO_CLAIM = re.compile(
    r"https?:|www\.|#|^(?:\S+\s+){0,2}\S+:\s|^(?:yeah|yes|no|ok|okay|oh|well|um|uh|hey|hi|"
    r"hello|thanks|thank|sure|wow|lol)\b",
    re.IGNORECASE,
)
_YEAR = re.compile(r"\b(?:19[0-9]\d|20[01]\d)\b")


def shorten(text: str, limit: int = 80) -> str:
    """`text` on one line, cut to about `limit` characters at a word boundary with `…`.

    Example:
        >>> shorten("The museum opened to visitors on 2 October 2019 after a long delay.", 30)
        'The museum opened to visitors…'
    """
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    return flat[:limit].rsplit(" ", 1)[0].rstrip(" ,;:") + "…"


# --- added_detail -----------------------------------------------------------------------------


@generator(
    kind="added_detail",
    expect="fail",
    summary="a date or place the context does not hold added to a supported sentence",
)
def added_detail(row: GoldRecord, *, rng: random.Random, pool: Pool) -> Variant | Skip:
    """A context sentence about an event, with no date (or no place) of its own, with "in
    <year>" or "in <place>" added at its end: a year or a place no passage holds, taken from
    an unrelated row where it has one."""
    text = " ".join(row.contexts)
    lowered = text.lower()
    fits = [s for s in cached_sentences(row, min_words=6, max_words=30) if _takes_detail(s)]
    if not fits:
        return Skip("no sentence about an event to add a detail to")
    sentence = fits[rng.randrange(len(fits))]
    rng = random.Random(sentence)  # one detail per sentence: rows sharing a passage give one
    placed = bool(re.search(r"\b(?:in|at|near|from)\s+(?:the\s+)?[A-Z]", sentence))
    other = pool.unrelated(row, rng)
    borrowed = " ".join(other.contexts) if other else ""
    kinds = ["year"] if placed else ["year", "place"]
    kind = kinds[rng.randrange(len(kinds))]
    detail = _year(rng, borrowed, text) if kind == "year" else _place(rng, borrowed, lowered)
    if detail is None:
        return Skip("no detail absent from the context")
    body = sentence.rstrip()
    end = body[-1]
    body = body[:-1].rstrip()
    new = f"{body} in {detail}{' ' if sentence.rstrip()[-2] == ' ' else ''}{end}"
    tail = " ".join(body.split()[-4:])
    return Variant(
        answer=new, before=tail, after=f"{tail} in {detail}", language=language(sentence)
    )


def _takes_detail(sentence: str) -> bool:
    """Whether `sentence` tells, in the past tense and in its last clause, of something with no
    time of its own (a date added is then new, where "is the capital in 1987" would not be)."""
    if sentence[-1] != "." or not _EVENT.search(sentence):
        return False
    if _WHEN.search(sentence) or _NEGATION.search(sentence):
        return False
    if re.search(r"#|©|https?:|www\.|@", sentence):
        return False
    if re.search(r"[\"“”'’)]\s*\.$|\d\s*\.$", sentence) or language(sentence) != "en":
        return False
    verbs = list(_EVENT.finditer(sentence))
    if not verbs:
        return False
    verb = verbs[-1]
    before = words(sentence[: verb.start()])
    if not before or len(before) > 16 or _SUBORDINATE.search(sentence[: verb.start()]):
        return False
    prev = before[-1]
    if not (prev.lower() in ("was", "were", "he", "she", "they", "we", "i") or prev[0].isupper()):
        return False
    rest = sentence[verb.end() :]
    if len(words(rest)) > 8 or re.search(r"[,;:\"“”]|\b(?:and|but|or|which|that|who|to)\b", rest):
        return False
    return not re.search(r"\b(?:is|are|am)\b", sentence[: verb.start()])


def _year(rng: random.Random, borrowed: str, text: str) -> str | None:
    """A year of the unrelated text that the context lacks, or else one drawn from 1950-2015
    that it lacks."""
    found = {y for y in _YEAR.findall(borrowed) if y not in text}
    if found:
        return choose(rng, found)
    options = [str(y) for y in range(1950, 2016) if str(y) not in text]
    return choose(rng, options) if options else None


def _place(rng: random.Random, borrowed: str, lowered: str) -> str | None:
    """A gazetteer place the unrelated text names and the context does not, or else any
    gazetteer city the context does not name."""
    absent = [p for p in GAZETTEER if p.lower() not in lowered and "." not in p]
    named = [p for p in absent if re.search(rf"\b{re.escape(p)}\b", borrowed)]
    if named:
        return choose(rng, named)
    cities = [p for p in absent if GAZETTEER[p] == "city"]
    return choose(rng, cities) if cities else None


# --- wrong_context ----------------------------------------------------------------------------


@generator(
    kind="wrong_context",
    expect="fail",
    summary="a sentence of the context judged against no context or an unrelated one",
)
def wrong_context(row: GoldRecord, *, rng: random.Random, pool: Pool) -> Variant | Skip:
    """One of the row's own context sentences as the answer, judged against no passage at all
    or against the passages of an unrelated row that share no telling word with it."""
    found = [
        s
        for s in cached_sentences(row, min_words=6)
        if len(key_words(s)) >= 3 and "?" not in s and not _NO_CLAIM.search(s)
    ]
    if not found:
        return Skip("no sentence fit to answer with")
    sentence = found[rng.randrange(len(found))]
    before = f"context: {shorten(' | '.join(row.contexts))}"
    if rng.random() < 0.5:
        other = _unrelated(row, sentence, rng=rng, pool=pool)
        if other is not None:
            return Variant(
                answer=sentence,
                before=before,
                after=shorten(" | ".join(other.contexts)),
                contexts=tuple(other.contexts),
                language=language(sentence),
            )
    return Variant(
        answer=sentence, before=before, after="(empty)", contexts=(), language=language(sentence)
    )


@functools.lru_cache(maxsize=4096)
def _content(contexts: tuple[str, ...]) -> frozenset[str]:
    return frozenset(content_words(" ".join(contexts)))


def _unrelated(
    row: GoldRecord, sentence: str, *, rng: random.Random, pool: Pool
) -> GoldRecord | None:
    """A row of another group whose passages share no telling word with `sentence` (five
    draws at most)."""
    own = key_words(sentence) | {w.lower() for w in words(sentence) if w[:1].isupper()}
    for _ in range(5):
        other = pool.unrelated(row, rng)
        if other is None:
            return None
        if not own & _content(tuple(other.contexts)):
            return other
    return None
