"""The one fold maker (`stats.group_folds`): a label rarer than the folds is spread as far as it
goes, silently (scikit-learn's warning about it reached compile's terminal six times)."""

from __future__ import annotations

import warnings

import numpy as np

from ragjudge.stats._folds import group_folds


def test_a_rare_label_is_spread_without_a_warning() -> None:
    labels = [1] * 10 + [0] * 2
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        folds = group_folds([str(i) for i in range(12)], labels, folds=5, seed=0)
    assert not caught, [str(w.message) for w in caught]
    assert len(set(folds.tolist())) == 5
    rare = folds[np.asarray(labels) == 0]
    assert len(set(rare.tolist())) == 2  # the two rare rows in different folds


def test_the_filter_leaves_other_warnings_alone() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        group_folds(["a", "b", "c", "d"], [1, 0, 1, 0], folds=2, seed=0)
        warnings.warn("something else", UserWarning, stacklevel=1)
    assert [str(w.message) for w in caught] == ["something else"]
