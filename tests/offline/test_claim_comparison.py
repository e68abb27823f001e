"""The comparison claim (`ragjudge.offline.claims.comparison`): a rank (first / second,
largest / second-largest), a superlative or comparative (largest / smallest, stronger /
weaker) or a multiplier (twice / half) that differs from the aligned context sentence's.
Sentences written by hand, in English, German, French and Spanish, before the module."""

from __future__ import annotations

import pytest

from ragjudge.offline.claims.comparison import conflict

CHANGED = [
    ("It is the largest city in the province.", "It is the second-largest city in the province."),
    ("It is the second largest city in the province.", "It is the largest city in the province."),
    ("It is the most popular app in Brazil.", "It is the second most popular app in Brazil."),
    ("The band released its second album in 1999.", "The band released its first album in 1999."),
    ("She won the race for the third time.", "She won the race for the second time."),
    ("Lake Mira is the smallest lake in the park.", "Lake Mira is the largest lake in the park."),
    ("The new engine is weaker than the old one.", "The new engine is stronger than the old one."),
    ("The winter was colder than usual.", "The winter was warmer than usual."),
    ("The new hall holds half as many people.", "The new hall holds twice as many people."),
    ("Sales were three times higher in May.", "Sales were twice as high in May."),
    ("Es ist die größte Stadt der Provinz.", "Es ist die zweitgrößte Stadt der Provinz."),
    (
        "Die Band veröffentlichte ihr zweites Album 1999.",
        "Die Band veröffentlichte ihr erstes Album 1999.",
    ),
    (
        "C'est la deuxième plus grande ville de la province.",
        "C'est la plus grande ville de la province.",
    ),
    (
        "Le groupe a sorti son deuxième album en 1999.",
        "Le groupe a sorti son premier album en 1999.",
    ),
    (
        "Es la segunda ciudad más grande de la provincia.",
        "Es la ciudad más grande de la provincia.",
    ),
    ("La banda publicó su segundo álbum en 1999.", "La banda publicó su primer álbum en 1999."),
]

KEPT = [
    ("It is the largest city in the province.", "It is the largest city in the province."),
    ("It is the second-largest city.", "It is the second largest city in the province."),
    (
        "The band released its first album in 1999.",
        "In 1999 the band released its first album, and its second in 2003.",
    ),
    # first of something else than the statement ranks
    ("The band released an album in 1999.", "The band released its first album in 1999."),
    ("The new engine is stronger than the old one.", "The new engine is stronger than the old."),
    ("The hall holds twice as many people.", "The hall holds twice as many people as before."),
    ("Es ist die größte Stadt der Provinz.", "Es ist die größte Stadt der Provinz."),
    ("C'est la plus grande ville.", "C'est la plus grande ville de la province."),
    # no comparison word in the statement
    ("The city lies in the province.", "It is the second-largest city in the province."),
]


@pytest.mark.parametrize(("statement", "sentence"), CHANGED)
def test_a_changed_rank_or_comparison_is_caught_and_named(statement: str, sentence: str) -> None:
    note = conflict(statement, sentence)
    assert note, statement
    assert "where the passage says" in note


@pytest.mark.parametrize(("statement", "sentence"), KEPT)
def test_the_same_comparison_is_no_conflict(statement: str, sentence: str) -> None:
    assert conflict(statement, sentence) == ""
