"""A tree head for the offline judge's answer model, trained on the user's gold by compile.

The answer-level logistic model weighs aggregates of the statements' evidence (mean and weakest
confidence, any number conflict, ...) additively. Some sources' labels turn on interactions it
cannot express: a missing word matters when the coverage is otherwise perfect, a conflict matters
more in a short answer. The head is a small gradient-boosted tree ensemble over the answer
features plus the full evidence of the weakest statement and the minimum and maximum of each
statement feature. The answer confidence becomes the mean of the logistic model's probability and
the head's, so the head refines the linear model rather than replacing it.

Compile trains it (scikit-learn's `GradientBoostingClassifier`, about a second on a few hundred
rows) and keeps it only when cross-validation on the train rows says it ranks answers better
(`cross_fit_offline(head=None)`). The trees are stored as plain lists in the judge file and
evaluated here without scikit-learn.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pydantic

from ragjudge.offline.features import ANSWER_FEATURES, STATEMENT_FEATURES, StatementEvidence

__all__ = ["HEAD_FEATURES", "Tree", "TreeHead", "fit_tree_head", "head_features"]

FloatArray = npt.NDArray[np.float64]

#: The head's inputs, in order: the answer features, then the weakest statement's features, then
#: the lowest and the highest value of each statement feature over the answer's statements.
HEAD_FEATURES: tuple[str, ...] = (
    *ANSWER_FEATURES,
    *(f"weakest_{name}" for name in STATEMENT_FEATURES),
    *(f"lowest_{name}" for name in STATEMENT_FEATURES),
    *(f"highest_{name}" for name in STATEMENT_FEATURES),
)

#: Boosting settings: shallow trees, slow learning and row subsampling, for a few hundred rows.
N_TREES = 100
MAX_DEPTH = 3
LEARNING_RATE = 0.05
SUBSAMPLE = 0.8
MIN_SAMPLES_LEAF = 10


class Tree(pydantic.BaseModel):
    """One regression tree, as parallel node arrays (a leaf has `left == -1`).

    Attributes:
        feature: Index into `TreeHead.features` of each split node's feature.
        threshold: Go left when the feature is at most this.
        left: Left child of each node, or -1 at a leaf.
        right: Right child of each node, or -1 at a leaf.
        value: Each node's output (used at leaves).
    """

    model_config = pydantic.ConfigDict(extra="forbid")

    feature: list[int]
    threshold: list[float]
    left: list[int]
    right: list[int]
    value: list[float]

    def predict(self, x: Sequence[float]) -> float:
        """The tree's output for one feature vector (in `TreeHead.features` order)."""
        node = 0
        while self.left[node] != -1:
            node = (
                self.left[node]
                if x[self.feature[node]] <= self.threshold[node]
                else self.right[node]
            )
        return self.value[node]


class TreeHead(pydantic.BaseModel):
    """A gradient-boosted tree ensemble giving the probability that an answer is faithful.

    Attributes:
        features: Names of the inputs the trees index, in order (`HEAD_FEATURES` when fitted);
            names a later version no longer computes read as 0.
        base: Initial log-odds.
        learning_rate: Shrinkage applied to every tree's output.
        trees: The trees.
    """

    model_config = pydantic.ConfigDict(extra="forbid")

    features: list[str]
    base: float
    learning_rate: float
    trees: list[Tree]

    def probability(self, values: dict[str, float]) -> float:
        """Probability of a faithful answer from its head inputs, by name.

        Args:
            values: Input values by name (see `head_features`).

        Returns:
            A probability in [0, 1].
        """
        # scikit-learn's trees compare float32 inputs; rounding the same way keeps every split
        # on the side it was fitted on
        x = np.array([values.get(name, 0.0) for name in self.features], np.float32).tolist()
        z = self.base + self.learning_rate * sum(t.predict(x) for t in self.trees)
        return float(1.0 / (1.0 + np.exp(-np.clip(z, -30.0, 30.0))))


def head_features(
    answer: Sequence[float],
    evidence: Sequence[StatementEvidence],
    confidences: Sequence[float],
) -> dict[str, float]:
    """The head's inputs for one answer.

    Args:
        answer: The answer features, in `ANSWER_FEATURES` order.
        evidence: Each statement's evidence.
        confidences: Each statement's support confidence, same order.

    Returns:
        Values by name, for every name in `HEAD_FEATURES`.
    """
    values = dict(zip(ANSWER_FEATURES, (float(v) for v in answer), strict=True))
    n = len(STATEMENT_FEATURES)
    if evidence:
        table = np.array([e.features for e in evidence], dtype=np.float64).reshape(-1, n)
        weakest = table[int(np.argmin(confidences))]
        low, high = table.min(axis=0), table.max(axis=0)
    else:
        weakest = low = high = np.zeros(n)
    for i, name in enumerate(STATEMENT_FEATURES):
        values[f"weakest_{name}"] = float(weakest[i])
        values[f"lowest_{name}"] = float(low[i])
        values[f"highest_{name}"] = float(high[i])
    return values


def head_matrix(rows: Sequence[dict[str, float]]) -> FloatArray:
    """Stack head inputs (`head_features` dicts) into a matrix in `HEAD_FEATURES` order."""
    return np.array(
        [[row[name] for name in HEAD_FEATURES] for row in rows], dtype=np.float64
    ).reshape(-1, len(HEAD_FEATURES))


def fit_tree_head(x: FloatArray, y: FloatArray, *, seed: int = 0) -> TreeHead:
    """Fit the head on answer rows, both classes weighted equally.

    Args:
        x: Head inputs, one row per answer, in `HEAD_FEATURES` order (`head_matrix`).
        y: 1 for a faithful answer, 0 for an unfaithful one.
        seed: Seed of the row subsampling.

    Returns:
        The fitted `TreeHead`.

    Raises:
        ValueError: If `y` holds one class only.
    """
    if len(np.unique(y)) < 2:
        raise ValueError("fit_tree_head needs answers of both classes")
    from sklearn.ensemble import GradientBoostingClassifier  # slow import: only when fitting

    weights = np.where(y == 1, 0.5 / max(1, int((y == 1).sum())), 0.5 / max(1, int((y == 0).sum())))
    model = GradientBoostingClassifier(
        n_estimators=N_TREES,
        max_depth=MAX_DEPTH,
        learning_rate=LEARNING_RATE,
        subsample=SUBSAMPLE,
        min_samples_leaf=MIN_SAMPLES_LEAF,
        random_state=seed,
    )
    model.fit(x, y.astype(np.int64), sample_weight=weights * len(y))
    trees = [_tree(estimator.tree_) for estimator in model.estimators_[:, 0]]
    origin = np.zeros(x.shape[1])
    shrunk = model.learning_rate * sum((t.predict(origin.tolist()) for t in trees), 0.0)
    return TreeHead(
        features=list(HEAD_FEATURES),
        base=float(model.decision_function(origin.reshape(1, -1))[0]) - shrunk,
        learning_rate=float(model.learning_rate),
        trees=trees,
    )


def _tree(tree: Any) -> Tree:
    leaf = tree.children_left == -1
    return Tree(
        feature=[0 if is_leaf else int(f) for f, is_leaf in zip(tree.feature, leaf, strict=True)],
        threshold=[float(t) for t in tree.threshold],
        left=[int(c) for c in tree.children_left],
        right=[int(c) for c in tree.children_right],
        value=[float(v) for v in tree.value[:, 0, 0]],
    )
