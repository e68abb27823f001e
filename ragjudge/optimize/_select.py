"""Never worse than the start: the tuned judges against the starting judge, paired and
cross-validated on the training rows, and the one rule that decides which ships.

The starting judge (the uncompiled student, or the `init` judge) gives fixed verdicts on the
tuning rows. A tuned finalist (one per arm: a mode, for most judges) is the whole tuning
procedure within that arm, cross-validated: on each grouped fold (`ragjudge.stats._folds`),
the study's trial of that arm that does best on the other folds judges the held-out fold. On
the other folds each trial's pass cut is refitted by the study's own step
(`JudgeOptimizer.refit_threshold`) and its value is the study's objective; the best is picked
by the study's own rule (`pick_best`: the highest value, and among trials within
`TIE_TOLERANCE` of it the one that ranks the rows best). Choosing among many trials flatters
the chosen one on the rows it was chosen on; scored this way, the choice itself is out of
fold. Every finalist is scored on the same folds, so the comparison is paired; compile
averages each finalist's out-of-fold verdicts over `SELECT_REPEATS` fold assignments, so the
decision does not hinge on one. Every figure is the study's objective (`--objective`).

One rule decides, for every judge (`decide`): a tuned finalist clears its bar when it beats
the start by more than k standard errors of the paired difference (the grouped bootstrap of
`ragjudge.stats`, the one that resamples every agreement interval): k = 1, or `COSTLIER_SE`
for a finalist that costs more LM calls a row than the start (its calls cost, and more was
tried against one start). The most agreeing finalist that clears its bar ships; if none
does, the start ships, and the decision line says why.

Where the tuning rows come from several sources (`GoldRecord.source`: benchmarks, domains,
products), a pooled gain can hide a loss on a small source: one threshold fitted to rows that
are mostly of one kind may fail every faithful answer of another. So a tuned finalist is also
compared with the start on each source's rows (the same out-of-fold verdicts and bootstrap
draws), and one that agrees less on some source by more than `source_bar(k)` standard errors
of that difference (k sources compared: 1.75 for four, 1.94 for six, so that some source
crossing it by chance is no likelier than one comparison crossing one standard error) is
passed over.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from statistics import NormalDist
from typing import Any, Literal

import numpy as np
import pydantic

from ragjudge.stats._agreement import _resample_weights, auroc
from ragjudge.stats._folds import group_folds
from ragjudge.stats._threshold import objective_draws

__all__ = [
    "COSTLIER_SE",
    "SELECT_RULES",
    "TIE_TOLERANCE",
    "Finalist",
    "FinalistScore",
    "Selection",
    "SourceDifference",
    "decide",
    "pick_best",
    "select_finalist",
]

SelectRule = Literal["one-se", "best"]
SELECT_RULES: tuple[str, ...] = ("one-se", "best")

#: Fold assignments compile averages each finalist's out-of-fold verdicts over.
SELECT_REPEATS = 5

#: `(scores, labels, current threshold) -> (fitted threshold, the study's objective there)`.
Refit = Callable[[np.ndarray, np.ndarray, float], tuple[float, float]]

#: Trials within this much of the best objective value tie (noise on the tuning rows): among
#: them the one whose scores rank the rows best (AUROC) wins.
TIE_TOLERANCE = 0.005

#: How many standard errors a finalist that makes more LM calls a row than the start must win
#: by: its calls cost, and several routes and bands were tried against one start.
COSTLIER_SE = 2.0


def pick_best(
    values: Sequence[float], aurocs: Sequence[float], *, tie: float = TIE_TOLERANCE
) -> int:
    """The index of the best of several configurations: the highest value, and among those
    within `tie` of it the one that ranks the rows best (then the higher value). The one pick
    rule of the study (`_best_trial`) and of every fold of the selection.

    Example:
        >>> pick_best([0.80, 0.803, 0.70], [0.90, 0.85, 0.99])
        0
    """
    finite = [-math.inf if math.isnan(v) else v for v in values]
    top = max(finite)
    near = [i for i, v in enumerate(finite) if v >= top - tie]
    return max(near, key=lambda i: (_or(aurocs[i], -math.inf), finite[i]))


def _or(value: float, default: float) -> float:
    return default if value is None or math.isnan(value) else float(value)


@dataclass
class Finalist:
    """A candidate to ship and what it gives on the tuning rows.

    Attributes:
        name: `"start"` for the starting judge, else its arm (`"statement"`, `"whole"`, ...).
        passed: Fixed verdicts on the tuning rows (the starting judge), or None.
        scores: Fixed unit scores beside `passed` (ranked by an AUROC objective); `passed`
            when None.
        candidates: A tuned finalist's configurations (the study's trials of its arm): each
            one's unit scores on the tuning rows (`UNSCORED` for rows without one).
        params: The parameters that ship if this finalist wins.
        cost: LM calls a row costs the finalist (the start's own, a tuned one's chosen
            trial's); None where unknown (counted as no more than the start).
        label: How the finalists table names it.
    """

    name: str
    passed: np.ndarray | None = None
    scores: np.ndarray | None = None
    candidates: list[np.ndarray] = field(default_factory=list)
    params: dict[str, Any] | None = None
    cost: float | None = None
    label: str | None = None


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
    """A finalist's out-of-fold agreement on the training rows (the study's objective)."""

    name: str
    label: str | None = pydantic.Field(default=None, description="how the table names it")
    mode: str | None = None
    value: float = pydantic.Field(
        validation_alias=pydantic.AliasChoices("value", "balanced_accuracy"),
        description="the study's objective, out of fold (balanced accuracy in older files)",
    )
    ci: tuple[float, float]
    difference: float | None = pydantic.Field(
        default=None, description="minus the start's, on the same rows"
    )
    se: float | None = pydantic.Field(
        default=None, description="standard error of the paired difference (group bootstrap)"
    )
    lm_calls_per_row: float | None = pydantic.Field(
        default=None, description="LM calls a row costs the finalist"
    )
    bar: float | None = pydantic.Field(
        default=None,
        description="standard errors it must beat the start by (more for a costlier finalist)",
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
    objective: str = "balanced_accuracy"
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
        measure = self.objective.replace("_", " ")
        return (
            f"{self.folds}-fold cross-validated{repeats} on {self.rows} train rows ({measure}, "
            f"95% interval; rule {self.rule})"
        )


def select_finalist(
    finalists: Sequence[Finalist],
    labels: np.ndarray,
    groups: Sequence[str],
    *,
    refit: Refit,
    objective: str = "balanced_accuracy",
    rule: SelectRule = "one-se",
    folds: int = 5,
    repeats: int = 1,
    n_boot: int = 1000,
    seed: int = 0,
    start_label: str = "the starting judge",
    sources: Sequence[str] | None = None,
) -> Selection:
    """Score every finalist on the same grouped folds and choose the one to ship (`decide`).

    Args:
        finalists: The starting judge (named "start") and the tuned finalists.
        labels: Gold labels of the tuning rows (0/1).
        groups: Group keys of the tuning rows (rows of a group share a fold and a draw).
        refit: Fits a tuned finalist's pass cut on the training folds and gives the study's
            objective there (the study's own step).
        objective: The study's objective: `"balanced_accuracy"`, `"kappa"`, `"f1"` or
            `"auroc"`; every figure and difference is measured on it.
        rule: `"one-se"`: `decide`'s bar; `"best"`: the highest out-of-fold value ships, the
            start included.
        folds: Number of grouped folds.
        repeats: How many fold assignments (seeds `seed`, `seed + 1`, ...) to average a
            finalist's out-of-fold verdicts over, so the decision does not hinge on one.
        n_boot: Bootstrap resamples (of whole groups) for the intervals and standard errors.
        seed: Seeds the folds and the bootstrap.
        start_label: How the reason names the start (e.g. "the offline judge alone").
        sources: Source of each tuning row; where there are several, a tuned finalist that
            agrees less than the start on one source's rows by more than `source_bar`
            standard errors is passed over (rule `"one-se"`).

    Returns:
        The selection: every finalist's value with its interval, the chosen one, the reason.
    """
    y = np.asarray(labels, dtype=int)
    counts = np.bincount(y, minlength=2)
    if len(set(groups)) < 4 or counts.min() < 2:
        return Selection(
            rule=rule,
            objective=objective,
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
    measured = _Measured(
        objective=objective,
        y=y,
        verdicts=_averaged_verdicts(finalists, y, assignments, refit),
        weights=_resample_weights(seed, n_boot, len(y), list(groups)) if n_boot > 0 else None,
    )
    start = "start" if "start" in measured.verdicts else None
    start_cost = next((f.cost for f in finalists if f.name == "start"), None)
    masks = _source_masks(sources, y)
    scores = [_finalist_score(f, measured, start, start_cost, masks) for f in finalists]
    chosen, reason = decide(scores, rule=rule, start_label=start_label)
    return Selection(
        rule=rule,
        objective=objective,
        folds=int(assignments[0].max()) + 1,
        repeats=len(assignments),
        rows=len(y),
        finalists=scores,
        chosen=chosen,
        reason=reason,
    )


def _averaged_verdicts(
    finalists: Sequence[Finalist], y: np.ndarray, assignments: list[np.ndarray], refit: Refit
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Each finalist's out-of-fold pass verdicts and scores, averaged over the fold
    assignments."""
    verdicts: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for f in finalists:
        runs = [_out_of_fold(f, y, fold_of, refit) for fold_of in assignments]
        verdicts[f.name] = (
            np.mean([p for p, _ in runs], axis=0),
            np.mean([s for _, s in runs], axis=0),
        )
    return verdicts


@dataclass
class _Measured:
    """The finalists' out-of-fold verdicts measured on the study's objective: at the point
    (`point`) and under the grouped bootstrap draws (`boot`; `weights` None: no draws)."""

    objective: str
    y: np.ndarray
    verdicts: dict[str, tuple[np.ndarray, np.ndarray]]
    weights: np.ndarray | None

    def _draws(self, name: str, mask: np.ndarray | None, w: np.ndarray) -> np.ndarray:
        passed, scores = self.verdicts[name]
        if mask is None:
            return objective_draws(self.objective, self.y, passed, scores, w)
        y, w = self.y[mask], w[:, mask]
        return objective_draws(self.objective, y, passed[mask], scores[mask], w)

    def point(self, name: str, mask: np.ndarray | None = None) -> float:
        """The objective of a finalist's verdicts (on the rows of `mask`, or all)."""
        return float(self._draws(name, mask, np.ones((1, len(self.y))))[0])

    def boot(self, name: str, mask: np.ndarray | None = None) -> np.ndarray | None:
        """The objective under each bootstrap draw; None without draws."""
        if self.weights is None:
            return None
        return self._draws(name, mask, self.weights)


def _finalist_score(
    f: Finalist,
    measured: _Measured,
    start: str | None,
    start_cost: float | None,
    masks: dict[str, np.ndarray],
) -> FinalistScore:
    """A finalist's value and interval, and its difference from the start (pooled with its
    standard error, and per source with each source's bar)."""
    point = measured.point(f.name)
    diff = se = None
    differences: list[SourceDifference] = []
    if start is not None and f.name != start:
        diff = point - measured.point(start)
        se = _se(measured.boot(f.name), measured.boot(start))
        bar = source_bar(len(masks))
        for source, mask in masks.items():
            d = measured.point(f.name, mask) - measured.point(start, mask)
            s_se = (
                _se(measured.boot(f.name, mask), measured.boot(start, mask))
                if measured.weights is not None
                else 0.0
            )
            differences.append(
                SourceDifference(
                    source=source,
                    n=int(mask.sum()),
                    difference=round(d, 4),
                    se=round(s_se, 4),
                    bar=round(bar, 4),
                )
            )
    draws = measured.boot(f.name)
    low, high = np.nanpercentile(draws, [2.5, 97.5]) if draws is not None else (point, point)
    costlier = (f.cost or 0.0) > (start_cost or 0.0) + 1e-9
    return FinalistScore(
        name=f.name,
        label=f.label,
        mode=None if f.params is None else f.params.get("mode"),
        value=round(point, 4),
        ci=(round(float(low), 4), round(float(high), 4)),
        difference=None if diff is None else round(diff, 4),
        se=None if se is None else round(se, 4),
        lm_calls_per_row=None if f.cost is None else round(float(f.cost), 4),
        bar=None if f.name == start else (COSTLIER_SE if costlier else 1.0),
        params=f.params,
        by_source=differences,
    )


def _se(a: np.ndarray | None, b: np.ndarray | None) -> float:
    """The standard error of a paired difference over the same draws (a draw where either is
    undefined counts for neither)."""
    if a is None or b is None:
        return 0.0
    draws = a - b
    draws = draws[~np.isnan(draws)]
    return float(np.std(draws, ddof=1)) if len(draws) > 1 else 0.0


def decide(
    scores: Sequence[FinalistScore], *, rule: SelectRule, start_label: str
) -> tuple[str, str]:
    """The one decision rule: which finalist ships, and the line that says why.

    With `"one-se"`, a tuned finalist clears its bar when it beats the start by more than
    `bar` standard errors of the paired difference (1, or `COSTLIER_SE` for one that costs more
    LM calls a row) and loses no source beyond that source's bar; the most agreeing finalist
    that clears its bar ships, else the start. With `"best"`, the most agreeing one ships.
    """
    tuned = [s for s in scores if s.name != "start"]
    start = next((s for s in scores if s.name == "start"), None)
    if not tuned:
        return "start", "no tuned finalist"
    best = max(tuned, key=lambda s: s.value)
    if start is None:
        return best.name, "no starting judge to compare with"
    if rule == "best":
        if start.value > best.value:
            return "start", (
                f"{start_label} agrees best out of fold ({start.value:.3f} vs "
                f"{best.value:.3f} for {best.name}; --select best)"
            )
        return best.name, f"highest out-of-fold agreement ({best.value:.3f}; best)"
    costs = {s.lm_calls_per_row for s in scores}
    priced = len(costs) > 1 and None not in costs

    def cost(s: FinalistScore) -> str:
        return f" at {s.lm_calls_per_row or 0.0:.2f} LM calls a row" if priced else ""

    def clears(s: FinalistScore) -> bool:
        diff = s.difference or 0.0
        return diff > 0 and diff > (s.bar or 1.0) * (s.se or 0.0)

    passing = [s for s in tuned if clears(s) and not s.losing_sources]
    blocked = [s for s in tuned if clears(s) and s.losing_sources]
    if passing:
        best = max(passing, key=lambda s: s.value)
        return best.name, (
            f"{best.name} beats {start_label} by {best.difference or 0.0:+.3f} out of fold"
            f"{cost(best)}, more than {_bar(best)}" + _source_note(best, blocked)
        )
    best = max(tuned, key=lambda s: s.value)
    diff = best.difference or 0.0
    if blocked:
        head = (
            f"every tuned judge that clears its bar agrees less than {start_label} on some "
            f"source, beyond that source's bar: {start_label} ships"
        )
        return "start", head + _source_note(None, blocked)
    if diff < 0:
        se = best.se or 0.0
        where = "within" if -diff <= se else "an agreement lower by more than"
        why = (
            f"no tuned judge beats {start_label}: the best ({best.name}) is {diff:+.3f} out "
            f"of fold{cost(best)}, {where} one standard error ({se:.3f})"
        )
    elif diff == 0:
        why = (
            f"no tuned judge beats {start_label}: the best ({best.name}) agrees as much out "
            f"of fold{cost(best)}"
        )
    else:
        why = (
            f"no tuned judge beats {start_label} by its bar: the best ({best.name}) is "
            f"{diff:+.3f} out of fold{cost(best)}, within {_bar(best)}"
        )
    return "start", f"{why}: {start_label} ships"


def _bar(s: FinalistScore) -> str:
    """A finalist's bar in words: "one standard error (0.029)", "2 standard errors (2 x
    0.029)"."""
    k, se = s.bar or 1.0, s.se or 0.0
    if k == 1.0:
        return f"one standard error ({se:.3f})"
    return f"{k:g} standard errors ({k:g} x {se:.3f})"


def _source_note(chosen: FinalistScore | None, blocked: list[FinalistScore]) -> str:
    """Why finalists that agree more overall than the one considered were passed over: the
    sources they lose on."""
    better = [s for s in blocked if chosen is None or s.value > chosen.value]
    parts = [
        f"{s.name} ({s.difference or 0.0:+.3f} overall) agrees less on "
        + ", ".join(str(d) for d in s.losing_sources)
        for s in better
    ]
    return "; passed over: " + "; ".join(parts) if parts else ""


def _out_of_fold(
    finalist: Finalist, y: np.ndarray, fold_of: np.ndarray, refit: Refit
) -> tuple[np.ndarray, np.ndarray]:
    """Pass verdicts and scores on every row: fixed ones, or per fold those of the candidate
    the study's rule picks on the other folds (`refit`, `pick_best`), at the cut fitted there."""
    if finalist.passed is not None:
        passed = np.asarray(finalist.passed, dtype=bool)
        scores = passed if finalist.scores is None else finalist.scores
        return passed.astype(float), np.asarray(scores, dtype=float)
    passed = np.zeros(len(y), dtype=float)
    scores = np.zeros(len(y), dtype=float)
    for k in np.unique(fold_of):
        train, test = fold_of != k, fold_of == k
        fits = [refit(c[train], y[train], 0.5) for c in finalist.candidates]
        if not fits:
            continue
        ranks = [auroc(y[train], c[train]) for c in finalist.candidates]
        at = pick_best([value for _, value in fits], ranks)
        chosen, cut = finalist.candidates[at], fits[at][0]
        passed[test] = chosen[test] >= cut
        scores[test] = chosen[test]
    return passed, scores


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
