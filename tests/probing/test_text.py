"""The probe package's own word tools: languages and sentences."""

from __future__ import annotations

import pytest

from ragjudge.probing._text import language, sentences


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("When did Marilyn Monroe die?", "en"),
        ("Nine of the 30 pilots in the trial reported fatigue.", "en"),
        ("Einige Piloten berichteten über Müdigkeit nach dem Flug.", "de"),
        ("Die Brücke wurde 2019 eröffnet.", "de"),
        ("Le pont a été ouvert au public par la ville.", "fr"),
        ("El puente fue abierto al público.", "es"),
        ("Si vous êtes membre, vous pouvez annuler sans frais.", "fr"),
        ("Ulm 1879.", "en"),
    ],
)
def test_language(text: str, lang: str) -> None:
    assert language(text) == lang


def test_sentences_do_not_end_at_abbreviations_or_initials() -> None:
    text = "Dr. Smith met J. Jones in the U.S. in May. They spoke for 2 hours. It rained."
    assert sentences(text) == [
        "Dr. Smith met J. Jones in the U.S. in May.",
        "They spoke for 2 hours.",
        "It rained.",
    ]
