"""One module per kind of claim the offline judge reads in a statement.

Each module parses its marker in the statement and in a context sentence aligned with it,
compares the two and writes the reason: `scope` (all / every / always where the sentence says
some, most, "N of M" or often), `modality` (will / proves / plainly where the sentence hedges),
`comparison` (a rank, superlative, comparative or multiplier changed), `condition` (a condition
or exception of the sentence dropped), `causality` (a cause where the sentence says a link) and
`quantity` (a number with another unit, or given for another thing; a sum or difference the
passage gives). Each exposes `conflict(statement, sentence) -> str`, "" when it finds none;
`ragjudge.offline.features` assembles them (`claim_conflicts`), with `change` (a verb of change
its own figures deny, "fell from 70 to 160": `conflict(statement)`, read without the context).

Two more read the statement against the context's index (`ContextIndex`) and its best passage,
and `ragjudge.offline.features` calls them itself: `names` (a name, date or word swapped for
the one in the same slot of the passage, names in swapped roles, a role given to another name;
`conflict(index, best, statement, tokens, content, in_ctx) -> (entity, word)`) and `polarity`
(a negation added or dropped, a word whose opposite the passage says: `negation_mismatch`,
`antonym_conflict`, `slot_antonym`). Two read a claim on its own, not by the support model
(a `reading.Reading`): `abstention` (a statement that declines to answer) and `answer` (a short
answer kept with its question)."""

from __future__ import annotations

from collections.abc import Sequence

from ragjudge.offline.claims import (
    causality,
    change,
    comparison,
    condition,
    modality,
    quantity,
    scope,
)

__all__ = ["claim_conflicts"]


def claim_conflicts(statement: str, sentences: Sequence[str]) -> tuple[str, str, str]:
    """What the claims modules find in a statement against its aligned context sentences.

    Args:
        statement: The statement text.
        sentences: The context sentences that say most of it.

    Returns:
        `(contradiction, overclaim, quantity)`: a change its own figures deny, or the first
        scope or comparison conflict (the context says otherwise); the first modality,
        condition or causality conflict (the statement is surer than the context); and the
        first quantity conflict (another unit, or a value given for another thing, read
        against the sentences together); "" where none.
    """
    contradiction = change.conflict(statement)  # its own figures deny its verb
    overclaim = ""
    for sentence in sentences:
        contradiction = contradiction or scope.conflict(statement, sentence)
        contradiction = contradiction or comparison.conflict(statement, sentence)
        overclaim = overclaim or modality.conflict(statement, sentence)
        overclaim = overclaim or condition.conflict(statement, sentence)
        overclaim = overclaim or causality.conflict(statement, sentence)
    return contradiction, overclaim, quantity.conflicts(statement, sentences)
