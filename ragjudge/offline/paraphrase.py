"""Paraphrase evidence for the offline judge: MiniLM similarity at sentence and word level.

Used when the offline judge's parameters say `paraphrase=True` (`--lm local/minilm`, extra
`ragjudge[paraphrase]`). Two statement features join the lexical ones:

- `sentence_similarity`: the highest cosine between the statement and a sentence of the
  passages that share most words with it (the same candidates the lexical match ranks), so a
  statement that says what a sentence says in other words still finds it;
- `paraphrase_coverage`: the weighted share of the statement's content words found in its best
  passage, counting a word that is absent as found when a word of that passage means nearly the
  same (cosine of their MiniLM embeddings at least `WORD_MATCH`): "founded" / "established",
  "bought" / "purchased", "physician" / "doctor". Numbers and names never match this way: a
  different number or name is a different claim (the lexical contradiction features see it).

Their weights are fitted by compile like every other weight; they are 0 in files fitted without
paraphrase, so those judges score exactly as before.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ragjudge.offline.text import Token, tokenize

if TYPE_CHECKING:
    from ragjudge.offline.minilm import MiniLM

__all__ = ["PARAPHRASE_FEATURES", "WORD_MATCH", "Paraphrase", "paraphrase_evidence"]

PARAPHRASE_FEATURES: tuple[str, ...] = ("sentence_similarity", "paraphrase_coverage")
#: Two words count as the same claim at this cosine or above (all-MiniLM-L6-v2, words alone):
#: founded/established 0.77, large/big 0.81, bought/purchased 0.91; red/blue 0.73,
#: increase/decrease 0.61, Paris/London 0.58 stay below.
WORD_MATCH = 0.75


@dataclass
class Paraphrase:
    """A statement's paraphrase evidence.

    Attributes:
        features: Values in `PARAPHRASE_FEATURES` order.
        matches: `(statement word, passage word)` pairs matched by meaning, not by form.
    """

    features: list[float]
    matches: list[tuple[str, str]] = field(default_factory=list)


def paraphrase_evidence(
    *,
    encoder: MiniLM,
    statement: str,
    sentences: Sequence[str],
    passage: str,
    content: Sequence[Token],
    found: Sequence[bool],
    weights: Sequence[float],
) -> Paraphrase:
    """Compute the paraphrase features of one statement.

    Args:
        encoder: The MiniLM encoder.
        statement: The statement text.
        sentences: Candidate context sentences (those of the best-matching passages).
        passage: The best passage's text ("" when there is none).
        content: The statement's content tokens.
        found: Whether each content token was found in the best passage by form (or value).
        weights: Each content token's weight (`token_weight`).

    Returns:
        The statement's `Paraphrase`.
    """
    similarity = 0.0
    if sentences:
        vectors = encoder.encode([statement, *sentences])
        similarity = float(np.max(vectors[1:] @ vectors[0]))
    ok = list(found)
    matches: list[tuple[str, str]] = []
    wanted = [
        i
        for i, t in enumerate(content)
        if not ok[i] and not t.is_number and not (t.is_capital and not t.sentence_initial)
    ]
    if wanted and passage:
        words = list(
            dict.fromkeys(t.norm for t in tokenize(passage) if t.is_content and not t.is_number)
        )
        if words:
            mine = encoder.encode([content[i].norm for i in wanted])
            theirs = encoder.encode(words)
            sims = mine @ theirs.T
            for row, i in enumerate(wanted):
                j = int(np.argmax(sims[row]))
                if sims[row, j] >= WORD_MATCH:
                    ok[i] = True
                    matches.append((content[i].text, words[j]))
    total = sum(weights) or 1.0
    coverage = sum(w for w, hit in zip(weights, ok, strict=True) if hit) / total
    return Paraphrase(features=[similarity, coverage if content else 0.0], matches=matches)
