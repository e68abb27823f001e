"""A number or a month the context does not give is a fact it does not state: the statement
is not supported, however much else of it the context says (rule "novel_value")."""

from __future__ import annotations

import pytest

from ragjudge.offline.model import OfflineModel

CONTEXT = (
    "The Harbour Bridge took four years to build and opened to traffic after a long delay. "
    "It is one of the longest arch bridges in the region, and its toll was removed later."
)


def _judge(statement: str) -> dict[str, object]:
    (judged,) = OfflineModel().judge_statements(context=CONTEXT, statements=[statement])
    return judged


@pytest.mark.parametrize(
    "statement",
    [
        "The Harbour Bridge took 40 years to build and opened to traffic after a long delay.",
        "The Harbour Bridge took four years to build and opened to traffic in March.",
        "Die Harbour Bridge wurde im Oktober für den Verkehr geöffnet.",
        "The Harbour Bridge took four years to build and cost 12 million.",
        "The Harbour Bridge took fourteen years to build and opened to traffic after a delay.",
        "The Harbour Bridge took four years to build and ninety days to open to traffic.",
        # a place the context names nowhere
        "The Harbour Bridge opened to traffic in Wellington after a long delay.",
        "The Harbour Bridge took four years to build at the Port of Ravensby.",
    ],
)
def test_a_value_the_context_lacks_is_not_supported(statement: str) -> None:
    judged = _judge(statement)
    assert judged["verdict"] != "yes"
    assert "novel_value" in judged["rules"]  # type: ignore[operator]
    assert "a number, date or place the context does not give" in str(judged["reason"])


@pytest.mark.parametrize(
    "statement",
    [
        "The Harbour Bridge took 4 years to build.",  # the same number, another form
        "It is one of the longest arch bridges in the region.",  # "one" as a pronoun
        "The Harbour Bridge may have opened to traffic after a long delay.",  # "may", a modal
        # a small count an answer makes itself of what the context lists
        "Two changes were made: its toll was removed and it opened to traffic.",
        # a name the context gives, and a capital that is no name after "in"
        "The Harbour Bridge is one of the longest arch bridges in the region.",
        "In Harbour Bridge's case the toll was removed later.",
    ],
)
def test_a_value_the_context_gives_is_no_novel_value(statement: str) -> None:
    assert "novel_value" not in _judge(statement)["rules"]  # type: ignore[operator]


def test_a_day_of_another_month_is_not_supported() -> None:
    (judged,) = OfflineModel().judge_statements(
        context="Maria Lenz was born on 16 February 1990 in Graz. She moved to Vienna in August.",
        statements=["Maria Lenz was born on 16 August 1990 in Graz."],
    )
    assert judged["verdict"] != "yes"
