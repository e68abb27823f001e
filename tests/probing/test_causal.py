"""`causal`: an association stated as a cause, in en/de/fr/es; contexts that speak of causes,
and associations that are no study's finding, are left."""

from __future__ import annotations

import random

import pytest

from ragjudge.data import GoldRecord
from ragjudge.probing import GENERATORS, Skip, Variant
from ragjudge.probing._generate import RowPool
from ragjudge.probing.generators.causal import causal


def _make(*contexts: str, seed: int = 0) -> Variant | Skip:
    row = GoldRecord(
        id="r", question="What did the study find?", contexts=list(contexts), answer="x"
    )
    return causal(row, rng=random.Random(seed), pool=RowPool([]))


@pytest.mark.parametrize(
    ("context", "answer", "lang"),
    [
        (
            "Heavy drinking is associated with a higher risk of liver disease.",
            "Heavy drinking causes a higher risk of liver disease.",
            "en",
        ),
        (
            "Long shifts were strongly linked to higher rates of injury.",
            "Long shifts caused higher rates of injury.",
            "en",
        ),
        (
            "The study found an association between coffee and a lower risk of liver disease.",
            "The study found a causal link between coffee and a lower risk of liver disease.",
            "en",
        ),
        (
            "Die Studie fand einen Zusammenhang zwischen Kaffee und einem Risiko.",
            "Die Studie fand einen kausalen Zusammenhang zwischen Kaffee und einem Risiko.",
            "de",
        ),
        (
            "Le café est associé à un risque plus faible de maladie du foie.",
            "Le café cause un risque plus faible de maladie du foie.",
            "fr",
        ),
        (
            "La obesidad está asociada con un mayor riesgo de diabetes.",
            "La obesidad causa un mayor riesgo de diabetes.",
            "es",
        ),
    ],
)
def test_an_association_is_made_a_cause(context: str, answer: str, lang: str) -> None:
    made = _make(context)
    assert isinstance(made, Variant)
    assert (made.answer, made.language) == (answer, lang)


@pytest.mark.parametrize(
    "context",
    [
        "He was associated with members of the American Mafia in Newark.",  # no outcome
        "Heavy drinking is not associated with a higher risk of the disease.",  # negated
        "Heavy drinking may be associated with a higher risk of liver disease.",  # hedged
        "The garment is mostly associated with the college culture of the 1920s.",
        "The bishop's visit coincided with the feast day of the main church.",  # no outcome
        "The second round of layoffs coincided with the cancellation of many projects.",
    ],
)
def test_an_association_that_is_no_finding_is_left(context: str) -> None:
    assert _make(context) == Skip("no association to make causal")


ASSOCIATION = "Heavy drinking is associated with a higher risk of liver disease."


@pytest.mark.parametrize(
    "contexts",
    [
        # a cause word next to the association
        (f"{ASSOCIATION} This damage results from years of abuse.",),
        # causation between the same two things, anywhere in the context
        (ASSOCIATION, "The town hall is open on Sundays. Heavy drinking causes liver disease."),
        # the association's subject points elsewhere: a cause of the same effect is enough
        (
            "Austerity cuts spending. It is a fiscal policy, associated with lower growth. "
            "The town hall is open on Sundays.",
            "Spending cuts lead to lower growth in a recession.",
        ),
        # French, Spanish, German: the same two things, with their cause words
        (
            "Le café est associé à un risque plus faible de maladie du foie.",
            "La mairie est ouverte le dimanche. Le café provoque des maladies du foie.",
        ),
        (
            "La obesidad está asociada con un mayor riesgo de diabetes.",
            "El ayuntamiento abre los domingos. La obesidad causa casos de diabetes.",
        ),
    ],
)
def test_a_context_that_states_the_cause_is_left(contexts: tuple[str, ...]) -> None:
    assert _make(*contexts) == Skip("the context speaks of causes")


def test_a_cause_elsewhere_between_other_things_does_not_stop_the_probe() -> None:
    made = _make(
        f"{ASSOCIATION} The town hall is open on Sundays. The clinic is in the old mill.",
        "Heavy rain caused floods in the valley last spring.",
    )
    assert isinstance(made, Variant)
    assert made.answer == "Heavy drinking causes a higher risk of liver disease."


@pytest.mark.parametrize(
    ("context", "answer"),
    [
        (
            "His rhetoric has coincided with a rise in violent attacks in the country.",
            "His rhetoric has caused a rise in violent attacks in the country.",
        ),
        (
            "It is a deflationary fiscal policy, associated with lower rates of growth.",
            "It is a deflationary fiscal policy, causing lower rates of growth.",
        ),
    ],
)
def test_more_associations_are_made_causes(context: str, answer: str) -> None:
    made = _make(context)
    assert isinstance(made, Variant) and made.answer == answer


def test_causal_is_a_must_fail_kind() -> None:
    assert GENERATORS["causal"].expect == "fail"
