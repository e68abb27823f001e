"""Must-pass kinds that rewrite a context sentence without changing what it says: clause order,
split and merge, a safe synonym, a subset of a list (English, German, French, Spanish)."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest

from ragjudge.data import GoldRecord, load_gold
from ragjudge.probing import Skip, Variant, generate_probes
from ragjudge.probing._generate import RowPool
from ragjudge.probing._registry import Make
from ragjudge.probing._text import sentences, words
from ragjudge.probing.generators.structure import clause_order, list_subset, split_merge, synonym


def _row(*passages: str, rid: str = "r1") -> GoldRecord:
    return GoldRecord(id=rid, question="", contexts=list(passages), answer="x")


def _make(make: Make, *passages: str, seed: int = 0) -> Variant | Skip:
    row = _row(*passages)
    return make(row, rng=random.Random(seed), pool=RowPool([row]))


def _after(make: Make, *passages: str) -> str:
    out = _make(make, *passages)
    assert isinstance(out, Variant), out
    return out.answer


# --- clause_order


@pytest.mark.parametrize(
    ("sentence", "moved"),
    [
        ("In 2019, the museum opened a new wing.", "The museum opened a new wing in 2019."),
        (
            "The match was cancelled because the pitch was flooded.",
            "Because the pitch was flooded, the match was cancelled.",
        ),
        (
            "When the river rose, the old bridge was closed to traffic.",
            "The old bridge was closed to traffic when the river rose.",
        ),
        (
            "En 2019, le musée a ouvert une nouvelle aile.",
            "Le musée a ouvert une nouvelle aile en 2019.",
        ),
        (
            "Le match a été annulé parce que le terrain était inondé.",
            "Parce que le terrain était inondé, le match a été annulé.",
        ),
        (
            "En 2019, el museo abrió una nueva sala para los visitantes.",
            "El museo abrió una nueva sala para los visitantes en 2019.",
        ),
        (
            "El partido se suspendió porque el campo estaba inundado.",
            "Porque el campo estaba inundado, el partido se suspendió.",
        ),
        ("The company was founded in May 1990.", "In May 1990, the company was founded."),
        (
            "Le pont a ouvert à la circulation en 1932.",
            "En 1932, le pont a ouvert à la circulation.",
        ),
        ("El puente se abrió al tráfico en 1932.", "En 1932, el puente se abrió al tráfico."),
    ],
)
def test_clause_order_moves_a_phrase_and_keeps_the_words(sentence: str, moved: str) -> None:
    out = _make(clause_order, sentence)
    assert isinstance(out, Variant)
    assert out.answer == moved and out.before == sentence and out.after == moved
    assert sorted(out.answer.lower().strip(".").replace(",", "").split()) == sorted(
        sentence.lower().strip(".").replace(",", "").split()
    )


@pytest.mark.parametrize(
    "sentence",
    [
        "In 2019, the museum did not open a new wing.",  # a negation the phrase could scope over
        "After John arrived, he opened the shop.",  # "He opened the shop after John arrived"
        "In 2019, the minister said the museum closed.",  # reported speech: two homes
        "This is because the pitch was flooded.",  # "Because ..., this is"
        "The match was not cancelled because the pitch was flooded.",  # not ... because
        "In fact, the museum opened a new wing.",  # a link to the sentence before
        "In 2019, visitors kept trying to enter the closed wing.",  # a gerund: a second home
        "In Ottawa, the government matched all donations to the Red Cross.",  # a place, no time
        "The company bought the house built in 1990.",  # the date is the house's
        "The company bought the house and the barn in 1990.",  # and: two homes for the date
    ],
)
def test_clause_order_skips_what_could_change_the_claim(sentence: str) -> None:
    assert isinstance(_make(clause_order, sentence), Skip)


def test_clause_order_leaves_german_word_order_alone() -> None:
    out = _make(clause_order, "Im Jahr 2019 eröffnete das Museum einen neuen Flügel und den Park.")
    assert out == Skip("German word order")


# --- split_merge


@pytest.mark.parametrize(
    ("sentence", "split"),
    [
        (
            "The company moved to Berlin in 2010, and it hired forty engineers there.",
            "The company moved to Berlin in 2010. It hired forty engineers there.",
        ),
        (
            "He moved to Paris in 1920 and died there in 1931.",
            "He moved to Paris in 1920. He died there in 1931.",
        ),
        (
            "Der Maler zog 1920 nach Paris, und er starb dort 1931.",
            "Der Maler zog 1920 nach Paris. Er starb dort 1931.",
        ),
        (
            "Le peintre a quitté Lyon en 1920, et il a ouvert un atelier à Paris.",
            "Le peintre a quitté Lyon en 1920. Il a ouvert un atelier à Paris.",
        ),
        (
            "Ana se mudó a Madrid en 2010, y ella abrió una librería con los socios.",
            "Ana se mudó a Madrid en 2010. Ella abrió una librería con los socios.",
        ),
    ],
)
def test_split_cuts_two_full_clauses_apart(sentence: str, split: str) -> None:
    assert _after(split_merge, sentence) == split


@pytest.mark.parametrize(
    "sentence",
    [
        "If it rains, the final is moved indoors, and it starts an hour later.",  # the condition
        "He was arrested in May and charged in June.",  # a shared passive: "He charged"
        "The minister said that prices rose, and they fell again in May.",  # reported speech
        "He was smart and talented in many ways.",  # no verb after "and"
    ],
)
def test_split_skips_clauses_that_share_a_scope(sentence: str) -> None:
    assert isinstance(_make(split_merge, sentence), Skip)


@pytest.mark.parametrize(
    ("passage", "merged"),
    [
        (
            "The bridge opened in 1932. The bridge carries six lanes of traffic.",
            {
                "The bridge opened in 1932, and the bridge carries six lanes of traffic.",
                "The bridge opened in 1932; the bridge carries six lanes of traffic.",
            },
        ),
        (
            "In 1932, the bridge opened to traffic. It carries six lanes of traffic.",
            {"In 1932, the bridge opened to traffic; it carries six lanes of traffic."},
        ),
        (
            "Die Brücke wurde 1932 eröffnet. Sie hat sechs Fahrspuren für den Verkehr.",
            {
                "Die Brücke wurde 1932 eröffnet, und sie hat sechs Fahrspuren für den Verkehr.",
                "Die Brücke wurde 1932 eröffnet; sie hat sechs Fahrspuren für den Verkehr.",
            },
        ),
        (
            "Le pont a ouvert en 1932. Il porte six voies de circulation.",
            {
                "Le pont a ouvert en 1932 et il porte six voies de circulation.",
                "Le pont a ouvert en 1932; il porte six voies de circulation.",
            },
        ),
    ],
)
def test_merge_joins_two_adjacent_sentences(passage: str, merged: set[str]) -> None:
    seen = {_row_variant(split_merge, passage, seed).answer for seed in range(12)}
    assert seen <= merged and seen


def _row_variant(make: Make, passage: str, seed: int) -> Variant:
    out = _make(make, passage, seed=seed)
    assert isinstance(out, Variant)
    return out


# --- synonym


@pytest.mark.parametrize(
    ("sentence", "changed"),
    [
        ("The city purchased the land in 1990.", "The city bought the land in 1990."),
        ("The concert was an enormous success.", "The concert was a huge success."),
        (
            "Approximately 400 people attended the opening.",
            "About 400 people attended the opening.",
        ),
        (
            "Die Stadt hatte ungefähr 5000 Einwohner im Jahr.",
            "Die Stadt hatte etwa 5000 Einwohner im Jahr.",
        ),
        (
            "Il pleut fréquemment dans la région en novembre.",
            "Il pleut souvent dans la région en novembre.",
        ),
        (
            "La empresa comenzó a vender coches en 1990 con los socios.",
            "La empresa empezó a vender coches en 1990 con los socios.",
        ),
    ],
)
def test_synonym_replaces_one_word(sentence: str, changed: str) -> None:
    assert _after(synonym, sentence) == changed


@pytest.mark.parametrize(
    "sentence",
    [
        "The Large Hadron Collider lies near Geneva.",  # a name
        "The museum is due to open in May next year.",  # "due to" meaning scheduled
        "He was treated roughly by the guards that night.",  # "roughly" not about a number
        "It suddenly occurred to him that the door was open.",  # "occurred to": came to mind
        "A large number of people came to the opening.",  # a fixed phrase
    ],
)
def test_synonym_skips_words_whose_synonym_would_shift(sentence: str) -> None:
    assert isinstance(_make(synonym, sentence), Skip)


# --- list_subset


@pytest.mark.parametrize(
    ("sentence", "shorter"),
    [
        ("He has lived in Paris, London and Rome.", "He has lived in Paris and Rome."),
        (
            "The plant adds to air pollution, safety risks, and health concerns.",
            "The plant adds to air pollution and health concerns.",
        ),
        ("The shop sells apples, pears, and plums.", "The shop sells apples and plums."),
        ("Der Maler lebte in Paris, London und Rom.", "Der Maler lebte in Paris und Rom."),
        ("Le peintre a vécu à Paris, Londres et Rome.", "Le peintre a vécu à Paris et Rome."),
        ("El pintor vivió en París, Londres y Roma.", "El pintor vivió en París y Roma."),
    ],
)
def test_list_subset_drops_a_middle_member(sentence: str, shorter: str) -> None:
    assert _after(list_subset, sentence) == shorter


@pytest.mark.parametrize(
    "sentence",
    [
        "The three founders were Anna, Ben and Carl.",  # counted
        "The band members are Anna, Ben and Carl.",  # the whole of something
        "The flag is red, white and blue.",  # a copula: all its colours
        "Anna, Ben and Carl founded the band in Oslo.",  # together
        "He lived in Springfield, Illinois and Dayton, Ohio.",  # places and their regions
        "Die drei Gründer waren Anna, Ben und Carl.",
        "Les trois fondateurs sont Anna, Ben et Carl.",
        "Los tres fundadores fueron Ana, Beto y Carlos.",
        "It has a gruesome, disgusting meal, bizarre mannerisms, and splatter.",  # no even list
        "It is found everywhere except Albania, Andorra and Monaco.",  # an exception
        "The paint is a mixture of oil, water and chalk.",  # what it is made of
        "The range runs from Paris, Lyon and Nice.",  # a bound
        "When gardening, wear gloves and boots.",  # the comma closes a clause, not a member
    ],
)
def test_list_subset_skips_lists_that_are_counted_or_closed(sentence: str) -> None:
    assert isinstance(_make(list_subset, sentence), Skip)


def test_the_same_seed_makes_the_same_probes() -> None:
    rows = [
        _row(
            "In 2019, the museum opened a new wing. The wing holds paintings, drawings and "
            "prints. The city purchased the land in 1990, and it built a park there.",
            rid=f"r{i}",
        )
        for i in range(3)
    ]
    kinds = ["clause_order", "split_merge", "synonym", "list_subset"]
    first = generate_probes(rows, kinds=kinds, seed=4)
    again = generate_probes(rows, kinds=kinds, seed=4)
    assert [p.model_dump() for p in first.probes] == [p.model_dump() for p in again.probes]
    assert {p.kind for p in first.probes} == set(kinds)
    assert all(p.expect == "pass" for p in first.probes)


def _bag(text: str, *, drop: frozenset[str] = frozenset()) -> list[str]:
    return sorted(w.lower() for w in words(text) if w.lower() not in drop)


def test_on_real_rows_each_edit_keeps_the_words(gold_dir: Path) -> None:
    rows = {r.id: r for r in load_gold(gold_dir / "sample.jsonl")}
    kinds = ["clause_order", "split_merge", "synonym", "list_subset"]
    made = generate_probes(list(rows.values()), kinds=kinds, seed=0)
    assert all(count.made for count in made.counts)
    joiners = frozenset({"and", "und", "et", "y", "he", "she", "they", "we", "i"})
    for probe in made.probes:
        context = " ".join(" ".join(p.split()) for p in rows[probe.row_id].contexts)
        if probe.kind == "clause_order":
            assert _bag(probe.answer) == _bag(probe.before) and probe.before in context
        elif probe.kind == "split_merge":
            assert _bag(probe.answer, drop=joiners) == _bag(probe.before, drop=joiners)
            assert probe.before in context and probe.answer != probe.before
        elif probe.kind == "synonym":
            articles = frozenset({"a", "an"})
            back = Counter(_bag(probe.answer, drop=articles)) - Counter(_bag(probe.after))
            back += Counter(_bag(probe.before))
            assert back in [Counter(_bag(s, drop=articles)) for s in sentences(context)]
        else:
            assert probe.before in context
            assert not Counter(_bag(probe.answer)) - Counter(_bag(probe.before))
            assert len(words(probe.answer)) < len(words(probe.before))
