"""The modality claim (`ragjudge.offline.claims.modality`): a statement that says for certain
(will, proves, plainly) what the aligned context sentence only hedges (may, might, could,
suggests, is likely to, reportedly). Sentences written by hand, in English, German, French
and Spanish, before the module."""

from __future__ import annotations

import pytest

from ragjudge.offline.claims.modality import conflict

SURER = [
    (
        "The results prove that the drug lowers blood pressure.",
        "The results suggest that the drug lowers blood pressure.",
    ),
    ("The river will flood the valley in spring.", "The river might flood the valley in spring."),
    ("The new tax will raise prices.", "The new tax is likely to raise prices."),
    ("The minister was killed in the attack.", "The minister was reportedly killed in the attack."),
    ("It is the best novel of the decade.", "It is arguably the best novel of the decade."),
    ("The vaccine will protect older patients.", "The vaccine can protect older patients."),
    ("The plant will close next year.", "The plant is expected to close next year."),
    # a hedge before a light verb governs the verb
    ("He makes it for the chapel.", "He probably makes it for the chapel."),
    # "would" only against a statement that says "will"
    ("The airline will open the route.", "The airline would open the route."),
    # "according to" copied from the sentence is its source, not a doubt of the statement's
    (
        "According to the reporters, the police will stay.",
        "According to the reporters, the police are likely to stay.",
    ),
    ("Der Fluss wird das Tal überfluten.", "Der Fluss könnte das Tal überfluten."),
    (
        "Die Ergebnisse beweisen, dass das Mittel wirkt.",
        "Die Ergebnisse deuten darauf hin, dass das Mittel wirkt.",
    ),
    ("La rivière va inonder la vallée.", "La rivière pourrait inonder la vallée."),
    (
        "Les résultats prouvent que le médicament agit.",
        "Les résultats suggèrent que le médicament agit.",
    ),
    ("El río inundará el valle.", "El río podría inundar el valle."),
    (
        "Los resultados demuestran que el fármaco funciona.",
        "Los resultados sugieren que el fármaco funciona.",
    ),
]

KEPT = [
    # hedged as much as the sentence, or more
    ("The river might flood the valley.", "The river might flood the valley."),
    ("The river may flood the valley.", "The river will flood the valley."),
    ("The results suggest the drug works.", "The results show that the drug works."),
    ("Der Fluss könnte das Tal überfluten.", "Der Fluss wird das Tal überfluten."),
    # the hedge governs another part of the sentence than the statement says
    ("The plant closed in May.", "The plant closed in May, and the owners may sell the site."),
    # "can" is ability: a plain paraphrase of it is no overclaim
    ("The bridge can carry trucks.", "The bridge can carry heavy trucks."),
    ("The museum opened in 2019.", "The museum opened in 2019."),
    # the statement hedges in words of its own
    (
        "Revenue is projected to be $3.5 billion.",
        "Revenue is expected to be $3.5 billion.",
    ),
    (
        "The skeleton was recovered for potential public display.",
        "The skeleton was recovered, possibly for public display.",
    ),
    # a source of the statement's own, which the sentence does not name
    (
        "According to the mayor, the police will stay.",
        "The police are likely to stay.",
    ),
    # "would": a conditional, or a future told in the past
    ("Oman opened its airspace to Israeli carriers.", "Oman said it would open its airspace."),
    # "May" the month
    ("The plant closed in May 2020.", "The plant closed in May 2020."),
]


@pytest.mark.parametrize(("statement", "sentence"), SURER)
def test_a_hedge_stated_as_certain_is_caught_and_named(statement: str, sentence: str) -> None:
    note = conflict(statement, sentence)
    assert note, statement
    assert "where the passage" in note


@pytest.mark.parametrize(("statement", "sentence"), KEPT)
def test_an_equal_or_weaker_claim_is_no_conflict(statement: str, sentence: str) -> None:
    assert conflict(statement, sentence) == ""


def test_the_reason_quotes_the_hedge() -> None:
    note = conflict("The river will flood the valley.", "The river might flood the valley.")
    assert "'might'" in note
