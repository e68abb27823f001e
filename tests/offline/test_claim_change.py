"""The change claim (`ragjudge.offline.claims.change`): a verb of change that the statement's own
figures deny ("fell from 70 to 160") contradicts itself, whatever the passage says. Sentences
written by hand, none from the gold."""

from __future__ import annotations

import pytest

from ragjudge.offline.claims.change import conflict
from ragjudge.offline.model import OfflineModel

DENIED = [
    "Enrolment in Latin classes fell from 70 to 160 between 1894 and 1910.",
    "Chip manufacturing has risen from nearly 40% in 1990 to only 12% today.",
    "Revenue declined from $3.5 billion in 2019 to $4.1 billion in 2020.",
    "The price of a ticket rose from 5 to 3 dollars.",
    "Die Zahl der Schüler stieg von 70 auf 50.",
]

KEPT = [
    "Enrolment in Latin classes rose from 70 to 160 between 1894 and 1910.",
    "Unemployment fell from 8% in January to 6% in June.",
    # a span of time, not figures
    "Output grew from 2010 to 2015 by 5%.",
    "It dropped 5% from 2019 to 2020.",
    # a rank falls as its figure rises
    "The team dropped from 3rd to 10th place.",
    "The song fell from No. 2 to No. 9 on the chart.",
    "The club slipped from 4 to 12 in the rankings.",
    # no second figure
    "Sales fell from a record high.",
]


@pytest.mark.parametrize("statement", DENIED)
def test_a_change_its_figures_deny_is_caught(statement: str) -> None:
    assert "the figures" in conflict(statement)


@pytest.mark.parametrize("statement", KEPT)
def test_a_change_its_figures_agree_with_is_kept(statement: str) -> None:
    assert conflict(statement) == ""


def test_it_is_contradicted_however_much_of_the_passage_it_says() -> None:
    # the passage names no direction: only the statement's own figures deny its verb
    context = "Between 1894 and 1910, enrolment in Latin classes went from 70 to 160 pupils."
    statement = "Between 1894 and 1910, enrolment in Latin classes fell from 70 to 160 pupils."
    (judged,) = OfflineModel().judge_statements(context=context, statements=[statement])
    assert judged["verdict"] == "no", judged
    assert "'fell' from 70 to 160" in judged["reason"]


def test_an_answer_that_denies_its_figures_keeps_the_verb_with_them() -> None:
    model = OfflineModel()
    answer = "Between 1894 and 1910, enrolment in Latin classes fell from 70 to 160."
    context = "Between 1894 and 1910, enrolment in Latin classes rose from 70 to 160."
    statements = model.extract_statements(question="", answer=answer)
    assert statements == [answer]  # not "was 70" and "is 160": those lose the verb
    (judged,) = model.judge_statements(context=context, statements=statements)
    assert judged["verdict"] == "no"
    # figures that agree with their verb are still read one by one
    assert len(model.extract_statements(question="", answer=context)) == 2
