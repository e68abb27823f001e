"""dropped_condition on hand-written sentences in English, German, French and Spanish: the
condition cut, the verdict expected, and the sentences left alone."""

from __future__ import annotations

import random

import pytest

from ragjudge.data import GoldRecord
from ragjudge.probing import GENERATORS, Skip, Variant
from ragjudge.probing._generate import RowPool
from ragjudge.probing.generators.conditions import drop_conditions, dropped_condition


class _NoPool:
    def unrelated(self, row: GoldRecord, rng: random.Random) -> GoldRecord | None:
        return None


def _make(*passages: str) -> Variant | Skip:
    row = GoldRecord(id="r", contexts=list(passages), answer="x")
    return GENERATORS["dropped_condition"](row, rng=random.Random(0), pool=_NoPool())


@pytest.mark.parametrize(
    ("sentence", "dropped", "general"),
    [
        # English: trailing, leading, mid-sentence, a group
        (
            "Guests can cancel free of charge if they book directly.",
            "if they book directly",
            "Guests can cancel free of charge.",
        ),
        (
            "The library lends laptops unless the borrower owes a fine.",
            "unless the borrower owes a fine",
            "The library lends laptops.",
        ),
        (
            "The shop is open every day except Sundays.",
            "except Sundays",
            "The shop is open every day.",
        ),
        (
            "If you are a member, you can cancel free of charge.",
            "If you are a member",
            "You can cancel free of charge.",
        ),
        (
            "All rooms, except the suites, have a balcony.",
            "except the suites",
            "All rooms have a balcony.",
        ),
        (
            "Parking at the station is free for registered members.",
            "for registered members",
            "Parking at the station is free.",
        ),
        (
            "The warranty covers the battery as long as it is not opened.",
            "as long as it is not opened",
            "The warranty covers the battery.",
        ),
        # German: wenn / falls / außer / nur für
        (
            "Das Spiel fällt am Sonntag aus, wenn es regnet.",
            "wenn es regnet",
            "Das Spiel fällt am Sonntag aus.",
        ),
        (
            "Die Garantie gilt zwei Jahre, falls das Gerät nicht geöffnet wird.",
            "falls das Gerät nicht geöffnet wird",
            "Die Garantie gilt zwei Jahre.",
        ),
        (
            "Das Museum ist täglich geöffnet außer am Montag.",
            "außer am Montag",
            "Das Museum ist täglich geöffnet.",
        ),
        (
            "Das Parken am Bahnhof ist kostenlos nur für registrierte Mitglieder.",
            "nur für registrierte Mitglieder",
            "Das Parken am Bahnhof ist kostenlos.",
        ),
        # French: si / sauf / à condition que / seulement si
        (
            "Si vous êtes membre, vous pouvez annuler sans frais.",
            "Si vous êtes membre",
            "Vous pouvez annuler sans frais.",
        ),
        (
            "Le magasin est ouvert tous les jours sauf le dimanche.",
            "sauf le dimanche",
            "Le magasin est ouvert tous les jours.",
        ),
        (
            "Le remboursement est possible à condition que le billet soit intact.",
            "à condition que le billet soit intact",
            "Le remboursement est possible.",
        ),
        (
            "La garantie couvre la batterie, seulement si elle est neuve.",
            "seulement si elle est neuve",
            "La garantie couvre la batterie.",
        ),
        # Spanish: si / salvo / excepto / solo si / siempre que
        (
            "Si llueve mucho, el partido se suspende hasta el lunes.",
            "Si llueve mucho",
            "El partido se suspende hasta el lunes.",
        ),
        (
            "La tienda abre todos los días excepto los domingos.",
            "excepto los domingos",
            "La tienda abre todos los días.",
        ),
        (
            "Los socios pueden cancelar gratis, siempre que avisen con 48 horas.",
            "siempre que avisen con 48 horas",
            "Los socios pueden cancelar gratis.",
        ),
        (
            "El museo abre los lunes salvo en agosto.",
            "salvo en agosto",
            "El museo abre los lunes.",
        ),
        (
            "La garantía cubre la batería, solo si es nueva y sellada.",
            "solo si es nueva y sellada",
            "La garantía cubre la batería.",
        ),
    ],
)
def test_a_condition_is_dropped(sentence: str, dropped: str, general: str) -> None:
    assert (dropped, general) in drop_conditions(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "He asked if the shop was open on Sundays.",  # whether
        "A woman asked the doctor if her father would recover.",  # whether, a word on
        "Few if any students passed the final exam this year.",  # no condition
        "It will rain even if the forecast says otherwise.",  # concessive
        "He moved to Paris when he was twenty years old.",  # time, no condition
        "If you want to ski, Big Bear is three hours north of here.",  # on the hearer only
        "If the sun, heat, and salt did not ruin the samples, insects did.",  # a list's comma
        "If it rains, it would be cancelled at once by the club.",  # a hypothetical stays
        "If you have questions, please contact our office at once.",  # a request
        "Times are also tough this year for many students.",  # a target, not a condition
        "The law covers cars and trucks but not motorcycles at all.",  # narrower, not wider
        "Only members can vote at the annual general meeting.",  # dropping "only" is true
        "Er fragte, ob der Laden am Sonntag geöffnet ist.",  # German whether
        "Wenn es regnet, fällt das Spiel am Sonntag aus.",  # German verb-first main clause
        "Il est si grand que la porte est trop petite.",  # French "si" = so
        "No sé si la tienda abre los domingos por la tarde.",  # Spanish whether
    ],
)
def test_what_is_no_condition_is_left_alone(sentence: str) -> None:
    assert drop_conditions(sentence) == []


def test_the_generator_makes_a_must_fail_probe() -> None:
    out = _make("Loyalty members can cancel free of charge if they book directly. Others pay.")
    assert isinstance(out, Variant)
    assert out.answer == "Loyalty members can cancel free of charge."
    assert (out.before, out.after) == ("if they book directly", "")
    assert GENERATORS["dropped_condition"].expect == "fail"


def test_a_general_claim_the_context_already_makes_is_skipped() -> None:
    out = _make(
        "Guests can cancel free of charge if they book directly.",
        "In short, guests can cancel free of charge.",
    )
    assert isinstance(out, Skip)


def test_a_row_without_a_condition_is_skipped() -> None:
    assert _make("The museum opened to visitors on 2 October 2019.") == Skip("no condition to drop")


@pytest.mark.parametrize(
    "sentence",
    [
        # a hedged or vague main claim stays true without its condition
        "Many students feel obliged to binge drink if they are part of a clique.",
        "There wasn't much celebration, except for some parents taking photos.",
        "A dirty filter cuts mileage by as much as 14 percent if it is badly clogged.",
        "Kids are at a risk of harming their eyes if they wear the wrong glasses.",
        "The leak has dangerous implications if an attacker has access to the phone.",
        "The system can be used by the crew if the host boards approve the plan.",
        "The web tour should be a hit if the children are half as excited.",
        "Beaucoup d'étudiants boivent trop, s'ils font partie d'un groupe.",
        "Muchos estudiantes beben demasiado, si forman parte de un grupo.",
        "Viele Studenten trinken zu viel, wenn ihre Freunde dabei sind.",
        # what someone said or threatened, not a condition on the claim
        "The men dragged her behind a truck, threatening her if she did not testify.",
        "Los hombres la arrastraron amenazándola, si ella no declaraba ante el juez.",
        "Les hommes l'ont traînée en la menaçant, si elle ne témoignait pas au procès.",
        # a wish, a view or a choice: a purpose, or a claim that holds anyway
        "I need to do my studies as well if I want to have a bigger plan.",
        "We will listen carefully to their criticism if they feel we have gone off course.",
        "The new rule is applied at all races if the host boards choose to do so.",
        "Je dois aussi faire mes études, si je veux avoir un plus grand projet.",
        "Tengo que estudiar también, si quiero tener un plan más grande.",
        # told in the past: narration, not a limit
        "Ellison tried his best to never miss a game if he was on earth.",
        "Everything was going well, as long as he left most matters to the secretaries.",
        # a choice among others: the clause may limit the last one only
        "A major penalty or a match penalty is assessed if the opponent is endangered.",
        # the claim restates its condition
        "If the goalkeeper saves the ball, the save will count for the team.",
        # a clause that only points back
        "If this is indeed so, the only thing we can do is to try and understand.",
        # a point of view, not a group a claim is limited to
        "For members of the First Nation who escaped, the mandatory evacuation was frenzied.",
        # a German cue word in an English sentence ("falls" is no "if" here)
        "Iron Man, still hit, falls back through the wormhole just as Romanoff closes it.",
    ],
)
def test_a_clause_that_does_not_limit_a_bare_claim_is_left(sentence: str) -> None:
    assert drop_conditions(sentence) == []


def _asked_row(question: str, *passages: str) -> Variant | Skip:
    row = GoldRecord(id="r", question=question, contexts=list(passages), answer="x")
    return GENERATORS["dropped_condition"](row, rng=random.Random(0), pool=_NoPool())


def test_a_condition_the_question_already_states_is_left() -> None:
    sentence = "Falling asleep is harder if we are trying to sleep in a noisy environment."
    noisy = "Why is it harder to fall asleep in noisy environments?"
    assert _asked_row(noisy, sentence) == Skip("no condition to drop")
    assert isinstance(_asked_row("Why do people toss and turn at night?", sentence), Variant)
    # a condition on the hearer may fit the asker
    paypal = "PayPal charges a fee for each transfer if you don't have an account."
    assert _asked_row("Should I get PayPal?", paypal) == Skip("no condition to drop")
    assert isinstance(_make(paypal.replace("you don't", "the sender doesn't")), Variant)


def test_an_exception_after_an_or_is_still_dropped() -> None:
    # "or" between two nouns under one "no": the exception limits them both
    sentence = "The general wore no medals or badges except for a small pin on his cap."
    assert ("except for a small pin on his cap", "The general wore no medals or badges.") in (
        drop_conditions(sentence)
    )


def test_a_first_person_claim_keeps_its_condition() -> None:
    from ragjudge.probing.generators.conditions import limits_a_bare_claim

    assert not limits_a_bare_claim("I cannot be responsible.", "if people do not listen")
    assert not limits_a_bare_claim("Ich kann nicht helfen.", "wenn niemand fragt")
    assert limits_a_bare_claim("Guests can cancel free of charge.", "if they book directly")


@pytest.mark.parametrize(
    ("sentence", "dropped", "general"),
    [
        # an exclusion opening the sentence: the figure is then said of everything
        (
            "Excluding these items, diluted earnings per share of $3.50 in 2021 increased 34.6%.",
            "Excluding these items",
            "Diluted earnings per share of $3.50 in 2021 increased 34.6%.",
        ),
        (
            "Sales rose 4% in the quarter excluding currency effects.",
            "excluding currency effects",
            "Sales rose 4% in the quarter.",
        ),
        # an exception to a universal claim: a list to the end, or before a "though" clause
        (
            "The beetle is found everywhere in Europe except for Albania, Andorra and Monaco.",
            "except for Albania, Andorra and Monaco",
            "The beetle is found everywhere in Europe.",
        ),
        (
            "Bows replaced the spear-thrower on every continent except Australasia, though "
            "spear-throwers persisted in the Americas.",
            "except Australasia",
            "Bows replaced the spear-thrower on every continent, though spear-throwers "
            "persisted in the Americas.",
        ),
        ("Le musée est ouvert tous les jours sauf le lundi.", "sauf le lundi",
         "Le musée est ouvert tous les jours."),
        ("El museo abre todos los días excepto los lunes.", "excepto los lunes",
         "El museo abre todos los días."),
    ],
)  # fmt: skip
def test_an_exclusion_or_an_exception_to_all_is_dropped(
    sentence: str, dropped: str, general: str
) -> None:
    assert (dropped, general) in drop_conditions(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        # German may close on its verb after the exception: no sentence would be left
        "Das Museum ist jeden Tag außer Montag geöffnet.",
        # the exception is a clause, not things left out
        "The members voted for every motion except when the chair was absent, though rarely.",
        # hedged once the condition is gone
        "If the defendants are convicted on all charges, the state can theoretically seek "
        "more than $11 billion in fines.",
        # a dollar sign of mathematics, no amount
        "The ratio approaches $x$ everywhere except at zero.",
    ],
)
def test_an_exception_whose_removal_breaks_or_keeps_the_claim_is_left(sentence: str) -> None:
    assert drop_conditions(sentence) == []


@pytest.mark.parametrize(
    "context",
    [
        "If you're in a band, you're in a family, you're in a gang.",
        "Excluding the gain on the sale, adjusted earnings were $127.1 million.",
        "The key clause is the one allowing the team to leave if another team moves in.",
    ],
)
def test_a_condition_whose_loss_claims_no_more_is_kept(context: str) -> None:
    row = GoldRecord(id="r", question="What did they say?", contexts=[context], answer="x")
    made = dropped_condition(row, rng=random.Random(0), pool=RowPool([]))
    assert made == Skip("no condition to drop")
