"""An answer's reason says, for each statement it could not support, what the judge found."""

from __future__ import annotations

import ragjudge
from ragjudge.programs._results import StatementResult
from ragjudge.programs.faithfulness import statement_reason

POLICY = {"unsure": "unsupported", "aggregation": "fraction"}


def test_each_unsupported_statement_carries_its_finding() -> None:
    statements = [
        StatementResult(text="A.", verdict="yes", reason="supported"),
        StatementResult(text="B.", verdict="no", reason="'4' where the passage says '5'; more"),
        StatementResult(text="C.", verdict="unsure", reason=""),
    ]
    text = statement_reason(1 / 3, statements, POLICY)
    assert text == (
        "1 of 3 statements are supported; 'B.' could not be verified: '4' where the passage "
        "says '5'; 'C.' is uncertain (counted as unsupported)"
    )


def test_more_than_three_are_counted() -> None:
    statements = [StatementResult(text=f"S{i}.", verdict="no", reason="x") for i in range(5)]
    assert statement_reason(0.0, statements, POLICY).endswith("; 2 more not supported")


def test_the_offline_judge_names_the_number_it_could_not_find() -> None:
    r = ragjudge.Faithfulness()(
        question="", contexts=["Turnout was 48 percent."], answer="Turnout was 84%."
    )
    assert r.passed is False
    assert "'Turnout was 84%.' could not be verified: " in r.reason
    assert "'84'" in r.reason.split("could not be verified: ")[1]
