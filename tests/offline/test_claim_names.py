"""Names and roles (`ragjudge.offline.claims.names`): a name, date or word swapped for the one
in the same slot of the best passage, and names in swapped roles. Sentences written by hand,
in English, German and French, against the module's entry point."""

from __future__ import annotations

import pytest

from ragjudge.offline.claims.names import conflict
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
