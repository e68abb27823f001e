"""Which row a reviewer sees next: `random` (stratified by source), `uncertain` (the judge's
least sure rows first) and `estimate` (draws with probability from the judge's expected error,
for the active-inference estimate, `ragjudge.stats._active`).

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
    """The rows whose score is nearest the judge's threshold first (ties: a seeded shuffle)."""

    name = "uncertain"

    def __init__(
        self, scores: np.ndarray, *, threshold: float, seed: int, done: Callable[[int], bool]
    ) -> None:
        rng = np.random.default_rng(seed)
        tie = rng.random(scores.size)
        distance = np.abs(np.where(np.isnan(scores), threshold, scores) - threshold)
        super().__init__(np.lexsort((tie, distance)))
        self.done = done

    def next(self, available: Callable[[int], bool]) -> Draw | None:
        index = self.next_in(available, self.done)
        return None if index is None else Draw(index)


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
