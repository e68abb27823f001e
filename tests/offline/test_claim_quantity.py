"""The quantity claim (`ragjudge.offline.claims.quantity`): a number with another unit, or a
value the passage gives for another thing, contradicts the aligned context sentence; the same
value written another way does not; a sum or difference of two quantities of one unit in the
passage is supported. Sentences written by hand, in English, German, French and Spanish."""

from __future__ import annotations

import pytest

from ragjudge.offline.claims.quantity import conflict, copied_swap, derived, value_conflict
from ragjudge.offline.features import context_index
from ragjudge.offline.model import OfflineModel
from ragjudge.offline.numbers import number_values
from ragjudge.offline.text import tokenize

#: (context sentence, statement, words the reason quotes)
CHANGED = [
    (
        "The warranty covers the battery for 24 months after purchase.",
        "The warranty covers the battery for 24 weeks after purchase.",
        "'24 weeks' where the passage says '24 months'",
    ),
    ("The trail is 12 km long and climbs steeply.", "The trail is 12 miles long.", "'12 miles'"),
    ("Tickets cost $3.50 at the door.", "Tickets cost €3.50 at the door.", "'€3.50'"),
    (
        "Unemployment rose by 5% in the region last year.",
        "Unemployment rose by 5 percentage points in the region last year.",
        "'5 percentage points' where the passage says '5%'",
    ),
    (
        "The company has 500 stores and 200 employees in France.",
        "The company has 500 employees in France.",
        "'500 employees' where the passage says '200 employees'",
    ),
    ("The tank holds 40 litres of water.", "The tank holds 40 gallons of water.", "'40 gallons'"),
    ("She spent eight months in prison.", "She spent eight weeks in prison.", "'eight weeks'"),
    ("Die Garantie gilt 24 Monate ab Kauf.", "Die Garantie gilt 24 Wochen ab Kauf.", "24 Wochen"),
    (
        "La garantie couvre la batterie pendant 24 mois.",
        "La garantie couvre la batterie pendant 24 semaines.",
        "24 semaines",
    ),
    ("El sendero mide 12 kilómetros.", "El sendero mide 12 metros.", "12 metros"),
    ("Le billet coûte 20 euros à l'entrée.", "Le billet coûte 20 dollars.", "'20 dollars'"),
]

#: (context sentence, statement): the same quantity, written another way or in another form
KEPT = [
    (
        "The warranty covers the battery for 24 months after purchase.",
        "The battery is covered for 24 months.",
    ),
    ("The warranty lasts one month.", "The warranty lasts 1 month."),
    ("The trail is 12 km long.", "The trail is 12 kilometres long."),
    ("The trail is 12 km long.", "The trail is 12 kilometers long."),
    ("The warranty lasts 2 years.", "The warranty lasts 24 months."),
    ("Unemployment rose by 5% in the region.", "Unemployment rose by 5 percent in the region."),
    ("The company employs 1,500 people.", "The company employs 1500 people."),
    ("The company employs 1,500 people.", "The company employs one thousand five hundred people."),
    ("Half of the voters supported the plan.", "50% of the voters supported the plan."),
    (
        "The firm reported revenue of $4.2 million.",
        "The firm reported revenue of 4,200,000 dollars.",
    ),
    # another counted noun, and no other value for it: not the passage's to deny
    ("The company has 500 employees.", "The company has 500 workers."),
    ("Die Strecke ist 12 km lang.", "Die Strecke ist 12 Kilometer lang."),
    ("Die Firma hat 24 Mitarbeiter.", "Die Firma beschäftigt 24 Mitarbeitern."),
    ("Le trajet dure 3 heures.", "Le trajet dure trois heures."),
    ("El proyecto costó 3,5 millones de euros.", "El proyecto costó 3.500.000 euros."),
    ("La obra duró 2 años.", "La obra duró 24 meses."),
    ("He died on February 27th, 1936.", "He died on 27 February 1936."),
    ("He died on June 11, 1936.", "He died on 1936-06-11."),
    # no quantity in the statement
    ("The trail is 12 km long.", "The trail climbs steeply."),
]


@pytest.mark.parametrize(("sentence", "statement", "quoted"), CHANGED)
def test_another_unit_or_thing_is_a_conflict(sentence: str, statement: str, quoted: str) -> None:
    found = conflict(statement, sentence)
    assert quoted in found, found


@pytest.mark.parametrize(("sentence", "statement"), KEPT)
def test_the_same_quantity_in_another_form_is_no_conflict(sentence: str, statement: str) -> None:
    assert conflict(statement, sentence) == ""


#: (passage sentences, statement, the reason's computation)
COMPUTED = [
    (
        ["I will check in every 10 minutes during the 30 minutes of meditation."],
        "The difference between the 30 minutes and the 10 minutes is 20 minutes.",
        "30 minutes - 10 minutes",
    ),
    (
        ["The park has 40 hectares of forest and 12 hectares of lakes."],
        "The total of the 40 hectares and the 12 hectares is 52 hectares.",
        "40 hectares + 12 hectares",
    ),
    (
        ["Union membership dropped from 50 percent to 37 percent."],
        "Union membership dropped by 13 percentage points, from 50 percent to 37 percent.",
        "50% - 37%",
    ),
    (
        ["Sun received $138 million.", "Amber Group received $43 million."],
        "The difference between the $138 million and the $43 million is $95 million.",
        "138,000,000 USD - 43,000,000 USD",
    ),
    (
        ["Die Firma hat 300 Mitarbeiter in Berlin und 120 Mitarbeiter in Paris."],
        "300 Mitarbeiter und 120 Mitarbeiter ergeben zusammen 420 Mitarbeiter.",
        "300 mitarbeiter + 120 mitarbeiter",
    ),
    (
        ["Le parc compte 40 hectares de forêt et 12 hectares de lacs."],
        "La différence entre 40 hectares et 12 hectares est de 28 hectares.",
        "40 hectares - 12 hectares",
    ),
    (
        ["El equipo ganó 18 partidos en 2020 y 11 partidos en 2021."],
        "La diferencia entre 18 partidos y 11 partidos es de 7 partidos.",
        "18 partidos - 11 partidos",
    ),
    # the two ends of one range are one measure, bare numbers as they are
    (
        ["Enrolment in the evening classes rose from 70 to 160."],
        "Enrolment in the evening classes rose by 90, from 70 to 160.",
        "160 - 70",
    ),
]

NOT_COMPUTED = [
    # a wrong sum
    (
        ["The park has 40 hectares of forest and 12 hectares of lakes."],
        "The total of the 40 hectares and the 12 hectares is 53 hectares.",
    ),
    # two units: no sum
    (
        ["The park has 40 hectares of forest and 12 acres of lakes."],
        "The total of the 40 hectares and the 12 acres is 52 hectares.",
    ),
    # a difference of percentages is in points, not in percent
    (
        ["Union membership dropped from 50 percent to 37 percent."],
        "Union membership dropped by 13 percent, from 50 percent to 37 percent.",
    ),
    # a figure that only happens to be the difference, nothing said about computing it
    (["He worked 8 years in Lyon and 3 years in Paris."], "He lived 5 years in Rome."),
    # bare numbers of two figures, not one range: no measure to compute in
    (["The club had 70 members and 160 guests."], "The club grew by 90."),
]


@pytest.mark.parametrize(("sentences", "statement", "computation"), COMPUTED)
def test_a_sum_or_difference_of_the_passage_is_derived(
    sentences: list[str], statement: str, computation: str
) -> None:
    found = derived(statement, sentences)
    assert found, statement
    assert computation in found[0][1]


@pytest.mark.parametrize(("sentences", "statement"), NOT_COMPUTED)
def test_no_sum_or_difference_is_derived_without_one(sentences: list[str], statement: str) -> None:
    assert derived(statement, sentences) == []


#: (context, statement, verdict, words of the reason)
VERDICTS = [
    (
        "The warranty covers the battery for 24 months after purchase.",
        "The warranty covers the battery for 24 weeks after purchase.",
        "no",
        "'24 weeks' where the passage says '24 months'",
    ),
    (
        "Tickets for the concert cost $3.50 at the door.",
        "Tickets for the concert cost €3.50 at the door.",
        "no",
        "'€3.50' where the passage says '$3.50'",
    ),
    (
        "The company has 500 stores and 200 employees in France.",
        "The company has 500 employees in France.",
        "no",
        "'500 employees' where the passage says '200 employees'",
    ),
    (
        "Die Garantie für den Akku gilt 24 Monate ab Kauf.",
        "Die Garantie für den Akku gilt 24 Wochen ab Kauf.",
        "no",
        "where the passage says '24 monate'",
    ),
    (
        "Le sentier mesure 12 kilomètres et grimpe fortement.",
        "Le sentier mesure 12 mètres et grimpe fortement.",
        "no",
        "'12 mètres' where the passage says '12 kilomètres'",
    ),
    (
        "The trail is 12 km long and climbs steeply.",
        "The trail is 12 kilometres long and climbs steeply.",
        "yes",
        "supported",
    ),
    (
        "The company employs 1,500 people in France.",
        "The company employs 1500 people in France.",
        "yes",
        "supported",
    ),
    (
        "Unemployment rose by 5% in the region last year.",
        "Unemployment rose by 5 percent in the region last year.",
        "yes",
        "supported",
    ),
    (
        "Sun received $138 million, and Amber Group received $43 million.",
        "The difference between the $138 million and the $43 million is $95 million.",
        "yes",
        "is 138,000,000 USD - 43,000,000 USD (computed from the passage)",
    ),
    (
        "Walker won with 52.3 percent of the vote, while Burke got 46.6 percent.",
        "The difference between the 52.3% and the 46.6% is 5.7 percentage points.",
        "yes",
        "'5.7 percentage points' is 52.3% - 46.6%",
    ),
]


@pytest.mark.parametrize(("context", "statement", "verdict", "note"), VERDICTS)
def test_a_quantity_claim_decides_the_verdict_and_is_named(
    context: str, statement: str, verdict: str, note: str
) -> None:
    (judged,) = OfflineModel().judge_statements(context=context, statements=[statement])
    assert judged["verdict"] == verdict, judged
    assert note in judged["reason"], judged["reason"]


# --- a value in the slot of another (`value_conflict`) -------------------------------------------


@pytest.fixture(scope="module")
def model() -> OfflineModel:
    return OfflineModel()


def _verdicts(model: OfflineModel, context: str, statement: str) -> list[str]:
    return [v["verdict"] for v in model.judge_statements(context=context, statements=[statement])]


@pytest.mark.parametrize(
    ("sentence", "statement"),
    [
        # a bound, and the value said in another passage between other words
        (
            "Record companies spend up to 100 grand on their videos.\n\nA tour costs 200 grand.",
            "Record companies spend up to 200 grand on their videos.",
        ),
        (
            "Some people have been held for more than 20 years.\n\nHe was 40 years old.",
            "Some people have been held for more than 40 years.",
        ),
        (
            "The talks were presented in two parallel sessions.\n\nThree people chaired them.",
            "The talks were presented in three parallel sessions.",
        ),
        # three words on one side of the value only (the statement cut before it)
        (
            "The ferry, the last of its kind, carries four hundred passengers across the bay."
            "\n\nNine crew members work on it.",
            "The last of its kind nine hundred passengers across the bay.",
        ),
        # a cap is no way to say a small number the context gives elsewhere
        (
            "The basic plan covers up to 20 seats.\n\nSupport answers within 2 days.",
            "The basic plan covers up to 45 seats.",
        ),
    ],
)
def test_a_value_said_elsewhere_does_not_fill_another_slot(
    model: OfflineModel, sentence: str, statement: str
) -> None:
    assert _verdicts(model, sentence, statement) == ["no"]


def test_a_value_the_context_gives_in_the_slot_too_is_no_conflict() -> None:
    statement = "Record companies spent up to 200 grand on their videos."
    passage = "In 2019 record companies spent up to 100 grand on their videos."
    other = "By 2021 record companies spent up to 200 grand on their videos."
    claimed, theirs = tuple(number_values(statement)), tuple(number_values(passage))
    texts = (statement, passage)
    assert "'up to 100 grand'" in value_conflict(claimed, [True], theirs, texts)
    said = [(q, other) for q in number_values(other)]
    assert value_conflict(claimed, [True], theirs, texts, said) == ""


def test_one_side_of_a_date_is_no_slot() -> None:
    # a date's parts are numbers the words skip: "1932-05-06" has "On" before it and the
    # passage's "6 May 1932" has "May": only one side reads alike, and it is no conflict
    statement = "Born 2 March 1861, he died on 1932-05-06 in a small village near Lyon."
    passage = "Born 2 March 1861, he died on 6 May 1932 in a small village near Lyon."
    claimed, theirs = tuple(number_values(statement)), tuple(number_values(passage))
    assert value_conflict(claimed, [True] * len(claimed), theirs, (statement, passage)) == ""


# --- a number or unit swapped in a copied sentence (`copied_swap`) ------------------------------

COPIED = (
    "The festival held twelve concerts in 12 different towns across 12 months. "
    "Her brother was two when the family moved to Lyon. "
    "She ran four miles a day before the race. "
    "The new bridge cost 2.8 million to build."
)


@pytest.mark.parametrize(
    ("statement", "note"),
    [
        ("The festival held twelve concerts in 12 different towns across 12 years.", "'years'"),
        ("Her brother was six when the family moved to Lyon.", "'six'"),
        ("She ran four kilometres a day before the race.", "'kilometres'"),
        # the sentence starts within the words the statement copies before the number
        ("Report (www.town.org) The new bridge cost 3.1 million to build.", "'3.1'"),
    ],
)
def test_a_number_or_unit_swapped_in_a_copied_sentence(statement: str, note: str) -> None:
    assert copied_swap(context_index(COPIED), tokenize(statement)).startswith(note)


@pytest.mark.parametrize(
    "statement",
    [
        "Her brother was 2 when the family moved to Lyon.",  # another way to write it
        "She ran 4 miles a day before the race.",
        "She ran four mi a day before the race.",
        "The festival held twelve concerts in 12 different towns across 12 months.",
        "Her brother was six when they moved.",  # too little copied to tell
        "The new bridge cost 2,800,000 to build.",  # a scale written out
    ],
)
def test_what_a_copied_sentence_says_is_no_swap(statement: str) -> None:
    assert copied_swap(context_index(COPIED), tokenize(statement)) == ""


def test_a_written_number_after_digits_is_a_number_not_their_unit() -> None:
    # "Abell 2744, where nine massive clusters" cut to "Abell 2744 nine massive clusters"
    values = number_values("Abell 2744 nine massive clusters are merging.")
    assert [(q.low, q.unit) for q in values] == [(2744.0, ""), (9.0, "massive")]
    day = number_values("on 15 Sept 2020")[0]
    assert (day.low, day.unit) == (15.0, "sept")  # a month, not a written number


@pytest.mark.parametrize(
    "text",
    ["Das Boot is a 1981 German war film.", "She competed at the 2016 Summer Olympics."],
)
def test_a_year_before_a_name_is_a_year_not_a_count_of_it(text: str) -> None:
    (year,) = number_values(text)
    assert (year.kind, year.unit) == ("year", "")


def test_a_count_of_a_name_is_no_slot_for_a_year(model: OfflineModel) -> None:
    context = (
        "Das Boot is a 1981 German war film directed by Wolfgang Petersen. "
        "Das Boot is also a 2018 German television series."
    )
    statement = (
        "There are two German works called Das Boot: a 1981 war film directed by Wolfgang Petersen"
    )
    assert (
        "where the passage says"
        not in model.judge_statements(context=context, statements=[statement])[0]["reason"]
    )
