"""Never worse than the start: the paired, cross-validated choice of the judge compile ships."""

from __future__ import annotations

import numpy as np
import pytest

from ragjudge.optimize._select import Finalist, select_finalist
from ragjudge.stats._threshold import best_threshold


def _refit(scores: np.ndarray, labels: np.ndarray, current: float) -> tuple[float, float]:
    return best_threshold(scores, labels, objective="balanced_accuracy", current=current)


def _data(n: int = 240, seed: int = 0) -> tuple[np.ndarray, list[str], np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    groups = [str(i // 2) for i in range(n)]  # two rows a group
    start = np.where(rng.random(n) < 0.70, y, 1 - y).astype(bool)  # right on 70% of rows
    return y, groups, start


def test_a_clearly_better_finalist_ships_and_a_noisy_one_does_not() -> None:
    y, groups, start = _data()
    rng = np.random.default_rng(1)
    good = y + rng.normal(0, 0.35, len(y))  # ranks the rows well: about 0.9 at its best cut
    same = np.where(start, 1.0, 0.0) + rng.normal(0, 0.01, len(y))  # the start, re-labelled
    better = select_finalist(
        [Finalist("start", passed=start), Finalist("whole", candidates=[good, same])],
        y,
        groups,
        refit=_refit,
        n_boot=200,
    )
    assert better.chosen == "whole" and "more than one standard error" in better.reason
    tuned = next(f for f in better.finalists if f.name == "whole")
    assert tuned.difference is not None and tuned.se is not None
    assert tuned.difference > tuned.se > 0
    noisy = select_finalist(
        [Finalist("start", passed=start), Finalist("whole", candidates=[same])],
        y,
        groups,
        refit=_refit,
        n_boot=200,
    )
    assert noisy.chosen == "start" and "within one standard error" in noisy.reason
    # `best` ships the highest out-of-fold agreement, whatever the noise
    best = select_finalist(
        [Finalist("start", passed=start), Finalist("whole", candidates=[good])],
        y,
        groups,
        refit=_refit,
        rule="best",
        n_boot=50,
    )
    assert best.chosen == "whole" and best.rule == "best"


def test_repeats_average_the_verdicts_of_several_fold_assignments() -> None:
    y, groups, start = _data(seed=2)
    rng = np.random.default_rng(3)
    candidates = [y + rng.normal(0, s, len(y)) for s in (0.6, 0.8, 1.0)]
    finalists = [Finalist("start", passed=start), Finalist("whole", candidates=candidates)]
    singles = [
        select_finalist(finalists, y, groups, refit=_refit, seed=s, n_boot=0) for s in (5, 6, 7)
    ]
    averaged = select_finalist(finalists, y, groups, refit=_refit, seed=5, repeats=3, n_boot=0)
    assert averaged.repeats == 3 and all(s.repeats == 1 for s in singles)
    # balanced accuracy is linear in the verdicts: the average over assignments
    ba = [next(f for f in s.finalists if f.name == "whole").value for s in singles]
    whole = next(f for f in averaged.finalists if f.name == "whole")
    assert whole.value == pytest.approx(np.mean(ba), abs=2e-4)
    # the start's verdicts are fixed: the same under any assignment
    starts = {next(f for f in s.finalists if f.name == "start").value for s in singles}
    assert len(starts) == 1


def test_too_few_rows_to_cross_validate_ship_the_start() -> None:
    y = np.array([1, 0, 1, 0, 1, 1])
    chosen = select_finalist(
        [Finalist("start", passed=y.astype(bool)), Finalist("whole", candidates=[y * 1.0])],
        y,
        ["a", "a", "b", "b", "c", "c"],
        refit=_refit,
    )
    assert chosen.chosen == "start" and chosen.folds == 0
    assert "too few tuning rows" in chosen.reason


def test_a_finalist_that_loses_on_one_source_does_not_ship() -> None:
    rng = np.random.default_rng(4)
    y, groups, start = _data(n=280, seed=4)
    sources = ["big"] * 240 + ["small"] * 40
    small = np.arange(len(y)) >= 240
    start[small] = np.where(rng.random(40) < 0.9, y[small], 1 - y[small]).astype(bool)
    sharp = y + rng.normal(0, 0.3, len(y))
    # ranks the big source's rows best, but scores every row of the small source low: at one
    # threshold fitted mostly to the big source, the small one's faithful answers all fail
    pooled = np.where(small, -1.0 + 0.1 * rng.random(len(y)), sharp)
    fair = y + rng.normal(0, 0.6, len(y))  # a little worse overall, no source left behind
    finalists = [
        Finalist("start", passed=start),
        Finalist("statement", candidates=[fair]),
        Finalist("whole", candidates=[pooled]),
    ]
    blind = select_finalist(finalists, y, groups, refit=_refit, n_boot=200)
    assert blind.chosen == "whole"  # without sources, the pooled gain wins
    guarded = select_finalist(finalists, y, groups, refit=_refit, n_boot=200, sources=sources)
    whole = next(f for f in guarded.finalists if f.name == "whole")
    assert [d.source for d in whole.losing_sources] == ["small"]
    assert whole.value > next(f for f in guarded.finalists if f.name == "statement").value
    assert guarded.chosen == "statement"
    assert "passed over: whole" in guarded.reason and "small" in guarded.reason
    # with only the finalist that loses on a source, the start ships
    alone = select_finalist(
        [finalists[0], finalists[2]], y, groups, refit=_refit, n_boot=200, sources=sources
    )
    assert alone.chosen == "start" and "less than the starting judge on some source" in alone.reason
    # one source is no guard: the same as without sources
    single = select_finalist(
        finalists, y, groups, refit=_refit, n_boot=200, sources=["one"] * len(y)
    )
    assert single.chosen == "whole" and all(not f.by_source for f in single.finalists)
