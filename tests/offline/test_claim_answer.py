"""The short answer claim (`ragjudge.offline.claims.answer`): a yes or no, a name or a number is
kept with its question and judged as the answer to it, right or wrong by where the context puts
it. Hand-written cases, none from the gold."""

from __future__ import annotations

import pytest

from ragjudge.offline.claims.answer import fuse
from ragjudge.offline.model import OfflineModel

CONTEXT = (
    "Marta Ilves (4 March 1921 – 9 October 1987) was an Estonian composer and organist. "
    "She won the Kreutzwald Prize in 1964 for her choral cycle Tuulte laul. "
    "Oskar Penner (born 12 June 1933) is a Finnish composer and conductor. "
    "He taught at the Sibelius Academy from 1970 to 1995. "
    "The Ilves Quartet, founded in 1978, plays her chamber music. "
    "The quartet has recorded 14 albums and given about 600 concerts."
)


def _verdict(question: str, answer: str, *, context: str = CONTEXT) -> str:
    model = OfflineModel()
    statements = model.extract_statements(question=question, answer=answer)
    assert len(statements) == 1, statements
    return str(model.judge_statements(context=context, statements=statements)[0]["verdict"])


def test_a_short_answer_is_kept_with_its_question() -> None:
    assert fuse("Who founded it?", "Oskar Penner.") == "Who founded it? → Oskar Penner"
    assert fuse("Who founded it?", "It was founded by Oskar Penner in 1978.") is None
    assert fuse("i liked that film", "me too") is None  # a remark, not a question
    assert fuse("When was it?", "The context does not say.") is None  # an abstention


@pytest.mark.parametrize(
    ("question", "right", "wrong"),
    [
        # a number: the value where the context says what was asked
        ("In what year did Marta Ilves win the Kreutzwald Prize?", "1964", "1921"),
        ("What year did the composer of Tuulte laul die?", "1987", "1964"),
        ("When was the Ilves Quartet founded?", "1978", "1970"),
        ("How many albums has the Ilves Quartet recorded?", "14 albums", "600 albums"),
        # one of two options
        ("Who was born first, Marta Ilves or Oskar Penner?", "Marta Ilves", "Oskar Penner"),
        ("Who is younger, Marta Ilves or Oskar Penner?", "Oskar Penner", "Marta Ilves"),
        ("Which composer taught at the Sibelius Academy, Marta Ilves or Oskar Penner?",
         "Oskar Penner", "Marta Ilves"),
        # yes or no
        ("Are Marta Ilves and Oskar Penner both composers?", "Yes", "No"),
        ("Were Marta Ilves and Oskar Penner born in the same year?", "No", "Yes"),
        ("Did Marta Ilves win the Kreutzwald Prize?", "Yes", "No"),
    ],
)  # fmt: skip
def test_right_passes_and_wrong_fails(question: str, right: str, wrong: str) -> None:
    assert _verdict(question, right) == "yes"
    assert _verdict(question, wrong) != "yes"


@pytest.mark.parametrize("dash", [" – ", ""])  # a text may lose a lifespan's dash
def test_a_year_of_birth_or_death_answers_only_a_question_of_one(dash: str) -> None:
    context = (
        "Paper Lanterns is a 1936 musical comedy film directed by Erik Sand. "
        f"Vera Holm (3 May 1910{dash}8 June 1994) was a Swedish actress and singer, "
        "known for her roles in musical comedies."
    )
    question = "The film starring a Swedish actress and singer came out in what year?"
    assert _verdict(question, "1936", context=context) == "yes"
    assert _verdict(question, "1994", context=context) == "unsure"
    assert _verdict(question, "1910", context=context) == "unsure"
    question = "The star of Paper Lanterns died in what year?"
    assert _verdict(question, "1994", context=context) == "yes"
    assert _verdict(question, "1936", context=context) == "unsure"


def test_an_answer_that_repeats_the_question_is_contradicted() -> None:
    assert _verdict("Which prize did Marta Ilves win in 1964?", "Marta Ilves") == "no"
    assert _verdict("Which prize did Marta Ilves win in 1964?", "Kreutzwald Prize") == "yes"


def test_a_name_a_stating_clause_of_the_question_gives_is_unsure() -> None:
    # a long question states facts in clauses that do not ask: a name given there may be the
    # answer ("..., New South Wales, Australia, ... active in which country?")
    question = "Marta Ilves, an Estonian composer, won which prize in 1964?"
    assert _verdict(question, "Marta Ilves") == "unsure"
    assert _verdict(question, "Kreutzwald Prize") == "yes"


def test_a_name_the_question_gives_is_read_where_the_context_says_what_was_asked() -> None:
    # the context gives the name where the question word stands in what the asking clause says
    context = (
        "Lina Sorel (born 1950) is a French painter. She is best known as the founder of the "
        "studio Atelier Nord in Lille. The Atelier Nord later moved to Paris."
    )
    question = (
        "Atelier Nord, which later moved to Paris, was founded by Lina Sorel, "
        "who is best known as the founder of which studio?"
    )
    assert _verdict(question, "Atelier Nord", context=context) == "yes"
    assert _verdict(question, "Paris", context=context) != "yes"
    assert _verdict(question, "Lina Sorel", context=context) != "yes"


def test_a_name_the_question_gives_in_a_longer_name_or_a_list_is_read_as_given() -> None:
    # a word of a longer name a stating clause gives ("the Kreutzwald Prize jury") may be the
    # answer: unsure; a name written "A/B" in the asking clause answers nothing
    question = "The Kreutzwald Prize jury, founded in Tallinn, honoured which composer in 1964?"
    assert _verdict(question, "Kreutzwald") == "unsure"
    question = "Who played the Ilves/Penner duets that the Ilves Quartet recorded?"
    assert _verdict(question, "Penner") == "no"


def test_an_answer_the_context_does_not_give_is_not_supported() -> None:
    assert _verdict("Which prize did Marta Ilves win in 1964?", "Nobel Prize") == "unsure"


def test_words_that_cannot_decide_are_unsure() -> None:
    assert _verdict("Is Oskar Penner's music popular in Japan?", "Yes") == "unsure"
    assert _verdict("Is Oskar Penner's music popular in Japan?", "No") == "unsure"


def test_a_measure_words_cannot_take_is_unsure() -> None:
    # "better" is a judgment the context does not measure: either name may be the answer
    question = "Who is the better composer, Marta Ilves or Oskar Penner?"
    assert _verdict(question, "Marta Ilves") == _verdict(question, "Oskar Penner") == "unsure"


@pytest.mark.parametrize(
    ("question", "right", "wrong"),
    [
        ("Who was born first, Marta Ilves or Oskar Penner?",
         "Marta Ilves was born first.", "Oskar Penner was born first."),
        ("Which composer taught at the Sibelius Academy, Marta Ilves or Oskar Penner?",
         "Oskar Penner taught at the Sibelius Academy.",
         "Marta Ilves taught at the Sibelius Academy."),
    ],
)  # fmt: skip
def test_a_choice_made_in_a_sentence_reads_as_the_short_answer(
    question: str, right: str, wrong: str
) -> None:
    short = [answer.split(" ", 2)[0] + " " + answer.split(" ", 2)[1] for answer in (right, wrong)]
    assert _verdict(question, right) == _verdict(question, short[0]) == "yes"
    assert _verdict(question, wrong) == _verdict(question, short[1]) != "yes"


@pytest.mark.parametrize(
    "answer",
    [
        "Oskar Penner was not born first.",  # a negation: it may choose the other
        "Oskar Penner conducted the Ilves Quartet.",  # says more than the question asks
        "Marta Ilves was born before Oskar Penner.",  # names both
    ],
)
def test_a_sentence_that_makes_no_plain_choice_keeps_its_own_words(answer: str) -> None:
    question = "Who was born first, Marta Ilves or Oskar Penner?"
    statements = OfflineModel().extract_statements(question=question, answer=answer)
    assert [s for s in statements if "→" in s] == []


def test_a_question_that_compares_asks_for_no_choice() -> None:
    question = "What is the difference between Marta Ilves and Oskar Penner?"
    statements = OfflineModel().extract_statements(
        question=question, answer="Oskar Penner taught at the Sibelius Academy."
    )
    assert statements == ["Oskar Penner taught at the Sibelius Academy."]
