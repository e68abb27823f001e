"""Must-pass kinds that change how a supported sentence is written, not what it says."""

from __future__ import annotations

import random

from ragjudge.data._gold import GoldRecord
from ragjudge.probe._probe import Skip, Variant
from ragjudge.probe._registry import Pool, generator
from ragjudge.probe._text import candidate_sentences, language


@generator(
    kind="context_sentence",
    expect="pass",
    summary="a sentence of the context, word for word",
)
def context_sentence(row: GoldRecord, *, rng: random.Random, pool: Pool) -> Variant | Skip:
    """The answer is one sentence of the context as it stands."""
    found = candidate_sentences(row)
    if not found:
        return Skip("no sentence fit to answer with")
    sentence = found[rng.randrange(len(found))]
    return Variant(answer=sentence, before=sentence, after=sentence, language=language(sentence))
