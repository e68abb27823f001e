"""`compile`: fit a judge to gold labels — offline weights, few-shot demos, an Optuna study.

Everything is fitted on the train split; every reported figure is measured on validation.
The judge's raw outputs on the train rows are computed once per (mode, demo set) and cached,
so trials that change only thresholds and policies make no LM calls.
"""

from __future__ import annotations

import logging
import math
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import dspy
import numpy as np
import optuna
from optuna.trial import TrialState

from ragjudge.data._gold import GoldRecord, gold_fingerprint, load_gold
from ragjudge.evaluation._evaluate import agreement_of, describe_judge_lm
from ragjudge.exceptions import ConfigurationError, GoldDataError
from ragjudge.lm._resolve import LOCAL
from ragjudge.offline.engine import OfflineEngine
from ragjudge.offline.model import CrossFit, OfflineParams, cross_fit_offline, fit_offline
from ragjudge.optimize._demos import demo_pool, demo_sets
from ragjudge.optimize._report import CompileReport, RowPrediction
from ragjudge.optimize._split import group_key, split_gold
from ragjudge.optimize._study import open_storage, suggest, summarize_study
from ragjudge.programs._base import Judge, calibrated
from ragjudge.programs._results import JudgeResult, StatementResult
from ragjudge.programs._serialization import _versions
from ragjudge.stats._agreement import _ba, _f1, _kappa, auroc, balanced_accuracy, cohen_kappa, f1

__all__ = ["OBJECTIVES", "compile_judge"]

logger = logging.getLogger(__name__)

Objective = Literal["balanced_accuracy", "kappa", "f1", "auroc"]
OBJECTIVES: tuple[str, ...] = ("balanced_accuracy", "kappa", "f1", "auroc")
ProgressFactory = Callable[[int, str], Any]


def _objective_value(name: str, results: Sequence[JudgeResult], labels: np.ndarray) -> float:
    """The objective on the tuning rows. A row the judge leaves unscored (NaN: e.g. every
    statement unsure and excluded) counts as it behaves, never passing and ranked lowest, so
    abstaining on hard rows cannot raise the objective; rows with an error are left out."""
    keep = np.array([not r.error for r in results], dtype=bool)
    if keep.sum() < 2:
        return 0.0
    y = labels[keep]
    scores = _scores_or_floor([r for r, k in zip(results, keep, strict=True) if k], scale=1.0)
    passed = np.array([bool(r.passed) for r, k in zip(results, keep, strict=True) if k])
    if len(set(y.tolist())) < 2:
        return 0.0
    value = {
        "balanced_accuracy": lambda: balanced_accuracy(y, passed),
        "kappa": lambda: cohen_kappa(y, passed),
        "f1": lambda: f1(y, passed),
        "auroc": lambda: auroc(y, scores),
    }[name]()
    return 0.0 if math.isnan(value) else float(value)


#: The score an unscored row stands at while tuning: below every pass threshold in [0, 1].
_UNSCORED = -1.0


def _scores_or_floor(results: Sequence[JudgeResult], *, scale: float) -> np.ndarray:
    """Unscaled scores, with `_UNSCORED` for rows without a score."""
    return np.array([_UNSCORED if math.isnan(r.score) else r.score / scale for r in results])


def _reverdict(
    result: JudgeResult, threshold: float, margin: float, *, contradictions: bool = False
) -> JudgeResult:
    """Statement verdicts as the offline judge gives them under another support threshold.

    With `contradictions` (offline params from schema 2 on), "no" means the context
    contradicts the statement, which no threshold changes; below the threshold is "unsure".
    """
    statements = []
    for s in result.statements:
        if s.confidence is None or (contradictions and s.verdict == "no"):
            statements.append(s)
            continue
        if abs(s.confidence - threshold) < margin:
            verdict = "unsure"
        elif s.confidence >= threshold:
            verdict = "yes"
        else:
            verdict = "unsure" if contradictions else "no"
        statements.append(
            StatementResult(text=s.text, verdict=verdict, reason=s.reason, confidence=s.confidence)
        )
    return result.model_copy(update={"statements": statements})


@dataclass
class _RawCache:
    """Raw judge outputs on the tuning rows, per (mode, demo set): LM work happens once.

    With `folds` (cross-fitted offline weights), each row is judged by its fold's judge, so
    every output is out-of-fold.
    """

    make: Callable[[str, int, int], Judge]  # (mode, demo set, fold) -> judge
    rows: Sequence[GoldRecord]
    concurrency: int
    progress: ProgressFactory | None
    folds: list[int] | None = None  # cross-fitting: row i is judged by fold folds[i]'s judge
    results: dict[tuple[str, int], list[JudgeResult]] = field(default_factory=dict)
    calls: dict[tuple[str, int], int] = field(default_factory=dict)

    def get(self, mode: str, demos: int) -> tuple[list[JudgeResult], int]:
        """The outputs and the LM calls this request made (0 when cached)."""
        key = (mode, demos)
        if key in self.results:
            return self.results[key], 0
        folds = self.folds if self.folds is not None else [0] * len(self.rows)
        bar = (
            self.progress(len(self.rows), f"raw outputs ({mode}, demos {demos})")
            if self.progress
            else None
        )

        def tick(_: int, __: JudgeResult) -> None:
            if bar is not None:
                bar.update(1)

        outs: list[JudgeResult] = [None] * len(self.rows)  # type: ignore[list-item]
        try:
            for fold in sorted(set(folds)):
                index = [i for i, f in enumerate(folds) if f == fold]
                judge = self.make(mode, demos, fold)
                part = judge.batch(
                    [self.rows[i] for i in index], concurrency=self.concurrency, on_result=tick
                )
                for i, result in zip(index, part, strict=True):
                    outs[i] = result
        finally:
            if bar is not None:
                bar.close()
        calls = sum(r.lm_calls for r in outs)
        self.results[key], self.calls[key] = outs, calls
        return outs, calls

    @property
    def total_calls(self) -> int:
        return sum(self.calls.values())


def _is_offline(judge: Judge) -> bool:
    lm = judge.lm
    if lm is None:
        return dspy.settings.lm is None
    if isinstance(lm, str):
        return lm == LOCAL
    return isinstance(getattr(lm, "engine", None), OfflineEngine)


def compile_judge(
    judge: Judge,
    *,
    gold: str | os.PathLike[str] | Sequence[GoldRecord],
    n_trials: int = 60,
    seed: int = 0,
    objective: Objective = "balanced_accuracy",
    objectives: Sequence[str] | None = None,
    valid_fraction: float = 0.3,
    group_by: str | None = "meta.group_id",
    storage: str | None = None,
    study_name: str | None = None,
    init: Judge | str | os.PathLike[str] | None = None,
    max_demos: int = 4,
    demo_candidates: int = 3,
    mapping: dict[str, str] | None = None,
    concurrency: int = 1,
    n_boot: int = 1000,
    progress: ProgressFactory | None = None,
    calibrate: bool = True,
    regularization: float | None = None,
) -> Judge:
    """Compile a judge against gold labels.

    Args:
        judge: The judge to start from (left unchanged); its class, LM and parameters.
        gold: Labeled rows, or a file / dataset name to load them from.
        n_trials: Completed Optuna trials wanted in the study (in total, across workers).
        seed: Seeds the split, the demo sets and the TPE sampler.
        objective: Agreement measure the study maximizes.
        objectives: `["agreement", "cost"]` for a multi-objective study (agreement vs LM calls
            per item); the file then records the Pareto front.
        valid_fraction: Share of rows (whole groups) held out for the reported figures.
        group_by: Dotted path of the group key; rows of one group never straddle the split.
        storage: Optuna storage URL (`sqlite:///s.db`, `postgresql://...`) or a journal file;
            an interrupted compile resumes and several processes can share one study.
        study_name: Name of the study in the storage (default: from the gold fingerprint).
        init: A compiled judge (or its file) to warm-start from: its params are the first
            trial, its demos stay candidates, its fitted weights are the starting point.
        max_demos: Largest number of few-shot demos per predictor to try.
        demo_candidates: Random demo sets tried per demo count (LM judges).
        mapping: Field -> column names of the gold file.
        concurrency: Items judged at once.
        n_boot: Bootstrap resamples for the intervals.
        progress: `(total, description) -> bar` with `update(n)` and `close()`, for a display.
        calibrate: Fit a Platt calibration of the chosen score on the tuning rows (judges with
            a `calibration` parameter), so that the score is a probability of the label.
        regularization: L2 strength of the offline weights (toward `init`'s weights when
            given); None chooses it by grouped cross-validation on the train rows.

    Returns:
        A new judge with the chosen parameters, demos and weights, and `report_` (a dict, see
        `CompileReport`).

    Example:
        >>> judge = Faithfulness()
        >>> compiled = compile_judge(judge, gold="gold.jsonl", n_trials=60)  # doctest: +SKIP
        >>> compiled.report_["validation"]["balanced_accuracy"]  # doctest: +SKIP
    """
    started = time.perf_counter()
    if objective not in OBJECTIVES:
        raise ConfigurationError(
            f"The `objective` parameter must be one of {', '.join(OBJECTIVES)}. "
            f"Got {objective!r} instead."
        )
    multi = list(objectives or ["agreement"])
    if multi not in (["agreement"], ["agreement", "cost"]):
        raise ConfigurationError(
            f"`objectives` must be 'agreement' or 'agreement,cost'. Got {','.join(multi)!r}."
        )
    if n_trials < 1:
        raise ConfigurationError("`n_trials` must be at least 1")
    gold_name: str | None = None
    if isinstance(gold, (str, os.PathLike)):
        gold_name = os.fspath(gold)
        loaded = load_gold(
            gold_name, mapping=mapping, require_labels=judge.metric == "faithfulness"
        )
    else:
        loaded = list(gold)
    rows = labeled_rows(loaded, judge.metric)
    if not rows:
        raise GoldDataError(
            f"no row carries a label for {judge.metric}"
            + (
                " (rows need faithful = 0 or 1)"
                if judge.metric == "faithfulness"
                else "; give faithfulness gold to derive it from (see docs/derived-gold.md)"
            )
        )
    train, valid = split_gold(rows, valid_fraction=valid_fraction, group_by=group_by, seed=seed)
    init_judge = _load_init(init)
    offline = judge.uses_lm and _is_offline(judge)
    timings: dict[str, float] = {}

    # 1. Offline weights, fitted on train.
    t0 = time.perf_counter()
    # Cross-fitting: each train row is also scored by weights fitted without its fold, and the
    # study and the calibration use those out-of-fold scores, which behave like scores on new
    # rows (in-sample scores flatter the fitted modes and make the calibration too steep).
    fitted: OfflineParams | None = None
    cross: CrossFit | None = None
    if offline and judge.fits_offline_model:
        start_params = init_judge.offline_params_ if init_judge is not None else None
        cross = cross_fit_offline(
            train,
            groups=[group_key(r, group_by) for r in train],
            init=start_params,
            candidates=None if regularization is None else [regularization],
            seed=seed,
        )
        logger.info(
            "regularization %s chosen by cross-validation: %s", cross.regularization, cross.scores
        )
        fitted = fit_offline(
            train, init=start_params, seed=seed, regularization=cross.regularization
        )
    timings["fit_weights"] = time.perf_counter() - t0

    # 2. Demo candidates from gold (LM judges: from a slice of train kept out of tuning).
    t0 = time.perf_counter()
    tune_rows, pool_rows = _carve_pool(train, offline=offline, seed=seed)
    pool = demo_pool(pool_rows) if list(judge.named_predictors()) else []
    sets: list[list[dspy.Example]]
    if not pool:
        sets = [[]]
    elif offline:
        sets = demo_sets(pool, sizes=[max_demos], per_size=1, seed=seed) if max_demos else [[]]
    else:
        sizes = sorted({0, *range(2, max_demos + 1, 2)}) if max_demos else [0]
        sets = demo_sets(pool, sizes=sizes, per_size=demo_candidates, seed=seed)
    if init_judge is not None and not offline:
        sets.append(_demos_of(init_judge))
    timings["demos"] = time.perf_counter() - t0

    def make(mode: str, demo_index: int, **params: Any) -> Judge:
        candidate = judge.clone(mode=mode, **params)
        candidate.offline_params_ = fitted if fitted is not None else judge.offline_params_
        _set_demos(candidate, sets[demo_index])
        return candidate

    def make_fold(mode: str, demo_index: int, fold: int) -> Judge:
        candidate = make(mode, demo_index)
        if cross is not None:
            candidate.offline_params_ = cross.fold_params[fold]
        return candidate

    cache = _RawCache(
        make=make_fold,
        rows=tune_rows,
        concurrency=concurrency,
        progress=progress,
        folds=cross.folds if cross is not None and tune_rows is train else None,
    )
    labels = np.array([int(r.faithful or 0) for r in tune_rows])
    policy_space = dict(judge.policy_space())
    # The pass threshold is fitted exactly in every trial (the objective is a step function of
    # it, flat between sorted scores); TPE searches the other choices.
    fit_threshold = "threshold" in policy_space
    searched = {k: v for k, v in policy_space.items() if k != "threshold"}
    margin = fitted.unsure_margin if fitted is not None else 0.0
    contradictions = fitted is not None and fitted.schema_version >= 2
    search_demos = len(sets) > 1

    def trial_params(trial: optuna.Trial) -> dict[str, Any]:
        params: dict[str, Any] = {"mode": trial.suggest_categorical("mode", list(judge.modes))}
        params["demos"] = (
            trial.suggest_categorical("demos", list(range(len(sets)))) if search_demos else 0
        )
        for name, dist in searched.items():
            params[name] = suggest(trial, name, dist)
        if fit_threshold:
            params["threshold"] = float(trial.user_attrs.get("threshold", 0.5))
        if fitted is not None and params["mode"] == "statement":
            params["support_threshold"] = trial.suggest_float("support_threshold", 0.05, 0.95)
        return params

    uncalibrated = {"calibration": None} if "calibration" in judge.get_params() else {}

    def score(params: dict[str, Any]) -> tuple[list[JudgeResult], int, float]:
        outs, calls = cache.get(params["mode"], params["demos"])
        policy = {**{k: params[k] for k in policy_space}, **uncalibrated}
        support = params.get("support_threshold")
        rescored = [
            judge.rescore(
                _reverdict(r, support, margin, contradictions=contradictions)
                if support is not None
                else r,
                **policy,
            )
            for r in outs
        ]
        per_item = cache.calls[(params["mode"], params["demos"])] / max(1, len(tune_rows))
        return rescored, calls, per_item

    def run_trial(trial: optuna.Trial) -> float | tuple[float, float]:
        params = trial_params(trial)
        rescored, calls, per_item = score(params)
        trial.set_user_attr("lm_calls", calls)
        ranking = _objective_value("auroc", rescored, labels)
        trial.set_user_attr("auroc", ranking)
        if fit_threshold:
            target = "balanced_accuracy" if objective == "auroc" else objective
            cut, value = _refine_threshold(judge, rescored, labels, target, 0.5)
            trial.set_user_attr("threshold", cut)
        else:
            value = _objective_value(objective, rescored, labels)
        if objective == "auroc":
            value = ranking
        return (value, per_item) if len(multi) > 1 else value

    # 3. The study.
    t0 = time.perf_counter()
    name = study_name or f"ragjudge-{judge.metric}-{gold_fingerprint(rows)[:12]}-s{seed}"
    directions: list[Literal["minimize", "maximize"]] = (
        ["maximize", "minimize"] if len(multi) > 1 else ["maximize"]
    )
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(
        study_name=name,
        storage=open_storage(storage),
        sampler=optuna.samplers.TPESampler(seed=seed if storage is None else None),
        directions=directions,
        load_if_exists=True,
    )
    if init_judge is not None and not study.trials:
        study.enqueue_trial(_init_params(init_judge, policy_space, offline, len(sets) - 1))
    done = len(study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)))
    remaining = max(0, n_trials - done)
    bar = progress(remaining, "trials") if progress and remaining else None
    callbacks: list[Callable[[optuna.Study, optuna.trial.FrozenTrial], None]] = [
        optuna.study.MaxTrialsCallback(n_trials, states=(TrialState.COMPLETE,))
    ]
    if bar is not None:
        callbacks.append(lambda s, t: bar.update(1))
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    try:
        if remaining:
            study.optimize(run_trial, n_trials=remaining, callbacks=callbacks)
    finally:
        if bar is not None:
            bar.close()
    timings["study"] = time.perf_counter() - t0

    # 4. The chosen judge: best trial (highest agreement on the Pareto front when multi).
    best = _best_trial(study)
    params = _full_params(best, policy_space, judge, offline, search_demos)
    policy = {k: params[k] for k in policy_space}
    if "calibration" in judge.get_params() and calibrate:
        # Platt scaling of the chosen score on the tuning rows: a monotone map, so agreement
        # and ranking are unchanged, and the score becomes a probability comparable across
        # judges and domains. The pass threshold moves with it.
        rescored, _, _ = score(params)
        calibration = _fit_calibration(judge, rescored, labels)
        if calibration is not None and "threshold" in policy:
            policy["threshold"] = calibrated(policy["threshold"], calibration)
            policy["calibration"] = list(calibration)
    compiled = make(params["mode"], params["demos"], **policy)
    if offline and fitted is not None and params.get("support_threshold") is not None:
        compiled.offline_params_ = fitted.model_copy(
            update={"support_threshold": params["support_threshold"]}
        )

    # 5. Validation: compiled vs the uncompiled default judge (and the --init judge).
    t0 = time.perf_counter()
    baseline = type(judge)(lm=judge.lm)
    compiled_out = _run(compiled, valid, concurrency, progress, "validation (compiled)")
    baseline_out = _run(baseline, valid, concurrency, progress, "validation (baseline)")
    init_out = (
        _run(init_judge, valid, concurrency, progress, "validation (--init)")
        if init_judge is not None
        else None
    )
    timings["validation"] = time.perf_counter() - t0
    comp_agree, comp_src, _, _ = agreement_of(
        valid, compiled_out, n_boot=n_boot, seed=seed, metric=judge.metric
    )
    base_agree, base_src, _, _ = agreement_of(
        valid, baseline_out, n_boot=n_boot, seed=seed, metric=judge.metric
    )
    init_agree = (
        agreement_of(valid, init_out, n_boot=n_boot, seed=seed, metric=judge.metric)[0]
        if init_out
        else None
    )
    if comp_agree is None or base_agree is None:
        raise ConfigurationError("no validation row could be judged; check the LM and the data")
    timings["total"] = time.perf_counter() - started

    summary = summarize_study(study, seed=seed, objectives=multi, storage=storage)
    report = CompileReport(
        metric=judge.metric,
        lm=describe_judge_lm(compiled),
        objective=objective,
        params={
            **_plain(compiled.get_params()),
            "demos": len(sets[params["demos"]])
            if any(
                sets[params["demos"]] and list(p.demos) == list(sets[params["demos"]])
                for _, p in compiled.named_predictors()
            )
            else 0,
            **(
                {"support_threshold": params["support_threshold"]}
                if "support_threshold" in params
                else {}
            ),
            **({"regularization": cross.regularization} if cross is not None else {}),
            "best_trial": best.number,
        },
        baseline_params=_plain(baseline.get_params()),
        validation=comp_agree,
        baseline=base_agree,
        init=init_agree,
        by_source={
            s: {"compiled": comp_src[s], "baseline": base_src[s]} for s in comp_src if s in base_src
        },
        gold={"path": gold_name, "sha256": gold_fingerprint(rows), "rows": len(rows)},
        split={
            "labels": "human" if judge.metric == "faithfulness" else "derived",
            "seed": seed,
            "valid_fraction": valid_fraction,
            "group_by": group_by,
            "stratified_on": "faithful",
        },
        sizes={
            "train": len(train),
            "validation": len(valid),
            "tuning": len(tune_rows),
            "demo_pool": len(pool),
            "demo_sets": len(sets),
        },
        study=summary,
        lm_calls={
            "raw_outputs": cache.total_calls,
            "raw_output_sets": len(cache.results),
            "per_trial": [t.lm_calls for t in summary.trials],
            "trials_without_lm_calls": sum(1 for t in summary.trials if t.lm_calls == 0),
            "validation": sum(r.lm_calls for r in compiled_out)
            + sum(r.lm_calls for r in baseline_out),
        },
        demos={name: len(p.demos) for name, p in compiled.named_predictors()},
        seconds=timings,
        versions=_versions(),
        predictions=[
            RowPrediction(
                id=row.id,
                source=row.source,
                gold=int(row.faithful or 0),
                score=None if math.isnan(c.score) else c.score,
                passed=c.passed,
                baseline_score=None if math.isnan(b.score) else b.score,
                baseline_passed=b.passed,
            )
            for row, c, b in zip(valid, compiled_out, baseline_out, strict=True)
        ],
    )
    compiled.report_ = report.model_dump(mode="json")
    return compiled


def labeled_rows(rows: Sequence[GoldRecord], metric: str) -> list[GoldRecord]:
    """The rows to compile `metric` on, with that metric's label in `faithful`.

    Faithfulness uses the human labels. Answer relevancy and context recall use the labels
    derived rows carry (`ragjudge.data._derived`), or derive them from the faithfulness gold;
    those labels are derived, never human, and the report says so (`labels`).
    """
    from ragjudge.data._derived import derive_gold, derived_label, is_derived

    if metric == "faithfulness":
        return [r for r in rows if not is_derived(r) and r.faithful is not None]
    carried = [r for r in rows if derived_label(r, metric)[0] is not None]
    if not carried:
        carried = derive_gold([r for r in rows if not is_derived(r)]).get(metric, [])
    return [r.model_copy(update={"faithful": derived_label(r, metric)[0]}) for r in carried]


def _plain(params: dict[str, Any]) -> dict[str, Any]:
    """Parameters as JSON values: an LM object is recorded by its model string."""
    lm = params.get("lm")
    if lm is not None and not isinstance(lm, str):
        params = {**params, "lm": str(getattr(lm, "model", type(lm).__name__))}
    return params


def _carve_pool(
    train: list[GoldRecord], *, offline: bool, seed: int
) -> tuple[list[GoldRecord], list[GoldRecord]]:
    """Rows for tuning and rows for demos. An LM sees demos, so their rows are kept out of
    tuning; the offline judge does not read demos, so all of train tunes."""
    if offline:
        return train, train
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(train))
    n_pool = min(60, max(4, len(train) // 5))
    pool_idx = set(order[:n_pool].tolist())
    tune = [r for i, r in enumerate(train) if i not in pool_idx]
    pool = [r for i, r in enumerate(train) if i in pool_idx]
    return tune, pool


def _set_demos(judge: Judge, demos: list[dspy.Example]) -> None:
    if not demos:
        return
    for _, predictor in judge.named_predictors():
        fields = set(predictor.signature.fields)
        if all(all(f in d for f in fields) for d in demos):
            predictor.demos = list(demos)


def _demos_of(judge: Judge) -> list[dspy.Example]:
    for _, predictor in judge.named_predictors():
        if predictor.demos:
            return list(predictor.demos)
    return []


def _load_init(init: Judge | str | os.PathLike[str] | None) -> Judge | None:
    if init is None or isinstance(init, Judge):
        return init
    from ragjudge.programs._serialization import load

    return load(init)


def _init_params(
    init: Judge, space: dict[str, Any], offline: bool, demo_index: int
) -> dict[str, Any]:
    params = init.get_params()
    out: dict[str, Any] = {"mode": params["mode"]}
    for name in space:
        if name in params and name != "threshold":
            out[name] = params[name]
    if offline and params["mode"] == "statement" and init.offline_params_ is not None:
        out["support_threshold"] = init.offline_params_.support_threshold
    if not offline:
        out["demos"] = demo_index
    return out


TIE_TOLERANCE = 0.005


def _best_trial(study: optuna.Study) -> optuna.trial.FrozenTrial:
    """The best trial; among trials within `TIE_TOLERANCE` of the best value (noise on the
    tuning rows), the one whose scores rank the rows best (AUROC) wins."""
    if len(study.directions) == 1:
        best = study.best_trial
        complete = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
        near = [
            t
            for t in complete
            if t.value is not None and t.value >= (best.value or 0.0) - TIE_TOLERANCE
        ]
        return max(near, key=lambda t: (float(t.user_attrs.get("auroc", 0.0)), t.value or 0.0))
    front = study.best_trials
    return max(front, key=lambda t: (t.values[0], -t.values[1]))


def _full_params(
    trial: optuna.trial.FrozenTrial,
    space: dict[str, Any],
    judge: Judge,
    offline: bool,
    search_demos: bool,
) -> dict[str, Any]:
    """Every parameter of a finished trial, with the fitted threshold and judge defaults."""
    best = {**trial.params}
    if "threshold" in trial.user_attrs:
        best["threshold"] = float(trial.user_attrs["threshold"])
    defaults = judge.get_params()
    params: dict[str, Any] = {"mode": best.get("mode", defaults.get("mode"))}
    params["demos"] = best.get("demos", 0) if search_demos else 0
    for name in space:
        params[name] = best.get(name, defaults.get(name))
    if "support_threshold" in best:
        params["support_threshold"] = best["support_threshold"]
    return params


def _fit_calibration(
    judge: Judge, results: list[JudgeResult], labels: np.ndarray
) -> tuple[float, float] | None:
    """Platt scaling `(a, b)` of unscaled scores to P(label = 1); None if not increasing."""
    scale = float(getattr(judge, "scale", 1.0) or 1.0)
    keep = np.array([not r.error and not math.isnan(r.score) for r in results], dtype=bool)
    y = labels[keep]
    if keep.sum() < 10 or len(set(y.tolist())) < 2:
        return None
    s = np.array([r.score / scale for r in results])[keep]
    from sklearn.linear_model import LogisticRegression  # slow import: only when compiling

    model = LogisticRegression(C=100.0).fit(s.reshape(-1, 1), y)
    a, b = float(model.coef_[0][0]), float(model.intercept_[0])
    return (a, b) if a > 1e-6 else None


def _refine_threshold(
    judge: Judge, results: list[JudgeResult], labels: np.ndarray, objective: str, current: float
) -> tuple[float, float]:
    """The objective is flat between sorted unique scores: take the best interval's midpoint.

    Every candidate cut is scored at once from sorted scores (confusion counts by binary
    search), so this costs O(n log n) however many distinct scores there are.
    """
    scale = float(getattr(judge, "scale", 1.0) or 1.0)
    keep = np.array([not r.error for r in results], dtype=bool)
    if keep.sum() < 2:
        return current, _objective_value(objective, results, labels)
    s = _scores_or_floor([r for r, k in zip(results, keep, strict=True) if k], scale=scale)
    y = labels[keep].astype(bool)
    unique = np.unique(s)
    cuts = np.concatenate([[0.0], (unique[:-1] + unique[1:]) / 2, [1.0]])
    cuts = np.unique(cuts[(cuts >= 0.0) & (cuts <= 1.0)])
    pos, neg = np.sort(s[y]), np.sort(s[~y])
    tp = len(pos) - np.searchsorted(pos, cuts, side="left")
    fp = len(neg) - np.searchsorted(neg, cuts, side="left")
    fn, tn = len(pos) - tp, len(neg) - fp
    counts = (tp.astype(float), fn.astype(float), fp.astype(float), tn.astype(float))
    values = {"balanced_accuracy": _ba, "kappa": _kappa, "f1": _f1}[objective](*counts)
    values = np.nan_to_num(values, nan=0.0)
    best = values.max()
    ties = np.flatnonzero(values >= best - 1e-12)
    pick = ties[np.argmin(np.abs(cuts[ties] - current))]
    return float(cuts[pick]), float(values[pick])


def _run(
    judge: Judge,
    rows: Sequence[GoldRecord],
    concurrency: int,
    progress: ProgressFactory | None,
    label: str,
) -> list[JudgeResult]:
    bar = progress(len(rows), label) if progress else None
    try:
        return judge.batch(
            rows,
            concurrency=concurrency,
            on_result=(lambda i, r: bar.update(1)) if bar is not None else None,
        )
    finally:
        if bar is not None:
            bar.close()
