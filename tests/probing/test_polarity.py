"""`negation`: a negation added to or removed from one clause, in en/de/fr/es; traps skipped."""

from __future__ import annotations

import random

import pytest

from ragjudge.data import GoldRecord
from ragjudge.probing import GENERATORS, Skip, Variant, kinds
from ragjudge.probing._generate import RowPool
from ragjudge.probing.generators.polarity import negation, past_tense, third_person


def _make(context: str, *, seed: int = 0) -> Variant | Skip:
    row = GoldRecord(id="r", question="What is said?", contexts=[context], answer="x")
    return negation(row, rng=random.Random(seed), pool=RowPool([]))


@pytest.mark.parametrize(
    ("context", "answer", "lang"),
    [
        (
            "The museum is open to visitors on Sundays.",
            "The museum is not open to visitors on Sundays.",
            "en",
        ),
        (
            "Members can cancel free of charge before arrival.",
            "Members cannot cancel free of charge before arrival.",
            "en",
        ),
        (
            "The bridge has been closed since the storm.",
            "The bridge has not been closed since the storm.",
            "en",
        ),
        (
            "The company did not win the contract in 2019.",
            "The company won the contract in 2019.",
            "en",
        ),
        (
            "The company does not offer refunds after purchase.",
            "The company offers refunds after purchase.",
            "en",
        ),
        (
            "The museum wasn't open to visitors on Sundays.",
            "The museum was open to visitors on Sundays.",
            "en",
        ),
        (
            "Das Wasser ist sauber und klar für die Kinder.",
            "Das Wasser ist nicht sauber und klar für die Kinder.",
            "de",
        ),
        (
            "Das Museum ist nicht für die Besucher geöffnet.",
            "Das Museum ist für die Besucher geöffnet.",
            "de",
        ),
        (
            "Die Firma hat keinen Vertrag mit der Stadt.",
            "Die Firma hat einen Vertrag mit der Stadt.",
            "de",
        ),
        (
            "Le musée est ouvert le dimanche pour les visiteurs.",
            "Le musée n'est pas ouvert le dimanche pour les visiteurs.",
            "fr",
        ),
        (
            "Le musée n'est pas ouvert le dimanche pour les visiteurs.",
            "Le musée est ouvert le dimanche pour les visiteurs.",
            "fr",
        ),
        ("C'est une bonne idée pour la ville.", "Ce n'est pas une bonne idée pour la ville.", "fr"),
        (
            "El museo está abierto los domingos para los visitantes.",
            "El museo no está abierto los domingos para los visitantes.",
            "es",
        ),
        (
            "El museo no está abierto los domingos para los visitantes.",
            "El museo está abierto los domingos para los visitantes.",
            "es",
        ),
    ],
)
def test_a_clause_is_negated_or_affirmed(context: str, answer: str, lang: str) -> None:
    made = _make(context)
    assert isinstance(made, Variant)
    assert (made.answer, made.language) == (answer, lang)
    assert made.before in context and made.after in made.answer


def test_the_edit_names_the_words_changed() -> None:
    made = _make("The museum is open to visitors on Sundays.")
    assert isinstance(made, Variant)
    assert (made.before, made.after) == ("is open", "is not open")


@pytest.mark.parametrize(
    "context",
    [
        "The museum is not only open on Sundays but also on Mondays.",  # `not only`
        "Only members can enter the museum on Sundays.",  # `only`
        "The museum is never closed and does not charge visitors.",  # two negations
        "Visitors cannot enter without a ticket from the office.",  # `without` beside it
        "Nobody knows whether the museum is open on Sundays.",  # a negative word
        "The firm declined to say how long the plant will be idle.",  # an indirect question
        "Is the museum open to visitors on Sundays?",  # a question
        'The director said "the museum is open on Sundays" to us.',  # a quote
        "Marketing: the remote is easy to use for everyone here.",  # a transcript
        "Um, the remote is easy to use for everyone here.",  # a filler word
        "The remote is easy to use and it is.",  # cut short
        "MOST POPULAR LATEST NEWS The museum is open on Sundays.",  # page furniture
        "Le musée n'est jamais ouvert le dimanche pour les visiteurs.",  # ne ... jamais
        "Das Museum ist nicht nur sonntags geöffnet für die Besucher.",  # nicht nur
        "El museo no solo está abierto los domingos para los visitantes.",  # no solo
    ],
)
def test_a_sentence_it_cannot_negate_safely_is_skipped(context: str) -> None:
    assert _make(context) == Skip("no clause safe to negate")


def test_a_transcript_passage_gives_no_sentence() -> None:
    show = "Welcome to a new episode of the show. The remote is easy to use for everyone here."
    assert _make(show) == Skip("no clause safe to negate")
    made = _make("The remote is easy to use for everyone here.")
    assert isinstance(made, Variant)


def test_do_support_is_undone_only_for_a_verb_it_can_inflect() -> None:
    assert _make("The team did not stop the game for the storm.") == Skip(
        "no clause safe to negate"
    )
    assert past_tense("win") == "won" and past_tense("decide") == "decided"
    assert past_tense("carry") == "carried" and past_tense("stop") is None
    assert third_person("have") == "has" and third_person("watch") == "watches"
    assert third_person("carry") == "carries" and third_person("offer") == "offers"


def test_the_same_seed_gives_the_same_probe() -> None:
    context = (
        "The museum is open on Sundays. The shop was closed in May. "
        "The cafe will serve lunch to visitors."
    )
    first = [_make(context, seed=s) for s in range(5)]
    assert first == [_make(context, seed=s) for s in range(5)]
    assert len({v.answer for v in first if isinstance(v, Variant)}) > 1


def test_negation_is_a_must_fail_kind() -> None:
    assert "negation" in kinds(expect="fail")
    assert GENERATORS["negation"].expect == "fail"
