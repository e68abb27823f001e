"""The condition and causality claims (`ragjudge.offline.claims.condition`, `.causality`): a
statement that drops the condition or exception its passage puts on a claim, or makes a cause of
what the passage only links, claims more than the passage says: the passage says otherwise of
its certainty ("no"). Hand-written cases, none from the gold."""

from __future__ import annotations

import pytest

from ragjudge.offline.claims import causality, condition
from ragjudge.offline.model import OfflineModel


@pytest.mark.parametrize(
    ("sentence", "statement"),
    [
        ("The bridge will close to traffic unless the storm weakens before Friday.",
         "The bridge will close to traffic."),
        ("Except for the goalkeeper, the whole squad travelled to Lisbon by train.",
         "The whole squad travelled to Lisbon by train."),
        ("Excluding one-off costs, quarterly profit rose 12% on strong demand for chips.",
         "Quarterly profit rose 12% on strong demand for chips."),
        ("Die Brücke wird gesperrt, falls der Sturm bis Freitag nicht nachlässt.",
         "Die Brücke wird gesperrt."),
        ("Le pont de la ville sera fermé aux voitures sauf si la tempête faiblit avant vendredi.",
         "Le pont de la ville sera fermé aux voitures."),
        # an exception of no content word of its own
        ("Every member of the council voted for the budget except two.",
         "Every member of the council voted for the budget."),
        # a short claim said whole
        ("The merger is legal if regulators approve it.", "The merger is legal."),
        # the clause the condition ends, split from its sentence
        ("The old pump is noisy, it runs hot, and the seal will leak if overfilled.",
         "The seal will leak."),
    ],
)  # fmt: skip
def test_a_dropped_condition_is_found(sentence: str, statement: str) -> None:
    assert condition.conflict(statement, sentence)
    assert not condition.conflict(sentence, sentence)  # kept: nothing dropped


@pytest.mark.parametrize(
    ("sentence", "statement"),
    [
        # a condition on the reader, not on the claim
        ("If you look closely, the glaze has small cracks near the rim.",
         "The glaze has small cracks near the rim."),
        # the statement keeps the condition in its own words
        ("The bridge will close unless the storm weakens.",
         "Unless the storm weakens, the bridge will close."),
        # the statement says something else
        ("The bridge will close unless the storm weakens.", "The storm is expected on Friday."),
        # a short claim that says only part of the rest
        ("The merger is legal if regulators approve it.", "The merger happened."),
        # the statement says another clause than the one the condition is put on
        ("Based on the Boltzmann factor, this is impossible unless the temperature is negative.",
         "The Boltzmann factor is the basis."),
        ("The pump is old and noisy, and the seal will leak if overfilled.",
         "The pump is old and noisy."),
        # a condition that opens the next clause, not the one the statement says
        ("The team with the most points wins, but if play ends tied, the game goes to overtime.",
         "The team with the most points wins."),
        # the condition of another sentence the splitter left joined to this one
        ("Fans must leave and if a player comes in, they go. the league tracks every move.",
         "The league tracks every move."),
        # "falls" the English verb, not the German "if"
        ("The top spins in a dream but falls over in reality when Cobb tests it.",
         "The top spins in a dream."),
        # a statement that keeps the doubt in its own words
        ("The river might flood the valley if heavy rain continues.",
         "The river might flood the valley."),
        # an "if" of no content word of its own
        ("The pump is noisy and the seal will leak, if ever.", "The seal will leak."),
    ],
)  # fmt: skip
def test_no_condition_conflict(sentence: str, statement: str) -> None:
    assert condition.conflict(statement, sentence) == ""


def test_a_cause_where_the_passage_says_a_link() -> None:
    sentence = "Heavy use of the drug has been linked to liver damage in older patients."
    assert causality.conflict(
        "Heavy use of the drug has caused liver damage in older patients.", sentence
    )
    assert causality.conflict(sentence, sentence) == ""
    # the passage itself says cause
    assert (
        causality.conflict(
            "The drug caused liver damage.", "The drug caused liver damage, the study found."
        )
        == ""
    )


def test_both_reach_the_verdict_as_contradicted() -> None:
    model = OfflineModel()
    cases = [
        ("The bridge will close to traffic unless the storm weakens before Friday.",
         "The bridge will close to traffic."),
        ("Heavy use of the drug has been linked to liver damage in older patients.",
         "Heavy use of the drug has caused liver damage in older patients."),
    ]  # fmt: skip
    for context, statement in cases:
        (judged,) = model.judge_statements(context=context, statements=[statement])
        assert judged["verdict"] == "no", judged
        assert "overclaim" in judged["rules"]
