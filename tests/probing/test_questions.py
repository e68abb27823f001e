"""Kinds read with the question: abstention (must pass where the context lacks the answer, must
fail where it has it) and short answers right or wrong (English, German, French, Spanish)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from ragjudge.data import GoldRecord, load_gold
from ragjudge.probing import Skip, Variant, generate_probes
from ragjudge.probing._generate import RowPool
from ragjudge.probing._registry import Make
from ragjudge.probing._text import content_words, words
from ragjudge.probing.generators.questions import (
    ABSTENTIONS,
    abstention,
    false_abstention,
    is_question,
    is_yes_no_question,
    question_language,
    short_answer_right,
    short_answer_wrong,
    yes_no,
)

BRIDGE = (
    "The Golden Gate Bridge was designed by Joseph Strauss and opened in 1937. "
    "Construction began in 1933 and cost 35 million dollars."
)
UNRELATED = GoldRecord(
    id="other",
    contexts=["Photosynthesis turns sunlight, water and carbon dioxide into sugar in leaves."],
    answer="Plants make sugar.",
    meta={"group_id": "g-other"},
)


def _row(
    question: str,
    answer: str,
    *,
    context: str = BRIDGE,
    faithful: int | None = 1,
    task: str = "qa",
) -> GoldRecord:
    return GoldRecord(
        id="r1",
        question=question,
        contexts=[context],
        answer=answer,
        faithful=faithful,
        task=task,
        meta={"group_id": "g1"},
    )


def _make(make: Make, row: GoldRecord, seed: int = 0) -> Variant | Skip:
    return make(row, rng=random.Random(seed), pool=RowPool([row, UNRELATED]))


def _variant(make: Make, row: GoldRecord, seed: int = 0) -> Variant:
    out = _make(make, row, seed)
    assert isinstance(out, Variant), out
    return out


# --- what a question is


@pytest.mark.parametrize(
    ("text", "asks", "yes_or_no"),
    [
        ("When did the bridge open?", True, False),
        ("Did the bridge open in 1937?", True, True),
        ("Which opened first, the bridge or the tunnel?", True, False),
        ("Is the bridge or the tunnel older?", True, False),
        ("why is the sky blue", True, False),
        ("i like michael caine too", False, False),
        ("Wurde die Brücke 1937 eröffnet?", True, True),
        ("Wann wurde die Brücke eröffnet?", True, False),
        ("Est-ce que le pont a ouvert en 1937 ?", True, True),
        ("Quand le pont a-t-il ouvert ?", True, False),
        ("¿Se abrió el puente en 1937?", True, True),
        ("¿Cuándo se abrió el puente?", True, False),
    ],
)
def test_questions_and_yes_no_questions(text: str, asks: bool, yes_or_no: bool) -> None:
    assert is_question(text) is asks
    if asks:
        assert is_yes_no_question(text) is yes_or_no


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        ("no", ("en", "no")),
        ("Yes, both are magazines.", ("en", "yes")),
        ("Ja, beide sind Physiker.", ("de", "yes")),
        ("Nein.", ("de", "no")),
        ("Oui, les deux.", ("fr", "yes")),
        ("Non", ("fr", "no")),
        ("Sí, ambos.", ("es", "yes")),
        ("Nothing was said.", None),
        ("No one came.", None),
    ],
)
def test_yes_no_answers(answer: str, said: tuple[str, str] | None) -> None:
    assert yes_no(answer) == said


@pytest.mark.parametrize(
    ("question", "lang"),
    [
        ("When did Marilyn Monroe die?", "en"),  # "die" is no German here
        ("Is La Scala in Milan?", "en"),
        ("Was ist die Hauptstadt von Frankreich?", "de"),
        ("Wann wurde die Brücke eröffnet?", "de"),
        ("Quand le pont a-t-il ouvert ?", "fr"),
        ("Est-ce que le pont est ouvert ?", "fr"),
        ("¿Cuándo se abrió el puente?", "es"),
    ],
)
def test_the_language_of_a_question(question: str, lang: str) -> None:
    assert question_language(question) == lang


# --- abstention


@pytest.mark.parametrize(
    ("question", "lang"),
    [
        ("When did the bridge open to traffic?", "en"),
        ("Wann wurde die Brücke für den Verkehr eröffnet?", "de"),
        ("Quand le pont a-t-il ouvert à la circulation ?", "fr"),
        ("¿Cuándo se abrió el puente al tráfico?", "es"),
    ],
)
def test_abstention_asks_the_question_of_an_unrelated_context(question: str, lang: str) -> None:
    out = _variant(abstention, _row(question, "In 1937."))
    assert out.contexts == tuple(UNRELATED.contexts)
    assert out.answer in ABSTENTIONS[lang] and out.language == lang


def test_abstention_needs_a_real_question_and_an_unrelated_context() -> None:
    assert _make(abstention, _row("", "x")) == Skip("no question")
    assert _make(abstention, _row("i like the bridge too", "x")) == Skip(
        "the question is not a question"
    )
    row = _row("When did the bridge open?", "In 1937.")
    alone = abstention(row, rng=random.Random(0), pool=RowPool([row]))
    assert alone == Skip("no unrelated context found")


# --- false_abstention


@pytest.mark.parametrize(
    ("question", "context", "lang"),
    [
        ("Who designed the Golden Gate Bridge?", BRIDGE, "en"),
        (
            "Wer hat die Golden Gate Bridge entworfen?",
            "Die Golden Gate Bridge wurde von Joseph Strauss entworfen.",
            "de",
        ),
        (
            "Qui a conçu le Golden Gate Bridge ?",
            "Le Golden Gate Bridge a été conçu par Joseph Strauss.",
            "fr",
        ),
        (
            "¿Quién diseñó el Golden Gate Bridge?",
            "El Golden Gate Bridge fue diseñado por Joseph Strauss.",
            "es",
        ),
    ],
)
def test_false_abstention_where_the_context_says(question: str, context: str, lang: str) -> None:
    out = _variant(false_abstention, _row(question, "Joseph Strauss", context=context))
    assert out.contexts is None  # its own context: the one that says
    assert out.answer in ABSTENTIONS[lang] and out.before == "Joseph Strauss"


def test_false_abstention_trusts_only_faithful_answers_the_context_holds() -> None:
    question = "Who designed the Golden Gate Bridge?"
    assert _make(false_abstention, _row(question, "Joseph Strauss", faithful=0)) == Skip(
        "row not labeled faithful"
    )
    assert _make(false_abstention, _row(question, "Charles Ellis")) == Skip(
        "no context sentence holds the answer and the question's words"
    )
    assert isinstance(
        _make(false_abstention, _row(question, "Joseph Strauss", task="dialogue")), Skip
    )


def test_false_abstention_needs_one_place_that_answers_what_is_asked() -> None:
    # the answer's sentence never speaks of what is asked (no casting, no Domino)
    film = (
        "In 2016, she also appeared in the series Easy. Deadpool 2 is an American superhero "
        "film distributed by 20th Century Fox."
    )
    question = "Which 20th Century Fox film cast Zazie Beetz as Domino?"
    assert _make(false_abstention, _row(question, "Deadpool 2", context=film)) == Skip(
        "no context sentence holds the answer and the question's words"
    )
    # the answer in one sentence, what is asked in another far off behind a bare "he"
    mentors = (
        "The show features three mentors, Aadesh Shrivastava, Shankar Mahadevan and Pritam. "
        "The show ran for twenty weeks on Zee TV. "
        "Just a day after he turned 51, he died of cancer in Kokilaben Hospital."
    )
    question = "Which mentor of the show died of cancer in Kokilaben Hospital?"
    assert isinstance(
        _make(false_abstention, _row(question, "Aadesh Shrivastava", context=mentors)), Skip
    )
    # two adjacent sentences that together answer it
    answered = (
        "Holding the Fort is an ITV comedy starring Matthew Kelly. Trained as an actor, he "
        "became known as a presenter of the show Game for a Laugh."
    )
    question = "Which actor in Holding the Fort presented Game for a Laugh?"
    assert isinstance(
        _make(false_abstention, _row(question, "Matthew Kelly", context=answered)), Variant
    )
    # a yes or a no needs the question's words in one place too
    assert isinstance(
        _make(false_abstention, _row("Did Joseph Strauss design the Golden Gate Bridge?", "Yes")),
        Variant,
    )
    assert isinstance(
        _make(false_abstention, _row("Did Frank Lloyd Wright design Fallingwater?", "Yes")), Skip
    )


# --- short answers


@pytest.mark.parametrize(
    ("question", "answer", "short"),
    [
        ("Did Joseph Strauss design the bridge?", "Yes, he designed it.", "Yes"),
        ("Are both X and Y in the family Rosaceae?", "No, X is in the family Apiaceae.", "No"),
        ("Hat Joseph Strauss die Brücke entworfen?", "Ja, er hat sie entworfen.", "Ja"),
        ("Est-ce que la construction a commencé en 1937 ?", "Non, elle a commencé en 1933.", "Non"),
        ("¿Se abrió el puente en 1937?", "Sí, en 1937.", "Sí"),
    ],
)
def test_short_answer_right_cuts_a_yes_or_no(question: str, answer: str, short: str) -> None:
    out = _variant(short_answer_right, _row(question, answer))
    assert out.answer == short and out.before == answer


def test_a_bare_no_stays_a_right_answer() -> None:
    row = _row("Do both the bridge and the tunnel belong to the city?", "no")
    assert {_variant(short_answer_right, row, seed).answer for seed in range(8)} <= {"no", "No"}


@pytest.mark.parametrize(
    ("question", "answer"),
    [("Who designed the Golden Gate Bridge?", "Joseph Strauss"), ("When did it open?", "1937")],
)
def test_short_answer_right_keeps_a_name_or_number_the_context_holds(
    question: str, answer: str
) -> None:
    assert _variant(short_answer_right, _row(question, answer)).answer == answer


@pytest.mark.parametrize(
    ("row", "reason"),
    [
        (_row("Who designed it?", "Charles Ellis"), "the short answer is not in the context"),
        (_row("Who designed it?", "1937"), "the short answer does not fit its question"),
        (_row("Who designed it?", "Joseph Strauss", faithful=0), "row not labeled faithful"),
        (
            _row("Who designed it?", "He was an engineer from Ohio, Strauss."),
            "the answer is not short",
        ),
        (_row("When did it open?", "Yes."), "yes or no to a question that is not yes/no"),
    ],
)
def test_short_answer_right_skips_what_it_cannot_trust(row: GoldRecord, reason: str) -> None:
    assert _make(short_answer_right, row) == Skip(reason)


@pytest.mark.parametrize(
    ("question", "answer", "wrong"),
    [
        ("Did Joseph Strauss design the bridge?", "Yes, he designed it.", "No"),
        ("Do both belong to the family Rosaceae?", "no", "yes"),
        ("Hat Joseph Strauss die Brücke entworfen?", "Ja", "Nein"),
        ("Est-ce que la construction a commencé en 1937 ?", "Non", "Oui"),
        ("¿Se abrió el puente en 1937?", "Sí, en 1937.", "No"),
    ],
)
def test_short_answer_wrong_flips_yes_and_no(question: str, answer: str, wrong: str) -> None:
    assert _variant(short_answer_wrong, _row(question, answer)).answer == wrong


def test_short_answer_wrong_takes_the_other_option() -> None:
    context = "Anna Berg was born in 1901. Carl Holm was born in 1899."
    row = _row("Who was born first, Anna Berg or Carl Holm?", "Carl Holm", context=context)
    out = _variant(short_answer_wrong, row)
    assert (out.before, out.after, out.answer) == ("Carl Holm", "Anna Berg", "Anna Berg")
    row = _row(
        "Which magazine started first, Arthur's Magazine or First for Women?",
        "Arthur's Magazine",
        context="Arthur's Magazine started in 1844. First for Women started in 1989.",
    )
    assert _variant(short_answer_wrong, row).answer == "First for Women"


def test_short_answer_wrong_takes_another_number_of_the_same_shape() -> None:
    row = _row("In what year did the bridge open?", "1937")
    assert _variant(short_answer_wrong, row).answer == "1933"  # not 35: another shape


def test_short_answer_wrong_takes_a_name_the_question_and_context_name() -> None:
    context = "Blue Harbor is a 2004 film directed by Mia Lund. It was shot in Bergen."
    row = _row("Who directed the film Blue Harbor?", "Mia Lund", context=context)
    assert _variant(short_answer_wrong, row).answer == "Blue Harbor"


@pytest.mark.parametrize(
    ("row", "reason"),
    [
        (
            _row(
                "What nationality was the director of Blue Harbor?",
                "Norwegian",
                context="Blue Harbor was directed by the Norwegian Mia Lund.",
            ),
            "a nationality or language: no other of its kind in the question",
        ),
        (
            _row("Who designed it?", "Joseph Strauss"),
            "no other name of the same shape in the question and context",
        ),
        (
            _row(
                "How many people died?",
                "11",
                context="Eleven workers, 11 in all, died during construction.",
            ),
            "no other number of the same shape in the context",
        ),
    ],
)
def test_short_answer_wrong_skips_without_a_certain_wrong_value(
    row: GoldRecord, reason: str
) -> None:
    assert _make(short_answer_wrong, row) == Skip(reason)


def test_question_kinds_are_seeded_and_deterministic() -> None:
    rows = [
        _row("Who designed the Golden Gate Bridge?", "Joseph Strauss"),
        UNRELATED,
        GoldRecord(
            id="r3",
            question="Did the bridge open in 1937?",
            contexts=[BRIDGE],
            answer="Yes",
            faithful=1,
            meta={"group_id": "g3"},
        ),
    ]
    kinds = ["abstention", "false_abstention", "short_answer_right", "short_answer_wrong"]
    first = generate_probes(rows, kinds=kinds, seed=2)
    again = generate_probes(rows, kinds=kinds, seed=2)
    assert [p.model_dump() for p in first.probes] == [p.model_dump() for p in again.probes]
    expect = {p.kind: p.expect for p in first.probes}
    assert expect == {
        "abstention": "pass",
        "false_abstention": "fail",
        "short_answer_right": "pass",
        "short_answer_wrong": "fail",
    }


def test_on_real_rows_question_kinds_keep_their_promises(gold_dir: Path) -> None:
    rows = {r.id: r for r in load_gold(gold_dir / "sample.jsonl")}
    kinds = ["abstention", "false_abstention", "short_answer_right", "short_answer_wrong"]
    made = generate_probes(list(rows.values()), kinds=kinds, seed=0)
    assert all(count.made for count in made.counts)
    for probe in made.probes:
        row = rows[probe.row_id]
        assert is_question(probe.question) and probe.question == row.question
        if probe.kind == "abstention":
            assert probe.answer in ABSTENTIONS[probe.language]
            asked = content_words(f"{row.question} {row.answer}")
            assert not asked & content_words(" ".join(probe.contexts))
        elif probe.kind == "false_abstention":
            assert probe.answer in ABSTENTIONS[probe.language]
            assert probe.contexts == row.contexts and row.faithful == 1
        else:
            assert row.faithful == 1 and len(words(probe.answer)) <= 4
            assert probe.contexts == row.contexts
            if probe.kind == "short_answer_wrong":
                assert probe.answer.lower() != row.answer.strip(" .").lower()
