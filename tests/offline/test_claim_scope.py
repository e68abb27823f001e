"""The scope claim (`ragjudge.offline.claims.scope`): a statement that says all, every or always
where the aligned context sentence says some, most, several, "N of M" or often. Sentences
written by hand, in English, German, French and Spanish, before the module."""

from __future__ import annotations

import pytest

from ragjudge.offline.claims.scope import conflict, copied_widening
from ragjudge.offline.features import context_index
from ragjudge.offline.text import tokenize

WIDENED = [
    (
        "All of the pilots in the trial reported fatigue.",
        "Nine of the 30 pilots in the trial reported fatigue.",
    ),
    ("All residents voted for the new park.", "Most residents voted for the new park."),
    ("The bridge is always closed in winter.", "The bridge is often closed in winter."),
    (
        "Every branch of the bank opens on Saturdays.",
        "Some branches of the bank open on Saturdays.",
    ),
    ("The ferry always leaves late.", "The ferry occasionally leaves late."),
    ("Alle Schüler bestanden die Prüfung.", "Einige Schüler bestanden die Prüfung."),
    ("Der Zug ist immer verspätet.", "Der Zug ist oft verspätet."),
    ("Tous les élèves ont réussi l'examen.", "Plusieurs élèves ont réussi l'examen."),
    ("Le train est toujours en retard.", "Le train est souvent en retard."),
    ("Todos los estudiantes aprobaron el examen.", "Algunos estudiantes aprobaron el examen."),
    ("El tren siempre llega tarde.", "El tren a menudo llega tarde."),
    # "after all of the" is no idiom
    ("It burned after all of the cars ignited.", "It burned after some of the cars ignited."),
    # a universal of the sentence's that governs another word
    (
        "All members want to ban the app completely.",
        "Some members want to ban the app completely.",
    ),
    # "most" after a possessive is a superlative, not the statement's own share
    (
        "The region's most populous nation always wields influence.",
        "The region's most populous nation often wields influence.",
    ),
]

KEPT = [
    # the same scope, or a narrower one
    ("All of the pilots reported fatigue.", "All 30 pilots in the trial reported fatigue."),
    ("Some residents voted for the park.", "Most residents voted for the park."),
    ("Nine of the pilots reported fatigue.", "Nine of the 30 pilots reported fatigue."),
    # "not all" says less, not more
    ("Not all residents voted for the park.", "Most residents voted for the park."),
    ("Nicht alle Schüler bestanden die Prüfung.", "Einige Schüler bestanden die Prüfung."),
    # "all" of another thing than the sentence's partial words govern
    (
        "All tickets were sold; some fans waited outside.",
        "Some fans waited outside after all tickets were sold.",
    ),
    # not scope words: "after all", "immer noch", "each other"
    ("After all, the team won the cup.", "In the end the team often won the cup."),
    ("Der Zug ist immer noch verspätet.", "Der Zug ist oft verspätet."),
    ("They often helped each other.", "They often helped each other."),
    # the sentence says it of all as well
    ("All the pilots reported fatigue.", "All the pilots and some crew reported fatigue."),
    # no partial word in the sentence: nothing to compare
    ("All residents voted for the park.", "The residents voted for the park."),
]


@pytest.mark.parametrize(("statement", "sentence"), WIDENED)
def test_a_claim_widened_to_all_is_caught_and_named(statement: str, sentence: str) -> None:
    note = conflict(statement, sentence)
    assert note, statement
    assert "where the passage says" in note


@pytest.mark.parametrize(("statement", "sentence"), KEPT)
def test_the_same_or_a_narrower_scope_is_no_conflict(statement: str, sentence: str) -> None:
    assert conflict(statement, sentence) == ""


def test_the_reason_quotes_both_words() -> None:
    note = conflict(
        "The bridge is always closed in winter.", "The bridge is often closed in winter."
    )
    assert "'always'" in note and "'often'" in note


# --- a claim widened in a sentence the statement copies (`copied_widening`) ---------------------

COPIED = (
    "Longboard or skateboard (www.boards.example).\n\n"
    "Longboards are typically much longer and wider than skateboards. "
    "The station can be reached by tram or bus at many points. "
    "Der Zug ist oft verspätet, sagt der Bericht."
)


@pytest.mark.parametrize(
    ("statement", "note"),
    [
        # the copied sentence starts inside the words before the widened one
        (
            "Longboard or skateboard (www.boards.example) Longboards are always much longer "
            "and wider than skateboards.",
            "'always' where the passage says 'typically'",
        ),
        # "at all" is an idiom, but the copy shows "all" stands for "many" here
        (
            "The station can be reached by tram or bus at all points.",
            "'all' where the passage says 'many'",
        ),
        ("Der Zug ist immer verspätet, sagt der Bericht.", "'immer' where the passage says 'oft'"),
    ],
)
def test_a_claim_widened_in_a_copied_sentence(statement: str, note: str) -> None:
    assert copied_widening(context_index(COPIED), tokenize(statement)) == note


@pytest.mark.parametrize(
    "statement",
    [
        "Longboards are typically much longer and wider than skateboards.",  # the copy itself
        "Longboards are not always much longer and wider than skateboards.",  # negated
        "The station can be reached at all hours.",  # too little copied to tell
    ],
)
def test_a_copied_sentence_that_widens_nothing(statement: str) -> None:
    assert copied_widening(context_index(COPIED), tokenize(statement)) == ""
