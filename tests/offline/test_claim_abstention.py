"""The abstention claim (`ragjudge.offline.claims.abstention`): "the context does not say" is
read as a claim about the context, in four languages, and judged by whether the context
speaks of what was asked. Cases written before the module."""

from __future__ import annotations

import pytest

from ragjudge.offline.claims.abstention import is_abstention, with_question
from ragjudge.offline.model import OfflineModel

CONTEXT = (
    "The Lindqvist Museum opened in Uppsala in 1998. Its collection holds about 3,000 "
    "paintings, most of them by Nordic artists of the nineteenth century."
)


@pytest.mark.parametrize(
    "text",
    [
        "The context does not say.",
        "The passages provided do not mention who designed it.",
        "I cannot answer this based on the given documents.",
        "There is no information about the ticket price.",
        "I don't know.",
        "Der Text enthält dazu keine Angaben.",
        "Die Quellen nennen den Architekten nicht.",
        "Le contexte ne précise pas la date.",
        "Aucune information sur le prix n'est donnée.",
        "El texto no menciona al arquitecto.",
        "No hay información sobre el precio.",
    ],
)
def test_abstentions_are_recognized(text: str) -> None:
    assert is_abstention(text)


@pytest.mark.parametrize(
    "text",
    [
        "The museum does not open on Mondays.",
        "The report did not mention any injuries in the crash.",  # a claim about a report
        "Das Museum ist montags nicht geöffnet.",
        "Le musée ne ferme pas en été.",
        "El museo no abre los lunes.",
    ],
)
def test_claims_about_the_world_are_not_abstentions(text: str) -> None:
    assert not is_abstention(text)


def test_an_abstention_naming_nothing_gets_its_question() -> None:
    q = "When did the Lindqvist Museum open?"
    assert with_question("The context does not say.", q).endswith(q)
    assert with_question("The context does not give the architect.", q) == (
        "The context does not give the architect."
    )
    assert with_question("It opened in 1998.", q) == "It opened in 1998."


def _verdict(question: str, answer: str, context: str = CONTEXT) -> str:
    model = OfflineModel()
    statements = model.extract_statements(question=question, answer=answer)
    assert len(statements) == 1
    return str(model.judge_statements(context=context, statements=statements)[0]["verdict"])


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Who won the 1974 chess olympiad?", "The context does not say."),
        ("Wer gewann die Schacholympiade 1974?", "Der Kontext sagt dazu nichts."),
        ("¿Quién ganó la olimpiada de ajedrez de 1974?", "El contexto no lo dice."),
        ("What is the boiling point of ethanol?", "I cannot answer this from the passages."),
    ],
)
def test_an_abstention_is_supported_where_the_context_is_about_something_else(
    question: str, answer: str
) -> None:
    assert _verdict(question, answer) == "yes"


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("When did the Lindqvist Museum open in Uppsala?", "The context does not say."),
        (
            "In welchem Jahr eröffnete das Lindqvist Museum in Uppsala?",
            "Der Text sagt dazu nichts.",
        ),
    ],
)
def test_an_abstention_is_contradicted_where_a_sentence_speaks_of_the_question(
    question: str, answer: str
) -> None:
    context = CONTEXT + "\n\nDas Lindqvist Museum in Uppsala eröffnete im Jahr 1998."
    assert _verdict(question, answer, context) == "no"


def test_an_abstention_is_unsure_where_words_cannot_tell() -> None:
    # the museum and its paintings are there; whether any sculpture is, words cannot say
    verdict = _verdict("How many sculptures does the museum hold?", "The context does not say.")
    assert verdict == "unsure"


def test_the_reason_says_what_was_looked_up() -> None:
    model = OfflineModel()
    (statement,) = model.extract_statements(
        question="Who won the 1974 chess olympiad?", answer="The context does not say."
    )
    (judged,) = model.judge_statements(context=CONTEXT, statements=[statement])
    assert "does not speak of what was asked" in judged["reason"]
    assert judged["rules"] == []
