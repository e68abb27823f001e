"""entity_substitution, role_swap and attribution on hand-written passages: the edit made,
the verdict expected, and the rows where a probe would be unsafe and is skipped."""

from __future__ import annotations

import random

import pytest

from ragjudge.data import GoldRecord
from ragjudge.probing import GENERATORS, Skip, Variant, generate_probes
from ragjudge.probing.generators.names import entity_map, find_names


class _NoPool:
    def unrelated(self, row: GoldRecord, rng: random.Random) -> GoldRecord | None:
        return None


def _row(*passages: str) -> GoldRecord:
    return GoldRecord(id="r", question="", contexts=list(passages), answer="x")


def _make(kind: str, *passages: str, seed: int = 0) -> Variant | Skip:
    return GENERATORS[kind](_row(*passages), rng=random.Random(seed), pool=_NoPool())


def test_names_are_typed_by_the_words_around_them() -> None:
    found = entity_map(
        _row(
            "Dr. Ann Lee was born in Paris. The actor Tom Hanks lives in Lyon. "
            "Oxford University and Yale University agreed. Apple grew."
        )
    )
    assert found.type_of("Ann Lee") == "person" and found.type_of("Tom Hanks") == "person"
    assert found.type_of("Paris") == "place:city" and found.type_of("Lyon") == "place:city"
    assert found.type_of("Oxford University") == "org:education"
    assert found.type_of("Apple") is None  # nothing says what it is


def test_a_leading_word_is_cut_off_a_name_only_where_the_sentence_opens() -> None:
    assert [n for _, _, n in find_names("The Beatles met in Hamburg.")] == ["Beatles", "Hamburg"]
    assert [n for _, _, n in find_names("Last year, El Al said so.")] == ["El Al"]


def test_entity_substitution_puts_another_place_of_the_context() -> None:
    out = _make(
        "entity_substitution",
        "Marie Dupont was born in Paris in 1950. She later taught history in Lyon.",
    )
    assert isinstance(out, Variant)
    assert {out.before, out.after} == {"Paris", "Lyon"}
    assert out.answer in (
        "Marie Dupont was born in Lyon in 1950.",
        "She later taught history in Paris.",
    )
    assert GENERATORS["entity_substitution"].expect == "fail"


def test_entity_substitution_swaps_people_within_their_type_only() -> None:
    out = _make(
        "entity_substitution",
        "The film was directed by John Carney. The lead was played by singer Ferdia Walsh. "
        "It was shot in Dublin.",
    )
    assert isinstance(out, Variant)
    assert {out.before, out.after} == {"John Carney", "Ferdia Walsh"}


def test_entity_substitution_skips_a_place_inside_another() -> None:
    # Soho, Westminster: Soho lies in Westminster, so "lived in Soho" may well be true.
    out = _make(
        "entity_substitution",
        "Ann Lee was born in Soho, Westminster. She later lived in Westminster for years.",
    )
    assert isinstance(out, Skip)


def test_entity_substitution_skips_a_name_whose_own_sentence_says_the_same() -> None:
    # Both cities hosted the games: "hosted in Lyon" may be true.
    out = _make(
        "entity_substitution",
        "The 1998 games were hosted in Paris. The 1998 games were also hosted in Lyon.",
    )
    assert isinstance(out, Skip)


def test_entity_substitution_skips_names_it_cannot_type() -> None:
    assert isinstance(_make("entity_substitution", "Bruce met Falcone. Falcone left."), Skip)


def test_role_swap_turns_around_a_one_way_verb() -> None:
    out = _make("role_swap", "In the final, Rafael Nadal defeated Roger Federer in four sets.")
    assert isinstance(out, Variant)
    assert out.before == "Rafael Nadal defeated Roger Federer"
    assert out.after == "Roger Federer defeated Rafael Nadal"
    assert out.answer == "In the final, Roger Federer defeated Rafael Nadal in four sets."


def test_role_swap_handles_the_passive_and_relations() -> None:
    passive = _make("role_swap", "Tiny Speck was acquired by Slack Technologies in 2014.")
    assert isinstance(passive, Variant)
    assert passive.after == "Slack Technologies was acquired by Tiny Speck"
    relation = _make("role_swap", "Julian Lennon is the son of John Lennon, the singer.")
    assert isinstance(relation, Skip)  # the two share a word: one family, maybe one person
    relation = _make("role_swap", "Dhani Harrison is the son of Olivia Arias in the film.")
    assert isinstance(relation, Variant)
    assert relation.answer.startswith("Olivia Arias is the son of Dhani Harrison")


@pytest.mark.parametrize(
    "context",
    [
        # a description after the second name would describe the first once swapped
        "Dhani Harrison is the son of Olivia Arias, the producer of the film.",
        "In 1848 Congress created Oregon Territory, a vast stretch of western America.",
        # an apposition is no verb: "X, owner of Y" swapped makes a shop own a person
        "Candace Sturgess, owner of Anzac Grocery, said she had 800 customers.",
    ],
)
def test_role_swap_leaves_a_description_that_would_move(context: str) -> None:
    assert _make("role_swap", context) == Skip("no two names around a one-way verb")


def test_role_swap_in_german_french_and_spanish() -> None:
    de = _make("role_swap", "Steffi Graf besiegte Monica Seles im Finale sehr klar.")
    fr = _make("role_swap", "En finale, Rafael Nadal a battu Roger Federer.")
    es = _make("role_swap", "En la final, Rafael Nadal derrotó a Roger Federer.")
    assert isinstance(fr, Variant) and fr.after == "Roger Federer a battu Rafael Nadal"
    assert isinstance(es, Variant) and es.after == "Roger Federer derrotó a Rafael Nadal"
    assert isinstance(de, Variant) and de.after == "Monica Seles besiegte Steffi Graf"
    # German capitalizes every noun: "Finale" is no name to swap
    assert isinstance(_make("role_swap", "Im Finale besiegte Steffi Graf die Gegnerin klar."), Skip)


def test_role_swap_skips_symmetric_verbs_lists_negations_and_rematches() -> None:
    for passages in (
        ("Tom Hanks married Rita Wilson in 1988.",),
        ("Rafael Nadal played Roger Federer in the final.",),
        ("Andy Murray and Rafael Nadal defeated Roger Federer.",),
        ("Rafael Nadal never defeated Roger Federer on grass.",),
        ("Rafael Nadal defeated Roger Federer in 2008.", "Roger Federer beat Rafael Nadal later."),
    ):
        assert isinstance(_make("role_swap", *passages), Skip), passages


def test_attribution_gives_the_claim_to_another_speaker() -> None:
    out = _make(
        "attribution",
        'According to John Smith, the bridge will open in May. "It is too early," Mary Jones said.',
    )
    assert isinstance(out, Variant)
    assert out.answer in (
        "According to Mary Jones, the bridge will open in May.",
        '"It is too early," John Smith said.',
    )
    assert {out.before, out.after} == {"John Smith", "Mary Jones"}


def test_attribution_in_german_french_and_spanish() -> None:
    cases = {
        "de": "Laut Hans Müller steigen die Preise. Anna Schmidt sagte, das sei falsch.",
        "fr": "Selon Pierre Martin, les prix vont augmenter. Marie Dubois a déclaré le contraire.",
        "es": "Según Carlos García, los precios subirán. Ana López dijo lo contrario.",
    }
    for lang, text in cases.items():
        out = _make("attribution", text)
        assert isinstance(out, Variant), lang
        first, second = text.split(". ")
        assert out.answer in (
            first.replace(out.before, out.after) + ".",
            second.replace(out.before, out.after),
        ), lang
        assert out.before != out.after and out.after in text


def test_attribution_skips_a_speaker_who_said_it_too_and_nameless_speakers() -> None:
    same = _make(
        "attribution",
        "John Smith said the bridge will open in May. Mary Jones said the bridge will open in "
        "May as well.",
    )
    assert isinstance(same, Skip)
    assert isinstance(_make("attribution", "Sources said the bridge will open in May."), Skip)


def test_attribution_reads_added_as_saying_only_before_a_quote_or_that() -> None:
    goal = "Lina Magull added the final goal in the 58th minute. Desiree Ellis said it was fair."
    assert isinstance(_make("attribution", goal), Skip)  # Magull said nothing
    said = "Lina Magull added that the final goal was lucky. Desiree Ellis said it was fair."
    out = _make("attribution", said)
    assert isinstance(out, Variant) and {out.before, out.after} == {"Lina Magull", "Desiree Ellis"}


def test_generation_is_deterministic() -> None:
    rows = [
        _row("Marie Dupont was born in Paris. She taught in Lyon and later in Berlin."),
        _row("According to John Smith, prices rose. Mary Jones said they fell."),
    ]
    rows = [r.model_copy(update={"id": f"r{i}"}) for i, r in enumerate(rows)]
    kinds = ["entity_substitution", "attribution"]
    first = generate_probes(rows, kinds=kinds, seed=5)
    again = generate_probes(rows, kinds=kinds, seed=5)
    assert [p.answer for p in first.probes] == [p.answer for p in again.probes]
    assert {p.kind for p in first.probes} == set(kinds)


def test_a_name_used_for_a_thing_is_no_person() -> None:
    found = entity_map(
        _row(
            "Harry Potter star Emma Watson was cast. Kathmandu (2011-05-01) hosted it. "
            "Thomas More University grew, and Thomas More students cheered."
        )
    )
    assert found.type_of("Emma Watson") == "person"
    assert found.type_of("Harry Potter") is None  # "star" after it: a franchise
    assert found.type_of("Kathmandu") is None  # a date in brackets is no life's span
    assert found.type_of("Thomas More") is None  # the head of "Thomas More University"


def test_a_name_the_context_also_writes_as_part_of_a_longer_one_is_no_replacement() -> None:
    from ragjudge.probing.generators.names import _partial, entity_map

    row = GoldRecord(
        id="p",
        answer="",
        contexts=[
            "Jordan Belfort moved to Switzerland in 1998 with his family. "
            "The bank in Jordan refused the transfer. Peter Paul v. Clinton was a civil suit."
        ],
    )
    found = entity_map(row)
    assert _partial(found, "Jordan") and _partial(found, "Peter Paul")
    assert not _partial(found, "Switzerland")


def test_role_swap_carries_an_article_along_and_reads_two_verbs() -> None:
    teams = _make("role_swap", "The Wizards defeated the LA Clippers last night 100-91.")
    assert isinstance(teams, Variant)
    assert teams.answer == "The LA Clippers defeated the Wizards last night 100-91."
    hired = _make("role_swap", "In 2008 the Ten Rings hired Obadiah Stane to kill Tony Stark.")
    assert isinstance(hired, Variant)
    assert hired.answer == "In 2008 Obadiah Stane hired the Ten Rings to kill Tony Stark."
    two = _make("role_swap", "That night, Bobby Beausoleil stabbed and killed Gary Hinman.")
    assert isinstance(two, Variant)
    assert two.after == "Gary Hinman stabbed and killed Bobby Beausoleil"
    out = _make("role_swap", "In the final, Simon Pagenaud beat out Alexander Rossi by a second.")
    assert isinstance(out, Variant) and out.after == "Alexander Rossi beat out Simon Pagenaud"


def test_role_swap_skips_a_name_of_a_thing_a_title_and_an_object() -> None:
    for passages in (
        ("On 1st July 1923, the LMS took over the Caley network.",),  # "Caley" modifies
        ("Attorney General William Barr directed the Bureau of Prisons to act.",),  # a title
        ("A workshop on Advanced Processors was sponsored by IARPA in 2019.",),  # an object
        ("In 1988, Tom Hanks met Rita Wilson in Los Angeles.",),  # a symmetric verb
    ):
        assert isinstance(_make("role_swap", *passages), Skip), passages


def test_role_swap_counts_a_repeat_of_the_claim_but_not_another_sentence_of_both() -> None:
    repeat = _make(
        "role_swap",
        "Teresa Mosqueda defeated Jon Grant in the council race.",
        "Seattle: Teresa Mosqueda defeated Jon Grant in the council race, results show.",
    )
    assert isinstance(repeat, Variant)
    other = _make(
        "role_swap",
        "Teresa Mosqueda defeated Jon Grant in the council race.",
        "Jon Grant conceded to Teresa Mosqueda on Wednesday.",
    )
    assert isinstance(other, Skip)
