"""`modality`: a hedged claim stated as certain, in en/de/fr/es; past and negated hedges left."""

from __future__ import annotations

import random

import pytest

from ragjudge.data import GoldRecord
from ragjudge.probing import GENERATORS, Skip, Variant
from ragjudge.probing._generate import RowPool
from ragjudge.probing.generators.modality import modality


def _make(context: str, *, seed: int = 0) -> Variant | Skip:
    row = GoldRecord(id="r", question="What will happen?", contexts=[context], answer="x")
    return modality(row, rng=random.Random(seed), pool=RowPool([]))


@pytest.mark.parametrize(
    ("context", "answer", "lang"),
    [
        (
            "Drinking coffee may reduce the risk of liver disease.",
            "Drinking coffee will reduce the risk of liver disease.",
            "en",
        ),
        (
            "The new policy is likely to increase costs for small firms.",
            "The new policy will increase costs for small firms.",
            "en",
        ),
        (
            "The storm could lead to floods in the valley.",
            "The storm will lead to floods in the valley.",
            "en",
        ),
        (
            "The company is expected to name its new editor next week.",
            "The company is certain to name its new editor next week.",
            "en",
        ),
        (
            "Quarterly revenues are expected to rise by 4 percent.",
            "Quarterly revenues are certain to rise by 4 percent.",
            "en",
        ),
        (
            "The vase is probably from the early Ming period.",
            "The vase is certainly from the early Ming period.",
            "en",
        ),
        (
            "The data suggests that the drug works in older patients.",
            "The data proves that the drug works in older patients.",
            "en",
        ),
        (
            "The company allegedly paid the fine in March.",
            "The company paid the fine in March.",
            "en",
        ),
        (
            "The wreck is believed to be from the 17th century.",
            "The wreck is known to be from the 17th century.",
            "en",
        ),
        (
            "Der neue Plan könnte die Kosten für die Firmen erhöhen.",
            "Der neue Plan wird die Kosten für die Firmen erhöhen.",
            "de",
        ),
        (
            "Le nouveau plan pourrait augmenter les coûts pour les entreprises.",
            "Le nouveau plan va augmenter les coûts pour les entreprises.",
            "fr",
        ),
        (
            "El nuevo plan podría aumentar los costos para las empresas.",
            "El nuevo plan va a aumentar los costos para las empresas.",
            "es",
        ),
    ],
)
def test_a_hedge_is_made_certain(context: str, answer: str, lang: str) -> None:
    made = _make(context)
    assert isinstance(made, Variant)
    assert (made.answer, made.language) == (answer, lang)


@pytest.mark.parametrize(
    "context",
    [
        "The fire may have started in the kitchen of the hotel.",  # a past hedge
        "As a boy he could swim across the lake and back.",  # `could` as `was able to`
        "The museum can be reached by bus from the station.",  # `can be`: no hedge
        "The plan may not reduce costs for small firms.",  # a negated hedge
        "The drug can potentially reduce the risk of stroke.",  # a modal stays
        "If it rains, the match may be moved to Sunday.",  # a condition
        "Prices might possibly rise again next year in the city.",  # two hedges
        "There are fewer of these shops around than you might think.",  # a figure of speech
        "I may be wrong, but the plan seems sound to me.",  # a politeness hedge
        "He was seen as the most likely figure to lead the party.",  # `most likely` as a rank
        "You'd probably say the plan is sound and cheap.",  # `would` stays
        "Officials allegedly appear to admit the error in the report.",  # `appear` stays
        "The museum opens at nine and closes at five every day.",  # no hedge
        "Private unions may lobby the council, but they cannot strike.",  # concessive `may`
        "A bank may pay interest on deposits, but rates are low.",  # concessive `may`
        "The city welcomes those who could contribute to the arts.",  # a relative clause
        "Visit the market and see what you may find there today.",  # an idiom
        "You may cancel the booking up to two days before arrival.",  # a permission
        "The company reportedly paid the fine in March.",  # a weak hedge: not dropped
        "Die Gewerkschaft kann verhandeln, aber sie darf nicht streiken.",  # concessive (de)
        "Le syndicat peut négocier, mais la grève reste rare.",  # concessive (fr)
        "Some patients may benefit from a white noise machine at night.",  # limited to some
        "In some instances, the test may still detect the virus.",  # limited to some
        "Perhaps more important for a covers album, the band chose songs well.",  # a ranking
        "Smokers are at greater risk of potentially fatal lung disease.",  # under a risk
        "The singer reportedly left the band and supposedly moved to Paris.",  # two hedges
        "Readers say they feel the newsletter might be useful each week.",  # a view
        "Two hours of your time can make a difference to our museums.",  # a slogan
        "The slave trade can help explain the spread of the crop.",  # ability
        "The first records indicate that the total membership was 19.",  # a report
        "He hopes that the new law might reduce crime in the city.",  # a hope
        "Handwriting can change over time as these characteristics change.",  # covariation
        "Prices may rise sharply when interest rates fall again.",  # a condition
        "Cold surfaces can cause water vapour to condense into drops.",  # a generic `can`
        "Older adults are at a greater risk of severe, and potentially fatal, effects.",  # risk
        "Critics might say this is the party's single biggest challenge.",  # a voiced view
        "The garden front might owe something to the classicist Robert Taylor.",  # a state
        "Patients face a greater risk of potentially fatal side effects.",  # under a risk
    ],
)
def test_a_hedge_it_cannot_make_certain_safely_is_left(context: str) -> None:
    assert _make(context) == Skip("no hedge to make certain")


def test_modality_is_a_must_fail_kind() -> None:
    assert GENERATORS["modality"].expect == "fail"


def test_a_hedge_the_context_also_states_as_certain_is_left() -> None:
    out = _make(
        "This might be the last World Cup for these players. "
        "It will be their last chance to play in the tournament."
    )
    assert out == Skip("the context states it as certain") or (
        isinstance(out, Variant) and "World Cup" not in out.answer
    )
