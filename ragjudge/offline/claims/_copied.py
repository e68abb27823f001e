"""A statement that copies a context sentence but for a word: the words around the word, read
alike in the context (`window`, `said_plainly`), find the sentence it copies without an
aligner. Polarity reads a negation added or dropped and an opposite this way, quantity a
number or unit swapped."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

__all__ = ["LEAST", "SIDE", "negated_base", "said_plainly", "swapped_words", "window"]

#: Negated auxiliaries, as the stem they negate ("can't make" negates "can make").
_NEGATED = {
    "cannot": "can", "can't": "can", "won't": "will", "don't": "do", "doesn't": "doe",
    "didn't": "did", "isn't": "is", "aren't": "are", "wasn't": "was", "weren't": "wer",
    "wouldn't": "would", "shouldn't": "should", "couldn't": "could", "hasn't": "has",
    "haven't": "have", "hadn't": "had",
}  # fmt: skip
#: Bare negations, which the plain form drops ("is not the same": "is the same").
_BARE = frozenset({"not", "never", "n't", "nicht", "pas"})
#: Words on each side of a word that must read alike in the context.
SIDE = 3
#: Words around a word that must read alike in all, at least, where both its sides have some.
LEAST = 4


def negated_base(stem: str) -> str | None:
    """The words a negation stands for once undone: "" for a bare one ("not"), the auxiliary of
    a negated one ("can" of "can't"); None for a word that negates nothing."""
    if stem in _BARE:
        return ""
    return _NEGATED.get(stem)


def window(stems: Sequence[str], k: int, base: str) -> str:
    """The `SIDE` words on each side of the word at `k`, with `base` in its place ("" for none:
    a negation undone), as a spaced string; "" where they are too few (four at least, or
    `SIDE` on one side at a statement's edge) or hold a negation."""
    before, after = list(stems[max(0, k - SIDE) : k]), list(stems[k + 1 : k + 1 + SIDE])
    if len(before) + len(after) < (LEAST if before and after else SIDE):
        return ""
    if any(negated_base(s) is not None for s in (*before, *after)):
        return ""
    return f" {' '.join([*before, *([base] if base else []), *after])} "


def said_plainly(text: str, run: str) -> bool:
    """Whether a run of words stands in the spaced stems with no negation in the `SIDE` words
    before it ("may not process the numbers after": the opposite, negated, may be the
    statement's meaning)."""
    start = text.find(run)
    while start >= 0:
        before = text[max(0, text.rfind("\n", 0, start) + 1) : start].split()[-SIDE:]
        if not any(negated_base(s) is not None for s in before):
            return True
        start = text.find(run, start + 1)
    return False


def swapped_words(spaced: str, stems: Sequence[str], k: int) -> Iterator[str]:
    """The words a context sentence that a statement otherwise copies has in the place of the
    statement's word at `k` (`spaced`: `ContextIndex.spaced_stems`): none where the statement's
    own words stand there too (`window`), and each said plainly (`said_plainly`)."""
    own = window(stems, k, stems[k])
    if not own or own in spaced:
        return
    for word, run in _slot_words(spaced, stems, k):
        if said_plainly(spaced, run):
            yield word


def _slot_words(spaced: str, stems: Sequence[str], k: int) -> Iterator[tuple[str, str]]:
    """The words the context has in the place of the word at `k`, each with the run of words
    found: the `window` around the word read alike, or, where the sentence starts within the
    words before it ("(www.site.com) Longboards are always" against a sentence "Longboards are
    typically"), those from the sentence's start on, `LEAST` words at least in all."""
    slot = window(stems, k, "\x00")
    if not slot:
        return
    before, _, after = slot.partition("\x00")
    words = before.split()
    runs = [re.escape(before)]
    runs += [
        f"(?:^|\\n) {re.escape(' '.join(words[m:]))} "
        for m in range(1, len(words))
        if len(words) - m + len(after.split()) >= LEAST
    ]
    for run in runs:
        for found in re.finditer(f"{run}(\\S+){re.escape(after)}", spaced):
            yield found.group(1), found.group(0).lstrip("\n")
