"""`uncertain`'s order: the two rows nearest the threshold, then one of a seeded shuffle,
each row once; the rows done or held are skipped without changing the order."""

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


def test_two_nearest_then_one_of_the_shuffle() -> None:
    scores = np.random.default_rng(0).random(300)
    done: set[int] = set()
    strategy = UncertainStrategy(scores, threshold=0.4, seed=5, done=done.__contains__)
    picks = _picks(strategy, 300, done)
    assert sorted(picks) == list(range(300))  # every row once
    nearest = list(np.argsort(np.abs(scores - 0.4), kind="stable"))
    rng = np.random.default_rng(5)  # the ties' draw first, then the shuffle
    rng.random(300)
    shuffled = list(rng.permutation(300))
    placed: set[int] = set()
    for k, row in enumerate(picks):
        source = shuffled if k % 3 == 2 else nearest
        assert row == next(r for r in source if r not in placed), k
        placed.add(row)


def test_the_random_picks_reach_rows_the_judge_is_sure_of() -> None:
    scores = np.linspace(0.0, 1.0, 1001)
    done: set[int] = set()
    strategy = UncertainStrategy(scores, threshold=0.5, seed=1, done=done.__contains__)
    picks = _picks(strategy, 30, done)
    distance = np.abs(scores[picks] - 0.5)
    assert (distance[0::3] < 0.011).all() and (distance[1::3] < 0.011).all()
    assert distance[2::3].max() > 0.2  # ten uniform rows: not all in the band of the nearest


def test_the_same_seed_gives_the_same_order_and_nan_counts_as_unsure() -> None:
    scores = np.array([0.9, np.nan, 0.1, 0.55, 0.5, 0.2, 0.8])

    def order(seed: int) -> list[int]:
        return list(UncertainStrategy(scores, threshold=0.5, seed=seed, done=lambda i: False).order)

    assert order(2) == order(2)
    assert set(order(2)[:2]) == {1, 4}  # distance 0: the unscored row and the one at 0.5


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
    assert first is not None and first.index != 0
    held = first.index
    second = strategy.next(lambda i: i != held)  # another reviewer holds the first
    assert second is not None and second.index not in (0, held)
    done.update(range(6))
    assert strategy.next(lambda i: True) is None
