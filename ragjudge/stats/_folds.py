"""Grouped, label-stratified folds: the one fold maker fitting, compiling and selecting share."""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

__all__ = ["group_folds"]

#: The start of the warning scikit-learn gives when a stratum has fewer rows than folds.
_RARE_CLASS = "The least populated class in y has only"


def group_folds(
    keys: Sequence[str], labels: npt.ArrayLike, *, folds: int, seed: int
) -> npt.NDArray[np.int64]:
    """A fold number per row: whole groups, label-stratified as far as groups allow.

    Args:
        keys: Each row's group key; rows of one group share a fold (one group: fold by row).
        labels: Each row's 0/1 label, or any integer stratum (label and source, say).
        folds: Folds wanted; fewer when groups or the larger class are too few.
        seed: Seeds the shuffle.

    Returns:
        The fold of each row, numbered from 0.

    Example:
        >>> group_folds(["a", "a", "b", "c"], [1, 1, 0, 1], folds=2, seed=0).tolist()
        [0, 0, 1, 1]
    """
    keys = list(keys)
    y = np.asarray(labels, dtype=np.int64)
    if len(set(keys)) < 2:  # one group: fold by row
        keys = [str(i) for i in range(len(keys))]
    # stratifying needs a class with at least k members (tiny gold: fewer folds)
    largest = int(np.bincount(y).max()) if len(y) else 0
    k = max(2, min(folds, len(set(keys)), len(keys), largest))
    from sklearn.model_selection import StratifiedGroupKFold  # slow import: only when fitting

    out = np.zeros(len(keys), dtype=np.int64)
    splitter = StratifiedGroupKFold(n_splits=k, shuffle=True, random_state=seed)
    with warnings.catch_warnings():
        # k follows the larger class: a label rarer than k folds is spread as far as it goes,
        # by design; sklearn's warning that it is ("The least populated class in y has only
        # 2 members") gives a user nothing to do, and compile printed it once per fold maker
        warnings.filterwarnings("ignore", _RARE_CLASS, UserWarning, r"sklearn\.")
        for f, (_, test) in enumerate(splitter.split(np.zeros(len(keys)), y, keys)):
            out[test] = f
    return out
