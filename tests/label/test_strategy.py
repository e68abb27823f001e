"""`uncertain`'s order: the rows by their score's distance from the threshold, ties in a
seeded shuffle, each row once; the rows done or held are skipped without changing the order."""

from __future__ import annotations

import numpy as np

from ragjudge.label._strategy import UncertainStrategy, make_strategy


def _picks(strategy: UncertainStrategy, n: int, done: set[int]) -> list[int]:
    picks = []
    for _ in range(n):
        draw = strategy.next(lambda i: True)
        assert draw is not None
        picks.append(draw.index)
        done.add(draw.index)
    return picks


def test_nearest_the_threshold_first_each_row_once() -> None:
    scores = np.random.default_rng(0).random(300)
    done: set[int] = set()
    strategy = UncertainStrategy(scores, threshold=0.4, seed=5, done=done.__contains__)
    picks = _picks(strategy, 300, done)
    assert picks == list(np.argsort(np.abs(scores - 0.4), kind="stable"))  # no ties here
    assert strategy.next(lambda i: True) is None


def test_ties_follow_the_seed_and_nan_counts_as_unsure() -> None:
    scores = np.array([0.9, np.nan, 0.1, 0.55, 0.5, 0.2, 0.8] + [0.7] * 20)

    def order(seed: int) -> list[int]:
        return list(UncertainStrategy(scores, threshold=0.5, seed=seed, done=lambda i: False).order)

    assert order(2) == order(2)
    assert set(order(2)[:2]) == {1, 4}  # distance 0: the unscored row and the one at 0.5
    assert order(2)[2] == 3
    tied = [i for i in order(2) if scores[i] == 0.7]
    assert tied != sorted(tied) or [i for i in order(3) if scores[i] == 0.7] != tied
    assert sorted(tied) == list(range(7, 27))


def test_done_and_held_rows_are_skipped() -> None:
    scores = np.array([0.5, 0.51, 0.52, 0.53, 0.54, 0.55])
    done = {0}
    strategy = make_strategy(
        "uncertain",
        scores=scores,
        sources=["a"] * 6,
        threshold=0.5,
        seed=0,
        done=done.__contains__,
    )
    assert isinstance(strategy, UncertainStrategy)
    first = strategy.next(lambda i: True)
    assert first is not None and first.index == 1
    second = strategy.next(lambda i: i != 1)  # another reviewer holds the first
    assert second is not None and second.index == 2
    done.add(2)
    third = strategy.next(lambda i: True)
    assert third is not None and third.index == 1  # the held row comes back first
    done.update(range(6))
    assert strategy.next(lambda i: True) is None
