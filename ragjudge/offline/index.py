"""The index of one context string: its blocks, sentences, passages and what each says.

`ragjudge.offline.features.context_index` builds it once per context; the claims modules read
it (`ragjudge.offline.claims`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ragjudge.offline.numbers import Quantity

__all__ = ["ContextIndex"]


@dataclass
class ContextIndex:
    """Precomputed structures of one context string.

    Attributes:
        blocks: Text of each block (the text between blank lines: a passage or a paragraph).
        sentences: Text of each sentence.
        sentence_block: The block of each sentence.
        sentence_stems: All-token stems of each sentence, in order.
        passages: Text of each passage (a window of consecutive sentences of one block).
        passage_sentences: The sentences of each passage.
        passage_block: The block of each passage.
        passage_keys: `(block text, window position in the block)` of each passage: how
            passages tied on another score are ranked, by content rather than by place.
        passage_stems: All-token stems of each passage, in order (for ROUGE-L and antonyms).
        passage_negations: Negation count of each passage.
        passage_scopes: `(negated, plain)` content stems of each passage (`negation_scopes`).
        postings: Content stem -> ids of the passages containing it.
        stems: Every stem (and lower-cased form) in the context.
        bigrams: Every adjacent content-stem pair in the context.
        numbers: Every normalized number in the context.
        sentence_names: Capitalized-word stems of each sentence (names, weekdays, months).
        names: Every stem capitalized inside a sentence of the context (the union of
            `sentence_names`).
        lowered: Every content stem the context writes in lower case.
        sentence_content: Content stems of each sentence.
        sentence_asserted: Content stems each sentence asserts outright: said out of every
            negation's reach (`SentenceProfile.asserted`).
        passage_hedged: Whether each passage hedges (may, might, plans to, ...).
        sentence_speculative: Whether each sentence only says a thing may or is planned to be.
        sentence_disputed: Whether each sentence reports a thing as denied, doubted or unlikely.
        quantities: Every quantity of the context (`number_values`).
        quantity_texts: Each of `quantities` with the text of its block (its offsets are the
            block's).
        passage_quantities: The quantities of each passage.
        passage_years: The `(value, year)` pairs of each passage (`value_years`).
        passage_places: The `(value, place)` pairs of each passage (`value_places`).
        spaced_stems: Each sentence's stems joined by spaces, with a space at either end, the
            sentences joined by newlines (for finding a run of words: `verbatim_negation`).
        undone_negations: The words around each negation of the context, the negation undone
            (`ragjudge.offline.claims.polarity.undone_negations`).
    """

    blocks: list[str] = field(default_factory=list)
    sentences: list[str] = field(default_factory=list)
    sentence_block: list[int] = field(default_factory=list)
    sentence_stems: list[list[str]] = field(default_factory=list)
    passages: list[str] = field(default_factory=list)
    passage_sentences: list[tuple[int, ...]] = field(default_factory=list)
    passage_keys: list[tuple[str, int]] = field(default_factory=list)
    passage_block: list[int] = field(default_factory=list)
    passage_stems: list[list[str]] = field(default_factory=list)
    passage_negations: list[int] = field(default_factory=list)
    passage_scopes: list[tuple[frozenset[str], frozenset[str]]] = field(default_factory=list)
    postings: dict[str, list[int]] = field(default_factory=dict)
    stems: frozenset[str] = frozenset()
    bigrams: frozenset[tuple[str, str]] = frozenset()
    numbers: frozenset[str] = frozenset()
    sentence_names: list[frozenset[str]] = field(default_factory=list)
    names: frozenset[str] = frozenset()
    lowered: frozenset[str] = frozenset()
    sentence_content: list[list[str]] = field(default_factory=list)
    sentence_asserted: list[frozenset[str]] = field(default_factory=list)
    passage_hedged: list[bool] = field(default_factory=list)
    sentence_speculative: list[bool] = field(default_factory=list)
    sentence_disputed: list[bool] = field(default_factory=list)
    quantities: tuple[Quantity, ...] = ()
    quantity_texts: tuple[tuple[Quantity, str], ...] = ()
    passage_quantities: list[tuple[Quantity, ...]] = field(default_factory=list)
    passage_years: list[tuple[tuple[Quantity, Quantity], ...]] = field(default_factory=list)
    passage_places: list[tuple[tuple[Quantity, str], ...]] = field(default_factory=list)
    spaced_stems: str = ""
    undone_negations: frozenset[str] = frozenset()
