"""Never worse than the start: the tuned judge against the starting judge, paired and
cross-validated on the training rows, and the decision which one ships.

The starting judge (the uncompiled student, or the `init` judge) gives fixed verdicts on the
tuning rows. A tuned finalist (one per mode) is the whole tuning procedure within that mode,
cross-validated: on each grouped fold, the study's trial of that mode that agrees best with
the labels of the other folds (its pass threshold fitted on those rows) judges the held-out
fold. Choosing among many trials flatters the chosen one on the rows it was chosen on; scored
this way, the choice itself is out of fold. Every finalist is scored on the same folds, so the
comparison is paired; compile averages each finalist's out-of-fold verdicts over
`SELECT_REPEATS` fold assignments, so the decision does not hinge on one. A tuned finalist
ships only when its out-of-fold agreement beats the start's by more than one standard error
of the paired difference (a bootstrap over groups); otherwise the starting judge ships, and
the report says why.

Where the tuning rows come from several sources (`GoldRecord.source`: benchmarks, domains,
products), a pooled gain can hide a loss on a small source: one threshold fitted to rows that
are mostly of one kind may fail every faithful answer of another. So a tuned finalist is also
compared with the start on each source's rows (the same out-of-fold verdicts and bootstrap
draws), and one that agrees less on some source by more than `source_bar(k)` standard errors
of that difference (k sources compared: 1.75 for four, 1.94 for six, so that some source
crossing it by chance is no likelier than one comparison crossing one standard error) is
passed over; the best of the others ships if it clears the overall bar, else the start.

Where finalists differ in cost (a cascade: the offline judge alone is the start, its threshold
tuned like any finalist's, and each route that asks the LM is a finalist with its LM calls per
row), a finalist that makes more LM calls than the start must beat it by `COSTLIER_SE` standard
errors: its calls cost, and several routes and bands were tried against one start. The most
agreeing finalist that clears its bar ships.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from statistics import NormalDist
from typing import Any, Literal

import numpy as np
import pydantic

from ragjudge.stats._agreement import balanced_accuracy
from ragjudge.stats._folds import group_folds

__all__ = [
    "SELECT_RULES",
    "Finalist",
    "FinalistScore",
    "Selection",
    "SourceDifference",
    "select_finalist",
]

SelectRule = Literal["one-se", "best"]
SELECT_RULES: tuple[str, ...] = ("one-se", "best")

#: Fold assignments compile averages each finalist's out-of-fold verdicts over.
SELECT_REPEATS = 5

#: `(scores, labels, current threshold) -> (fitted threshold, its objective value)`.
Refit = Callable[[np.ndarray, np.ndarray, float], tuple[float, float]]


@dataclass
class Finalist:
    """A candidate to ship and what it gives on the tuning rows.

    Attributes:
        name: `"start"` for the starting judge, else the mode (`"statement"`, `"whole"`, ...).
        passed: Fixed verdicts on the tuning rows (the starting judge), or None.
        candidates: A tuned finalist's configurations (the study's trials of its mode): each
            one's unscaled scores on the tuning rows (`UNSCORED` for rows without one).
        params: The parameters that ship if this finalist wins.
        cost: LM calls a row costs the finalist (its chosen trial's), when compile compares
            finalists of different costs (a cascade's routes); None otherwise.
    """

    name: str
    passed: np.ndarray | None = None
    candidates: list[np.ndarray] = field(default_factory=list)
    params: dict[str, Any] | None = None
    cost: float | None = None


class SourceDifference(pydantic.BaseModel):
    """A tuned finalist's out-of-fold agreement on one source's rows, minus the start's."""

    source: str
    n: int
    difference: float
    se: float
    bar: float = pydantic.Field(
        default=1.0, description="standard errors a loss must exceed to count (`source_bar`)"
    )

    @property
    def loses(self) -> bool:
        """True when the finalist agrees less by more than `bar` standard errors."""
        return self.difference < 0 and -self.difference > self.bar * self.se

    def __str__(self) -> str:
        return f"{self.source} {self.difference:+.3f} (se {self.se:.3f}, {self.n} rows)"


class FinalistScore(pydantic.BaseModel):
    """A finalist's out-of-fold agreement on the training rows."""

    name: str
    mode: str | None = None
    balanced_accuracy: float
    ci: tuple[float, float]
    difference: float | None = pydantic.Field(
        default=None, description="minus the start's, on the same rows"
    )
    se: float | None = pydantic.Field(
        default=None, description="standard error of the paired difference (group bootstrap)"
    )
    lm_calls_per_row: float | None = pydantic.Field(
        default=None, description="LM calls a row costs (where finalists differ in cost)"
    )
    params: dict[str, Any] | None = pydantic.Field(
        default=None, description="the parameters that ship if it wins (its best trial's)"
    )
    by_source: list[SourceDifference] = pydantic.Field(
        default_factory=list,
        description="its difference from the start on each source's rows (several sources)",
    )

    @property
    def losing_sources(self) -> list[SourceDifference]:
        """The sources on which it agrees less than the start beyond their bar."""
        return [d for d in self.by_source if d.loses]


class Selection(pydantic.BaseModel):
    """Which finalist compile ships, and why."""

    rule: str
    folds: int
    repeats: int = pydantic.Field(
        default=1, description="fold assignments a finalist's verdicts are averaged over"
    )
    rows: int
    finalists: list[FinalistScore]
    chosen: str
    reason: str

    @property
    def scope(self) -> str:
        """What the finalists' figures are: folds, assignments, rows, measure and rule."""
        repeats = f", {self.repeats} fold assignments" if self.repeats > 1 else ""
        return (
            f"{self.folds}-fold cross-validated{repeats} on {self.rows} train rows (balanced "
            f"accuracy, 95% interval; rule {self.rule})"
        )


def select_finalist(
    finalists: Sequence[Finalist],
    labels: np.ndarray,
    groups: Sequence[str],
    *,
    refit: Refit,
    rule: SelectRule = "one-se",
    folds: int = 5,
    repeats: int = 1,
    n_boot: int = 1000,
    seed: int = 0,
    start_label: str = "the starting judge",
    sources: Sequence[str] | None = None,
) -> Selection:
    """Score every finalist on the same grouped folds and choose the one to ship.

    Args:
        finalists: The starting judge (named "start") and the tuned finalists.
        labels: Gold labels of the tuning rows (0/1).
        groups: Group keys of the tuning rows (rows of a group share a fold).
        refit: Fits a tuned finalist's pass threshold on the training folds.
        rule: `"one-se"`: the best tuned finalist ships only when it beats the start by more
            than one standard error of the paired difference; `"best"`: the highest out-of-fold
            agreement ships, the start included.
        folds: Number of grouped folds.
        repeats: How many fold assignments (seeds `seed`, `seed + 1`, ...) to average a
            finalist's out-of-fold verdicts over, so the decision does not hinge on one.
        n_boot: Bootstrap resamples (over groups) for the intervals and the standard error.
        seed: Seeds the folds and the bootstrap.
        start_label: How the reason names the start (e.g. "the offline judge alone").
        sources: Source of each tuning row; where there are several, a tuned finalist that
            agrees less than the start on one source's rows by more than `source_bar`
            standard errors is passed over (rule `"one-se"`).

    Returns:
        The selection: every finalist's agreement with its interval, the chosen one, the reason.
    """
    y = np.asarray(labels, dtype=int)
    counts = np.bincount(y, minlength=2)
    if len(set(groups)) < 4 or counts.min() < 2:
        return Selection(
            rule=rule,
            folds=0,
            rows=len(y),
            finalists=[],
            chosen="start" if any(f.name == "start" for f in finalists) else finalists[-1].name,
            reason=f"too few tuning rows to cross-validate ({len(y)} rows, {int(counts.min())} of "
            f"the rarer label): {start_label} ships",
        )
    assignments = [
        group_folds(list(groups), y, folds=folds, seed=seed + r) for r in range(max(1, repeats))
    ]
    passed = {
        f.name: np.mean([_out_of_fold(f, y, fold_of, refit) for fold_of in assignments], axis=0)
        for f in finalists
    }
    keys = np.unique(np.asarray(list(groups)), return_inverse=True)[1]
    draws = _group_draws(keys, n_boot=n_boot, seed=seed)
    start = "start" if "start" in passed else None
    boot = {name: _boot_ba(y, p, draws) for name, p in passed.items()}
    masks = _source_masks(sources, y)
    by_source = {  # each finalist's bootstrap agreement on each source's rows of every draw
        source: {name: _boot_ba(y, p, [d[mask[d]] for d in draws]) for name, p in passed.items()}
        for source, mask in masks.items()
    }
    scores = [
        _score(f, y, passed, boot, start=start, masks=masks, by_source=by_source, n_boot=n_boot)
        for f in finalists
    ]
    chosen, reason = _decide(scores, rule=rule, start_label=start_label)
    return Selection(
        rule=rule,
        folds=int(assignments[0].max()) + 1,
        repeats=len(assignments),
        rows=len(y),
        finalists=scores,
        chosen=chosen,
        reason=reason,
    )


def _score(
    f: Finalist,
    y: np.ndarray,
    passed: dict[str, np.ndarray],
    boot: dict[str, np.ndarray],
    *,
    start: str | None,
    masks: dict[str, np.ndarray],
    by_source: dict[str, dict[str, np.ndarray]],
    n_boot: int,
) -> FinalistScore:
    """A finalist's out-of-fold agreement, interval, and paired difference from the start
    (overall and per source)."""
    value = balanced_accuracy(y, passed[f.name])
    low, high = np.nanpercentile(boot[f.name], [2.5, 97.5]) if n_boot > 0 else (value, value)
    diff = se = None
    differences: list[SourceDifference] = []
    if start is not None and f.name != start:
        diff = value - balanced_accuracy(y, passed[start])
        se = float(np.nanstd(boot[f.name] - boot[start], ddof=1)) if n_boot > 1 else 0.0
        differences = _by_source(f.name, start, y, passed, masks, by_source)
    return FinalistScore(
        name=f.name,
        mode=None if f.params is None else f.params.get("mode"),
        balanced_accuracy=round(float(value), 4),
        ci=(round(float(low), 4), round(float(high), 4)),
        difference=None if diff is None else round(float(diff), 4),
        se=None if se is None else round(se, 4),
        lm_calls_per_row=None if f.cost is None else round(float(f.cost), 4),
        params=f.params,
        by_source=differences,
    )


def _decide(scores: list[FinalistScore], *, rule: SelectRule, start_label: str) -> tuple[str, str]:
    tuned = [s for s in scores if s.name != "start"]
    start = next((s for s in scores if s.name == "start"), None)
    if not tuned:
        return "start", "no tuned finalist"
    best = max(tuned, key=lambda s: s.balanced_accuracy)
    if start is None:
        return best.name, "no starting judge to compare with"
    if rule == "best":
        if start.balanced_accuracy > best.balanced_accuracy:
            return "start", (
                f"{start_label} agrees best out of fold ({start.balanced_accuracy:.3f} vs "
                f"{best.balanced_accuracy:.3f} for {best.name}; --select best)"
            )
        return best.name, f"highest out-of-fold agreement ({best.balanced_accuracy:.3f}; best)"
    if start.lm_calls_per_row is not None:
        return _decide_by_cost(tuned, start, start_label=start_label)
    eligible = [s for s in tuned if not s.losing_sources]
    if not eligible:
        return "start", (
            f"every tuned judge agrees less than {start_label} on some source, beyond that "
            f"source's bar: {start_label} ships" + _source_note(None, tuned)
        )
    best = max(eligible, key=lambda s: s.balanced_accuracy)
    note = _source_note(best, [s for s in tuned if s.losing_sources])
    diff, se = best.difference or 0.0, best.se or 0.0
    if diff > se and diff > 0:
        return best.name, (
            f"{best.name} beats {start_label} by {diff:+.3f} out of fold, more than one "
            f"standard error ({se:.3f})" + note
        )
    return "start", (
        f"the best tuned judge ({best.name}) is {diff:+.3f} against {start_label} out of "
        f"fold, within one standard error ({se:.3f}): {start_label} ships" + note
    )


def _source_note(chosen: FinalistScore | None, blocked: list[FinalistScore]) -> str:
    """Why finalists that agree more overall than the one considered were passed over: the
    sources they lose on."""
    better = [
        s for s in blocked if chosen is None or s.balanced_accuracy > chosen.balanced_accuracy
    ]
    parts = [
        f"{s.name} ({s.difference or 0.0:+.3f} overall) agrees less on "
        + ", ".join(str(d) for d in s.losing_sources)
        for s in better
    ]
    return "; passed over: " + "; ".join(parts) if parts else ""


#: How many standard errors a finalist that makes more LM calls than the start must win by:
#: its calls cost, and several routes and bands were tried against one start.
COSTLIER_SE = 2.0


def _decide_by_cost(
    tuned: list[FinalistScore], start: FinalistScore, *, start_label: str
) -> tuple[str, str]:
    """The most agreeing finalist that beats the start by more than its bar: one standard
    error for one that costs no more LM calls a row, `COSTLIER_SE` for a costlier one."""

    def bar(s: FinalistScore) -> float:
        costlier = (s.lm_calls_per_row or 0.0) > (start.lm_calls_per_row or 0.0) + 1e-9
        return (COSTLIER_SE if costlier else 1.0) * (s.se or 0.0)

    passing = [
        s for s in tuned if (s.difference or 0.0) > max(bar(s), 0.0) and not s.losing_sources
    ]
    if passing:
        best = max(passing, key=lambda s: s.balanced_accuracy)
        times = bar(best) / best.se if best.se else 1.0
        return best.name, (
            f"{best.name} beats {start_label} by {best.difference:+.3f} out of fold, more than "
            f"{times:g} standard error(s) ({best.se or 0.0:.3f}) at "
            f"{best.lm_calls_per_row or 0.0:.2f} LM calls a row"
        )
    best = max(tuned, key=lambda s: s.balanced_accuracy)
    times = bar(best) / best.se if best.se else 1.0
    return "start", (
        f"no tuned judge beats {start_label} by its bar (the best, {best.name}, by "
        f"{best.difference or 0.0:+.3f} out of fold at {best.lm_calls_per_row or 0.0:.2f} LM "
        f"calls a row, against {times:g} standard error(s) of {best.se or 0.0:.3f}): "
        f"{start_label} ships"
    )


def _out_of_fold(
    finalist: Finalist, y: np.ndarray, fold_of: np.ndarray, refit: Refit
) -> np.ndarray:
    """Pass verdicts on every row: fixed ones, or per fold the candidate that agrees best with
    the other folds, at the threshold fitted there."""
    if finalist.passed is not None:
        return np.asarray(finalist.passed, dtype=bool)
    passed = np.zeros(len(y), dtype=bool)
    for k in np.unique(fold_of):
        train, test = fold_of != k, fold_of == k
        best: tuple[float, float, np.ndarray] | None = None
        for scores in finalist.candidates:
            cut, value = refit(scores[train], y[train], 0.5)
            value = -math.inf if math.isnan(value) else value
            if best is None or value > best[0]:
                best = (value, cut, scores)
        if best is not None:
            passed[test] = best[2][test] >= best[1]
    return passed


#: A source is compared on its own only with at least this many rows of each label.
SOURCE_MIN_LABEL = 2


def source_bar(k: int) -> float:
    """How many standard errors a finalist must lose a source by, of `k` compared, for the
    loss to count: the chance that some source of `k` crosses it by noise alone is that of
    one comparison crossing one standard error (about 16%, Bonferroni), so more sources do not
    make a loss by chance more likely.

    Example:
        >>> [round(source_bar(k), 2) for k in (1, 2, 4, 6)]
        [1.0, 1.41, 1.75, 1.94]
    """
    one = NormalDist().cdf(-1.0)
    return NormalDist().inv_cdf(1.0 - one / max(1, k))


def _source_masks(sources: Sequence[str] | None, y: np.ndarray) -> dict[str, np.ndarray]:
    """Row masks of the sources a finalist is compared on alone: none unless the rows come
    from several sources; then each with `SOURCE_MIN_LABEL` rows of each label."""
    if sources is None or len(set(sources)) < 2:
        return {}
    names = np.asarray(list(sources))
    masks = {}
    for source in sorted(set(sources)):
        mask = names == source
        if np.bincount(y[mask], minlength=2).min() >= SOURCE_MIN_LABEL:
            masks[source] = mask
    return masks


def _by_source(
    name: str,
    start: str,
    y: np.ndarray,
    passed: dict[str, np.ndarray],
    masks: dict[str, np.ndarray],
    boot: dict[str, dict[str, np.ndarray]],
) -> list[SourceDifference]:
    """A finalist's out-of-fold difference from the start on each source's rows, with the
    standard error over the same group bootstrap draws (each restricted to the source; a draw
    without both labels there counts for neither)."""
    bar = source_bar(len(masks))
    out = []
    for source, mask in masks.items():
        value = balanced_accuracy(y[mask], passed[name][mask]) - balanced_accuracy(
            y[mask], passed[start][mask]
        )
        draws = boot[source][name] - boot[source][start]
        draws = draws[~np.isnan(draws)]
        se = float(np.std(draws, ddof=1)) if len(draws) > 1 else 0.0
        out.append(
            SourceDifference(
                source=source,
                n=int(mask.sum()),
                difference=round(float(value), 4),
                se=round(se, 4),
                bar=round(bar, 4),
            )
        )
    return out


def _group_draws(keys: np.ndarray, *, n_boot: int, seed: int) -> list[np.ndarray]:
    """Row indices of `n_boot` bootstrap resamples of whole groups."""
    rng = np.random.default_rng(seed)
    members = [np.flatnonzero(keys == g) for g in range(int(keys.max()) + 1)] if len(keys) else []
    draws = []
    for _ in range(n_boot):
        picked = rng.integers(0, len(members), len(members))
        draws.append(np.concatenate([members[g] for g in picked]))
    return draws


def _boot_ba(y: np.ndarray, passed: np.ndarray, draws: list[np.ndarray]) -> np.ndarray:
    return np.array([balanced_accuracy(y[d], passed[d]) for d in draws], dtype=float)
