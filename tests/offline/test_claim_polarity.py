"""Polarity (`ragjudge.offline.claims.polarity`): a negation the best passage lacks (or a
negation it has that the statement drops), and a word whose opposite the passage says.
Sentences written by hand, in English, German and French, against the module's functions."""

from __future__ import annotations

import pytest

from ragjudge.offline.claims.polarity import (
    antonym_conflict,
    negation_mismatch,
    negation_note,
    slot_antonym,
    verbatim_negation,
    verbatim_opposite,
)
from ragjudge.offline.features import context_index
from ragjudge.offline.text import tokenize


def _read(context: str, statement: str) -> tuple[tuple[float, float], str, str]:
    """The negation mismatch, the antonym conflict and the slot antonym of a statement against
    a one-passage context."""
    index = context_index(context)
    tokens = tokenize(statement)
    content = [t for t in tokens if t.is_content]
    passage = set(index.passage_stems[0])
    return (
        negation_mismatch(index, 0, tokens),
        antonym_conflict([t.stem for t in tokens], index.passage_stems[0]),
        slot_antonym(content, index.bigrams, passage),
    )


NEGATED = [
    ("The bridge was opened in May.", "The bridge was not opened in May."),
    ("Die Brücke wurde im Mai eröffnet.", "Die Brücke wurde im Mai nicht eröffnet."),
    ("Le pont a été ouvert en mai.", "Le pont n'a pas été ouvert en mai."),
]

OPPOSITES = [
    ("The outcome of the vote is uncertain.", "The outcome of the vote is certain."),
    ("Prices rose sharply last year.", "Prices fell sharply last year."),
    ("Die Preise sind gestiegen.", "Die Preise sind gesunken."),
    ("Le musée est fermé le dimanche.", "Le musée est ouvert le dimanche."),
]

SAME = [
    "The bridge was opened in May.",
    "Die Brücke wurde im Mai eröffnet.",
    "Le musée est ouvert le dimanche.",
]


@pytest.mark.parametrize(("context", "statement"), NEGATED)
def test_a_negation_the_passage_lacks_is_added(context: str, statement: str) -> None:
    (added, removed), _, _ = _read(context, statement)
    assert (added, removed) == (1.0, 0.0), statement
    assert negation_note(added, removed) == "the statement is negated but the best passage is not"


def test_a_negation_the_statement_drops_is_removed() -> None:
    (added, removed), _, _ = _read(
        "The bridge was not opened in May.", "The bridge was opened in May."
    )
    assert (added, removed) == (0.0, 1.0)
    assert negation_note(added, removed) == "the best passage is negated but the statement is not"


#: A negation word inside a name negates nothing: the statement says the passage's own claim.
NAMED = [
    (
        "They toured with Never Shout Never and Hey Monday in 2010.",
        "Hey Monday toured with Never Shout Never in 2010.",
    ),
    ("She was ranked World No. 1 in tennis for years.", "She was ranked first in tennis."),
    (  # quotes start a sentence for one side only: the name is read alike
        'He was an original member of the "Not Ready for Prime Time Players" on the show.',
        "He was an original member of the Not Ready for Prime Time Players.",
    ),
    (
        "He was an original member of the Not Ready for Prime Time Players on the show.",
        'He was an original member of the "Not Ready for Prime Time Players".',
    ),
]

#: ... but a negation that opens a headline, or one written in capitals, still negates.
STILL_NEGATED = [
    ("Obama will seek office again.", "Obama Will Not Seek Office Again."),
    ("Take it with food.", "Do NOT take it with food."),
]


@pytest.mark.parametrize(("context", "statement"), NAMED)
def test_a_negation_word_in_a_name_negates_nothing(context: str, statement: str) -> None:
    (added, removed), _, _ = _read(context, statement)
    assert (added, removed) == (0.0, 0.0), statement


@pytest.mark.parametrize(("context", "statement"), STILL_NEGATED)
def test_a_headline_or_capitals_still_negate(context: str, statement: str) -> None:
    (added, _), _, _ = _read(context, statement)
    assert added == 1.0, statement


@pytest.mark.parametrize(("context", "statement"), OPPOSITES)
def test_a_word_whose_opposite_the_passage_says_conflicts(context: str, statement: str) -> None:
    _, antonym, _ = _read(context, statement)
    assert "where the passage says" in antonym, statement


def test_an_antonym_beside_the_same_word_conflicts() -> None:
    context = "The museum is open on weekdays but closed on Sundays."
    (added, removed), antonym, slot = _read(context, "The museum is open on Sundays.")
    assert (added, removed, antonym) == (0.0, 0.0, "")
    assert slot.startswith("'open' where the passage says")
    _, _, slot = _read(
        "Le musée est ouvert en semaine mais fermé le dimanche.",
        "Le musée est ouvert le dimanche.",
    )
    assert slot == "'ouvert' where the passage says 'fermé'"


def test_an_opposite_said_elsewhere_in_the_statement_does_not_hide_a_conflict() -> None:
    context = "The trail has grown to more than 140 miles and links more than 30 parks."
    _, antonym, slot = _read(
        context, "The trail has grown to less than 140 miles and links more than 30 parks."
    )
    assert "'less' where the passage says" in antonym + slot
    context = "Making such a bow takes less time, and the bow is more sensitive to moisture."
    _, antonym, _ = _read(
        context, "Making such a bow takes less time, and the bow is less sensitive to moisture."
    )
    assert antonym == ""  # the passage says 'less' too: words cannot tell which claim it is of
    # both opposites side by side say both: no conflict
    _, antonym, slot = _read(
        "Public schools opened in May.", "Public and private schools opened in May."
    )
    assert (antonym, slot) == ("", "")


@pytest.mark.parametrize("sentence", SAME)
def test_the_passage_s_own_words_pass(sentence: str) -> None:
    assert _read(sentence, sentence) == ((0.0, 0.0), "", "")
    assert negation_note(0.0, 0.0) == ""


#: One denial, its words in another order: each side's few-word scope covers other words.
SAME_DENIAL = [
    (
        "The inspectors did not find any cracks in the dam wall.",
        "No cracks in the dam wall were found.",
    ),
    (
        "There were no immediate reports of injuries or damage to the school.",
        "No injuries or damage to the school were reported.",
    ),
    (
        "Officials have not confirmed any link between the outage and the storm.",
        "No link between the outage and the storm has been confirmed.",
    ),
]

#: A negation of other words leaves the rest of the sentence asserted.
OTHER_DENIAL = [
    (
        "New features that do not exist in current remotes will be added.",
        "New features will not be added.",
        (1.0, 0.0),
    ),
    (
        "The museum, which does not charge for entry, opened a new wing.",
        "The museum did not open a new wing.",
        (1.0, 0.0),
    ),
    (
        "There were no immediate reports of injuries or damage to the school.",
        "Injuries and damage to the school were reported.",
        (0.0, 1.0),
    ),
]


@pytest.mark.parametrize(("context", "statement"), SAME_DENIAL)
def test_one_denial_in_another_word_order_is_no_mismatch(context: str, statement: str) -> None:
    assert _read(context, statement)[0] == (0.0, 0.0), statement


@pytest.mark.parametrize(("context", "statement", "expected"), OTHER_DENIAL)
def test_a_negation_of_other_words_still_mismatches(
    context: str, statement: str, expected: tuple[float, float]
) -> None:
    assert _read(context, statement)[0] == expected, statement


def test_no_passage_no_negation_mismatch() -> None:
    index = context_index("The bridge was opened in May.")
    assert negation_mismatch(index, -1, tokenize("The bridge was not opened.")) == (0.0, 0.0)


# --- a negation added to or dropped from a copied sentence (`verbatim_negation`) ---------------

COPIED = (
    "The new tram line is the same as the old bus route. "
    "Residents simply can't afford the higher fares. "
    "Tickets are sold at every stop."
)


@pytest.mark.parametrize(
    ("statement", "expected"),
    [
        # the scopes skip small words ("the", "that"): a copied sentence needs none
        ("The new tram line is not the same as the old bus route.", (1.0, 0.0)),
        ("Tickets are never sold at every stop.", (1.0, 0.0)),
        ("Residents simply can afford the higher fares.", (0.0, 1.0)),
        # what the context says, and what it does not copy
        ("The new tram line is the same as the old bus route.", (0.0, 0.0)),
        ("Residents simply can't afford the higher fares.", (0.0, 0.0)),
        ("The tram is not cheap.", (0.0, 0.0)),
    ],
)
def test_a_negation_added_to_or_dropped_from_a_copied_sentence(
    statement: str, expected: tuple[float, float]
) -> None:
    assert verbatim_negation(context_index(COPIED), tokenize(statement)) == expected


@pytest.mark.parametrize(
    ("statement", "expected"),
    [
        ("Tickets are sold at every stop after the market opens.", "'after'"),
        ("Tickets are sold at every stop before the market opens.", ""),
        # the context negates the opposite: "not ... after" may be the statement's meaning
        ("Check fares before boarding at the front door.", ""),
        ("Check fares after boarding.", ""),  # too little copied to tell
    ],
)
def test_an_opposite_in_a_copied_sentence(statement: str, expected: str) -> None:
    # and the same sentence with the negation dropped from the context is read as copied
    plain = "Staff will check fares after boarding at the front door."
    stems = [t.stem for t in tokenize("Check fares before boarding at the front door.")]
    assert verbatim_opposite(context_index(plain), stems).startswith("'befor'")
    context = (
        "Tickets are sold at every stop before the market opens. "
        "Staff will not check fares after boarding at the front door."
    )
    stems = [t.stem for t in tokenize(statement)]
    assert verbatim_opposite(context_index(context), stems).startswith(expected)
