"""The date kinds on hand-written sentences: date (must fail) and date_format (must pass), in
English, German, French and Spanish."""

from __future__ import annotations

import random
import re

import pytest

from ragjudge.data import GoldRecord
from ragjudge.probing import GENERATORS, Skip, Variant
from ragjudge.probing._generate import RowPool
from ragjudge.probing._text import candidate_sentences
from ragjudge.probing.generators.dates import dates


def _make(kind: str, *contexts: str, seed: int = 0) -> Variant | Skip:
    row = GoldRecord(id="r", question="q", answer="a", contexts=list(contexts))
    return GENERATORS[kind](row, rng=random.Random(seed), pool=RowPool([row]))


def _variant(kind: str, *contexts: str, seed: int = 0) -> Variant:
    out = _make(kind, *contexts, seed=seed)
    assert isinstance(out, Variant), out
    return out


def _parts(text: str, lang: str) -> tuple[int | None, int | None, int | None]:
    found = dates(text, lang)
    assert len(found) == 1, found
    return found[0].day, found[0].month, found[0].year


def test_the_kinds_carry_their_verdicts() -> None:
    assert (GENERATORS["date"].expect, GENERATORS["date_format"].expect) == ("fail", "pass")


@pytest.mark.parametrize(
    ("sentence", "lang"),
    [
        ("The museum opened to visitors on 2 October 2019 after a delay.", "en"),
        ("The law was signed on October 2, 2019, in the capital.", "en"),
        ("Das Museum öffnete am 2. Oktober 2019 seine Türen für Besucher.", "de"),
        ("Le musée a ouvert ses portes le 2 octobre 2019 au public.", "fr"),
        ("El museo abrió sus puertas el 2 de octubre de 2019 al público.", "es"),
    ],
)
def test_exactly_one_part_of_a_date_changes(sentence: str, lang: str) -> None:
    changed: set[str] = set()
    for seed in range(12):
        out = _variant("date", sentence, seed=seed)
        assert out.language == lang
        old, new = _parts(out.before, lang), _parts(out.after, lang)
        names = ("day", "month", "year")
        diff = [name for name, a, b in zip(names, old, new, strict=True) if a != b]
        assert len(diff) == 1, (out.before, out.after)
        assert out.after not in sentence and out.answer == sentence.replace(out.before, out.after)
        changed.update(diff)
    assert changed == {"day", "month", "year"}


def test_the_issue_example_becomes_another_date() -> None:
    out = _variant("date", "The gallery opened to visitors on 2 October 2019.")
    assert out.answer != "The gallery opened to visitors on 2 October 2019."
    assert out.answer.startswith("The gallery opened to visitors on ")


def test_a_year_after_in_changes() -> None:
    out = _variant("date", "The company was founded in 1998 by two students.")
    year = int(out.after)
    assert out.before == "1998" and year != 1998 and abs(year - 1998) <= 6
    assert out.answer == f"The company was founded in {year} by two students."


@pytest.mark.parametrize(
    ("sentence", "lang"),
    [
        ("Die Firma wurde im Jahr 1998 von zwei Studenten gegründet.", "de"),
        ("La société a été fondée en 1998 par deux étudiants.", "fr"),
        ("La empresa fue fundada en 1998 por dos estudiantes.", "es"),
        ("Le musée a rouvert en mars 2019 après des travaux.", "fr"),
    ],
)
def test_years_and_months_change_in_every_language(sentence: str, lang: str) -> None:
    out = _variant("date", sentence)
    assert out.language == lang and out.before != out.after
    assert out.answer == sentence.replace(out.before, out.after)
    if out.before.isdigit():  # a year after `en`, `im Jahr`
        assert out.before == "1998" and out.after.isdigit() and out.after != "1998"
        return
    old, new = _parts(out.before, lang), _parts(out.after, lang)
    assert sum(a != b for a, b in zip(old, new, strict=True)) == 1


@pytest.mark.parametrize(
    "sentence",
    [
        "The 1998 World Cup was held in France that summer.",  # a year in a name
        "The offer ran until 2 October 2019 in every store.",  # a bound
        "The museum opened before 2 October 2019 in the end.",  # a bound
        "The survey ran in 1998–2000 across the country.",  # a range
        "The museum did not open on 2 October 2019 as planned.",  # a negation
        "Did the museum open on 2 October 2019 as planned?",  # a question
    ],
)
def test_unsafe_dates_are_left_alone(sentence: str) -> None:
    assert isinstance(_make("date", sentence), Skip)


def test_a_changed_part_stated_elsewhere_is_not_used() -> None:
    sentence = "The company was founded in 1998 by two students."
    years = "Milestones: " + ", ".join(str(y) for y in range(1990, 2006))
    assert isinstance(_make("date", sentence, years), Skip)
    months = "Board meetings: " + ", ".join(m.capitalize() for m in ("january", "march"))
    out = _variant("date", "It opened on 2 October 2019 in town.", months, seed=1)
    assert "January" not in out.after and "March" not in out.after


@pytest.mark.parametrize(
    ("sentence", "lang", "forms"),
    [
        ("It opened on 2 October 2019 after a delay.", "en", {"October 2, 2019", "2019-10-02"}),
        ("It opened on October 2, 2019, after a delay.", "en", {"2 October 2019", "2019-10-02"}),
        ("It opened on 2019-10-02 after a delay.", "en", {"2 October 2019", "October 2, 2019"}),
        ("It opened on 2 October after a long delay.", "en", {"October 2"}),
        ("Das Museum öffnete am 2. Oktober 2019 die Türen.", "de", {"2.10.2019", "2019-10-02"}),
        ("Le musée a ouvert le 2 octobre 2019 au public.", "fr", {"02/10/2019", "2019-10-02"}),
        ("El museo abrió el 2 de octubre de 2019 al público.", "es", {"02/10/2019", "2019-10-02"}),
    ],
)
def test_a_date_is_written_another_way(sentence: str, lang: str, forms: set[str]) -> None:
    seen = set()
    for seed in range(8):
        out = _variant("date_format", sentence, seed=seed)
        assert out.after in forms and out.answer == sentence.replace(out.before, out.after)
        if out.after not in ("2.10.2019", "02/10/2019"):
            assert _parts(out.after, lang) == _parts(out.before, lang)
        seen.add(out.after)
    assert seen == forms


def test_a_zero_padded_day_stays_padded_and_a_spaced_comma_is_read() -> None:
    for seed in range(6):
        out = _variant("date", "They visited the park on June 08, 2019 in Orlando.", seed=seed)
        assert re.fullmatch(r"[A-Z][a-z]+ \d\d, \d{4}", out.after), out.after
    out = _variant("date_format", "She died on April 1 , 1982 in New York.", seed=0)
    assert out.before == "April 1 , 1982" and out.after in {"1 April 1982", "1982-04-01"}


def test_an_ordinal_after_the_is_not_rewritten() -> None:
    assert isinstance(_make("date_format", "He was born on the 2nd October 1950 there."), Skip)


def test_a_german_date_does_not_end_a_sentence() -> None:
    row = GoldRecord(id="r", answer="a", contexts=["Es begann am 2. Oktober 2019 in Berlin. Gut."])
    assert candidate_sentences(row, min_words=2) == ["Es begann am 2. Oktober 2019 in Berlin."]
