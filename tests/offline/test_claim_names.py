"""Names and roles (`ragjudge.offline.claims.names`): a name, date or word swapped for the one
in the same slot of the best passage, and names in swapped roles. Sentences written by hand,
in English, German and French, against the module's entry point."""

from __future__ import annotations

import pytest

from ragjudge.offline.claims.names import conflict, name_elsewhere
from ragjudge.offline.features import context_index
from ragjudge.offline.text import tokenize


def _notes(context: str, statement: str) -> tuple[str, str]:
    """The module's `(entity, word)` notes for a statement against a one-passage context."""
    index = context_index(context)
    tokens = tokenize(statement)
    content = [t for t in tokens if t.is_content]
    in_ctx = [t.stem in index.stems or t.norm in index.stems for t in content]
    return conflict(index, 0, statement, tokens, content, in_ctx)


SWAPPED_ROLES = [
    ("Smith defeated Jones in the final.", "Jones defeated Smith in the final."),
    ("Müller besiegte Schmidt im Finale.", "Schmidt besiegte Müller im Finale."),
    ("Dupont a battu Martin en finale.", "Martin a battu Dupont en finale."),
]

SUBSTITUTED_NAMES = [
    ("The treaty was signed in Vienna in 1815.", "The treaty was signed in Berlin in 1815."),
    ("Der Vertrag wurde in Wien unterzeichnet.", "Der Vertrag wurde in Berlin unterzeichnet."),
    ("Le traité a été signé à Vienne en 1815.", "Le traité a été signé à Berlin en 1815."),
]

KEPT = [
    # the passage's own words
    ("Smith defeated Jones in the final.", "Smith defeated Jones in the final."),
    ("Der Vertrag wurde in Wien unterzeichnet.", "Der Vertrag wurde in Wien unterzeichnet."),
    # the passive on one side keeps the roles
    ("Smith defeated Jones in the final.", "Jones was defeated by Smith in the final."),
]


@pytest.mark.parametrize(("context", "statement"), SWAPPED_ROLES)
def test_names_in_swapped_roles_are_an_entity_conflict(context: str, statement: str) -> None:
    entity, word = _notes(context, statement)
    assert "in swapped roles" in entity, statement
    assert word == ""


@pytest.mark.parametrize(("context", "statement"), SUBSTITUTED_NAMES)
def test_a_substituted_name_is_an_entity_conflict(context: str, statement: str) -> None:
    entity, word = _notes(context, statement)
    assert entity.startswith("'Berlin' where the passage says"), statement
    assert word == ""


def test_a_substituted_word_is_a_word_conflict() -> None:
    entity, word = _notes("The shop sells shoes, bags and belts.", "The shop sells hats.")
    assert entity == ""
    assert word.startswith("'hats' where the passage says")


def test_a_role_the_passage_qualifies_is_an_entity_conflict() -> None:
    entity, _ = _notes(
        "Maria Lopez was elected vice president of the club.",
        "Maria Lopez was elected president of the club.",
    )
    assert "vic" in entity  # the passage's qualifier, as a stem


@pytest.mark.parametrize(("context", "statement"), KEPT)
def test_what_the_passage_says_passes(context: str, statement: str) -> None:
    assert _notes(context, statement) == ("", "")


def test_no_passage_no_conflict() -> None:
    statement = "Jones defeated Smith in the final."
    index = context_index("Smith defeated Jones in the final.")
    tokens = tokenize(statement)
    content = [t for t in tokens if t.is_content]
    assert conflict(index, -1, statement, tokens, content, [False] * len(content)) == ("", "")


# --- a name the context never gives the claim to (`name_elsewhere`) -----------------------------

ELSEWHERE_CONTEXT = (
    "The council met on Monday to discuss the new bridge. "
    "Mayor Helen Brandt said the bridge would open before the winter floods. "
    "Her deputy, Oskar Lind, chaired the session on the harbour budget. "
    "Lind later spoke to reporters about the parking fees."
)

NAME_ELSEWHERE = [
    # the speaker of the claim swapped for another name the context has
    "Mayor Oskar Lind said the bridge would open before the winter floods.",
    "Oskar Lind said the bridge would open before the winter floods.",
    # another name in the slot of the sentence saying the rest
    "Brandt later spoke to reporters about the parking fees.",
]

NAME_WITH_CLAIM = [
    # the sentence's own name
    "Mayor Helen Brandt said the bridge would open before the winter floods.",
    "Brandt said the bridge would open before the winter floods.",
    # a pronoun in the sentence after the name points back to it
    "Oskar Lind spoke to reporters about the parking fees.",
]


def test_a_long_statement_reads_the_words_around_its_name() -> None:
    # the statement joins two sentences, so no one sentence says the rest of it; the words
    # around the name do, with another name in its slot
    context = (
        "The vote on the harbour plan is over and the results are mixed for fishermen, "
        "according to Ines Varga, senior policy adviser at the port authority. "
        "Paul Okafor chaired the meeting. The fishing fleet has shrunk for a decade."
    )
    statement = (
        "The results are mixed for fishermen, according to Paul Okafor, senior policy adviser "
        "at the port authority, and the fishing fleet has shrunk for a decade."
    )
    assert "Paul Okafor" in _elsewhere(context, statement)
    assert _elsewhere(context, statement.replace("Paul Okafor", "Ines Varga")) == ""


def _elsewhere(context: str, statement: str) -> str:
    return name_elsewhere(context_index(context), tokenize(statement))


@pytest.mark.parametrize("statement", NAME_ELSEWHERE)
def test_a_claim_the_context_gives_another_name(statement: str) -> None:
    # the sentence saying the rest, or the one it copies ("Helen Brandt said the bridge ...")
    assert "where the sentence " in _elsewhere(ELSEWHERE_CONTEXT, statement)


@pytest.mark.parametrize("statement", NAME_WITH_CLAIM)
def test_a_claim_the_context_gives_this_name(statement: str) -> None:
    assert _elsewhere(ELSEWHERE_CONTEXT, statement) == ""


def test_an_acronym_of_the_name_in_the_slot_is_the_same_name() -> None:
    context = (
        "The EU is expected to retaliate with tariffs on motorcycles. "
        "The European Union held a summit in Brussels."
    )
    statement = "The European Union is expected to retaliate with tariffs on motorcycles."
    assert _elsewhere(context, statement) == ""


def test_no_other_name_in_the_slot_no_note() -> None:
    context = (
        "Anna Weber founded the bakery in the old town. The bakery sells rye bread every morning."
    )
    # "The bakery sells ..." names no one: the claim may be anyone's to repeat
    assert _elsewhere(context, "Anna Weber sells rye bread every morning.") == ""


def test_a_quote_of_small_words_given_to_another_speaker() -> None:
    # every word of the quote but one is a function word: all of them tie it to its sentence
    context = (
        "Senator Ruth Casey spoke after the vote. "
        '"We have to do something about it now," Casey said. '
        "Her aide, Jim Michaels, handed out the statement."
    )
    statement = '"We have to do something about it now," Jim Michaels said.'
    assert "'casey'" in _elsewhere(context, statement)
    assert _elsewhere(context, '"We have to do something about it now," Casey said.') == ""


def test_a_given_name_shared_with_another_name_does_not_name_the_person() -> None:
    # "Tim" of "Tim Shipman" is a word of "Sunday Times" before it, not his name
    context = (
        "He wrote art reviews for Tatler and then for the Sunday Times. "
        "His first marriage was to the author Cressida Connolly in 1983. "
        "The critic Tim Shipman reviewed his novel."
    )
    statement = "His first marriage was to the author Tim Shipman in 1983."
    assert "cressida" in _elsewhere(context, statement).lower()


# --- a copied sentence with another name in it (`name_elsewhere`, `_copied_name`) -------------

COPIED_CONTEXT = (
    "The airline has grown fast since the war. "
    "Last year, El Al said that a route from Tel Aviv to Melbourne was in the works. "
    "Its chief executive, Dina Ben-Tal, met Lukas Brenner of the tourism board in March."
)


@pytest.mark.parametrize(
    "statement",
    [
        # a name the context has elsewhere, in the place of small words it capitalizes
        "Last year, Lukas Brenner said that a route from Tel Aviv to Melbourne was in the works.",
        # in the place of a name of its own words
        "Its chief executive, Lukas Brenner, met the tourism board in March.",
    ],
)
def test_a_copied_sentence_with_another_name_in_it(statement: str) -> None:
    context = COPIED_CONTEXT.replace("Lukas Brenner of the tourism board", "the tourism board")
    context += " Lukas Brenner runs the board."
    assert "where the sentence it copies says" in _elsewhere(context, statement)


@pytest.mark.parametrize(
    ("statement", "theirs"),
    [
        # a name that ends the statement, where the sentence it copies ends with another
        ("Her second album was produced by the pianist Tomas Varga.", "'Marta Lind'"),
        # the context's name has small words inside it
        ("She holds a degree in economics from the Hale Institute.", "'University of Leeds'"),
    ],
)
def test_a_copied_sentence_ending_with_another_name(statement: str, theirs: str) -> None:
    context = (
        "Her second album was produced by the pianist Marta Lind in Oslo. "
        "She holds a degree in economics from the University of Leeds, where she met him. "
        "Tomas Varga taught at the Hale Institute for ten years."
    )
    assert theirs in _elsewhere(context, statement)


def test_a_whole_short_sentence_copied_with_another_name() -> None:
    # two words before the name, but the statement is the context's whole sentence
    context = (
        "Interview by Jonas Weber. Photos by Ines Korhonen. Her parents, Anna and Peter "
        "Holm, ran a bakery."
    )
    assert "'Ines Korhonen'" in _elsewhere(context, "Photos by Peter Holm.")
    # ... and none where the context's sentence goes on after its name
    context = context.replace("Ines Korhonen.", "Ines Korhonen in Turku.")
    assert "where the sentence it copies says" not in _elsewhere(context, "Photos by Peter Holm.")


FIRST_CONTEXT = (
    "Harbour Trust v. Brandt was a civil suit filed in 2004 in the county court. "
    "The plaintiff, Oskar Lind, said the trust had misled him. "
    "Helen Brandt and Oskar Lind both gave evidence in the second week. "
    "He was a trustee of the Harbour Trust until 2003."
)


def test_a_copied_sentence_opened_by_another_name() -> None:
    statement = "Oskar Lind was a civil suit filed in 2004 in the county court."
    assert "'Harbour Trust v Brandt'" in _elsewhere(FIRST_CONTEXT, statement)


@pytest.mark.parametrize(
    "statement",
    [
        # the sentence's own opening name
        "Harbour Trust v. Brandt was a civil suit filed in 2004 in the county court.",
        # too few words copied after the name to say which sentence it copies
        "Oskar Lind and Helen Brandt both gave evidence.",
        # a pronoun, not a name, opens the sentence: the statement names who "he" is
        "Oskar Lind was a trustee of the Harbour Trust until 2003.",
    ],
)
def test_a_statement_s_first_name_kept(statement: str) -> None:
    assert "where the sentence it copies says" not in _elsewhere(FIRST_CONTEXT, statement)


SPEAKERS_CONTEXT = (
    "3 Comments\nMaria Jensen says:\nMay 2, 2021 at 9:15 am\nThe new timetable has made the "
    "morning trains far worse.\nTom Reilly says:\nMay 2, 2021 at 11:40 am\nI agree with the "
    "council on this one."
)


def test_a_line_given_to_its_own_speaker() -> None:
    statement = "Tom Reilly says: May 2, 2021 at 11:40 am I agree with the council on this one."
    assert "where the sentence it copies says" not in _elsewhere(SPEAKERS_CONTEXT, statement)


@pytest.mark.parametrize(
    ("context", "statement", "theirs"),
    [
        (  # a name after its article; the statement joins two sentences, so only the words
            # around the name find its sentence
            "I read the Guardian. And yet, according to the Guardian it is the best show. "
            "Life has been reduced to a series of one-liners with no context for any of them. "
            "Nina Okafor wrote the review.",
            "And yet, according to Nina Okafor it is the best show, and life has been reduced "
            "to a series of one-liners with no context for any of them.",
            "'Guardian'",
        ),
        (  # a comment thread: the statement's "says" and the lines after it follow another name
            SPEAKERS_CONTEXT,
            "Tom Reilly says: May 2, 2021 at 9:15 am The new timetable has made the morning "
            "trains far worse.",
            "'Maria Jensen'",
        ),
    ],
)
def test_a_copied_sentence_or_line_with_another_name(
    context: str, statement: str, theirs: str
) -> None:
    assert f"where the sentence it copies says {theirs}" in _elsewhere(context, statement)


def test_an_apposition_names_who_did_it() -> None:
    # "Her deputy, Oskar Lind, chaired": the sentence names who chaired, and it is not Brandt
    statement = "Her deputy, Helen Brandt, chaired the session on the harbour budget."
    assert "'Oskar Lind'" in _elsewhere(ELSEWHERE_CONTEXT, statement)


@pytest.mark.parametrize(
    ("context", "statement"),
    [
        # the sentence as the context writes it
        (
            COPIED_CONTEXT,
            "Last year, El Al said that a route from Tel Aviv to Melbourne was in the works.",
        ),
        # the context puts the statement's name beside the same words too
        (
            "The houses of York and Lancaster fought for the crown. Edward became the first "
            "king of the House of York. Somerset led the armies of the House of Lancaster "
            "in the north.",
            "Somerset led the armies of the House of Lancaster in the north.",
        ),
        # a name the context writes in short ("EU" / "European Union")
        (
            "The EU is expected to retaliate quickly. Officials of the European Union met.",
            "The European Union is expected to retaliate quickly.",
        ),
        # the words around the name cross a question: a short answer with its question
        (
            "The film was shot in Los Angeles, California. Todd Phillips directed it.",
            "Where was the film shot in Los Angeles? → Todd Phillips",
        ),
        # a name that ends the statement, one of the sentence's list
        (
            "The win was sealed with tries from Jonny May, Marshall and Henry Purdy. "
            "Tom Marshall joined the club in 2015.",
            "The win was sealed with tries from Tom Marshall.",
        ),
    ],
)
def test_a_copied_sentence_keeps_names_it_may_hold(context: str, statement: str) -> None:
    assert "where the sentence it copies says" not in _elsewhere(context, statement)
