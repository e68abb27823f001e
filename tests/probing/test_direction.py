"""`direction`: one direction word turned the other way, in en/de/fr/es; idioms skipped."""

from __future__ import annotations

import random

import pytest

from ragjudge.data import GoldRecord
from ragjudge.probing import GENERATORS, Skip, Variant
from ragjudge.probing._generate import RowPool
from ragjudge.probing.generators.direction import direction


def _make(*contexts: str, seed: int = 0) -> Variant | Skip:
    row = GoldRecord(id="r", question="What happened?", contexts=list(contexts), answer="x")
    return direction(row, rng=random.Random(seed), pool=RowPool([]))


@pytest.mark.parametrize(
    ("context", "answer", "lang"),
    [
        (
            "Sales rose 5% in the second quarter of 2020.",
            "Sales fell 5% in the second quarter of 2020.",
            "en",
        ),
        (
            "The town lies 20 km north of the capital city.",
            "The town lies 20 km south of the capital city.",
            "en",
        ),
        (
            "The region saw an increase of 12% in tourism.",
            "The region saw a decrease of 12% in tourism.",
            "en",
        ),
        (
            "The bridge was finished before 1990 by the city.",
            "The bridge was finished after 1990 by the city.",
            "en",
        ),
        (
            "Fewer than 200 speakers of the language remain today.",
            "More than 200 speakers of the language remain today.",
            "en",
        ),
        (
            "The company has over 1,000 clients in Europe and Asia.",
            "The company has under 1,000 clients in Europe and Asia.",
            "en",
        ),
        (
            "The storm strengthened overnight near the coast.",
            "The storm weakened overnight near the coast.",
            "en",
        ),
        (
            "Die Preise stiegen im letzten Jahr um fünf Prozent.",
            "Die Preise sanken im letzten Jahr um fünf Prozent.",
            "de",
        ),
        (
            "Les prix sont en hausse de cinq pour cent cette année.",
            "Les prix sont en baisse de cinq pour cent cette année.",
            "fr",
        ),
        (
            "Los precios aumentaron un cinco por ciento el año pasado.",
            "Los precios disminuyeron un cinco por ciento el año pasado.",
            "es",
        ),
    ],
)
def test_a_direction_is_reversed(context: str, answer: str, lang: str) -> None:
    made = _make(context)
    assert isinstance(made, Variant)
    assert (made.answer, made.language) == (answer, lang)


@pytest.mark.parametrize(
    "context",
    [
        "The discovery gave rise to a new field of research.",  # idiom
        "The square was named after the war by the town council.",  # idiom
        "He grew up in a small village near the coast.",  # `grew up` is no growth
        "She rose to fame after her first album in 2001.",  # idiom
        "The rate rose in 2019 and fell in 2020 in the region.",  # both sides here
        "Sales did not rise in the second quarter of 2020.",  # a negation
        "Students in higher education pay a fee every year.",  # a term
        "Please leave your comment below and share the story.",  # page furniture
        "Prices for fuel are expected to lower inflation soon.",  # `lower` as a verb
    ],
)
def test_a_word_that_names_no_direction_here_is_left(context: str) -> None:
    assert _make(context) == Skip("no direction word to reverse")


def test_a_reversal_the_context_states_elsewhere_is_not_made() -> None:
    made = _make("Sales rose 5% in 2020.", "Sales fell 5% in 2021.")
    assert made == Skip("no direction word to reverse")


def test_more_swaps_only_before_than_or_an_adjective() -> None:
    assert _make("The town has more bakeries in the old centre.") == Skip(
        "no direction word to reverse"
    )
    made = _make("The new route is more popular with cyclists in summer.")
    assert isinstance(made, Variant) and "less popular" in made.answer


def test_direction_is_a_must_fail_kind() -> None:
    assert GENERATORS["direction"].expect == "fail"
