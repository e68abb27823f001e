"""Best-span alignment of a statement to the context (SummaC-style, lexical).

A statement is supported by one compact stretch of the context: a clause of one sentence, not
words gathered from a whole passage. `align` finds, among the clauses of the sentences that
share most of the statement's words, the one that covers most of its content weight, and reads
two pieces of evidence off it:

- **slot conflict**: on that clause, a statement word that the context says elsewhere sits
  where the clause has another word of its kind, between the words they share ("Zurich is the
  seat of the Swiss government" against "Bern is the seat of the Swiss government. Zurich is
  the largest city": 'Zurich' where the clause says 'Bern'; "the Starter tier includes phone
  support" against "the Starter tier includes chat support only": 'phone' where it says
  'chat'). One name written two ways is no conflict (`same_name`: "EU" / "European Union"),
  and a capital that only opens a sentence makes no name ("Since ...");
- **exclusion**: a statement word that the clause names only after "except", "other than",
  "instead of", "rather than", "but not", "excluding", ... ("uses a diesel generator" against
  "uses solar panels instead of a diesel generator").

Each is a feature of the offline model (`ragjudge.offline.features`) with a fitted weight; the
notes name what was found.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise
from typing import NamedTuple

from ragjudge.offline.text import STOPWORDS, Token, is_common_word, stem, tokenize

__all__ = ["SpanEvidence", "align", "clauses", "same_name"]

#: Where a sentence splits into clauses: semicolons, colons, and a comma before a contrast.
_CLAUSE_RE = re.compile(
    r"\s*[;:]\s+|,\s+(?=(?:but|while|whereas|although|though|yet|whilst)\b)|\s+(?=but\s)",
    re.IGNORECASE,
)
#: Words after which a clause names what is left out ("all days except Friday").
_EXCLUDING = (
    "except for", "except", "excluding", "other than", "apart from", "instead of", "rather than",
    "but not", "not including", "with the exception of", "save for", "aside from",
)  # fmt: skip
_EXCLUDING_RE = re.compile(r"\b(?:" + "|".join(map(re.escape, _EXCLUDING)) + r")\b", re.I)
#: Tokens after an exclusion word that it covers ("except on public holidays").
_EXCLUDED_SPAN = 5
#: The fewest statement words a clause must share to anchor a slot.
_MIN_ANCHORS = 2
#: The largest filler (tokens) on either side of a slot.
_MAX_FILLER = 3
_PUNCTUATION_RE = re.compile(r"[,;:()\[\]]")
#: Words saying a clause's filler is the only one ("chat support only").
_EXCLUSIVE = frozenset("only exclusively solely just alone".split())
#: A word joined by a hyphen to the next one ("e-" of "e-mail").
_GLUED_RE = re.compile(r"\w+-$")
_COPULAS = frozenset("is was are were has had".split())
#: Words inside a name ("Bank of England", "Ludwig van Beethoven").
_NAME_JOINERS = frozenset("of the and for de la le du des von van der den da di del y &".split())
#: Titles before a name (stems): "President Obama" is "Barack Obama".
_TITLES = frozenset(
    stem(w)
    for w in """mr mrs ms miss dr prof professor sir dame lord lady king queen prince princess
    saint st president vice prime deputy senator sen rep representative governor gov mayor
    minister secretary chancellor premier general gen colonel captain judge justice pope bishop
    archbishop""".split()
)
#: What before a capital opens a line as a list item ("- Since ...", "* Since", "1. Since").
_BULLET_RE = re.compile(r"(?:^|\n)[ \t]*(?:[-*•–—]|\d+[.)])[ \t]*$")
#: An abbreviation's dotted letters ("U.S.", "U.K."): a sentence goes on after it.
_DOTTED_RE = re.compile(r"\b(?:[A-Za-z]\.){2,}")
_DOTTED_END_RE = re.compile(r"(?:\b[A-Z]\.|\b(?:Mr|Mrs|Ms|Dr|Prof|St|Gen|Sen|Gov)\.)\s*$")


class _Casing(NamedTuple):
    """How the context and the statement write words: stems capitalized inside a sentence
    (names), and content stems written in lower case (common words)."""

    names: frozenset[str]
    lowered: frozenset[str]


@dataclass(frozen=True)
class SpanEvidence:
    """What the best-aligned clause says of a statement.

    Attributes:
        coverage: Share of the statement's content weight the clause covers (0 without one).
        clause: The clause's text ("" without one).
        slot_note: The slot conflict found, worded for a reason, or "".
        excluded_note: The exclusion found, worded for a reason, or "".
    """

    coverage: float = 0.0
    clause: str = ""
    slot_note: str = ""
    excluded_note: str = ""


@lru_cache(maxsize=4096)
def clauses(sentence: str) -> tuple[tuple[str, tuple[Token, ...]], ...]:
    """The clauses of a sentence, each with its tokens (cached by sentence).

    Args:
        sentence: One sentence of a context.

    Returns:
        `(text, tokens)` of each non-empty clause, in order.
    """
    out = []
    for part in _CLAUSE_RE.split(sentence):
        text = part.strip()
        if text:
            out.append((text, tuple(tokenize(text))))
    return tuple(out)


def align(
    sentences: Sequence[str],
    statement: str,
    content: Sequence[Token],
    weights: Sequence[float],
    in_context: Sequence[bool],
    read_as: Sequence[bool] = (),
    statement_tokens: Sequence[Token] = (),
    names: frozenset[str] = frozenset(),
    lowered: frozenset[str] = frozenset(),
) -> SpanEvidence:
    """Align a statement to its best clause and read the slot and exclusion evidence there.

    Args:
        sentences: Candidate context sentences (those of the passages sharing most words).
        statement: The statement's text.
        content: The statement's content tokens (those that count as claims).
        weights: Their weights (`token_weight`).
        in_context: Whether each is found anywhere in the context.
        read_as: Whether each is found in the best passage by value or meaning rather than as
            the same word ("500" in "450-550", an acronym, a paraphrase): such a word cannot
            be placed in a clause, so it counts as covered by every clause and fills no slot.
        statement_tokens: All tokens of the statement (`tokenize`), when the caller has them.
        names: Stems the context capitalizes inside a sentence (`ContextIndex.names`): a
            sentence's first word is a name when the context writes it so elsewhere.
        lowered: Content stems the context writes in lower case (`ContextIndex.lowered`):
            a sentence's first word is a common word when the context writes it so.

    Returns:
        The `SpanEvidence`.
    """
    if not content or not sentences:
        return SpanEvidence()
    total = sum(weights) or 1.0
    loose = list(read_as) or [False] * len(content)
    free = sum(w for w, r in zip(weights, loose, strict=True) if r)
    placed = [(t, w) for t, w, r in zip(content, weights, loose, strict=True) if not r]
    best: tuple[float, int, str, tuple[Token, ...]] | None = None
    for sentence in dict.fromkeys(sentences):
        for text, tokens in clauses(sentence):
            keys = {t.stem for t in tokens} | {t.norm for t in tokens}
            covered = free + sum(w for t, w in placed if t.stem in keys or t.norm in keys)
            anchors = sum(1 for t, _ in placed if t.stem in keys or t.norm in keys)
            key = (covered, -len(tokens))
            if best is None or key > (best[0], -len(best[3])):
                best = (covered, anchors, text, tokens)
    if best is None:
        return SpanEvidence()
    covered, anchors, text, tokens = best
    if anchors < _MIN_ANCHORS:
        return SpanEvidence(coverage=covered / total, clause=text)
    keys = {t.stem for t in tokens} | {t.norm for t in tokens}
    fixed = [t for t, r in zip(content, loose, strict=True) if not r]
    found = [ok for ok, r in zip(in_context, loose, strict=True) if not r]
    slot = ""
    if any(
        ok and t.stem not in keys and t.norm not in keys for t, ok in zip(fixed, found, strict=True)
    ):
        slot = _slot(
            statement,
            statement_tokens or tokenize(statement),
            fixed,
            found,
            (text, tokens),
            _Casing(names, lowered),
        )
    return SpanEvidence(
        coverage=covered / total,
        clause=text,
        slot_note=slot,
        excluded_note=_excluded(statement, content, text, tokens),
    )


def _matches(a: Token, b: Token) -> bool:
    return a.stem == b.stem or a.norm == b.norm


def _lcs_pairs(a: Sequence[Token], b: Sequence[Token]) -> list[tuple[int, int]]:
    """The aligned index pairs of a longest common subsequence of two token lists."""
    n, m = len(a), len(b)
    table = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            table[i][j] = (
                table[i + 1][j + 1] + 1
                if _matches(a[i], b[j])
                else max(table[i + 1][j], table[i][j + 1])
            )
    pairs, i, j = [], 0, 0
    while i < n and j < m:
        if _matches(a[i], b[j]):
            pairs.append((i, j))
            i, j = i + 1, j + 1
        elif table[i + 1][j] >= table[i][j + 1]:
            i += 1
        else:
            j += 1
    return pairs


def _opens(text: str, token: Token) -> bool:
    """Whether a token stands where any word is capitalized: a sentence's or clause's first
    word, one after a colon or a quote (`tokenize` marks those) or a list item's bullet, and
    not the word after an abbreviation's dot ("the U.S. Senate")."""
    before = text[: token.start]
    if token.sentence_initial:
        return not (before.strip() and _DOTTED_END_RE.search(before))
    return bool(_BULLET_RE.search(before))


def _is_name(text: str, tokens: Sequence[Token], k: int, casing: _Casing) -> bool:
    """A name: a capitalized word ("eBay" too) inside a sentence but the pronoun ("I'll");
    where any word is capitalized (a sentence's first word, after a colon, a quote or a
    bullet) only when the context or the statement capitalizes it inside a sentence, or
    neither writes it in lower case and it is no common English word (`is_common_word`:
    "Since", "Researchers" are; "Bern" is not), and never before a comma ("Therefore,
    ...")."""
    token = tokens[k]
    if token.is_number or not any(c.isupper() for c in token.text):
        return False
    if token.norm.replace("’", "'").split("'")[0] == "i":
        return False  # the pronoun: "I", "I'll"
    if not _opens(text, token):
        return True
    end = token.start + len(token.text)
    if text[end : end + 1] == "," or token.norm in STOPWORDS:
        return False
    if token.stem in casing.names or token.norm in casing.names:
        return True
    return token.stem not in casing.lowered and not is_common_word(token.norm)


def _name_runs(text: str, tokens: Sequence[Token], casing: _Casing) -> list[list[Token]]:
    """The names of a text: runs of name words, with "of", "the", "van", ... inside them
    ("Bank of England"), and dotted abbreviations ("U.S.") as one word each."""
    runs: list[list[Token]] = []
    run: list[Token] = []
    pending: list[Token] = []
    for k, token in enumerate(tokens):
        # a capital opening a sentence belongs to the name it opens ("United States ...")
        if _is_name(text, tokens, k, casing) or (
            token.is_capital
            and token.norm not in STOPWORDS
            and k + 1 < len(tokens)
            and _is_name(text, tokens, k + 1, casing)
        ):
            run.extend(pending if run else [])
            run.append(token)
            pending = []
        elif run and token.norm in _NAME_JOINERS and not pending:
            pending = [token]
        else:
            if run:
                runs.append(run)
            run, pending = [], []
    if run:
        runs.append(run)
    for m in _DOTTED_RE.finditer(text):
        letters = m.group().replace(".", "")
        word = letters.lower()
        runs.append([Token(m.group(), word, word, False, True, False, m.start(), True)])
    return runs


def same_name(a: Sequence[str], b: Sequence[str], *, partial: bool = False) -> bool:
    """Whether two names are one written two ways.

    Titles and joiners aside, one's words all among the other's, compared as stems (case, a
    possessive or a plural aside: "Obama" / "President Barack Obama's"), or one word the
    other's initials ("EU" / "European Union", "US" / "United States", "BoE" / "Bank of
    England"). Not two names that share some words only ("Marie Curie" / "Pierre Curie",
    "Hubble Space Telescope" / "James Webb Space Telescope", "North Korea" / "South Korea").

    With `partial`, runs of names read off a sentence without knowing where one name ends
    ("Chris Eubank" / "Livingston Eubank" of "Christopher Livingstone Eubank", the agents of
    a verb): any word in common makes one name. On the gold dev rows, one-sided subsets there
    found no swapped agent and two false ones.

    Args:
        a: One name's words, lower-cased (stems).
        b: The other's.
        partial: Whether the names may be cut-off parts of longer ones.

    Returns:
        True for one name.
    """
    words = [{w for w in name if w not in _NAME_JOINERS and w not in _TITLES} for name in (a, b)]
    if partial and words[0] & words[1]:
        return True
    if words[0] and words[1] and (words[0] <= words[1] or words[1] <= words[0]):
        return True
    for one, other in ((a, b), (b, a)):
        if len(one) == 1 and len(other) > 1:
            letters = "".join(c for c in one[0] if c.isalpha())
            kept = [w for w in other if w not in _TITLES and w]
            initials = {
                "".join(w[0] for w in kept if w != "the"),
                "".join(w[0] for w in kept if w not in _NAME_JOINERS),
            }
            if len(letters) > 1 and letters in initials:
                return True
    return False


def _slot(
    statement: str,
    statement_tokens: Sequence[Token],
    content: Sequence[Token],
    in_context: Sequence[bool],
    aligned: tuple[str, Sequence[Token]],
    casing: _Casing,
) -> str:
    """A statement word the context has elsewhere, in the clause's slot of another word.

    The statement must align to the clause but for one slot: every other content word of it
    matched in order, at most three words on each side of the slot. Two names fill one slot
    ("Zurich" / "Bern"), unless the clause names the statement's name another way ("EU" /
    "European Union", "Obama" / "Barack Obama": `same_name`); two common words only where
    the clause says its own exclusively ("chat support only"): on gold rows, common words in
    one slot were as often rewordings ("paid" / "money back") as swaps.
    """
    text, clause = aligned
    mine = list(content)
    theirs = [t for t in clause if t.is_content]
    pairs = _lcs_pairs(mine, theirs)
    if len(pairs) < _MIN_ANCHORS:
        return ""
    bounds = [(-1, -1), *pairs, (len(mine), len(theirs))]
    found = dict(zip((t.start for t in content), in_context, strict=True))
    gaps = [
        (i0, i1, j0, j1)
        for (i0, j0), (i1, j1) in pairwise(bounds)
        # statement words between two aligned ones (or an end) that the context says: words
        # it never says ("Yes, ...") are the novel-word evidence's, not a slot
        if i1 - i0 > 1 and any(found.get(t.start, False) for t in mine[i0 + 1 : i1])
    ]
    if len(gaps) != 1:
        return ""  # no slot, or a statement that differs from the clause in several places
    i0, i1, j0, j1 = gaps[0]
    gap_mine, gap_theirs = mine[i0 + 1 : i1], theirs[j0 + 1 : j1]
    if not gap_theirs or len(gap_mine) > _MAX_FILLER or len(gap_theirs) > _MAX_FILLER:
        return ""
    if not all(found.get(t.start, False) for t in gap_mine):
        return ""  # a word the context never says: the novel-word evidence's
    if any(_matches(t, c) for t in gap_mine for c in clause):
        return ""  # said in the clause, in another order: no other word in its place
    if any(t.is_number for t in (*gap_mine, *gap_theirs)):
        return ""  # numbers are compared as values (`ragjudge.offline.numbers`)
    known = _Casing(
        casing.names
        | {t.stem for t in statement_tokens if t.is_capital and not _opens(statement, t)},
        casing.lowered
        | {t.stem for t in statement_tokens if t.is_content and t.text[:1].islower()},
    )
    # a slot's kind is its head's, the last word: "the Basic Law", "pro-Russian group"
    kinds = (
        _is_name(statement, statement_tokens, _position(statement_tokens, gap_mine[-1]), known),
        _is_name(text, clause, _position(clause, gap_theirs[-1]), known),
    )
    if kinds[0] != kinds[1]:
        return ""
    if kinds[0] and _named_in(statement, statement_tokens, gap_mine, aligned, known):
        return ""  # "EU" / "European Union": one name written two ways
    if not kinds[0] and (i0 < 0 or not _restricted(clause, gap_theirs)):
        return ""  # a common word fills a slot only where the clause says its own exclusively
    return _slot_note(
        statement,
        statement_tokens,
        gap_mine,
        _quote(statement, gap_mine),
        _quote(text, gap_theirs),
    )


def _position(tokens: Sequence[Token], token: Token) -> int:
    """The index of a token among its text's tokens (found by its offset)."""
    return next(k for k, t in enumerate(tokens) if t.start == token.start)


def _named_in(
    statement: str,
    statement_tokens: Sequence[Token],
    gap: Sequence[Token],
    aligned: tuple[str, Sequence[Token]],
    casing: _Casing,
) -> bool:
    """Whether a name of the statement's slot is a name of the clause written another way."""
    starts = {t.start for t in gap}
    mine = [
        run
        for run in _name_runs(statement, statement_tokens, casing)
        if any(t.start in starts for t in run)
    ]
    theirs = _name_runs(*aligned, casing)
    return any(same_name([t.stem for t in a], [t.stem for t in b]) for a in mine for b in theirs)


def _restricted(clause: Sequence[Token], filler: Sequence[Token]) -> bool:
    """Whether the clause says its filler exclusively ("chat support only", "only chat")."""
    starts = [t.start for t in clause]
    first, last = starts.index(filler[0].start), starts.index(filler[-1].start)
    near = [*clause[max(0, first - 2) : first], *clause[last + 1 : last + 3]]
    return any(t.norm in _EXCLUSIVE for t in near)


def _quote(text: str, tokens: Sequence[Token]) -> str:
    """The words of `text` from the first token to the last, a hyphenated word kept whole
    ("e-mail help", not "mail help")."""
    start, end = tokens[0].start, tokens[-1].start + len(tokens[-1].text)
    glued = _GLUED_RE.search(text, 0, start)
    if glued is not None:
        start = glued.start()
    return " ".join(text[start:end].split())


def _slot_note(
    statement: str,
    tokens: Sequence[Token],
    gap: Sequence[Token],
    claimed: str,
    said: str,
) -> str:
    """The reason's words: "'Zurich' is not the seat of the Swiss government in the context:
    'Bern' is" when the slot is a subject before "is"/"was"/..., else "'phone' where the
    context says 'chat'"."""
    last = gap[-1]
    after = [t for t in tokens if t.start > last.start]
    if (
        after
        and after[0].norm in _COPULAS
        and not any(t.start < gap[0].start and t.is_content for t in tokens)
    ):
        verb = after[0].text
        rest = statement[after[0].start + len(verb) :].strip().rstrip(".!?").strip()
        if rest:
            return f"'{claimed}' {verb} not {rest} in the context: '{said}' {verb}"
    return f"'{claimed}' where the context says '{said}'"


def _excluded(statement: str, content: Sequence[Token], text: str, clause: Sequence[Token]) -> str:
    """A statement word that the clause names only as left out ("except Fridays")."""
    if _EXCLUDING_RE.search(statement):
        return ""
    mine = {t.stem for t in content} | {t.norm for t in content}
    for m in _EXCLUDING_RE.finditer(text):
        after = [t for t in clause if t.start >= m.end()][:_EXCLUDED_SPAN]
        # the scope ends at punctuation: "but not (yet) coffee", "except Fridays, and tea"
        stop = next(
            (k for k, t in enumerate(after) if _PUNCTUATION_RE.search(text, m.end(), t.start)),
            None,
        )
        scope = after[:stop] if stop is not None else after
        hit = [t for t in scope if t.is_content and (t.stem in mine or t.norm in mine)]
        after_hit = scope[scope.index(hit[-1]) + 1 :] if hit else []
        if after_hit and after_hit[0].is_content and not after_hit[0].is_number:
            continue  # "rather than using ski lifts": 'ski' names the lifts, not what is left out
        if hit:
            words = " ".join(t.text for t in hit)
            quoted = text[m.start() : hit[-1].start + len(hit[-1].text)]
            return f"the context names '{words}' only as left out: '{quoted}'"
    return ""
