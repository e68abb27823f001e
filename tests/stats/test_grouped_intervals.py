"""Bootstrap intervals that resample whole groups of rows."""

from __future__ import annotations

import numpy as np

from ragjudge.stats import agreement, paired_difference, rating_agreement
from ragjudge.stats._agreement import _resample_weights


def _data(n: int = 80, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 2, n)
    scores = np.clip(labels * 0.3 + rng.random(n) * 0.7, 0, 1)
    return labels, scores >= 0.5, scores


def test_copies_of_a_row_in_one_group_count_as_that_row_once() -> None:
    labels, passed, scores = _data()
    alone = agreement(labels, passed, scores, n_boot=300, seed=3)
    copies = np.repeat(np.arange(len(labels)), 3)  # each row three times, one group each
    grouped = agreement(
        labels[copies], passed[copies], scores[copies], n_boot=300, seed=3, groups=copies
    )
    apart = agreement(labels[copies], passed[copies], scores[copies], n_boot=300, seed=3)
    assert grouped.groups == len(labels) and apart.groups is None and alone.groups is None
    for key in ("balanced_accuracy", "auroc", "f1"):
        low, high = np.array(grouped.ci[key], dtype=float)
        assert np.allclose([low, high], np.array(alone.ci[key], dtype=float))  # the same draws
        apart_low, apart_high = np.array(apart.ci[key], dtype=float)
        assert apart_high - apart_low < high - low  # copies resampled apart look surer


def test_rows_each_their_own_group_resample_as_rows() -> None:
    labels, passed, scores = _data()
    ids = [f"row-{i}" for i in range(len(labels))]
    a = agreement(labels, passed, scores, n_boot=200, groups=ids)
    b = agreement(labels, passed, scores, n_boot=200)
    assert a == b and a.groups is None
    one = agreement(labels, passed, scores, n_boot=200, groups=["doc"] * len(labels))
    assert one.groups == 1 and one.ci["balanced_accuracy"] == [None, None]  # no spread to see


def test_rows_of_a_group_weigh_the_same_in_every_resample() -> None:
    groups = ["a", "a", "b", "c", "c", "c", "d"]
    weights = _resample_weights(5, 50, len(groups), groups)
    assert weights.shape == (50, 7)
    assert (weights[:, 0] == weights[:, 1]).all() and (weights[:, 3] == weights[:, 5]).all()
    drawn = weights[:, [0, 2, 3, 6]].sum(axis=1)  # one column per group
    assert (drawn == 4).all()  # each resample draws as many groups as there are


def test_the_paired_gain_resamples_groups_too() -> None:
    labels, passed, scores = _data(seed=1)
    weak = (scores + np.random.default_rng(2).normal(0, 0.3, len(scores))) >= 0.5
    copies = np.repeat(np.arange(len(labels)), 2)
    alone = paired_difference(labels, (passed, scores), (weak, weak), n_boot=300, seed=4)
    grouped = paired_difference(
        labels[copies],
        (passed[copies], scores[copies]),
        (weak[copies], weak[copies]),
        n_boot=300,
        seed=4,
        groups=copies,
    )
    assert np.allclose(
        np.array(grouped["balanced_accuracy"], dtype=float),
        np.array(alone["balanced_accuracy"], dtype=float),
    )


def test_alpha_against_gold_resamples_groups_too() -> None:
    labels, passed, _ = _data(seed=5)
    copies = np.repeat(np.arange(len(labels)), 2)
    matrix = np.array([labels, passed], dtype=float)
    alone = rating_agreement(matrix, n_boot=300, seed=6)
    grouped = rating_agreement(matrix[:, copies], n_boot=300, seed=6, groups=copies)
    low, high = np.array(grouped.ci["krippendorff_alpha"], dtype=float)
    a_low, a_high = np.array(alone.ci["krippendorff_alpha"], dtype=float)
    assert high - low > 0 and abs(low - a_low) < 0.03 and abs(high - a_high) < 0.03
