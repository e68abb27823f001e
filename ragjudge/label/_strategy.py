"""Which row a reviewer sees next: `random` (stratified by source), `uncertain` (the judge's
least sure rows first, every third pick a random row) and `estimate` (draws with probability
from the judge's expected error, for the active-inference estimate, `ragjudge.stats._active`).

Each strategy is built once from the cached scores (O(N log N)) and answers `next` without
judging anything again: a pointer into a fixed order (random, uncertain) or a binary search in
the cumulative probabilities (estimate).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal

import numpy as np

__all__ = ["STRATEGIES", "Draw", "Strategy", "make_strategy"]

StrategyName = Literal["random", "uncertain", "estimate"]
STRATEGIES: tuple[str, ...] = ("random", "uncertain", "estimate")


class Draw:
    """A row chosen: its index, and (estimate) the probability the draw had of picking it."""

    __slots__ = ("index", "probability")

    def __init__(self, index: int, probability: float | None = None) -> None:
        self.index = index
        self.probability = probability


class Strategy:
    """Chooses the next row among rows `available` says are free."""

    name: str = ""

    def next(self, available: Callable[[int], bool]) -> Draw | None:  # pragma: no cover
        """The next row (None: none left)."""
        raise NotImplementedError


class _Ordered(Strategy):
    """Rows in a fixed order; a pointer skips the rows done for good."""

    def __init__(self, order: np.ndarray) -> None:
        self.order = order
        self.start = 0

    def next_in(self, available: Callable[[int], bool], done: Callable[[int], bool]) -> int | None:
        while self.start < self.order.size and done(int(self.order[self.start])):
            self.start += 1
        for position in range(self.start, self.order.size):
            index = int(self.order[position])
            if available(index) and not done(index):  # past a held row, rows may be done
                return index
        return None


class UncertainStrategy(_Ordered):
    """The rows the judge is least sure of, with every `RANDOM_EVERY`-th pick a random row.

    Two orders are interleaved into one, built once: the rows by their score's distance from
    the judge's threshold (ties: a seeded shuffle) and a seeded shuffle of all rows. Picks
    1 and 2 of every 3 are the nearest rows not taken yet, pick 3 the next row of the shuffle
    not taken yet. The nearest rows teach compile the threshold with few labels; but rows
    near the threshold only are a biased sample: compile holds out a share of the labeled rows
    to score its candidates on, and with no row the judge is sure of there, it fits the
    threshold and weights to a narrow band of scores. A fixed share of uniform rows (an
    epsilon-greedy mix, epsilon = 1/3) keeps every part of the scores in the labels and the
    held-out share, at a third of the labels' pull toward the threshold.
    """

    name = "uncertain"
    RANDOM_EVERY = 3

    def __init__(
        self, scores: np.ndarray, *, threshold: float, seed: int, done: Callable[[int], bool]
    ) -> None:
        rng = np.random.default_rng(seed)
        tie = rng.random(scores.size)
        distance = np.abs(np.where(np.isnan(scores), threshold, scores) - threshold)
        nearest = np.lexsort((tie, distance))
        shuffled = rng.permutation(scores.size)
        super().__init__(_interleave(nearest, shuffled, every=self.RANDOM_EVERY))
        self.done = done

    def next(self, available: Callable[[int], bool]) -> Draw | None:
        index = self.next_in(available, self.done)
        return None if index is None else Draw(index)


def _interleave(first: np.ndarray, second: np.ndarray, *, every: int) -> np.ndarray:
    """`first` and `second` (two orders of the same rows) in one: each `every`-th place the
    next row of `second` not placed yet, the others the next of `first` not placed yet."""
    placed = np.zeros(first.size, dtype=bool)
    out = np.empty(first.size, dtype=np.int64)
    a = b = 0
    for k in range(first.size):
        if k % every == every - 1:
            while placed[second[b]]:
                b += 1
            row = second[b]
        else:
            while placed[first[a]]:
                a += 1
            row = first[a]
        placed[row] = True
        out[k] = row
    return out


class RandomStrategy(Strategy):
    """A seeded shuffle per source; each pick goes to the source furthest below its share of
    the rows (proportional allocation), so the labels follow the sources' mix."""

    name = "random"

    def __init__(self, sources: Sequence[str], *, seed: int, done: Callable[[int], bool]) -> None:
        rng = np.random.default_rng(seed)
        by_source: dict[str, list[int]] = {}
        for index, source in enumerate(sources):
            by_source.setdefault(source, []).append(index)
        self.sources = sorted(by_source)
        self.orders = [_Ordered(rng.permutation(by_source[s])) for s in self.sources]
        self.shares = np.array([len(by_source[s]) for s in self.sources], dtype=float)
        self.shares /= self.shares.sum()
        self.taken = np.zeros(len(self.sources))
        self.done = done
        for s, source in enumerate(self.sources):
            self.taken[s] = sum(1 for i in by_source[source] if done(i))

    def next(self, available: Callable[[int], bool]) -> Draw | None:
        total = self.taken.sum() + 1
        for s in np.argsort(self.taken / total - self.shares, kind="stable"):
            index = self.orders[s].next_in(available, self.done)
            if index is not None:
                return Draw(index)
        return None

    def note_done(self, index: int, source_of: Callable[[int], str]) -> None:
        """Count a labeled row toward its source's share."""
        self.taken[self.sources.index(source_of(index))] += 1


class EstimateStrategy(Strategy):
    """Draws with replacement from an `AdaptiveSampler`: by the judge's expected error, learned
    from each label as it comes (`observe`)."""

    name = "estimate"

    def __init__(self, scores: np.ndarray, *, seed: int | Sequence[int]) -> None:
        from ragjudge.stats._active import AdaptiveSampler

        self.sampler = AdaptiveSampler(scores, seed=seed)

    def draw(self) -> Draw:
        """One draw (the caller decides what to do with a row already labeled)."""
        index, probability = self.sampler.draw()
        return Draw(index, probability)

    def observe(self, index: int, label: int) -> None:
        """Learn from a drawn row's label."""
        self.sampler.observe(index, label)

    def next(self, available: Callable[[int], bool]) -> Draw | None:
        return self.draw()


def make_strategy(
    name: str,
    *,
    scores: np.ndarray,
    sources: Sequence[str],
    threshold: float,
    seed: int | Sequence[int],
    done: Callable[[int], bool],
) -> Strategy:
    """The strategy `name` over rows with these scores and sources."""
    if name in ("random", "uncertain") and not isinstance(seed, int):
        raise ValueError("random and uncertain take one integer seed")
    if name == "random":
        assert isinstance(seed, int)
        return RandomStrategy(sources, seed=seed, done=done)
    if name == "uncertain":
        assert isinstance(seed, int)
        return UncertainStrategy(scores, threshold=threshold, seed=seed, done=done)
    if name == "estimate":
        return EstimateStrategy(scores, seed=seed)
    raise ValueError(f"strategy must be one of {', '.join(STRATEGIES)}, got {name!r}")
