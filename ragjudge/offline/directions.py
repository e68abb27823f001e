"""Which way each of the offline judge's answer-level features points: for the answer (+1),
against it (-1), or either way (0: a count).

Every fit of the answer model (`fit_offline`, compile's learner, the shipped defaults) keeps
each weight on its side: the data may weigh a feature down to 0 where it misfires, but never
turn it around. Fitted freely on the gold sets, the answer model had turned a negation
mismatch, an antonym and a contradicted statement into evidence *for* an answer, and the
statements' least confidence into evidence against it (overlapping features weighed against
each other, and contradictions that misfire on long faithful answers), and whole mode then
passed "The bridge carries trains." against "The bridge does not carry trains." with full
confidence. Bounded, the defaults refitted without a source judge it better in whole mode
(leave-one-source-out, docs/figures.md).

The statement model's weights stay free: there a contradiction decides the verdict by rule
(`STATEMENT_RULES`) whatever the weights, and bounding them cost SummEdits 1.2 points of
fitted balanced accuracy (`python benchmarks/bench_offline_loso.py`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

__all__ = ["ANSWER_DIRECTIONS", "directions"]

ANSWER_DIRECTIONS: Mapping[str, int] = {
    "min_confidence": 1,
    "mean_confidence": 1,
    "logit_min_confidence": 1,
    "fraction_unsupported": -1,
    "answer_coverage": 1,
    "answer_weighted_coverage": 1,
    "answer_bigram_coverage": 1,
    "max_novel_numbers": -1,
    "max_novel_names": -1,
    "total_novel_weight": -1,
    "any_negation_mismatch": -1,
    "any_antonym_conflict": -1,
    "novel_from_question": -1,
    "log_statements": 0,
    "any_number_conflict": -1,
    "any_entity_conflict": -1,
    "any_word_substitution": -1,
    "fraction_hedged": -1,
    "fraction_contradicted": -1,
    "min_sentence_similarity": 1,
    "any_slot_conflict": -1,
}


def directions(names: Sequence[str]) -> list[int]:
    """The direction of each answer feature in `names`, in order.

    Raises:
        KeyError: A feature without a direction (a new feature must say which way it points).
    """
    missing = [n for n in names if n not in ANSWER_DIRECTIONS]
    if missing:
        raise KeyError(f"no direction for the offline feature(s) {', '.join(missing)}")
    return [ANSWER_DIRECTIONS[n] for n in names]
