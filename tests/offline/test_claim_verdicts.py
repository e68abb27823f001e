"""The claims modules reach the offline judge's statement verdict and its reason: a widened
scope, a changed comparison or a hedge stated as certain (the `overclaim` rule) is
contradicted ("no"), and the unchanged sentence stays supported."""

from __future__ import annotations

import pytest

from ragjudge.offline.model import OfflineModel

CASES = [
    (
        "Nine of the 30 pilots in the trial reported fatigue after the long flights.",
        "All of the pilots in the trial reported fatigue after the long flights.",
        "no",
        "'all' where the passage says 'nine'",
    ),
    (
        "Toronto is the second-largest city in Canada by population.",
        "Toronto is the largest city in Canada by population.",
        "no",
        "'largest' where the passage says 'second largest'",
    ),
    (
        "Die Band veröffentlichte 1999 ihr erstes Album in Hamburg.",
        "Die Band veröffentlichte 1999 ihr zweites Album in Hamburg.",
        "no",
        "where the passage says 'erstes album'",
    ),
    (
        "The river might flood the valley during the spring thaw.",
        "The river will flood the valley during the spring thaw.",
        "no",
        "'flood' said for certain where the passage only says 'might'",
    ),
    (
        "Le train est souvent en retard à la gare de Lyon.",
        "Le train est toujours en retard à la gare de Lyon.",
        "no",
        "'toujours' where the passage says 'souvent'",
    ),
    (
        "The singer won the award, joining only six other winners in its history.",
        "The singer won the award, joining only two other winners in its history.",
        "no",
        "'2' where the passage says '6'",
    ),
]


@pytest.mark.parametrize(("context", "statement", "verdict", "note"), CASES)
def test_a_claim_conflict_decides_the_verdict_and_is_named(
    context: str, statement: str, verdict: str, note: str
) -> None:
    (judged,) = OfflineModel().judge_statements(context=context, statements=[statement])
    assert judged["verdict"] == verdict, judged
    assert note in judged["reason"]
    if verdict == "no":
        assert judged["confidence"] < 0.5  # off 1.00: below the support threshold
    (same,) = OfflineModel().judge_statements(context=context, statements=[context])
    assert same["verdict"] == "yes", same


def test_a_claim_the_context_gives_another_name_is_contradicted() -> None:
    context = (
        "The museum reopened in the spring after a long renovation. "
        "Curator Ines Falk said the new wing doubled the space for paintings. "
        "The building was designed by Tomas Reyes, who also planned the city library."
    )
    statement = "Tomas Reyes said the new wing doubled the space for paintings."
    (judged,) = OfflineModel().judge_statements(context=context, statements=[statement])
    assert judged["verdict"] == "no", judged  # the context gives the claim to Ines Falk
    assert "name_elsewhere" in judged["rules"]
    assert judged["confidence"] < 0.5
    assert "the context says it of another name" in judged["reason"]
    kept = "Curator Ines Falk said the new wing doubled the space for paintings."
    (same,) = OfflineModel().judge_statements(context=context, statements=[kept])
    assert same["verdict"] == "yes", same
    assert "name_elsewhere" not in same["rules"]
