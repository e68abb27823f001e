"""The quantity kinds on hand-written sentences: number_value, unit (must fail),
number_format, arithmetic (must pass), in English, German, French and Spanish."""

from __future__ import annotations

import random
import re
from decimal import Decimal

import pytest

from ragjudge.data import GoldRecord
from ragjudge.probing import GENERATORS, Skip, Variant, generate_probes
from ragjudge.probing._generate import RowPool
from ragjudge.probing.generators._numbers import numbers


def _row(*contexts: str) -> GoldRecord:
    return GoldRecord(id="r", question="q", answer="a", contexts=list(contexts))


def _make(kind: str, *contexts: str, seed: int = 0) -> Variant | Skip:
    row = _row(*contexts)
    return GENERATORS[kind](row, rng=random.Random(seed), pool=RowPool([row]))


def _variant(kind: str, *contexts: str, seed: int = 0) -> Variant:
    out = _make(kind, *contexts, seed=seed)
    assert isinstance(out, Variant), out
    return out


def _values(text: str, lang: str) -> list[Decimal]:
    return [n.value for n in numbers(text, lang)]


def test_the_kinds_carry_their_verdicts() -> None:
    expects = {k: GENERATORS[k].expect for k in ("number_value", "unit")}
    expects |= {k: GENERATORS[k].expect for k in ("number_format", "arithmetic")}
    assert expects == {
        "number_value": "fail",
        "unit": "fail",
        "number_format": "pass",
        "arithmetic": "pass",
    }


# number_value


@pytest.mark.parametrize("seed", range(6))
def test_a_number_changes_value_and_keeps_its_unit(seed: int) -> None:
    sentence = "The warranty covers manufacturing defects for 24 months after delivery."
    out = _variant("number_value", sentence, seed=seed)
    new = re.search(r"for (\S+) months after delivery\.$", out.answer)
    assert new and new.group(1) != "24", out.answer
    assert new.group(1) not in sentence and out.before == "for 24 months"
    assert out.answer.replace(new.group(1), "24") == sentence


@pytest.mark.parametrize("seed", range(6))
def test_a_lower_bound_only_rises_and_an_upper_bound_only_falls(seed: int) -> None:
    up = _variant("number_value", "More than 30 people attended the ceremony.", seed=seed)
    assert _values(up.answer, "en")[0] > 30
    down = _variant("number_value", "Fewer than 30 people attended the ceremony.", seed=seed)
    assert _values(down.answer, "en")[0] < 30


@pytest.mark.parametrize("seed", range(4))
def test_a_duration_and_an_up_to_only_grow(seed: int) -> None:
    out = _variant("number_value", "She ran the shop for 20 years in the old town.", seed=seed)
    assert _values(out.answer, "en")[0] > 20
    out = _variant("number_value", "She won the prize for four consecutive years.", seed=seed)
    assert _values(out.answer, "en")[0] > 4
    out = _variant("number_value", "The plan covers up to 20 users for one fee.", seed=seed)
    assert _values(out.answer, "en")[0] > 20


@pytest.mark.parametrize(
    "sentence",
    [
        "It has two or three rooms for guests in the summer.",  # a range of words
        "A heart rate of less than 60 is called a bradycardia.",  # a bound in a rule
        "One or two rooms were booked for guests in the summer.",  # a range from one
        "The target is 3% to 5% growth in the coming years.",  # a range of percents
        "It saw more change than in the nine centuries before it.",  # a comparison
        "The bridge opened to traffic in 2019 after a long delay.",  # a year
        "The Boeing 747 made its first flight at the air show.",  # a model number
        "It takes 10 to 20 minutes to cook the rice properly.",  # a range
        "The company did not hire 30 workers during the last month.",  # a negation
        "You won’t see a longboard that is over 51 inches.",  # a negation, curly
        "Interest rose over the past 10 years in every region.",  # a window
        "The cup brings together the best 12 national teams.",  # a window: best 9 of them
        "It is on the list of the 100 most interesting firms.",  # a window after the number
        "Chapter 12 tells how the family left the village.",  # a label
    ],
)
def test_numbers_that_are_no_plain_quantity_are_left_alone(sentence: str) -> None:
    assert isinstance(_make("number_value", sentence), Skip)


@pytest.mark.parametrize("seed", range(8))
def test_an_article_before_a_number_still_fits(seed: int) -> None:
    out = _variant("number_value", "It was like a three set cycle for the team.", seed=seed)
    assert re.match(r"a [^aeiou]", out.after), out.after
    # 9.45 may only become 18.90 here (the others are too near), and "a 18.90" does not read
    assert isinstance(_make("number_value", "It is a 9.45 mi long road.", seed=seed), Skip)
    out = _variant("number_value", "They waited for an 8 hour shift to end.", seed=seed)
    assert re.match(r"an (?:11|18)\b", out.after), out.after


def test_a_new_value_stated_in_any_passage_is_not_used() -> None:
    sentence = "The warranty covers manufacturing defects for 24 months after delivery."
    others = "Other plans: 12 months, 36 months, 48 months, 72 months, 20 months and 28 months"
    assert _make("number_value", sentence, others) == Skip(
        "no number whose new value is absent from the passages"
    )


def test_number_words_change_within_their_language() -> None:
    de = _variant("number_value", "Das Hotel hat zwölf Zimmer für die Gäste der Messe.")
    assert de.language == "de" and re.search(r"hat (\w+) Zimmer", de.answer)
    word = re.search(r"hat (\w+) Zimmer", de.answer).group(1)  # type: ignore[union-attr]
    assert word != "zwölf" and _values(word, "de")
    es = _variant("number_value", "El hotel tiene doce habitaciones para los huéspedes.")
    word = re.search(r"tiene (\w+) habitaciones", es.answer).group(1)  # type: ignore[union-attr]
    assert es.language == "es" and word != "doce" and _values(word, "es")


def test_separators_are_read_and_written_in_the_sentence_language() -> None:
    fr = _variant("number_value", "Le musée a reçu 1 500 visiteurs pendant la semaine.")
    new = re.search(r"reçu (.+) visiteurs", fr.answer).group(1)  # type: ignore[union-attr]
    assert fr.language == "fr" and _values(new, "fr")[0] != 1500
    de = _variant("number_value", "Der Umbau kostete 2,5 Millionen Euro und dauerte lange.")
    new = re.search(r"kostete (\S+) Millionen", de.answer).group(1)  # type: ignore[union-attr]
    assert re.fullmatch(r"\d+,5", new) and new != "2,5"


def test_generation_is_deterministic() -> None:
    rows = [
        GoldRecord(
            id=f"r{i}",
            answer="a",
            contexts=[f"The plant employs {i + 20} workers and ships 40 crates a week."],
        )
        for i in range(8)
    ]
    first = generate_probes(rows, kinds=["number_value", "unit", "number_format"], seed=5)
    again = generate_probes(rows, kinds=["number_value", "unit", "number_format"], seed=5)
    assert [p.answer for p in first.probes] == [p.answer for p in again.probes]
    assert first.probes


# unit


def test_a_duration_moves_to_a_longer_unit_only() -> None:
    out = _variant("unit", "The warranty covers manufacturing defects for 24 months.")
    assert out.answer == "The warranty covers manufacturing defects for 24 years."
    assert (out.before, out.after) == ("24 months.", "24 years.")


@pytest.mark.parametrize(
    ("sentence", "allowed"),
    [
        ("The plant is located 77 km from the city centre.", {"77 miles"}),
        ("The parcel weighed 5 kilograms when it arrived.", {"5 grams", "5 tonnes"}),
        ("Die Garantie gilt 24 Monate ab dem Kauf des Geräts.", {"24 Wochen", "24 Jahre"}),
        ("La garantie couvre les défauts pendant 24 mois.", {"24 ans"}),
        ("La garantía cubre los defectos durante 24 meses.", {"24 años"}),
    ],
)
def test_a_unit_moves_one_step_within_its_family(sentence: str, allowed: set[str]) -> None:
    for seed in range(4):
        out = _variant("unit", sentence, seed=seed)
        assert any(a in out.answer for a in allowed), out.answer


@pytest.mark.parametrize(
    "sentence",
    [
        "The firm paid 3 billion dollars for the site.",
        "The app has 249 million users in Europe.",
        "La empresa pagó 3 millones de euros por el terreno.",
        "Die Firma zahlte 3 Millionen Euro für das Grundstück.",
    ],
)
def test_a_scale_word_is_no_unit(sentence: str) -> None:
    for seed in range(4):
        out = _make("unit", sentence, seed=seed)
        assert isinstance(out, Skip) or not re.search(
            r"(?i)\b(?:thousand|billion|trillion|Milliard\w*|mil millones)\b", out.answer
        ), out.answer


@pytest.mark.parametrize(
    "sentence",
    ["The drive allows me to record 350 hours of video.", "Two hours can make a difference."],
)
def test_what_can_be_is_left_alone(sentence: str) -> None:
    assert isinstance(_make("unit", sentence), Skip)
    assert isinstance(_make("number_value", sentence), Skip)


def test_a_currency_sign_is_swapped() -> None:
    out = _variant("unit", "The ticket costs $40 at the door.")
    assert out.answer in {"The ticket costs €40 at the door.", "The ticket costs £40 at the door."}


@pytest.mark.parametrize(
    "sentence",
    [
        "You must wait at least 3 years before applying again.",  # a bound
        "The shop is open 24 hours a day in the summer.",  # a rate
        "The offer is valid within 30 days of purchase.",  # a window
        "The loan was not repaid for 10 years after the war.",  # a negation
        "Inflation reached 5% in the second half of that year.",  # percent: no unit kind
        "Players may self-start in the final two minutes of each half.",  # a window
        "Cut off at least 1 inch (2.5 centimeters) around the spot.",  # a bound, converted
    ],
)
def test_unsafe_units_are_left_alone(sentence: str) -> None:
    assert isinstance(_make("unit", sentence), Skip)


# number_format


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("The city has 12,500 residents and a small harbour.", "12500 residents"),
        ("Unemployment fell to 5% in the region last year.", "5 percent in"),
        ("The project cost $3.5 million to complete in the end.", "$3,500,000 to"),
        ("The museum has nine rooms on its ground floor.", "9 rooms"),
        ("Die Stadt hat 12.500 Einwohner und einen Hafen.", "12500 Einwohner"),
        ("Das Projekt kostete 3,5 Millionen Euro insgesamt.", "3.500.000 Euro"),
        ("La ville compte 12 500 habitants et un port.", "12500 habitants"),
        ("Le chômage est tombé à 5 % dans la région.", "5 pour cent dans"),
        ("El proyecto costó 3,5 millones de euros en total.", "3.500.000 euros"),
    ],
)
def test_a_number_is_written_another_way(sentence: str, expected: str) -> None:
    out = _variant("number_format", sentence)
    assert expected in out.answer.replace("\u00a0", " "), out.answer


def test_a_year_is_not_regrouped_and_words_before_of_stay() -> None:
    assert isinstance(_make("number_format", "The bridge opened in 2019 after a delay."), Skip)
    assert isinstance(_make("number_format", "He was the better of the two in the end."), Skip)


# arithmetic


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        (
            "Nine of the 30 pilots in the trial reported fatigue.",
            "30% of the 30 pilots in the trial reported fatigue.",
        ),
        (
            "Nine out of 10 dentists recommend the brush to patients.",
            "Nine out of 10 (90%) dentists recommend the brush to patients.",
        ),
        (
            "The unemployment rate fell from 8% to 5% last year.",
            "The unemployment rate fell by 3 percentage points, from 8% to 5% last year.",
        ),
        (
            "Sales rose from $3 billion to $5 billion last year.",
            "Sales rose by $2 billion, from $3 billion to $5 billion last year.",
        ),
        (
            "The team won 12 games and lost 8 games this season.",
            "The total of the 12 games and the 8 games is 20 games.",
        ),
        (
            "Boston Public drew 13.8 million viewers, but Ally McBeal drew 10.8 million viewers.",
            "The difference between the 13.8 million viewers and the 10.8 million viewers is "
            "3.0 million viewers.",
        ),
        (
            "Revenue grew 10.2% on a reported basis and 11.6% at constant currency.",
            "The difference between the 11.6% and the 10.2% is 1.4 percentage points.",
        ),
        (
            "Der Anteil lag bei 12,5 % im Norden, aber bei 8,5 % im Süden.",
            "Der Unterschied zwischen 12,5 % und 8,5 % beträgt 4,0 Prozentpunkte.",
        ),
        ("Neun der 30 Piloten meldeten Müdigkeit nach dem Flug.", "30 % der 30 Piloten"),
        (
            "Die Quote stieg von 5 % auf 8 % im letzten Jahr.",
            "Die Quote stieg um 3 Prozentpunkte von 5 % auf 8 % im letzten Jahr.",
        ),
        ("Douze des 30 pilotes ont signalé de la fatigue.", "40 % des 30 pilotes"),
        ("Nueve de los 30 pilotos informaron fatiga tras el vuelo.", "El 30 % de los 30 pilotos"),
    ],
)
def test_a_figure_is_computed_exactly(sentence: str, expected: str) -> None:
    out = _variant("arithmetic", sentence)
    assert expected == out.answer.replace("\u00a0", " ") or expected in out.answer.replace(
        "\u00a0", " "
    ), out.answer


@pytest.mark.parametrize(
    "sentence",
    [
        "Seven of the 30 pilots in the trial reported fatigue.",  # 23.33...%: not exact
        "Sales rose from $5 billion to $3 billion last year.",  # the verb says the other way
        "About 30 people came and about 12 people left early.",  # estimates
        "The book has 300 pages and the 12 chapters are short.",  # two nouns
        "Profit was $5 compared to a loss of $2 a year earlier.",  # a loss
        "The flight takes 10 hours 45 minutes, the bus 30 hours 10 minutes.",  # compounds
        "The rate fell 70 basis points; the margin rose 46 basis points.",  # the noun goes on
    ],
)
def test_no_figure_is_computed_where_it_would_not_be_exact(sentence: str) -> None:
    assert isinstance(_make("arithmetic", sentence), Skip)


def test_two_sentences_of_one_passage_give_a_difference() -> None:
    out = _variant(
        "arithmetic",
        "Oxford is made up of 38 colleges in the city. Cambridge is made up of 31 colleges.",
        "Another passage names 12 colleges elsewhere.",
    )
    assert out.answer == "The difference between the 38 colleges and the 31 colleges is 7 colleges."
