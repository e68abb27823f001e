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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from ragjudge.data._gold import GoldRecord
from ragjudge.probe._probe import Skip, Variant
from ragjudge.probe._text import LANGUAGES, candidate_sentences, language, words

__all__ = ["Rule", "Rules", "keep_case", "rewrite", "rules", "word_regex"]

#: What a match becomes: a template (`\1` for groups) or a function (None: no edit here).
Replace = str | Callable[[re.Match[str]], str | None]


@dataclass(frozen=True)
class Rule:
    """One pattern and what a match of it becomes.

    Attributes:
        pattern: The compiled pattern (whole words; see `word_regex`).
        replace: A template or a function of the match.
    """

    pattern: re.Pattern[str]
    replace: Replace


#: The rules of one kind, by language.
Rules = dict[str, list[Rule]]


def word_regex(pattern: str) -> re.Pattern[str]:
    """`pattern` as whole words, case-insensitive (the driver refuses a match that is
    capitalized away from the sentence's start)."""
    end = r"(?:(?<=\s)|(?![\w\-]|['’]\w))"
    return re.compile(rf"(?<![\w'’\-])(?:{pattern}){end}", re.IGNORECASE)


def rules(table: Mapping[str, Sequence[tuple[str, Replace]]]) -> Rules:
    """Compile `{lang: [(pattern, replace), ...]}` into `Rules`."""
    return {lang: [Rule(word_regex(p), r) for p, r in pairs] for lang, pairs in table.items()}


def keep_case(old: str, new: str) -> str:
    """`new` capitalized as `old` is (its first letter)."""
    if old[:1].isupper() and new[:1].islower():
        return new[:1].upper() + new[1:]
    return new


_QUOTES = re.compile(r"[\"“”«»„*#]|(?:^|\s)['‘]|['’](?:\s|$)")
#: A transcript's speaker tag or filler, or a word said twice: no sentence to edit.
_SPOKEN = re.compile(
    r"^[\w .]{1,25}:\s|[A-Z]\w*:\s|(?<!\w)(?:um+|uh+|hmm+|mm+|yeah|gonna|wanna|okay)(?!\w)|"
    r"(?<!\w)(\w+) \1(?!\w)",
    re.IGNORECASE,
)
#: A sentence cut short: it ends on a word that cannot end one.
_CUT = re.compile(r"(?<!\w)(?:be|is|are|was|were|the|a|an|of|to|that|and|or|will|could)\s*[.!]$")
_VOWEL_SOUND = re.compile(r"(?i)(?!uni|use|eu|one|once)[aeiou]|hour|honest|honou?r")


def _fix_article(head: str, new: str) -> str:
    """`head` (the text before the edit) with a final English `a`/`an` agreeing with `new`."""
    match = re.search(r"(?<![\w'])([Aa]n?)\s$", head)
    if not match or not new[:1].isalpha():
        return head
    article = "an" if _VOWEL_SOUND.match(new) else "a"
    return head[: match.start(1)] + keep_case(match.group(1), article) + " "


def _edit(sentence: str, lang: str, table: Sequence[Rule]) -> tuple[str, str, str, str] | None:
    """The first edit any rule makes in `sentence`: (new sentence, old span, new span, the
    new span with up to two words either side, lowercased: a claim the context must not
    already make)."""
    found: list[tuple[int, int, str]] = []
    first = re.search(r"\w", sentence)
    start_of_sentence = first.start() if first else 0
    for rule in table:
        for match in rule.pattern.finditer(sentence):
            text = match.group(0)
            if match.start() != start_of_sentence and any(c.isupper() for c in text):
                continue
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
    found = [
        s
        for s in candidate_sentences(row)
        if "?" not in s and not _QUOTES.search(s) and not _SPOKEN.search(s) and not _CUT.search(s)
    ]
    rng.shuffle(found)
    passages: list[str] = []
    for sentence in found:
        lang = language(sentence)
        if lang not in LANGUAGES or (guard is not None and not guard(sentence, lang)):
            continue
        chosen = table.get(lang, []) if isinstance(table, dict) else table(sentence, lang)
        made = _edit(sentence, lang, chosen)
        if made is None:
            continue
        new_sentence, old, new, window = made
        if new_sentence == sentence:
            continue
        passages = passages or [" ".join(words(p)).lower() for p in row.contexts]
        if any(window in p for p in passages):
            continue
        return Variant(answer=new_sentence, before=old, after=new, language=lang)
    return Skip(nothing)
