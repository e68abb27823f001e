"""One word-level edit of one context sentence: the shared driver of the word kinds.

A kind (negation, direction, quantifier, modality, comparison, causal) gives, per language,
a list of `Rule`s: a pattern and what its match becomes. `rewrite` tries the row's context
sentences in a seeded order and returns the first safe edit as a `Variant`: the sentence
with that one span replaced. It skips a sentence that quotes or asks, one whose edit leaves
words the context already has around the new span, and one the kind's own guard refuses.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from ragjudge.data._gold import GoldRecord
from ragjudge.probing._probe import Skip, Variant
from ragjudge.probing._text import LANGUAGES, candidate_sentences, language, words

__all__ = ["Rule", "Rules", "keep_case", "rewrite", "rules", "word_regex"]

#: What a match becomes: a template (`\1` for groups) or a function (None: no edit here).
Replace = str | Callable[[re.Match[str]], str | None]


@dataclass(frozen=True)
class Rule:
    """One pattern and what a match of it becomes.

    Attributes:
        pattern: The compiled pattern (whole words; see `word_regex`).
        replace: A template or a function of the match.
        source: The pattern as written, without the word boundaries.
    """

    pattern: re.Pattern[str]
    replace: Replace
    source: str = ""


#: The rules of one kind, by language.
Rules = dict[str, list[Rule]]


def word_regex(pattern: str) -> re.Pattern[str]:
    """`pattern` as whole words, case kept (the driver also tries the sentence's first word
    in lowercase, so `many` finds `Many` there and nowhere else)."""
    end = r"(?:(?<=\s)|(?![\w\-]|['’]\w))"
    return re.compile(rf"(?<![\w'’\-])(?:{pattern}){end}")


def rules(table: Mapping[str, Sequence[tuple[str, Replace]]]) -> Rules:
    """Compile `{lang: [(pattern, replace), ...]}` into `Rules`."""
    return {
        lang: [Rule(word_regex(p), r, source=p) for p, r in pairs] for lang, pairs in table.items()
    }


def keep_case(old: str, new: str) -> str:
    """`new` capitalized as `old` is (its first letter)."""
    if old[:1].isupper() and new[:1].islower():
        return new[:1].upper() + new[1:]
    return new


_QUOTES = re.compile(r"[\"“”«»„*#]|(?:^|\s)['‘]|['’](?:\s|$)")
#: A transcript's speaker tag, or a word said twice: no sentence to edit.
_SPOKEN = re.compile(r"^[\w .]{1,25}:\s|[A-Z]\w*:\s|(?<!\w)(\w+) \1(?!\w)", re.IGNORECASE)
#: An English filler word: a transcript, no sentence to edit.
_FILLER = re.compile(
    r"(?<!\w)(?:um+|uh+|hmm+|mm+|yeah|gonna|wanna|okay|like,|you know|I mean)(?!\w)",
    re.IGNORECASE,
)
#: A sentence cut short: it ends on a word that cannot end one.
_DEBRIS = re.compile(
    r"(?<![\w'’])(?:of|than|the|a|an|to|at|by|with|from)\s*[,;:]|"
    r"(?<!\w)[A-Z]{2,}(?:\s+[A-Z]{2,}){2,}(?!\w)|\[\w+\]"
)
_CUT = re.compile(r"(?<!\w)(?:be|is|are|was|were|the|a|an|of|to|that|and|or|will|could)\s*[.!]$")
_VOWEL_SOUND = re.compile(r"(?i)(?!uni|use|eu|one|once)[aeiou]|hour|honest|honou?r")


def _fix_article(head: str, new: str) -> str:
    """`head` (the text before the edit) with a final English `a`/`an` agreeing with `new`."""
    match = re.search(r"(?<![\w'])([Aa]n?)\s$", head)
    if not match or not new[:1].isalpha():
        return head
    article = "an" if _VOWEL_SOUND.match(new) else "a"
    return head[: match.start(1)] + keep_case(match.group(1), article) + " "


def _matches(
    pattern: re.Pattern[str], sentence: str, lowered: str, at: int
) -> Iterator[re.Match[str]]:
    """The matches of `pattern` in `sentence`, first one at its start with its first word in
    lowercase (`Many` read as `many`)."""
    if lowered != sentence:
        match = pattern.match(lowered, at)
        if match:
            yield match
    yield from pattern.finditer(sentence)


#: Per rule list (by identity; the lists are module constants): one pattern for any of them.
_UNIONS: dict[int, re.Pattern[str]] = {}
#: Whether a rule list's union finds anything in a sentence, by (list identity, sentence).
_HITS: dict[tuple[int, str], bool] = {}
#: Context sentences fit to edit, with their language, by the passages they came from.
_SENTENCES: dict[tuple[str, ...], tuple[tuple[str, str], ...]] = {}


def _union(table: Sequence[Rule]) -> re.Pattern[str]:
    """One pattern that finds at least what any rule of `table` finds, tried at word starts
    only (a quick test before the rules, one by one)."""
    if id(table) not in _UNIONS:
        joined = "|".join(f"(?:{rule.source or rule.pattern.pattern})" for rule in table)
        _UNIONS[id(table)] = re.compile(rf"(?<![\w'’\-])(?:{joined or '(?!)'})")
    return _UNIONS[id(table)]


def _hit(table: Sequence[Rule], sentence: str) -> bool:
    """Whether any rule of `table` may find something in `sentence` (kept: rows share
    passages, and so sentences)."""
    key = (id(table), sentence)
    if key not in _HITS:
        if len(_HITS) > 500_000:
            _HITS.clear()
        _HITS[key] = bool(_union(table).search(sentence[:1].lower() + sentence[1:]))
    return _HITS[key]


#: The row's passages as lowercased words, by the passages.
_PASSAGES: dict[tuple[str, ...], list[str]] = {}


def _passages(row: GoldRecord) -> list[str]:
    """The row's passages as lowercased words joined by spaces (kept, as `_fit`)."""
    key = tuple(row.contexts)
    if key not in _PASSAGES:
        if len(_PASSAGES) > 50_000:
            _PASSAGES.clear()
        _PASSAGES[key] = [" ".join(words(p)).lower() for p in row.contexts]
    return _PASSAGES[key]


#: What a spoken show says of itself.
_SHOW = re.compile(r"(?<!\w)(?:podcast|episode|you(?:['’]re| are) listening)(?!\w)", re.IGNORECASE)


def _spoken(passage: str) -> bool:
    """Whether `passage` is a transcript: two fillers, or a show that names itself."""
    return len(_FILLER.findall(passage)) >= 2 or bool(_SHOW.search(passage))


def _fit(row: GoldRecord) -> tuple[tuple[str, str], ...]:
    """The row's context sentences fit to edit, with their language: no question, quote,
    transcript (a passage with fillers: its sentences are seldom well formed) or sentence
    cut short (kept per passages: rows often share them)."""
    key = tuple(row.contexts)
    if key not in _SENTENCES:
        if len(_SENTENCES) > 50_000:
            _SENTENCES.clear()
        spoken = [" ".join(p.split()) for p in row.contexts if _spoken(p)]
        fit = []
        for s in candidate_sentences(row):
            if any(s in p for p in spoken):
                continue
            if "?" in s or _QUOTES.search(s) or _SPOKEN.search(s) or _CUT.search(s):
                continue
            if _DEBRIS.search(s):
                continue
            lang = language(s)
            if lang in LANGUAGES and not (lang == "en" and _FILLER.search(s)):
                fit.append((s, lang))
        _SENTENCES[key] = tuple(fit)
    return _SENTENCES[key]


#: The edit a rule list (and its guard) makes of a sentence, by their identities and the
#: sentence: rows share passages, so the same sentence is tried again and again.
_EDITS: dict[tuple[int, int, str], tuple[str, str, str, str] | None] = {}


def _guarded_edit(
    sentence: str, lang: str, table: Sequence[Rule], guard: Callable[[str, str], bool] | None
) -> tuple[str, str, str, str] | None:
    """`_edit` where `guard` lets the sentence be edited, else None (kept)."""
    key = (id(table), id(guard), sentence)
    if key not in _EDITS:
        if len(_EDITS) > 500_000:
            _EDITS.clear()
        ok = guard is None or guard(sentence, lang)
        _EDITS[key] = _edit(sentence, lang, table) if ok else None
    return _EDITS[key]


def _edit(sentence: str, lang: str, table: Sequence[Rule]) -> tuple[str, str, str, str] | None:
    """The first edit any rule makes in `sentence`: (new sentence, old span, new span, the
    new span with up to two words either side, lowercased: a claim the context must not
    already make)."""
    found: list[tuple[int, int, str]] = []
    first = re.search(r"\w", sentence)
    start_of_sentence = first.start() if first else 0
    at = start_of_sentence
    lowered = sentence[:at] + sentence[at : at + 1].lower() + sentence[at + 1 :]
    for rule in table:
        for match in _matches(rule.pattern, sentence, lowered, at):
            text = sentence[match.start() : match.end()]
            new = match.expand(rule.replace) if isinstance(rule.replace, str) else None
            if callable(rule.replace):
                new = rule.replace(match)
            if new is None:
                continue
            found.append((match.start(), match.end(), keep_case(text, new)))
            break
    if not found:
        return None
    start, end, new = min(found)
    head = sentence[:start]
    if lang == "en":
        head = _fix_article(head, new)
    out = head + new + sentence[end:]
    out = re.sub(r"\s{2,}", " ", out).replace(" ,", ",").strip()
    if start <= start_of_sentence:
        out = out[:1].upper() + out[1:]
    window = [*words(head)[-2:], *words(new), *words(sentence[end:])[:2]]
    return out, sentence[start:end], new, " ".join(window).lower()


def rewrite(
    row: GoldRecord,
    *,
    rng: random.Random,
    table: Rules | Callable[[str, str], Sequence[Rule]],
    guard: Callable[[str, str], bool] | None = None,
    nothing: str,
) -> Variant | Skip:
    """A variant of `row`: one context sentence with one edit from `table`.

    Args:
        row: The row whose context sentences are tried.
        rng: Draws the order the sentences are tried in.
        table: The kind's rules by language, or a function `(sentence, lang) -> rules`
            that picks them for one sentence.
        guard: `(sentence, lang) -> bool`: False refuses a sentence (a trap for the kind).
        nothing: The skip reason when no sentence takes an edit.

    Returns:
        The edited sentence as the answer, the old and new span as the edit; or a skip.
    """
    found = list(_fit(row))
    rng.shuffle(found)
    passages: list[str] = []
    for sentence, lang in found:
        chosen = table.get(lang, []) if isinstance(table, dict) else table(sentence, lang)
        if not chosen or not _hit(chosen, sentence):
            continue
        made = _guarded_edit(sentence, lang, chosen, guard)
        if made is None:
            continue
        new_sentence, old, new, window = made
        if new_sentence == sentence:
            continue
        passages = passages or _passages(row)
        if any(window in p for p in passages):
            continue
        return Variant(answer=new_sentence, before=old, after=new, language=lang)
    return Skip(nothing)
