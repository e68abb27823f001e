"""`quantifier`: a part-of-a-group claim made about the whole group, in en/de/fr/es."""

from __future__ import annotations

import random

import pytest

from ragjudge.data import GoldRecord
from ragjudge.probing import GENERATORS, Skip, Variant
from ragjudge.probing._generate import RowPool
from ragjudge.probing.generators.scope import quantifier


def _make(context: str, *, seed: int = 0) -> Variant | Skip:
    row = GoldRecord(id="r", question="Who reported it?", contexts=[context], answer="x")
    return quantifier(row, rng=random.Random(seed), pool=RowPool([]))


@pytest.mark.parametrize(
    ("context", "answer", "lang"),
    [
        (
            "Nine of the 30 pilots in the trial reported fatigue.",
            "All 30 pilots in the trial reported fatigue.",
            "en",
        ),
        (
            "In the trial, 9 of 30 pilots reported fatigue.",
            "In the trial, all 30 pilots reported fatigue.",
            "en",
        ),
        (
            "Some patients reported headaches after the second dose.",
            "All patients reported headaches after the second dose.",
            "en",
        ),
        (
            "Most of the members voted for the new rules.",
            "All of the members voted for the new rules.",
            "en",
        ),
        (
            "The bus is often late in the winter months.",
            "The bus is always late in the winter months.",
            "en",
        ),
        (
            "The delay was partly due to the storm in the north.",
            "The delay was entirely due to the storm in the north.",
            "en",
        ),
        (
            "45% of the respondents said they would vote again.",
            "All of the respondents said they would vote again.",
            "en",
        ),
        (
            "The majority of the members voted for the new rules.",
            "All of the members voted for the new rules.",
            "en",
        ),
        (
            "Many young people left the village after the war.",
            "All young people left the village after the war.",
            "en",
        ),
        (
            "Viele Patienten haben die Studie verlassen.",
            "Alle Patienten haben die Studie verlassen.",
            "de",
        ),
        ("Der Bus ist oft zu spät in der Stadt.", "Der Bus ist immer zu spät in der Stadt.", "de"),
        (
            "Certains pilotes ont signalé de la fatigue après le vol.",
            "Tous les pilotes ont signalé de la fatigue après le vol.",
            "fr",
        ),
        ("Le bus est souvent en retard en hiver.", "Le bus est toujours en retard en hiver.", "fr"),
        (
            "Algunos pilotos informaron cansancio después del vuelo.",
            "Todos los pilotos informaron cansancio después del vuelo.",
            "es",
        ),
        (
            "El autobús llega a menudo tarde en invierno.",
            "El autobús llega siempre tarde en invierno.",
            "es",
        ),
    ],
)
def test_the_scope_is_widened_to_all(context: str, answer: str, lang: str) -> None:
    made = _make(context)
    assert isinstance(made, Variant)
    assert (made.answer, made.language) == (answer, lang)


@pytest.mark.parametrize(
    "context",
    [
        "Not all pilots in the trial reported fatigue.",  # a negation and an `all`
        "The town has changed a lot over many years of war.",  # a time span
        "He is the most famous pilot in the trial of 2020.",  # superlative `most`
        "The crew met several officials in the capital last week.",  # a verb's object
        "There were 30 of 30 pilots present at the trial.",  # no part of a whole
        "Some 300 people attended the opening of the bridge.",  # `some` as `about`
        "Some good news came this week from the town hall.",  # `news` is no group
        "The ambush ended in 1920, resulting in several deaths.",  # a verb's object
        "Turnout rose by 45% of voters in the north of the city.",  # a change by a share
        "Born in the first half of the century, he moved to Paris.",  # `half` of a span
        "Einige Piloten sind nicht müde und das ist gut.",  # de: a negation
    ],
)
def test_a_quantifier_that_cannot_be_widened_safely_is_left(context: str) -> None:
    assert _make(context) == Skip("no quantifier to widen")


def test_quantifier_is_a_must_fail_kind() -> None:
    assert GENERATORS["quantifier"].expect == "fail"


def test_a_count_of_thousands_is_no_part_of_a_group() -> None:
    import random

    from ragjudge.data import GoldRecord
    from ragjudge.probing import GENERATORS, Skip
    from ragjudge.probing._generate import RowPool

    row = GoldRecord(
        id="t", answer="", contexts=["Several thousand people marched through the city centre."]
    )
    out = GENERATORS["quantifier"](row, rng=random.Random(0), pool=RowPool([row]))
    assert out == Skip("no quantifier to widen")
