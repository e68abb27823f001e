"""Support features of a statement against a context, and of an answer over its statements.

The context is indexed once (cached by its text): its sentences, windows of consecutive
sentences ("passages"), an inverted index from stems to passages, and the context-wide sets of
stems, numbers and bigrams. A statement is then matched against its best passages and
described by a fixed-order feature vector (`STATEMENT_FEATURES`); an answer is described by
aggregates over its statements (`ANSWER_FEATURES`).
"""

from __future__ import annotations

import math
import operator
import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import groupby, pairwise
from typing import TYPE_CHECKING

from ragjudge.offline.claims import abstention, answer, claim_conflicts, polarity
from ragjudge.offline.claims import names as name_claims
from ragjudge.offline.claims.quantity import (
    OPERATION_WORDS,
    copied_swap,
    derived,
    given_for_another,
    show,
    value_conflict,
)
from ragjudge.offline.claims.reading import Reading
from ragjudge.offline.claims.scope import copied_widening, restricted
from ragjudge.offline.index import ContextIndex
from ragjudge.offline.numbers import (
    MONTH_NAMES,
    Quantity,
    is_measure,
    number_values,
    supports,
    value_places,
    value_years,
)
from ragjudge.offline.paraphrase import PARAPHRASE_FEATURES, paraphrase_evidence
from ragjudge.offline.spans import SpanEvidence, align
from ragjudge.offline.statements import (
    DISPUTED_RE,
    HEDGE_RE,
    SPECULATIVE_RE,
    is_hedged,
)
from ragjudge.offline.text import (
    Token,
    canonical,
    sentence_profile,
    split_sentences,
    stem,
    tokenize,
)

if TYPE_CHECKING:
    from ragjudge.offline.minilm import MiniLM

__all__ = [
    "ANSWER_FEATURES",
    "STATEMENT_FEATURES",
    "ContextIndex",
    "StatementEvidence",
    "answer_evidence",
    "answer_features",
    "context_index",
    "statement_evidence",
]

STATEMENT_FEATURES: tuple[str, ...] = (
    "coverage_best",
    "coverage_context",
    "weighted_coverage_best",
    "weighted_coverage_context",
    "rouge_l_precision",
    "bigram_coverage",
    "novel_numbers",
    "novel_names",
    "novel_weight",
    "longest_novel_run",
    "negation_added",
    "negation_removed",
    "antonym_conflict",
    "log_length",
    "number_conflict",
    "entity_conflict",
    "word_substitution",
    "hedged",
    *PARAPHRASE_FEATURES,
    "slot_conflict",
    "excluded",
)

ANSWER_FEATURES: tuple[str, ...] = (
    "min_confidence",
    "mean_confidence",
    "logit_min_confidence",
    "fraction_unsupported",
    "answer_coverage",
    "answer_weighted_coverage",
    "answer_bigram_coverage",
    "max_novel_numbers",
    "max_novel_names",
    "total_novel_weight",
    "any_negation_mismatch",
    "any_antonym_conflict",
    "novel_from_question",
    "log_statements",
    "any_number_conflict",
    "any_entity_conflict",
    "any_word_substitution",
    "fraction_hedged",
    "fraction_contradicted",
    "min_sentence_similarity",
    "any_slot_conflict",
)

_WINDOW = 2
#: A blank line (white space around it included): where one block of the context ends.
_BLANK_LINE_RE = re.compile(r"\n[^\S\n]*\n\s*")
#: The least share of a statement's words its best passage must have to contradict it.
_CONTRADICTION_COVERAGE = 0.25
_TOP_PASSAGES = 3
#: The largest count an answer may make itself from what the context lists.
_SMALL_COUNT = 12
#: Number words as often pronouns or articles as numbers ("one of the", "the third one").
_PRONOUN_NUMBERS = frozenset("one ein eine un une uno una".split())


@lru_cache(maxsize=256)
def context_index(context: str) -> ContextIndex:
    """Index a context once; cached by the context string (thread-safe via `lru_cache`).

    The context is the retrieved passages joined with blank lines, so what the judge reads
    must not depend on their order. It is read as blocks (the text between blank lines: a
    passage, or a paragraph of one), each indexed on its own: its sentences, hedges and
    numbers come from the block's text alone and its windows never reach into another block.
    Everything else is a set over the blocks, and `_best_passages` breaks ties by a block's
    text, not by its position. So a statement's evidence is the same whatever the order of the
    passages (a context without blank lines is one block, indexed as before).

    Args:
        context: The retrieved contexts joined with blank lines.

    Returns:
        The context's `ContextIndex`.
    """
    context = canonical(context)
    index = ContextIndex()
    words: set[str] = set()
    pairs: set[tuple[str, str]] = set()
    numbers: set[str] = set()
    quantities: list[Quantity] = []
    texts_of: list[tuple[Quantity, str]] = []
    lowered: list[frozenset[str]] = []
    for block in _blocks(context):
        spans = split_sentences(block)
        if not spans:
            continue
        block_id = len(index.blocks)
        index.blocks.append(block)
        first = len(index.sentences)
        texts = [block[a:b] for a, b in spans]
        profiles = [sentence_profile(t) for t in texts]
        hedged, found = _per_sentence(block, spans)
        years = [value_years(block, qs) if len(qs) > 1 else [] for qs in found]
        places = [value_places(block, qs) if qs else [] for qs in found]
        index.sentences.extend(texts)
        index.sentence_block.extend([block_id] * len(texts))
        index.sentence_speculative.extend(_flag_sentences(SPECULATIVE_RE, block, spans))
        index.sentence_disputed.extend(_flag_sentences(DISPUTED_RE, block, spans))
        index.sentence_stems.extend(p.stems for p in profiles)
        index.sentence_names.extend(p.names for p in profiles)
        lowered.extend(p.lowered for p in profiles)
        index.sentence_content.extend(p.content for p in profiles)
        index.sentence_asserted.extend(p.asserted for p in profiles)
        for i in range(max(1, len(profiles) - _WINDOW + 1)):
            window = profiles[i : i + _WINDOW]
            pid = len(index.passages)
            index.passages.append(" ".join(texts[i : i + _WINDOW]))
            index.passage_sentences.append(tuple(range(first + i, first + i + len(window))))
            index.passage_keys.append((block, i))
            index.passage_block.append(block_id)
            index.passage_stems.append([s for p in window for s in p.stems])
            index.passage_negations.append(sum(p.negations for p in window))
            index.passage_scopes.append(
                (
                    frozenset().union(*(p.negated for p in window)),
                    frozenset().union(*(p.plain for p in window)),
                )
            )
            index.passage_hedged.append(any(hedged[i : i + _WINDOW]))
            index.passage_quantities.append(tuple(q for qs in found[i : i + _WINDOW] for q in qs))
            index.passage_years.append(tuple(p for ps in years[i : i + _WINDOW] for p in ps))
            index.passage_places.append(tuple(p for ps in places[i : i + _WINDOW] for p in ps))
            for word in {s for p in window for s in p.content}:
                index.postings.setdefault(word, []).append(pid)
        for p in profiles:
            words.update(p.stems)
            words.update(p.norms)
            numbers.update(p.numbers)
            pairs.update(pairwise(p.content))
        quantities.extend(q for qs in found for q in qs)
        texts_of.extend((q, block) for qs in found for q in qs)
    index.quantities = tuple(quantities)
    index.quantity_texts = tuple(texts_of)
    index.spaced_stems = "\n".join(f" {' '.join(s)} " for s in index.sentence_stems)
    index.undone_negations = polarity.undone_negations(index.sentence_stems)
    index.names = frozenset().union(*index.sentence_names)
    index.lowered = frozenset().union(*lowered)
    index.stems, index.numbers, index.bigrams = (
        frozenset(words),
        frozenset(numbers),
        frozenset(pairs),
    )
    return index


def _blocks(context: str) -> list[str]:
    """The blocks of a context: its text between blank lines, stripped, the empty ones left
    out. Passages are joined with blank lines, so each passage is one or more whole blocks."""
    return [b for b in (part.strip() for part in _BLANK_LINE_RE.split(context)) if b]


def _window(index: ContextIndex, pid: int) -> tuple[int, ...]:
    """The sentences of passage `pid` (none for -1)."""
    return index.passage_sentences[pid] if pid >= 0 else ()


def _per_sentence(
    context: str, spans: list[tuple[int, int]]
) -> tuple[list[bool], list[tuple[Quantity, ...]]]:
    """Hedges and quantities of each sentence, read from the text (a block) in one pass each."""
    starts = [a for a, _ in spans]
    hedged = _flag_sentences(HEDGE_RE, context, spans)
    found: list[list[Quantity]] = [[] for _ in spans]
    for q in number_values(context):
        i = bisect_right(starts, q.start) - 1
        if i >= 0 and q.start < spans[i][1]:
            found[i].append(q)
    return hedged, [tuple(f) for f in found]


def _flag_sentences(
    pattern: re.Pattern[str], context: str, spans: list[tuple[int, int]]
) -> list[bool]:
    """Which sentences (spans of the context) the pattern matches in."""
    starts = [a for a, _ in spans]
    flags = [False] * len(spans)
    for match in pattern.finditer(context):
        i = bisect_right(starts, match.start()) - 1
        if i >= 0 and match.start() < spans[i][1]:
            flags[i] = True
    return flags


def _all_flagged(sentences: list[int], flags: list[bool]) -> bool:
    """Whether there are sentences and each is flagged (the sentences that say most of a
    statement: planned only, `sentence_speculative`; denied or doubted, `sentence_disputed`)."""
    return bool(sentences) and all(flags[k] for k in sentences)


def _saying_sentences(index: ContextIndex, best: int, stems: list[str]) -> list[int]:
    """The sentences of the best passage that say most of the statement (at least half of its
    words), or none."""
    if best < 0 or not stems:
        return []
    window = _window(index, best)
    wanted = set(stems)
    cover = {k: len(wanted.intersection(index.sentence_content[k])) for k in window}
    top = max(cover.values(), default=0)
    return [k for k in window if cover[k] == top] if 2 * top >= len(wanted) else []


#: Modals that make what follows them possible, not done; and what may stand between
#: ("might not be", "could also").
_MODALS = frozenset({"might", "could", "may", "would", "will", "shall"})
_SURE_MODALS = frozenset({"will", "shall"})
_MODAL_FILLERS = frozenset(
    stem(w)
    for w in """not also still possibly probably likely definitely certainly eventually even well
    soon ultimately finally again only be have make take get give go do""".split()
)
#: "may" the month: after these words or before a number.
_MONTH_BEFORE = frozenset("in of since until on by from early late mid during through".split())
#: What makes a statement itself hedged, where the future ("will") does not.
_WEAK_HEDGE_RE = re.compile(
    r"\b(?:(?-i:might|may|could|would)|possibly|perhaps|maybe|probably|likely|unlikely|"
    r"könnte|vielleicht|wahrscheinlich|pourrait|peut-être|probablement|podría|quizás|quizá|"
    r"probablemente|appears? to|seems? to)\b|かもしれ|可能",
    re.IGNORECASE,
)
#: The words that only mark a statement as hedged ("plans to", "is expected to", "appears
#: to"): inside a hedge they are no claim to find in the context.
_HEDGE_MARKERS = frozenset(
    stem(w)
    for w in """plans plan planning planned expected intends intend aims aim hopes hope appears
    appear seems seem likely possibly probably perhaps maybe going""".split()
)


def _hedge_words(statement: str, tokens: list[Token]) -> set[int]:
    """The offsets of the tokens that only mark the statement's hedge."""
    spans = [m.span() for m in HEDGE_RE.finditer(statement)]
    return {
        t.start
        for t in tokens
        if t.stem in _HEDGE_MARKERS and any(a <= t.start < b for a, b in spans)
    }


def _weak_hedge_only(statement: str) -> bool:
    """Whether every hedge of a statement only weakens it ("may", "appears to"), none of them
    putting it in the future or in a plan ("will", "plans to", "by 2030")."""
    return all(_WEAK_HEDGE_RE.fullmatch(m.group()) for m in HEDGE_RE.finditer(statement))


def _modal_only(
    index: ContextIndex, sentences: list[int], stems: list[str], tokens: list[Token]
) -> bool:
    """Whether the sentences that say most of the statement say one of its words only after a
    modal, where the statement says it plainly or more surely ("the river might flood" for
    "the river flooded", "the comet could hit" for "the comet will hit")."""
    if not sentences or not all(_MODALS.intersection(index.sentence_stems[k]) for k in sentences):
        return False
    wanted = set(stems)
    own = _governed([t.stem for t in tokens], wanted)
    for k in sentences:
        said = _governed(index.sentence_stems[k], wanted)
        # a word said only after a modal, where the statement says it plainly or more surely
        if not any(_surer(own.get(word, ""), modal) for word, modal in said.items() if modal):
            return False
    return True


def _surer(mine: str, theirs: str) -> bool:
    """Whether a statement's modal (or none: "") claims more than the passage's."""
    return not mine or (mine in _SURE_MODALS and theirs not in _SURE_MODALS)


def _governed(sentence: list[str], wanted: set[str]) -> dict[str, str]:
    """Each wanted word of a sentence with the modal it follows, or "" where it is said
    without one (anywhere in the sentence)."""
    out: dict[str, str] = {}
    for j, word in enumerate(sentence):
        if word not in wanted or word in _MODAL_FILLERS:
            continue
        back = j - 1
        while back >= 0 and j - back <= 3 and sentence[back] in _MODAL_FILLERS:
            back -= 1
        modal = sentence[back] if back >= 0 and sentence[back] in _MODALS else ""
        if modal == "may":
            prev = sentence[back - 1] if back > 0 else ""
            modal = "" if prev in _MONTH_BEFORE or word[:1].isdigit() else modal
        # said once without a modal, it is said plainly
        out[word] = modal if modal and out.get(word) != "" else ""
    return out


@dataclass
class StatementEvidence:
    """How one statement matches the context: the feature vector plus what a reason needs.

    Attributes:
        features: Values in `STATEMENT_FEATURES` order.
        best_passage: Index of the best-matching passage, or -1 when there is none.
        missing: Surface forms of the statement's content words absent from the context.
        novel_numbers: Numbers of the statement absent from the context.
        novel_values: Numbers, month names and places ("in Turin": `claims.names.novel_places`)
            of the statement absent from the context: a fact it does not state, so the
            statement is not supported however much else of it is found
            (`ragjudge.offline.model.offline_verdict`, rule "novel_value").
        negation_note: A note on a negation mismatch, or "".
        antonym_note: A note on an antonym conflict, or on a scope or comparison conflict
            (`ragjudge.offline.claims`), or "".
        modality_note: A note on a statement surer than the passage ("will" where it says
            "might"; `ragjudge.offline.claims.modality`), or "".
        conflict_note: A note on a different number, name or word in the same slot, or on a
            quantity with another unit or given for another thing
            (`ragjudge.offline.claims.quantity`), or "".
        computed_note: A note on a figure of the statement that is a sum or difference of two
            of the passage (`ragjudge.offline.claims.quantity.derived`), or "".
        hedged: Whether the statement hedges or speaks of the future where the passage does not,
            or states as done what the passage only says is planned or expected (`speculated`).
        speculated: The second case.
        paraphrased: `(statement word, passage word)` pairs matched by meaning (paraphrase
            evidence only).
        slot_note: What the best-aligned clause puts where the statement has a word the
            context says elsewhere, or names only as left out (`ragjudge.offline.spans`), or "".
        elsewhere_note: A name of the statement that the context has, where the sentences
            saying the rest of it have another name in its slot
            (`ragjudge.offline.claims.names.name_elsewhere`): the context says the claim of
            someone else, so the statement is not supported (rule "name_elsewhere"), or "".
        own_missing: Whether every content word that only this statement of its answer says is
            missing from the context ("The recipe calls for eggs" beside "... flour", "...
            butter", where the context lists no eggs): what the rest of it says is shared with
            its siblings, so its coverage does not make it supported (see `answer_evidence`).
        content: The statement's content words that count as claims, stem to surface form.
        reading: For a claim read on its own, how the context bears on it: a statement that
            says the context does not answer (`ragjudge.offline.claims.abstention`), a short
            answer read with its question (`ragjudge.offline.claims.answer`); else None.
    """

    features: list[float]
    best_passage: int = -1
    missing: list[str] = field(default_factory=list)
    novel_numbers: list[str] = field(default_factory=list)
    novel_values: list[str] = field(default_factory=list)
    negation_note: str = ""
    antonym_note: str = ""
    modality_note: str = ""
    conflict_note: str = ""
    computed_note: str = ""
    hedged: bool = False
    speculated: bool = False
    paraphrased: list[tuple[str, str]] = field(default_factory=list)
    slot_note: str = ""
    elsewhere_note: str = ""
    own_missing: bool = False
    content: dict[str, str] = field(default_factory=dict, repr=False)
    reading: Reading | None = None

    @property
    def contradicted(self) -> bool:
        """Whether the context contradicts the statement (negation, antonym, swapped value).

        Another value or name does not contradict a hedged or future claim the context does not
        make ("might grow to 1000 employees" against "has 500 employees"): what may be, or will
        be, is another slot than what is. Negations and antonyms still do ("the drug may cure
        it" against "the drug does not cure it").
        """
        if self.reading is not None:  # a claim read on its own
            return self.reading.outcome == "no"
        if self.value("coverage_best") < _CONTRADICTION_COVERAGE:
            return False  # a passage about something else contradicts nothing
        names: tuple[str, ...] = ("negation_added", "negation_removed", "antonym_conflict")
        if not (self.hedged and not self.speculated):
            names = (*names, "number_conflict", "entity_conflict")
        return any(self.value(n) > 0 for n in names)

    def value(self, name: str) -> float:
        """One feature by name.

        Args:
            name: A name from `STATEMENT_FEATURES`.

        Returns:
            The feature's value.
        """
        return self.features[STATEMENT_FEATURES.index(name)]


def token_weight(token: Token) -> float:
    """How contentful a token is: numbers and names weigh most, long words more than short.

    Args:
        token: A content token.

    Returns:
        A weight in roughly [0.5, 3].
    """
    if token.is_number:
        return 3.0
    if token.is_capital and not token.sentence_initial:
        return 2.5
    return 0.5 + min(len(token.norm), 12) / 8.0


def lcs_length(a: list[str], b: list[str]) -> int:
    """Length of the longest common subsequence (bit-parallel, O(len(a) * len(b) / wordsize)).

    Args:
        a: First sequence (the one encoded as bit masks, usually the longer).
        b: Second sequence.

    Returns:
        The LCS length.
    """
    if not a or not b:
        return 0
    masks: dict[str, int] = {}
    for i, item in enumerate(a):
        masks[item] = masks.get(item, 0) | (1 << i)
    full = (1 << len(a)) - 1
    v = full
    for item in b:
        m = masks.get(item)
        if m is None:
            continue
        u = v & m
        v = ((v + u) | (v - u)) & full
    return len(a) - bin(v).count("1")


def _best_passages(index: ContextIndex, stems: list[str]) -> list[int]:
    """The passages sharing most content words with a statement, best first; ties go by the
    passage's block text and place in its block (`ContextIndex.passage_keys`), never by the
    order of the blocks. Sharing none, the first passage of the first blocks by text."""
    hits: Counter[int] = Counter()
    for s in dict.fromkeys(stems):
        for pid in index.postings.get(s, ()):
            hits[pid] += 1
    keys = index.passage_keys
    if not hits:
        openings = [pid for pid, key in enumerate(keys) if key[1] == 0]
        return sorted(openings, key=keys.__getitem__)[:1]
    ranked = sorted(hits.items(), key=lambda item: (-item[1], keys[item[0]]))
    return [pid for pid, _ in ranked[:_TOP_PASSAGES]]


def _choose_passage(
    index: ContextIndex, stems: list[str], all_stems: list[str]
) -> tuple[int, float]:
    """The candidate passage with the best coverage + ROUGE-L mix, and its ROUGE-L precision."""
    n = max(1, len(stems))
    best, best_score, best_rouge = -1, -1.0, 0.0
    for pid in _best_passages(index, stems):
        pset = set(index.passage_stems[pid])
        cov = sum(1 for s in stems if s in pset) / n
        rouge = lcs_length(index.passage_stems[pid], all_stems) / max(1, len(all_stems))
        score = cov + 0.5 * rouge
        if score > best_score:
            best, best_score, best_rouge = pid, score, rouge
    return best, best_rouge


def _longest_false_run(flags: list[bool]) -> int:
    run = longest = 0
    for ok in flags:
        run = 0 if ok else run + 1
        longest = max(longest, run)
    return longest


def _fraction(flags: list[bool], weights: list[float]) -> float:
    total = sum(weights) or 1.0
    return sum(w for w, ok in zip(weights, flags, strict=True) if ok) / total


def answer_evidence(
    index: ContextIndex, statements: Sequence[str], *, encoder: MiniLM | None = None
) -> list[StatementEvidence]:
    """The evidence of an answer's statements, each marked when all that only it says is missing.

    The statements of one list or coordination share their subject and verb ("The recipe calls
    for flour / butter / eggs"), so an item the context lacks still covers most of its words.
    Its own words, those no other statement of the answer says, decide it (`own_missing`).

    Args:
        index: The context's index (see `context_index`).
        statements: The answer's statements, in order.
        encoder: A MiniLM encoder for the paraphrase features, or None.

    Returns:
        One `StatementEvidence` per statement, same order.
    """
    evidence = [statement_evidence(index, s, encoder=encoder) for s in statements]
    if len(statements) < 2:
        return evidence
    said = Counter(stem for ev in evidence for stem in ev.content)
    for ev in evidence:
        own = {text for stem, text in ev.content.items() if said[stem] == 1}
        ev.own_missing = ev.reading is None and bool(own) and own <= set(ev.missing)
    return evidence


def statement_evidence(
    index: ContextIndex, statement: str, *, encoder: MiniLM | None = None
) -> StatementEvidence:
    """Compute the support features of one statement against an indexed context.

    Args:
        index: The context's index (see `context_index`).
        statement: The statement text.
        encoder: A MiniLM encoder for the paraphrase features (`ragjudge.offline.paraphrase`);
            None leaves them 0.

    Returns:
        The statement's `StatementEvidence`.
    """
    statement = canonical(statement)
    parts = answer.split(statement)
    if parts is not None:  # a short answer: its words as any statement's, read with the question
        evidence = statement_evidence(index, answer.words_read(*parts), encoder=encoder)
        evidence.reading = answer.read(statement, index, contradicted=evidence.contradicted)
        return evidence
    tokens = tokenize(statement)
    statement_hedged = is_hedged(statement)
    hedge_words = _hedge_words(statement, tokens) if statement_hedged else set()
    content = [t for t in tokens if t.is_content and t.start not in hedge_words] or tokens
    stems = [t.stem for t in content]
    all_stems = [t.stem for t in tokens]
    best, rouge = _choose_passage(index, stems, all_stems)
    best_set = set(index.passage_stems[best]) if best >= 0 else set()
    weights = [token_weight(t) for t in content]
    ones = [1.0] * len(content)
    quantities = number_values(statement)
    in_context_q = [any(supports(c, q) for c in index.quantities) for q in quantities]
    best_q = index.passage_quantities[best] if best >= 0 else ()
    in_best_q = [any(supports(c, q) for c in best_q) for q in quantities]
    # a sum or difference of two quantities of the passage ("the difference between the 30
    # minutes and the 10 minutes is 20 minutes") is said by it, and so are the words saying so
    computed = derived(statement, *_block_sentences(index, best)) if quantities else []
    if computed:
        done = {q.start for q, _ in computed}
        in_context_q = [
            ok or q.start in done for q, ok in zip(quantities, in_context_q, strict=True)
        ]
        in_best_q = [ok or q.start in done for q, ok in zip(quantities, in_best_q, strict=True)]
    in_ctx = [
        _number_support(t, quantities, in_context_q)
        if _valued(t, quantities)
        else (t.stem in index.stems or t.norm in index.stems)
        for t in content
    ]
    in_best = [
        _number_support(t, quantities, in_best_q) if _valued(t, quantities) else t.stem in best_set
        for t in content
    ]
    paraphrase = [0.0] * len(PARAPHRASE_FEATURES)
    paraphrased: list[tuple[str, str]] = []
    if encoder is not None and best >= 0:
        found = paraphrase_evidence(
            encoder=encoder,
            statement=statement,
            sentences=_candidate_sentences(index, stems, best),
            passage=index.passages[best],
            content=content,
            found=in_best,
            weights=weights,
        )
        paraphrase, paraphrased = found.features, found.matches
        # a word the best passage says in other words is found there ("attorney" / "lawyer")
        by_meaning = {a for a, _ in paraphrased}
        for i, t in enumerate(content):
            if t.text in by_meaning:
                in_best[i] = in_ctx[i] = True
    if computed:
        for i, t in enumerate(content):
            if t.norm in OPERATION_WORDS:
                in_ctx[i] = in_best[i] = True
    if not all(in_ctx) and best >= 0:  # "UK" / "United Kingdom", "CEO" / "chief executive officer"
        for i in _acronym_matches(index, best, content, in_ctx):
            in_ctx[i] = in_best[i] = True
    if not all(in_ctx) and best >= 0 and _is_german(tokens):
        for i in _german_matches(index.passage_stems[best], content, in_ctx):
            in_ctx[i] = in_best[i] = True
    novel = [t for t, ok in zip(content, in_ctx, strict=True) if not ok]
    novel_numbers = _unique([t.text for t in novel if t.is_number])
    # a number or a month the context does not give is a fact it does not state ("May" as a
    # month only where written with a capital: "may" is a modal; "one" is as often a pronoun;
    # a small count, "two people", is as often the answer's own count of what it lists)
    novel_values = _unique(
        [
            t.text
            for t in novel
            if (
                t.is_number
                and t.text.lower() not in _PRONOUN_NUMBERS
                and not _small_count(t, quantities)
            )
            or (t.norm in MONTH_NAMES and (t.norm != "may" or t.text[0] == "M"))
        ]
    )
    novel_names = [t for t in novel if t.is_capital and not t.sentence_initial]
    # a place the context names nowhere is a fact it does not state, as a number is ("in Turin")
    if novel_names:
        places = name_claims.novel_places(tokens, {t.start for t in novel})
        novel_values = _unique([*novel_values, *places])
    bigrams = list(pairwise(stems))
    bigram_cov = sum(1 for b in bigrams if b in index.bigrams) / len(bigrams) if bigrams else 1.0
    neg_added, neg_removed = polarity.negation_mismatch(index, best, tokens)
    if not (neg_added or neg_removed):
        neg_added, neg_removed = polarity.verbatim_negation(index, tokens)
    saying = _saying_sentences(index, best, stems)
    # scope and comparison conflicts read as opposites; a modality conflict as a surer claim
    claimed, overclaim, quantity_note = claim_conflicts(
        statement, [index.sentences[k] for k in saying]
    )
    antonym = (
        polarity.antonym_conflict(all_stems, index.passage_stems[best])
        or polarity.slot_antonym(content, index.bigrams, best_set)
        or restricted(tokens, index.passage_stems[best])
        or claimed
        or polarity.verbatim_opposite(index, all_stems)
        or copied_widening(index, tokens)
        if best >= 0
        else ""
    )
    number_note = (
        value_conflict(
            quantities,
            in_context_q,
            best_q,
            (statement, index.blocks[index.passage_block[best]] if best >= 0 else ""),
            index.quantity_texts,
        )
        or (
            given_for_another(
                value_years(statement, quantities),
                index.passage_years[best],
                same=supports,
                show=show,
            )
            if best >= 0 and len(quantities) > 1
            else ""
        )
        or (
            given_for_another(
                value_places(statement, quantities),
                index.passage_places[best],
                same=operator.eq,
                show=str.title,
            )
            if best >= 0 and quantities
            else ""
        )
        or ("" if computed else quantity_note)
        or copied_swap(index, tokens)
    )
    entity_note, word_note = name_claims.conflict(index, best, statement, tokens, content, in_ctx)
    elsewhere_note = name_claims.name_elsewhere(index, tokens) if best >= 0 else ""
    speculated = False
    if statement_hedged:
        # "may lower" where the context says it lowered: a weaker claim of what it says
        hedged = not (best >= 0 and index.passage_hedged[best]) and not (
            _weak_hedge_only(statement) and all(in_best)
        )
    else:  # "it opened" where the context says it plans to open
        hedged = speculated = _all_flagged(saying, index.sentence_speculative) and not (
            SPECULATIVE_RE.search(statement)
        )
    if not hedged and saying and not hedge_words and not _WEAK_HEDGE_RE.search(statement):
        # "the river flooded" where it says "the river might flood"; "the law will pass"
        # where it says "it is unlikely that the law will pass"
        hedged = speculated = _modal_only(index, saying, stems, tokens) or (
            _all_flagged(saying, index.sentence_disputed) and not DISPUTED_RE.search(statement)
        )
    if overclaim:  # "the results prove" where the passage says "the results suggest"
        hedged = speculated = True
    span = (
        align(
            _candidate_sentences(index, stems, best),
            statement,
            content,
            weights,
            in_ctx,
            [
                ok and t.stem not in best_set and t.norm not in best_set
                for t, ok in zip(content, in_best, strict=True)
            ],
            tokens,
            index.names,
            index.lowered,
        )
        if best >= 0
        else SpanEvidence()
    )
    features = [
        _fraction(in_best, ones) if content else 0.0,
        _fraction(in_ctx, ones) if content else 0.0,
        _fraction(in_best, weights),
        _fraction(in_ctx, weights),
        rouge,
        bigram_cov,
        float(len(novel_numbers)),
        float(len(novel_names)),
        sum(token_weight(t) for t in novel),
        float(_longest_false_run(in_ctx)),
        neg_added,
        neg_removed,
        1.0 if antonym else 0.0,
        math.log1p(len(stems)),
        1.0 if number_note else 0.0,
        1.0 if entity_note else 0.0,
        1.0 if word_note else 0.0,
        1.0 if hedged else 0.0,
        *paraphrase,
        1.0 if span.slot_note else 0.0,
        1.0 if span.excluded_note else 0.0,
    ]
    matched = {a for a, _ in paraphrased}
    return StatementEvidence(
        features=features,
        best_passage=best,
        missing=_unique([t.text for t in novel if t.text not in matched]),
        novel_numbers=novel_numbers,
        novel_values=novel_values,
        negation_note=polarity.negation_note(neg_added, neg_removed),
        antonym_note=antonym,
        modality_note=overclaim,
        conflict_note="; ".join(n for n in (number_note, entity_note, word_note) if n),
        computed_note="; ".join(note for _, note in computed),
        slot_note="; ".join(n for n in (span.slot_note, span.excluded_note) if n),
        elsewhere_note=elsewhere_note,
        hedged=hedged,
        speculated=speculated,
        paraphrased=paraphrased,
        content={t.stem: t.text for t in content},
        reading=abstention.read(
            statement, context_stems=index.stems, sentence_stems=index.sentence_stems
        ),
    )


def _block_sentences(index: ContextIndex, best: int) -> tuple[list[str], list[str]]:
    """The sentences of the block the best passage is in (none for -1), and the others."""
    block = index.passage_block[best] if best >= 0 else -1
    pairs = list(zip(index.sentences, index.sentence_block, strict=True))
    return [s for s, b in pairs if b == block], [s for s, b in pairs if b != block]


def _small_count(token: Token, quantities: tuple[Quantity, ...] = ()) -> bool:
    """Whether a number token is a small count (at most 12), which an answer may count itself
    from what the context lists ("two people were hurt" where it names both); a percentage, a
    sum of money or a measure is never one ("at most 5%")."""
    for q in quantities:
        if q.start <= token.start < q.end and (q.kind != "number" or is_measure(q.unit)):
            return False
    try:
        return float(token.norm) <= _SMALL_COUNT
    except ValueError:
        return False


def _candidate_sentences(index: ContextIndex, stems: list[str], best: int) -> list[str]:
    """The sentences of the best passage and of the other passages sharing most words."""
    ids: dict[int, None] = {}
    for pid in [best, *_best_passages(index, stems)]:
        for k in _window(index, pid):
            ids.setdefault(k, None)
    return [index.sentences[k] for k in ids]


def _number_support(token: Token, quantities: tuple[Quantity, ...], ok: list[bool]) -> bool:
    """Whether the quantity a number token belongs to is supported (by value)."""
    for q, supported in zip(quantities, ok, strict=True):
        if q.start <= token.start < q.end:
            return supported
    return False


def _valued(token: Token, quantities: tuple[Quantity, ...]) -> bool:
    """Whether a token stands or falls with the value of the quantity it belongs to: its
    digits and number words ("fifteen percent" against "15%") and a measured unit ("metres"
    in "1,200 metres" against "1.2 kilometres"), not a counted noun ("500 employees" must
    still find "employees"). A number outside every quantity (a parse miss) is unsupported
    while the statement has quantities."""
    if token.is_number:
        return bool(quantities)
    for q in quantities:
        if q.start <= token.start < q.end:
            # "quarter" in "third quarter" is read from "Q3" as well
            return token.text != q.unit or is_measure(q.unit) or q.unit == "quarter"
    return False


_ACRONYM_RE = re.compile(r"[A-Z]{2,6}")
_ACRONYM_FILLERS = frozenset({"of", "and", "for", "the", "de", "des", "der", "für", "&"})


_GERMAN_MARKERS = frozenset(
    "der die das und ist nicht ein eine einen mit für von im den dem des wurde wurden hat sind "
    "auf".split()
)
_GERMAN_ENDINGS = ("en", "es", "n", "e", "s")


def _is_german(tokens: list[Token]) -> bool:
    """Whether a statement reads as German: two of its function words, or an umlaut or ß."""
    norms = {t.norm for t in tokens}
    return len(norms & _GERMAN_MARKERS) >= 2 or any(c in "äöüß" for t in tokens for c in t.norm)


def _german_matches(passage: list[str], content: list[Token], in_ctx: list[bool]) -> list[int]:
    """Positions of a German statement's nouns that the passage writes as the head of a
    compound ("Team" where it says "Forschungsteam") or with another case ending
    ("Stadtwerken" where it says "Stadtwerk")."""
    out: list[int] = []
    words = {w for w in passage if len(w) >= 4}
    for i, token in enumerate(content):
        stem_ = token.stem
        if in_ctx[i] or not token.is_capital or len(stem_) < 4 or token.is_number:
            continue
        inflected = any(
            stem_ == w + ending or w == stem_ + ending for w in words for ending in _GERMAN_ENDINGS
        )
        if inflected or any(len(w) >= len(stem_) + 3 and w.endswith(stem_) for w in words):
            out.append(i)
    return out


def _acronym_matches(
    index: ContextIndex, best: int, content: list[Token], in_ctx: list[bool]
) -> list[int]:
    """Positions of the statement's words that the context writes as an acronym or spells
    out: "UK" where it says "United Kingdom", "European Union" where it says "EU", "CEO"
    where it says "chief executive officer"."""
    out: list[int] = []
    text = index.passages[best]
    words: list[str] = []
    for i, token in enumerate(content):
        if in_ctx[i] or not _ACRONYM_RE.fullmatch(token.text):
            continue
        words = words or re.findall(r"[^\W\d_]+|&", text)
        for n, _ in enumerate(words):
            letters, k = "", n
            while k < len(words) and len(letters) < len(token.text):
                if letters and words[k].lower() in _ACRONYM_FILLERS:
                    k += 1
                    continue
                letters += words[k][0]
                k += 1
            capitals = all(w[0].isupper() for w in words[n:k] if w.lower() not in _ACRONYM_FILLERS)
            if letters.upper() == token.text and (capitals or len(letters) >= 3):
                out.append(i)
                break
    # a spelled-out name of capitalized words whose initials the passage writes
    unmatched = [not ok and t.is_capital for t, ok in zip(content, in_ctx, strict=True)]
    for is_run, group in groupby(range(len(content)), unmatched.__getitem__):
        run = list(group)
        if is_run and len(run) >= 2:
            acronym = "".join(content[j].text[0] for j in run).upper()
            if re.search(rf"\b{acronym}\b", text):
                out.extend(run)
    return out


def _unique(items: list[str]) -> list[str]:
    seen: dict[str, None] = {}
    for item in items:
        seen.setdefault(item, None)
    return list(seen)


def answer_features(
    *,
    index: ContextIndex,
    question: str,
    answer: str,
    evidence: list[StatementEvidence],
    confidences: list[float],
    support_threshold: float,
) -> list[float]:
    """Aggregate statement-level results into the answer-level feature vector.

    Args:
        index: The context's index.
        question: The question (words of the answer found only there count separately).
        answer: The whole answer.
        evidence: Evidence of each statement.
        confidences: Statement-level support probabilities, same order.
        support_threshold: Threshold under which a statement counts as unsupported.

    Returns:
        Values in `ANSWER_FEATURES` order.
    """
    question, answer = canonical(question), canonical(answer)
    tokens = [t for t in tokenize(answer) if t.is_content]
    weights = [token_weight(t) for t in tokens]
    in_ctx = [(t.stem in index.stems or t.norm in index.stems) for t in tokens]
    n = max(1, len(tokens))
    total_w = sum(weights) or 1.0
    stems = [t.stem for t in tokens]
    bigrams = list(pairwise(stems))
    question_stems = {t.stem for t in tokenize(question)}
    novel = [t for t, ok in zip(tokens, in_ctx, strict=True) if not ok]
    from_question = sum(1 for t in novel if t.stem in question_stems) / max(1, len(novel))
    conf = confidences or [1.0]
    min_conf = min(conf)
    clipped = min(max(min_conf, 1e-4), 1 - 1e-4)
    ev = evidence or [StatementEvidence(features=[0.0] * len(STATEMENT_FEATURES))]
    return [
        min_conf,
        sum(conf) / len(conf),
        math.log(clipped / (1 - clipped)),
        sum(1 for c in conf if c < support_threshold) / len(conf),
        sum(in_ctx) / n,
        sum(w for w, ok in zip(weights, in_ctx, strict=True) if ok) / total_w,
        sum(1 for b in bigrams if b in index.bigrams) / len(bigrams) if bigrams else 1.0,
        max(e.value("novel_numbers") for e in ev),
        max(e.value("novel_names") for e in ev),
        sum(e.value("novel_weight") for e in ev),
        max(max(e.value("negation_added"), e.value("negation_removed")) for e in ev),
        max(e.value("antonym_conflict") for e in ev),
        from_question,
        math.log1p(len(evidence)),
        max(e.value("number_conflict") for e in ev),
        max(e.value("entity_conflict") for e in ev),
        max(e.value("word_substitution") for e in ev),
        sum(e.value("hedged") for e in ev) / len(ev),
        sum(1.0 for e in ev if e.contradicted) / len(ev),
        min(e.value("sentence_similarity") for e in ev),
        max(max(e.value("slot_conflict"), e.value("excluded")) for e in ev),
    ]
