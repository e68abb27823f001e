"""Turn per-sentence scores into per-row scores and pass decisions (used by compile).

Per-sentence scores are computed once (`DeterministicFaithfulness.batch`); an Optuna study then
varies only the parameters below, so a trial costs a few numpy operations.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, Literal

import numpy as np

from ragjudge.exceptions import ConfigurationError

__all__ = ["SCORE_KEYS", "Aggregate", "aggregate_scores", "validate_aggregate_params"]

#: Short score name -> per-sentence key in a `DeterministicFaithfulness` result.
SCORE_KEYS: dict[str, str] = {
    "rouge": "rouge_p_by_sentence",
    "token_overlap": "token_overlap_p_by_sentence",
    "bleu": "bleu_score_by_sentence",
}

Aggregate = Literal["fraction", "mean", "min"]
_AGGREGATES = ("fraction", "mean", "min")


def validate_aggregate_params(params: Mapping[str, Any]) -> dict[str, Any]:
    """Check and normalise compile parameters for `aggregate_scores`.

    Args:
        params: `{"score": "rouge" | "token_overlap" | "bleu" | "mean" | list of names,
            "sentence_threshold": float, "pass_threshold": float, "aggregate": "fraction"}`.
            `"mean"` averages all three scores per sentence; a list averages the named ones.
            `aggregate` (optional, default `"fraction"`) is how sentences combine into the row
            score: the fraction of sentences whose score is >= `sentence_threshold` (the
            reference definition), the mean sentence score, or the minimum.

    Returns:
        A normalised copy with `"score"` as a sorted list of names.

    Raises:
        ConfigurationError: For an unknown score name, aggregate or a non-finite threshold.
    """
    score = params.get("score", "rouge")
    names = (
        list(SCORE_KEYS) if score == "mean" else [score] if isinstance(score, str) else list(score)
    )
    bad = [n for n in names if n not in SCORE_KEYS]
    if bad or not names:
        raise ConfigurationError(
            "The `score` parameter must be one of "
            f"{sorted([*SCORE_KEYS, 'mean'])} or a list of {sorted(SCORE_KEYS)}. Got {score!r}."
        )
    aggregate = params.get("aggregate", "fraction")
    if aggregate not in _AGGREGATES:
        raise ConfigurationError(
            f"The `aggregate` parameter must be one of {list(_AGGREGATES)}. Got {aggregate!r}."
        )
    out: dict[str, Any] = {"score": sorted(set(names)), "aggregate": aggregate}
    for key, default in (("sentence_threshold", 0.5), ("pass_threshold", 0.5)):
        value = float(params.get(key, default))
        if not math.isfinite(value):
            raise ConfigurationError(
                f"The `{key}` parameter must be a finite float. Got {value!r}."
            )
        out[key] = value
    return out


def aggregate_scores(
    rows: Sequence[Mapping[str, Any]], params: Mapping[str, Any]
) -> tuple[np.ndarray, np.ndarray]:
    """Per-row continuous score and pass decision from stored per-sentence scores.

    Args:
        rows: `DeterministicFaithfulness` results (only the `*_by_sentence` lists are read).
        params: See `validate_aggregate_params`.

    Returns:
        `(scores, passed)`: float64 scores in [0, 1] and booleans `scores >= pass_threshold`.
        A row with no sentences (empty answer) scores 0.0.

    Example:
        >>> rows = [{"rouge_p_by_sentence": [0.9, 0.2], "token_overlap_p_by_sentence": [1, 0],
        ...          "bleu_score_by_sentence": [0.5, 0.1]}]
        >>> s, ok = aggregate_scores(rows, {"score": "rouge", "sentence_threshold": 0.5,
        ...                                 "pass_threshold": 0.5})
        >>> float(s[0]), bool(ok[0])
        (0.5, True)
    """
    p = validate_aggregate_params(params)
    keys = [SCORE_KEYS[n] for n in p["score"]]
    thr = p["sentence_threshold"]
    agg = p["aggregate"]
    scores = np.zeros(len(rows), dtype=np.float64)
    for k, row in enumerate(rows):
        per = np.mean([np.asarray(row[key], dtype=np.float64) for key in keys], axis=0)
        if per.size == 0:
            continue
        if agg == "fraction":
            scores[k] = float(np.mean(per >= thr))
        elif agg == "mean":
            scores[k] = float(np.mean(per))
        else:
            scores[k] = float(np.min(per))
    return scores, scores >= p["pass_threshold"]
