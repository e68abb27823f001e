"""Tests of the offline judge's tree head (`ragjudge.offline.head`) and of compile keeping it."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ragjudge.offline.features import ANSWER_FEATURES, STATEMENT_FEATURES, statement_evidence
from ragjudge.offline.features import context_index as index_of
from ragjudge.offline.head import HEAD_FEATURES, TreeHead, fit_tree_head, head_features
from ragjudge.offline.model import OfflineModel, OfflineParams, cross_fit_offline, fit_offline
from ragjudge.stats._agreement import auroc

GOLD = Path(__file__).resolve().parents[2].parent / "shared" / "gold"


def _gold_rows(source: str) -> list[dict[str, Any]]:
    path = GOLD / source / "dev.jsonl"
    if not path.exists():
        pytest.skip(f"gold data not available at {path}")
    with path.open(encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle]
    random.Random(0).shuffle(rows)
    return rows


def _confidences(model: OfflineModel, rows: list[dict[str, Any]]) -> np.ndarray:
    return np.array(
        [
            model.judge_answer(
                question=r["question"], context="\n\n".join(r["contexts"]), answer=r["answer"]
            )["confidence"]
            for r in rows
        ]
    )


def test_stored_trees_predict_what_scikit_learn_fitted() -> None:
    """The JSON trees, evaluated without scikit-learn, give sklearn's own probabilities."""
    from sklearn.ensemble import GradientBoostingClassifier

    rng = np.random.default_rng(0)
    x = rng.normal(size=(300, len(HEAD_FEATURES)))
    y = (x[:, 0] * x[:, 1] + 0.3 * rng.normal(size=300) > 0).astype(np.float64)  # interaction
    head = TreeHead.model_validate_json(fit_tree_head(x, y, seed=3).model_dump_json())
    mine = np.array([head.probability(dict(zip(HEAD_FEATURES, row, strict=True))) for row in x])
    weights = np.where(y == 1, 0.5 / (y == 1).sum(), 0.5 / (y == 0).sum()) * len(y)
    theirs = GradientBoostingClassifier(
        n_estimators=100,
        max_depth=3,
        learning_rate=0.05,
        subsample=0.8,
        min_samples_leaf=10,
        random_state=3,
    ).fit(x, y.astype(int), sample_weight=weights)
    np.testing.assert_allclose(mine, theirs.predict_proba(x)[:, 1], atol=1e-9)
    assert auroc(y.astype(int), mine) > 0.9  # it learned the interaction a linear model cannot


def test_head_features_read_the_weakest_statement() -> None:
    index = index_of("Albert Einstein was born in Germany in 1879. He moved to Princeton.")
    evidence = [
        statement_evidence(index, "Einstein was born in Germany."),
        statement_evidence(index, "Einstein was born in 1885."),
    ]
    values = head_features([0.5] * len(ANSWER_FEATURES), evidence, [0.9, 0.1])
    assert len(set(HEAD_FEATURES)) == len(HEAD_FEATURES) == len(values)
    assert set(values) == set(HEAD_FEATURES)
    assert values["weakest_number_conflict"] == 1.0 == values["highest_number_conflict"]
    assert values["lowest_number_conflict"] == 0.0
    empty = head_features([0.0] * len(ANSWER_FEATURES), [], [])
    assert all(empty[f"weakest_{n}"] == 0.0 for n in STATEMENT_FEATURES)


def test_a_fitted_head_round_trips_and_judges_the_same() -> None:
    rows = _gold_rows("summedits")[:160]
    params = fit_offline(rows, regularization=0.1, head=True)
    assert params.answer_head is not None
    again = OfflineParams.model_validate_json(params.model_dump_json())
    assert again == params
    np.testing.assert_array_equal(
        _confidences(OfflineModel(params), rows[:20]), _confidences(OfflineModel(again), rows[:20])
    )
    plain = fit_offline(rows, regularization=0.1)
    assert plain.answer_head is None
    assert not np.allclose(
        _confidences(OfflineModel(params), rows[:20]), _confidences(OfflineModel(plain), rows[:20])
    )


def test_cross_fit_keeps_the_head_where_it_ranks_better_held_out() -> None:
    """Summedits: unfaithful summaries differ from faithful ones by one edited word, which
    matters in interaction with how much else matches. Cross-validation on 400 rows keeps the
    head, and on 300 rows it never saw the head ranks better than the logistic model alone."""
    rows = _gold_rows("summedits")
    train, test = rows[:400], rows[400:700]
    groups = [r["meta"]["group_id"] for r in train]
    cv = cross_fit_offline(train, groups=groups, candidates=[0.1], head=None)
    assert cv.head and cv.head_score is not None
    assert cv.head_score >= cv.scores[0.1] + 0.005
    assert all(p.answer_head is not None for p in cv.fold_params)
    labels = [r["faithful"] for r in test]
    with_head = auroc(labels, _confidences(OfflineModel(fit_offline(train, head=True)), test))
    without = auroc(labels, _confidences(OfflineModel(fit_offline(train)), test))
    assert with_head > without + 0.02


def test_cross_fit_does_not_try_the_head_unless_asked() -> None:
    rows = _gold_rows("halueval")[:90]
    cv = cross_fit_offline(rows, candidates=[0.1], folds=3)
    assert not cv.head and cv.head_score is None
    assert all(p.answer_head is None for p in cv.fold_params)
    forced = cross_fit_offline(rows, candidates=[0.1], folds=3, head=True)
    assert forced.head and all(p.answer_head is not None for p in forced.fold_params)
