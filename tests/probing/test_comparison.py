"""`comparison`: a rank, a multiple or a comparative changed, in en/de/fr/es."""

from __future__ import annotations

import random

import pytest

from ragjudge.data import GoldRecord
from ragjudge.probing import GENERATORS, Skip, Variant
from ragjudge.probing._generate import RowPool
from ragjudge.probing.generators.comparison import comparison


def _make(context: str, *, seed: int = 0) -> Variant | Skip:
    row = GoldRecord(id="r", question="How does it compare?", contexts=[context], answer="x")
    return comparison(row, rng=random.Random(seed), pool=RowPool([]))


@pytest.mark.parametrize(
    ("context", "answer", "lang"),
    [
        (
            "Lagos is the largest city in Nigeria by population.",
            "Lagos is the second-largest city in Nigeria by population.",
            "en",
        ),
        (
            "She was the first woman to win the prize in 1903.",
            "She was the second woman to win the prize in 1903.",
            "en",
        ),
        (
            "The new bridge is twice as long as the old one.",
            "The new bridge is half as long as the old one.",
            "en",
        ),
        (
            "It is the most popular museum in the region.",
            "It is the second most popular museum in the region.",
            "en",
        ),
        (
            "The oak is older than the church next to it.",
            "The oak is younger than the church next to it.",
            "en",
        ),
        (
            "Port of Morrow is the fourth studio album by The Shins.",
            "Port of Morrow is the fifth studio album by The Shins.",
            "en",
        ),
        (
            "Berlin ist die größte Stadt in Deutschland und die Hauptstadt.",
            "Berlin ist die zweitgrößte Stadt in Deutschland und die Hauptstadt.",
            "de",
        ),
        (
            "Elle est la première femme à recevoir le prix.",
            "Elle est la deuxième femme à recevoir le prix.",
            "fr",
        ),
        (
            "Lagos es la ciudad más grande de Nigeria por población.",
            "Lagos es la segunda ciudad más grande de Nigeria por población.",
            "es",
        ),
        (
            "Ella fue la primera mujer en ganar el premio.",
            "Ella fue la segunda mujer en ganar el premio.",
            "es",
        ),
    ],
)
def test_a_comparison_is_changed(context: str, answer: str, lang: str) -> None:
    made = _make(context)
    assert isinstance(made, Variant)
    assert (made.answer, made.language) == (answer, lang)


@pytest.mark.parametrize(
    "context",
    [
        "Lagos is one of the largest cities in Africa by population.",  # a rank in a group
        "Grace Mugabe, the first lady, spoke at the rally in Harare.",  # a title
        "He married his first cousin in 1887 at the village church.",  # kinship
        "Lagos is the largest city and Kano the second largest in Nigeria.",  # a second rank
        "It is not the largest city in Nigeria by population.",  # a negation
        "For the best part of a decade the mill stood empty.",  # an idiom
        "The team won 11 of its first 12 games in the season.",  # `first` before a count
        "He was called up in the second world war at the age of 19.",  # a name in lowercase
        "It is the end of journalism and the first amendment.",  # a name in lowercase
    ],
)
def test_a_comparison_it_cannot_change_safely_is_left(context: str) -> None:
    assert _make(context) == Skip("no comparison to change")


def test_comparison_is_a_must_fail_kind() -> None:
    assert GENERATORS["comparison"].expect == "fail"
