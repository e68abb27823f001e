"""The gain compile prints: compiled minus uncompiled with a paired bootstrap interval."""

from __future__ import annotations

import numpy as np

from ragjudge.stats import agreement, paired_difference


def test_paired_difference_is_the_difference_with_an_interval_around_it() -> None:
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 2, 200)
    good = labels + rng.normal(0, 0.6, 200)
    weak = labels + rng.normal(0, 1.5, 200)
    a, b = (good > 0.5, good), (weak > 0.5, weak)
    diff = paired_difference(labels, a, b, n_boot=500, seed=1)
    for key in ("balanced_accuracy", "auroc"):
        point = getattr(agreement(labels, *a, n_boot=0), key) - getattr(
            agreement(labels, *b, n_boot=0), key
        )
        value, low, high = diff[key]
        assert value is not None and low is not None and high is not None
        assert value == point and low <= value <= high and low > 0  # a real gain
    same = paired_difference(labels, a, a, n_boot=200)
    assert same["auroc"] == [0.0, 0.0, 0.0]  # paired: no spread when the judges agree
