"""`JudgeOptimizer`: compile a judge against gold labels, as a DSPy teleprompter.

One `compile` call runs named steps, each a short method a subclass can override:
`split` (train / validation), `fit` (the judge's learner: offline weights), `demos` (few-shot
candidates), `study` (the Optuna search over modes, demos and policies, with `refit_threshold`
inside every trial), `select` (the finalists cross-validated against the start, one decision
rule), `calibration` (Platt scaling of the chosen score), `build` (the compiled judge),
`validate` (compiled vs uncompiled on validation) and `report`.

The optimizer knows no judge class and no judge parameter: everything it needs of a judge
comes from the one object the judge hands over, `judge.compile_spec()`
(`ragjudge.programs._spec.CompileSpec`).

Everything is fitted on the train split; every reported figure is measured on validation.
The judge's raw outputs on the train rows are computed once per (mode, demo set) and cached,
so trials that change only thresholds and policies make no LM calls.
"""

from __future__ import annotations

import json
import logging
import math
import os
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Literal

import dspy
import numpy as np
import optuna
from dspy.teleprompt import Teleprompter
from optuna.trial import TrialState

from ragjudge.data._gold import GoldRecord, gold_fingerprint
from ragjudge.data._labels import gold_label, label_source, labeled_rows
from ragjudge.data._rowhash import row_hash
from ragjudge.evaluation._evaluate import agreement_of, describe_judge_lm
from ragjudge.evaluation._predictions import RowPrediction
from ragjudge.exceptions import ConfigurationError, GoldDataError
from ragjudge.lm._meter import CallMeter, active_meter, metering
from ragjudge.optimize._ablation import AblationStep, ablation
from ragjudge.optimize._budget import (
    BudgetSpentError,
    LMCallBudget,
    call_ceiling,
    judge_within_budget,
)
from ragjudge.optimize._demos import demo_pool, demo_sets
from ragjudge.optimize._report import CompileReport
from ragjudge.optimize._select import (
    SELECT_REPEATS,
    SELECT_RULES,
    Finalist,
    Selection,
    SelectRule,
    pick_best,
    select_finalist,
)
from ragjudge.optimize._split import group_key, split_gold
from ragjudge.optimize._study import FITTED, open_storage, suggest, summarize_study
from ragjudge.programs._base import Judge
from ragjudge.programs._learner import Learner
from ragjudge.programs._results import JudgeResult
from ragjudge.programs._serialization import _versions
from ragjudge.programs._spec import CompileSpec
from ragjudge.stats._agreement import auroc
from ragjudge.stats._folds import group_folds
from ragjudge.stats._logistic import fit_logistic
from ragjudge.stats._threshold import UNSCORED, best_threshold, floored, objective_value

__all__ = ["OBJECTIVES", "AfterStudy", "CompileState", "JudgeOptimizer", "labeled_rows"]

logger = logging.getLogger(__name__)

Objective = Literal["balanced_accuracy", "kappa", "f1", "auroc"]
OBJECTIVES: tuple[str, ...] = ("balanced_accuracy", "kappa", "f1", "auroc")
ProgressFactory = Callable[[int, str], Any]

#: The runs after the study, by the label their calls are recorded under.
VALIDATION_COMPILED = "validation (compiled)"
VALIDATION_BASELINE = "validation (baseline)"
VALIDATION_INIT = "validation (--init)"
VALIDATION_ABLATION = "validation (ablation: mode)"
START_TUNING = "start judge (tuning rows)"


@dataclass
class PlannedRun:
    """A judge run compile makes after the study, and the most LM calls it can take."""

    label: str
    rows: int
    calls_per_row: int

    @property
    def calls(self) -> int:
        """The most LM calls of the run."""
        return self.rows * self.calls_per_row


@dataclass
class AfterStudy:
    """What compile runs after the study, planned before it: `plan_budget` holds back exactly
    these runs' calls, and `select` and `validate` run exactly these.

    Attributes:
        baseline: The uncompiled judge validation measures beside the compiled one.
        offline: The same judge on the offline judge's LM, measured beside an LM judge.
        ablation: True when validation rebuilds the compiled judge one choice at a time.
        runs: The runs that may make LM calls, with their most calls.
    """

    baseline: Judge
    offline: Judge | None
    ablation: bool
    runs: list[PlannedRun] = field(default_factory=list)

    @property
    def calls(self) -> int:
        """The most LM calls of every run after the study."""
        return sum(r.calls for r in self.runs)


@dataclass
class CompileState:
    """What one `compile` call has established so far; each step reads it and adds its part.

    Attributes:
        student: The judge being compiled (never changed).
        spec: What compile needs of it (`Judge.compile_spec`).
        rows: Every labeled row (train and validation).
        train: Rows everything is fitted on.
        valid: Rows every reported figure is measured on.
        init: The warm-start judge, if any.
        learner: What the student fits beyond its policies (`CompileSpec.learner`), fitted
            by `fit`.
        budget: The LM calls this compile may spend, and has spent (`max_lm_calls`).
        tune_rows: Rows the study scores trials on (`demos`).
        pool: Demo candidates (`demos`).
        demo_sets: Demo sets the study chooses among (`demos`).
        raw: Raw judge outputs on `tune_rows`, per (mode, demo set) (`study`).
        labels: Labels of `tune_rows`.
        study: The finished Optuna study (`study`).
        trial_scores: Each trial's mode and unscaled scores on the tuning rows (`study`).
        selection: The finalists' out-of-fold agreement and the one that ships (`select`).
        after: The runs after the study (`plan_after_study`, before the study).
        after_calls: The LM calls each run after the study made, by its label.
        timings: Seconds per step.
    """

    student: Judge
    spec: CompileSpec[Judge]
    rows: list[GoldRecord]
    train: list[GoldRecord]
    valid: list[GoldRecord]
    init: Judge | None = None
    learner: Learner | None = None
    budget: LMCallBudget = field(default_factory=lambda: LMCallBudget(None))
    tune_rows: list[GoldRecord] = field(default_factory=list)
    pool: list[dspy.Example] = field(default_factory=list)
    demo_sets: list[list[dspy.Example]] = field(default_factory=lambda: [[]])
    raw: _RawCache | None = None
    labels: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=int))
    study: optuna.Study | None = None
    trial_scores: dict[int, tuple[str, np.ndarray]] = field(default_factory=dict)
    selection: Selection | None = None
    after: AfterStudy | None = None
    after_calls: dict[str, int] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def reads_demos(self) -> bool:
        """True when few-shot demos reach the student's LM (`CompileSpec.reads_demos`)."""
        return self.spec.reads_demos

    @property
    def policy_space(self) -> dict[str, Any]:
        """The student's tunable policies (name -> distribution)."""
        return dict(self.spec.space)

    @property
    def search_demos(self) -> bool:
        """True when the study chooses among several demo sets."""
        return len(self.demo_sets) > 1

    def candidate(self, mode: str, demo_index: int, **params: Any) -> Judge:
        """A judge of the student's class with these parameters, the fitted state and demos."""
        judge = self.student.clone(mode=mode, **params)
        if self.learner is not None:
            self.learner.apply(judge)
        _set_demos(judge, self.demo_sets[demo_index])
        return judge

    def fold_candidate(self, mode: str, demo_index: int, fold: int) -> Judge:
        """The judge whose raw outputs every policy can score (`CompileSpec.raw_params`), with
        fold `fold`'s state when the learner cross-fits."""
        judge = self.candidate(mode, demo_index, **self.spec.raw_params)
        if self.learner is not None and self.learner.folds is not None:
            self.learner.apply(judge, fold=fold)
        return judge

    def search_space(self, mode: str) -> dict[str, Any]:
        """The learner's parameters searched in `mode`, beside the student's policies."""
        return self.learner.search_space(mode) if self.learner is not None else {}


@dataclass
class Validation:
    """Outputs on the validation rows: the compiled, uncompiled and `--init` judges."""

    baseline: Judge
    compiled: list[JudgeResult]
    uncompiled: list[JudgeResult]
    init: list[JudgeResult] | None
    ablation: list[AblationStep] = field(default_factory=list)
    offline: list[JudgeResult] | None = None


class JudgeOptimizer(Teleprompter):
    """Compiles a judge against gold labels: offline weights, few-shot demos, an Optuna study.

    A DSPy teleprompter: `JudgeOptimizer(n_trials=60).compile(judge, trainset=rows)` returns a
    new judge with the chosen parameters, demos and weights, and `report_` (a dict, see
    `CompileReport`). `ragjudge.compile(...)` and `ragjudge compile` run it.

    Args:
        n_trials: Completed Optuna trials wanted in the study (in total, across workers).
        seed: Seeds the split, the demo sets and the TPE sampler.
        objective: Agreement measure the study maximizes.
        objectives: `["agreement", "cost"]` for a multi-objective study (agreement vs LM calls
            per item); the file then records the Pareto front.
        valid_fraction: Share of rows (whole groups) held out for the reported figures when
            `compile` is given no `valset`.
        group_by: Dotted path of the group key; rows of one group never straddle the split.
        storage: Optuna storage URL (`sqlite:///s.db`, `postgresql://...`) or a journal file;
            an interrupted compile resumes and several processes can share one study.
        study_name: Name of the study in the storage (default: from the gold fingerprint).
        init: A compiled judge (or its file) to warm-start from: its params are the first
            trial, its demos stay candidates, its fitted weights are the starting point.
        max_demos: Largest number of few-shot demos per predictor to try.
        demo_candidates: Random demo sets tried per demo count (LM judges).
        concurrency: Items judged at once.
        n_boot: Bootstrap resamples for the intervals.
        progress: `(total, description) -> bar` with `update(n)` and `close()`, for a display.
        calibrate: Fit a Platt calibration of the chosen score on the tuning rows (judges with
            a `calibration` parameter), so that the score is a probability of the label.
        regularization: L2 strength of the offline weights (toward `init`'s weights when
            given); None chooses it by grouped cross-validation on the train rows.
        head: Train a tree head for the offline judge's answer model on the train rows
            (`ragjudge.offline.head`): True always, False never, None (default) keeps it only
            when grouped cross-validation on the train rows says it ranks answers better.
        max_lm_calls: The most LM calls to spend on raw outputs of the tuning rows (cache
            hits are free); a (mode, demo set) the rest cannot pay for is skipped and the
            report says which (`ragjudge.optimize._budget`). None: no limit.
        modes: The modes the study may choose (default: all of the student's modes).
        select: How the judge that ships is chosen among the study's best trial in each arm
            and the starting judge (the uncompiled student, or `init`), all scored out of fold
            on the same grouped folds of the training rows, on the study's objective:
            `"one-se"` ships the most agreeing tuned judge that beats the start by more than
            one standard error of the paired difference (two for a finalist that makes more LM
            calls a row than the start) and agrees less on no source (rows of several sources)
            beyond that source's bar (`_select.source_bar`), else the start; `"best"` ships
            the highest out-of-fold agreement.
        max_lm_calls_per_row: The most LM calls a row may cost the judge that ships (a
            trial's mean over the tuning rows, `CompileSpec.row_calls`): only trials within it
            are chosen (for `Cascade`, the best route and band under that budget). None: any.

    Example:
        >>> optimizer = JudgeOptimizer(n_trials=60, seed=0)
        >>> compiled = optimizer.compile(Faithfulness(), trainset=rows)  # doctest: +SKIP
        >>> compiled.report_["validation"]["balanced_accuracy"]  # doctest: +SKIP

        A step is replaced by overriding its method:

        >>> class FixedSplit(JudgeOptimizer):
        ...     def split(self, rows):
        ...         return rows[:-50], rows[-50:]
    """

    def __init__(
        self,
        *,
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
        concurrency: int = 1,
        n_boot: int = 1000,
        progress: ProgressFactory | None = None,
        calibrate: bool = True,
        regularization: float | None = None,
        head: bool | None = None,
        max_lm_calls: int | None = None,
        modes: Sequence[str] | None = None,
        select: SelectRule = "one-se",
        max_lm_calls_per_row: float | None = None,
    ) -> None:
        super().__init__()
        if max_lm_calls_per_row is not None and not max_lm_calls_per_row >= 0:
            raise ConfigurationError(
                f"`max_lm_calls_per_row` must be 0 or more. Got {max_lm_calls_per_row!r}."
            )
        if select not in SELECT_RULES:
            raise ConfigurationError(
                f"The `select` parameter must be one of {', '.join(SELECT_RULES)}. "
                f"Got {select!r} instead."
            )
        if max_lm_calls is not None and max_lm_calls < 1:
            raise ConfigurationError(f"`max_lm_calls` must be at least 1, got {max_lm_calls}")
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
        self.n_trials = n_trials
        self.seed = seed
        self.objective = objective
        self.objectives = multi
        self.valid_fraction = valid_fraction
        self.group_by = group_by
        self.storage = storage
        self.study_name = study_name
        self.init = init
        self.max_demos = max_demos
        self.demo_candidates = demo_candidates
        self.concurrency = concurrency
        self.n_boot = n_boot
        self.progress = progress
        self.calibrate = calibrate
        self.regularization = regularization
        self.head = head
        self.max_lm_calls = max_lm_calls
        self.modes = list(modes) if modes is not None else None
        self.select_rule: SelectRule = select
        self.max_lm_calls_per_row = max_lm_calls_per_row

    # -- the pipeline ------------------------------------------------------------------------

    def compile(
        self,
        student: Judge,
        *,
        trainset: Sequence[GoldRecord | dspy.Example | Mapping[str, Any]],
        teacher: Judge | None = None,
        valset: Sequence[GoldRecord | dspy.Example | Mapping[str, Any]] | None = None,
    ) -> Judge:
        """Compile `student` on labeled rows.

        Args:
            student: The judge to start from (left unchanged); its class, LM and parameters.
            trainset: Labeled gold rows (`GoldRecord`s, or examples / dicts with its fields).
                Without `valset`, `split` holds out `valid_fraction` of them for validation.
            teacher: Unused (DSPy's signature); the gold labels are the teacher.
            valset: Rows to measure the compiled judge on; none of them is fitted on.

        Returns:
            A new judge with the chosen parameters, demos and weights, and `report_`.

        Raises:
            GoldDataError: No row carries a label for the student's metric.
        """
        if active_meter() is None:  # every compile keeps the LM calls it announces
            with metering(CallMeter()):
                return self.compile(student, trainset=trainset, valset=valset)
        del teacher
        started = time.perf_counter()
        state = self.prepare(student, trainset, valset)
        with _timed(state, "fit_weights"):
            self.fit(state)
        with _timed(state, "demos"):
            state.tune_rows, state.pool, state.demo_sets = self.demos(state)
        with _timed(state, "study"):
            state.study = self.study(state)
        state.budget.release()  # what was held back pays for the selection and validation
        with _timed(state, "selection"):
            state.selection, params = self.select(state)
        compiled = self.build(state, params) if params is not None else self.start(state).clone()
        params = params if params is not None else {"best_trial": None}
        with _timed(state, "validation"):
            validation = self.validate(state, compiled)
        state.timings["total"] = time.perf_counter() - started
        compiled.report_ = self.report(state, compiled, params, validation).model_dump(mode="json")
        return compiled

    def prepare(
        self,
        student: Judge,
        trainset: Sequence[GoldRecord | dspy.Example | Mapping[str, Any]],
        valset: Sequence[GoldRecord | dspy.Example | Mapping[str, Any]] | None,
    ) -> CompileState:
        """The labeled rows, split into train and validation, and the warm-start judge."""
        rows = labeled_rows([_as_gold(r) for r in trainset], student.metric)
        if not rows:
            raise GoldDataError(
                f"no row carries a label for {student.metric}"
                + (
                    " (rows need faithful = 0 or 1)"
                    if student.metric == "faithfulness"
                    else "; give faithfulness gold to derive it from (see docs/derived-gold.md)"
                )
            )
        if valset is None:
            train, valid = self.split(rows)
            everything = rows
        else:
            train = rows
            valid = labeled_rows([_as_gold(r) for r in valset], student.metric)
            everything = [*train, *valid]
        spec = student.compile_spec()
        return CompileState(
            student=student,
            spec=spec,
            rows=everything,
            train=train,
            valid=valid,
            init=_load_init(self.init),
            learner=(
                spec.learner(regularization=self.regularization, head=self.head)
                if spec.learner is not None
                else None
            ),
            budget=LMCallBudget(self.max_lm_calls),
        )

    def split(self, rows: list[GoldRecord]) -> tuple[list[GoldRecord], list[GoldRecord]]:
        """Train and validation rows: whole groups, stratified on the label (`split_gold`)."""
        return split_gold(
            rows, valid_fraction=self.valid_fraction, group_by=self.group_by, seed=self.seed
        )

    def fit(self, state: CompileState) -> None:
        """Fit the student's learner on the train rows (`CompileSpec.learner`; the offline judge's
        weights, cross-fitted so the study scores every train row with weights fitted
        without it). Nothing for judges that learn only their policies."""
        if state.learner is None:
            return
        state.learner.fit(
            state.train,
            groups=[group_key(r, self.group_by) for r in state.train],
            init=state.init,
            seed=self.seed,
        )
        logger.info("learner fitted: %s", state.learner.record())

    def demos(
        self, state: CompileState
    ) -> tuple[list[GoldRecord], list[dspy.Example], list[list[dspy.Example]]]:
        """Tuning rows, the demo pool and the demo sets the study chooses among.

        An LM sees its demos, so LM judges draw them from a slice of train kept out of tuning;
        the offline judge does not read demos, and `max_demos=0` searches none, so then all of
        train tunes.
        """
        tune_rows, pool_rows = _carve_pool(
            state.train,
            reads_demos=state.reads_demos and self.max_demos > 0,
            groups=[group_key(r, self.group_by) for r in state.train],
            labels=[int(gold_label(r, state.student.metric) or 0) for r in state.train],
            seed=self.seed,
        )
        pool = demo_pool(pool_rows, annotate=state.spec.demo)
        sets: list[list[dspy.Example]]
        if not pool:
            sets = [[]]
        elif not state.reads_demos:
            sets = (
                demo_sets(pool, sizes=[self.max_demos], per_size=1, seed=self.seed)
                if self.max_demos
                else [[]]
            )
        else:
            sizes = sorted({0, *range(2, self.max_demos + 1, 2)}) if self.max_demos else [0]
            sets = demo_sets(pool, sizes=sizes, per_size=self.demo_candidates, seed=self.seed)
        if state.init is not None and state.reads_demos:
            sets.append(_demos_of(state.init))
        return tune_rows, pool, sets

    def study(self, state: CompileState) -> optuna.Study:
        """The Optuna study over modes, demo sets and policies, run to `n_trials` trials.

        A trial's score comes from the cached raw outputs (`CompileState.raw`), rescored under
        its policies; the pass threshold is not searched but refitted exactly in every trial
        (`refit_threshold`).
        """
        state.raw = _RawCache(
            make=state.fold_candidate,
            rows=state.tune_rows,
            concurrency=self.concurrency,
            progress=self.progress,
            folds=_tune_folds(state),
            budget=state.budget,
        )
        mode_choices = _mode_choices(state.spec, self.modes)
        state.after = self.plan_after_study(state, mode_choices)
        self.plan_budget(state, mode_choices)
        self.announce(state, mode_choices)
        metric = state.student.metric
        state.labels = np.array([int(gold_label(r, metric) or 0) for r in state.tune_rows])
        study = self.open_study(state, mode_choices)
        self._optimize(study, lambda trial: self.run_trial(state, trial, mode_choices))
        if not study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)):
            raise ConfigurationError(
                f"`max_lm_calls` {self.max_lm_calls} cannot pay for one pass over the "
                f"{len(state.tune_rows)} tuning rows (about "
                f"{state.budget.row_cost(mode_choices[0])} call(s) a row); raise it"
            )
        return study

    def trial_params(
        self, state: CompileState, trial: optuna.Trial, mode_choices: Sequence[str]
    ) -> dict[str, Any]:
        """A trial's choices: mode, demo set, the student's policies and the learner's
        parameters. The pass threshold is not searched (a placeholder here): the objective is
        flat between sorted scores, so `run_trial` fits it exactly."""
        params: dict[str, Any] = {"mode": trial.suggest_categorical("mode", list(mode_choices))}
        params["demos"] = (
            trial.suggest_categorical("demos", list(range(len(state.demo_sets))))
            if state.search_demos
            else 0
        )
        for name, dist in state.policy_space.items():
            params[name] = 0.5 if name == state.spec.threshold else suggest(trial, name, dist)
        for name, dist in state.search_space(params["mode"]).items():
            params[name] = suggest(trial, name, dist)
        return params

    def run_trial(
        self, state: CompileState, trial: optuna.Trial, mode_choices: Sequence[str]
    ) -> float | tuple[float, float]:
        """One trial: its raw outputs rescored under its choices, the threshold refitted, the
        objective (and LM calls per item, multi-objective)."""
        spec = state.spec
        params = self.trial_params(state, trial, mode_choices)
        try:
            rescored, calls, per_item = self.rescore(state, params)
        except BudgetSpentError as exc:
            _retry_cheapest(state.spec, trial, params, mode_choices)
            raise optuna.TrialPruned(f"LM call budget spent: {exc}") from None
        trial.set_user_attr("lm_calls", calls)
        trial.set_user_attr("lm_calls_per_row", per_item)
        scores = _unit_scores(spec, rescored)
        state.trial_scores[trial.number] = (params["mode"], scores)
        ranking = _objective_value("auroc", rescored, state.labels, spec=spec)
        trial.set_user_attr("auroc", ranking)
        if spec.refits_threshold:
            assert spec.threshold is not None
            cut, value = self.refit_threshold(
                scores, state.labels, objective=self._cut_objective, current=0.5
            )
            trial.set_user_attr(FITTED, {spec.threshold: cut})
        else:
            value = _objective_value(self.objective, rescored, state.labels, spec=spec)
        if self.objective == "auroc":
            value = ranking
        return (value, per_item) if len(self.objectives) > 1 else value

    @property
    def _cut_objective(self) -> str:
        """What a pass cut is fitted to: the objective, or balanced accuracy when the objective
        (AUROC) does not depend on the cut."""
        return "balanced_accuracy" if self.objective == "auroc" else self.objective

    def open_study(self, state: CompileState, mode_choices: Sequence[str]) -> optuna.Study:
        """The study (created, or loaded from `storage` to resume or join), its sampler seeded,
        and its first trial enqueued: the `init` judge's choice, else the student's own."""
        student = state.student
        name = (
            self.study_name
            or f"ragjudge-{student.metric}-{gold_fingerprint(state.rows)[:12]}-s{self.seed}"
        )
        directions: list[Literal["minimize", "maximize"]] = (
            ["maximize", "minimize"] if len(self.objectives) > 1 else ["maximize"]
        )
        optuna.logging.set_verbosity(optuna.logging.WARNING)
        study = optuna.create_study(
            study_name=name,
            storage=open_storage(self.storage),
            sampler=optuna.samplers.TPESampler(seed=self.seed),
            directions=directions,
            load_if_exists=True,
        )
        # Seeded with a storage too: a resumed study (or a worker that joins one) starts from
        # the seed plus the trials already there, so runs repeat and workers differ.
        study.sampler = optuna.samplers.TPESampler(seed=self.seed + len(study.trials))
        if state.init is not None and not study.trials:
            study.enqueue_trial(_init_params(state, len(state.demo_sets) - 1))
        elif not study.trials and not state.demo_sets[0]:
            # The uncompiled judge's own choice (its mode, no demos) is the baseline every
            # other set must beat: paid for first, before a budget runs out on demo sets (and
            # the selection reads the starting judge's outputs from it).
            study.enqueue_trial(_baseline_params(state.spec, self.start(state), mode_choices))
        return study

    def _optimize(self, study: optuna.Study, objective: Callable[[optuna.Trial], Any]) -> None:
        """Run trials until `n_trials` are complete in the study (all workers together)."""
        done = len(study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)))
        remaining = max(0, self.n_trials - done)
        bar = self.progress(remaining, "trials") if self.progress and remaining else None
        callbacks: list[Callable[[optuna.Study, optuna.trial.FrozenTrial], None]] = [
            optuna.study.MaxTrialsCallback(self.n_trials, states=(TrialState.COMPLETE,))
        ]
        if bar is not None:
            callbacks.append(lambda s, t: bar.update(1))
        try:
            if remaining:
                # Trials pruned for want of budget cost nothing: let completed trials reach
                # n_trials (MaxTrialsCallback) within five times as many tries.
                tries = remaining if self.max_lm_calls is None else remaining * 5
                study.optimize(objective, n_trials=tries, callbacks=callbacks)
        finally:
            if bar is not None:
                bar.close()

    def plan_after_study(self, state: CompileState, mode_choices: Sequence[str]) -> AfterStudy:
        """What compile runs after the study, and the most LM calls of each run: the compiled
        judge (any mode the study may choose) and the uncompiled one on the validation rows,
        the `init` judge on the validation rows and, as the start, on the tuning rows, and the
        ablation's mode step (only where validation runs an ablation and the mode can change).
        `plan_budget` holds back these calls; `select` and `validate` run these judges."""
        spec = state.spec
        n_valid, n_tune = len(state.valid), len(state.tune_rows)
        baseline = self.baseline(state)
        compiled_calls = max((spec.mode_calls(m) for m in mode_choices), default=0)
        runs = [
            PlannedRun(VALIDATION_COMPILED, n_valid, compiled_calls),
            PlannedRun(VALIDATION_BASELINE, n_valid, baseline.compile_spec().own_calls()),
        ]
        if state.init is not None:
            init_calls = state.init.compile_spec().own_calls()
            runs.append(PlannedRun(VALIDATION_INIT, n_valid, init_calls))
            runs.append(PlannedRun(START_TUNING, n_tune, init_calls))
        ablation = spec.reads_demos and spec.rescores_any_result
        if ablation and len(mode_choices) > 1:
            runs.append(PlannedRun(VALIDATION_ABLATION, n_valid, compiled_calls))
        return AfterStudy(
            baseline=baseline,
            offline=baseline.compile_spec().offline(),
            ablation=ablation,
            runs=runs,
        )

    def plan_budget(self, state: CompileState, mode_choices: Sequence[str]) -> None:
        """Hold back, from `max_lm_calls`, the calls of the runs after the study
        (`CompileState.after`, planned by `plan_after_study`). The study spends the rest; a
        budget that cannot pay for both one pass over the tuning rows and those runs is
        refused, with the number it needs."""
        if state.budget.limit is None:
            return
        assert state.after is not None, "plan_after_study runs first"
        n_tune = len(state.tune_rows)
        one_pass = n_tune * min(state.spec.mode_calls(m) for m in mode_choices)
        after = state.after.calls
        if state.budget.limit < after + one_pass:
            shown = ", ".join(f"{r.label} {r.calls}" for r in state.after.runs if r.calls)
            raise ConfigurationError(
                f"`max_lm_calls` {state.budget.limit} cannot pay for compile: one pass over the "
                f"{n_tune} tuning rows takes about {one_pass} calls and the runs after the "
                f"study ({shown}) about {after}; give at least {after + one_pass}"
            )
        state.budget.reserve(after)
        state.budget.plan({m: state.spec.mode_calls(m) for m in mode_choices})

    def announce(self, state: CompileState, mode_choices: Sequence[str]) -> None:
        """Say the most LM calls this compile will make before it makes one (`call_ceiling`),
        and keep it: the meter refuses a row the rest cannot pay for (`ragjudge.lm._meter`)."""
        meter = active_meter()
        if meter is None or state.student.runs_offline():
            return
        assert state.after is not None, "plan_after_study runs first"
        start = 0 if state.init is not None else self.start(state).compile_spec().own_calls()
        ceiling, detail = call_ceiling(
            tune_rows=len(state.tune_rows),
            mode_calls=[state.spec.mode_calls(m) for m in mode_choices],
            demo_sets=len(state.demo_sets),
            after_study=state.after.calls,
            start=start * len(state.tune_rows),
            limit=self.max_lm_calls,
        )
        meter.announce(ceiling, "compile", detail)

    def rescore(
        self, state: CompileState, params: dict[str, Any]
    ) -> tuple[list[JudgeResult], int, float]:
        """The tuning rows' results under `params`, from the cached raw outputs.

        Returns:
            `(results, LM calls this request made, LM calls per item of its raw outputs)`.
        """
        assert state.raw is not None, "rescore runs inside the study"
        outs, calls = state.raw.get(params["mode"], params["demos"])
        rescored = self._rescored(state, outs, params)
        return rescored, calls, self._per_item(state, rescored, params)

    def _rescored(
        self, state: CompileState, outs: Sequence[JudgeResult], params: dict[str, Any]
    ) -> list[JudgeResult]:
        """Raw outputs scored under a trial's policies: the judge's own `rescore`, the rule it
        judges by (uncalibrated: the calibration is fitted afterwards)."""
        return [state.spec.rescore(r, params) for r in outs]

    def _per_item(
        self, state: CompileState, rescored: Sequence[JudgeResult], params: dict[str, Any]
    ) -> float:
        """LM calls per tuning row under these choices (`CompileSpec.row_calls`)."""
        cost = [state.spec.row_calls(r, params["mode"]) for r in rescored]
        return float(sum(cost) / max(1, len(cost)))

    def refit_threshold(
        self, scores: np.ndarray, labels: np.ndarray, *, objective: str, current: float
    ) -> tuple[float, float]:
        """The pass cut that maximizes `objective` on these unit scores (`UNSCORED` for a row
        without one), and its value: the one step every trial of the study and every fold of
        the selection fit a cut with.

        The objective is flat between sorted unique scores: the best interval's midpoint wins
        (ties: the cut nearest `current`).
        """
        return _refine_threshold(scores, labels, objective, current)

    def select(self, state: CompileState) -> tuple[Selection, dict[str, Any] | None]:
        """The tuned judge of each arm (`CompileSpec.arm`: each mode, for most judges) against
        the starting judge, out of fold on the same grouped folds of the tuning rows, by the
        one decision rule of `ragjudge.optimize._select`, measured on the study's objective
        with cuts refitted by `refit_threshold` and each fold's best picked by the study's
        rule. A judge whose start is tuned too (`CompileSpec.start_arm`, e.g. a cascade's
        offline judge alone) is compared with its start's arm, tuned.

        Returns:
            The selection, and the parameters of the trial that ships (None: the start).
        """
        assert state.study is not None, "select runs after the study"
        spec = state.spec
        arms = self._arms(state)
        if not arms:
            raise self._unaffordable(state)
        start_arm = self._start_arm(state)
        finalists, chosen = self._finalists(state, arms, start_arm)
        fixed = float(spec.start().policy().get(spec.threshold or "", 0.5))
        objective = self.objective

        def refit(scores: np.ndarray, labels: np.ndarray, current: float) -> tuple[float, float]:
            """A finalist's cut on the training folds, as a trial of the study fits it, and
            the study's objective there."""
            if spec.refits_threshold:
                cut, value = self.refit_threshold(
                    scores, labels, objective=self._cut_objective, current=current
                )
            else:
                cut = fixed
                value = objective_value(self._cut_objective, labels, scores >= cut)
            if objective == "auroc":
                value = auroc(labels, scores)
            return cut, value

        start_label = (
            "the starting judge"
            if start_arm is None
            else f"the starting judge ({start_arm}, its policies tuned)"
        )
        selection = select_finalist(
            finalists,
            state.labels,
            [group_key(r, self.group_by) for r in state.tune_rows],
            refit=refit,
            objective=objective,
            rule=self.select_rule,
            repeats=SELECT_REPEATS,
            n_boot=min(self.n_boot, 500),
            seed=self.seed,
            start_label=start_label,
            sources=[r.source for r in state.tune_rows],
        )
        logger.info("selection: %s (%s)", selection.chosen, selection.reason)
        return selection, chosen.get(selection.chosen)

    def _finalists(
        self,
        state: CompileState,
        arms: dict[str, list[optuna.trial.FrozenTrial]],
        start_arm: str | None,
    ) -> tuple[list[Finalist], dict[str, dict[str, Any]]]:
        """The starting judge (its fixed verdicts, or its arm tuned) and each arm's trials
        as finalists, and the parameters of each finalist's best trial."""
        spec = state.spec
        finalists: list[Finalist] = []
        chosen: dict[str, dict[str, Any]] = {}
        if start_arm not in arms:
            start = self._start_outputs(state)
            finalists.append(
                Finalist(
                    name="start",
                    passed=np.array([bool(r.passed) and not r.error for r in start]),
                    scores=_unit_scores(self.start(state).compile_spec(), start),
                    cost=float(self.start(state).compile_spec().own_calls()),
                    label="starting judge",
                )
            )
        for arm, trials in arms.items():
            name = "start" if arm == start_arm else arm
            best = self._pick(state, trials)
            chosen[name] = self._trial_params(state, best)
            finalists.insert(
                0 if name == "start" else len(finalists),
                Finalist(
                    name=name,
                    candidates=[self._trial_scores(state, t) for t in trials],
                    params=chosen[name],
                    cost=float(best.user_attrs.get("lm_calls_per_row", 0.0)),
                    label="starting judge, tuned" if name == "start" else spec.arm_label(arm),
                ),
            )
        return finalists, chosen

    def _arms(self, state: CompileState) -> dict[str, list[optuna.trial.FrozenTrial]]:
        """The complete trials within `max_lm_calls_per_row`, by arm (in mode order)."""
        assert state.study is not None
        arms: dict[str, list[optuna.trial.FrozenTrial]] = {}
        for trial in state.study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)):
            if trial.values is None or not self._affordable(trial):
                continue
            arm = state.spec.arm(_full_params(trial, state.spec, False))
            arms.setdefault(arm, []).append(trial)
        order = {m: i for i, m in enumerate(_mode_choices(state.spec, self.modes))}
        return dict(sorted(arms.items(), key=lambda kv: (order.get(kv[0], len(order)), kv[0])))

    def _start_arm(self, state: CompileState) -> str | None:
        """The arm of the starting judge when the study tunes it (`CompileSpec.start_arm`)."""
        return None if state.init is not None else state.spec.start_arm

    def _pick(
        self, state: CompileState, trials: Sequence[optuna.trial.FrozenTrial]
    ) -> optuna.trial.FrozenTrial:
        """The best of an arm's trials (`_best_trial`'s rule)."""
        assert state.study is not None
        members = {t.number for t in trials}
        best = _best_trial(state.study, keep=lambda t: t.number in members)
        assert best is not None
        return best

    def _trial_params(self, state: CompileState, trial: optuna.trial.FrozenTrial) -> dict[str, Any]:
        """Every parameter of a trial, as it would ship (`CompileSpec.settle`)."""
        params = _full_params(trial, state.spec, state.search_demos)
        params = state.spec.settle(params, trial.user_attrs.get("lm_calls_per_row"))
        params["best_trial"] = trial.number
        return params

    def _affordable(self, trial: optuna.trial.FrozenTrial) -> bool:
        """True when the trial's LM calls per row are within `max_lm_calls_per_row`."""
        cap = self.max_lm_calls_per_row
        return cap is None or float(trial.user_attrs.get("lm_calls_per_row", 0.0)) <= cap + 1e-9

    def _unaffordable(self, state: CompileState) -> ConfigurationError:
        assert state.study is not None
        costs = [
            float(t.user_attrs.get("lm_calls_per_row", 0.0))
            for t in state.study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
        ]
        return ConfigurationError(
            f"`max_lm_calls_per_row` {self.max_lm_calls_per_row}: no trial of the study is "
            f"within it (the cheapest takes {min(costs, default=math.nan):.2f} LM calls a row)"
        )

    def _trial_scores(self, state: CompileState, trial: optuna.trial.FrozenTrial) -> np.ndarray:
        """A trial's unit scores on the tuning rows (rescored again for a trial another
        process ran on a shared storage)."""
        if trial.number in state.trial_scores:
            return state.trial_scores[trial.number][1]
        params = _full_params(trial, state.spec, state.search_demos)
        outs, _, _ = self.rescore(state, params)
        return _unit_scores(state.spec, outs)

    def start(self, state: CompileState) -> Judge:
        """The judge compile starts from: `init` when given, else `CompileSpec.start` (the
        student as it is, for most)."""
        if state.init is not None:
            return state.init
        start = state.spec.start()
        mode = student_mode = start.compile_spec().mode
        choices = _mode_choices(state.spec, self.modes)
        if choices and mode is not None and mode not in choices:
            student_mode = choices[0]
        return start if student_mode == mode else start.clone(mode=student_mode)

    def _start_outputs(self, state: CompileState) -> list[JudgeResult]:
        """The starting judge's results on the tuning rows (from the raw outputs the study has
        already paid for when they are the start's own, else judged now)."""
        start = self.start(state)
        assert state.raw is not None
        mode = str(start.compile_spec().mode)
        own = (
            state.init is None
            and state.reads_demos
            and not state.demo_sets[0]
            and (mode, 0) in state.raw.results
        )
        if own:
            return [start.rescore(r, **start.policy()) for r in state.raw.results[(mode, 0)]]
        return self._judge(state, start, state.tune_rows, START_TUNING)

    def calibration(
        self, student: Judge, results: list[JudgeResult], labels: np.ndarray
    ) -> tuple[float, float] | None:
        """Platt scaling `(a, b)` of unit scores to P(label = 1); None if not increasing.

        A monotone map, so agreement and ranking are unchanged, and the score becomes a
        probability comparable across judges and domains.
        """
        return _fit_calibration(_unit_scores(student.compile_spec(), results), labels)

    def build(self, state: CompileState, params: dict[str, Any]) -> Judge:
        """The compiled judge: the chosen parameters, demos and weights, calibrated when asked
        (the calibration is fitted on the tuning rows and the pass threshold moves with it).

        The study cut unit scores with no calibration, so the judge ships a calibration with
        the cut moved through it: the one fitted now, else the student's own where it is
        increasing, else none; either way each verdict is the one the study scored."""
        spec = state.spec
        policy = {k: params[k] for k in state.policy_space}
        if spec.calibration is not None and spec.threshold in policy:
            calibration = None
            if self.calibrate:
                rescored, _, _ = self.rescore(state, params)
                calibration = self.calibration(state.student, rescored, state.labels)
            if calibration is None:
                calibration = _increasing(state.student.policy().get(spec.calibration))
            policy = (
                spec.calibrated(policy, calibration)
                if calibration is not None
                else {**policy, spec.calibration: None}
            )
        compiled = state.candidate(params["mode"], params["demos"], **policy)
        if state.learner is not None:
            state.learner.finish(compiled, params)
        return compiled

    def validate(self, state: CompileState, compiled: Judge) -> Validation:
        """The compiled, the uncompiled default and the `--init` judge on the validation rows,
        the ablation and the offline judge where planned (`CompileState.after`)."""
        plan = state.after
        assert plan is not None, "plan_after_study runs before the study"
        baseline = plan.baseline
        validation = Validation(
            baseline=baseline,
            compiled=self._judge(state, compiled, state.valid, VALIDATION_COMPILED),
            uncompiled=self._judge(state, baseline, state.valid, VALIDATION_BASELINE),
            init=(
                self._judge(state, state.init, state.valid, VALIDATION_INIT)
                if state.init is not None
                else None
            ),
        )
        if plan.ablation:
            # Which choice bought the gain (rescoring the baseline's outputs under the compiled
            # policies: not for a judge whose outputs hold only what its own policy asked for).
            space, calibration = state.policy_space, state.spec.calibration
            validation.ablation = ablation(
                baseline=baseline,
                compiled=compiled,
                policy={
                    k: v for k, v in compiled.get_params().items() if k in space or k == calibration
                },
                demos=_chosen_demo_count(compiled, baseline),
                valid=state.valid,
                baseline_out=validation.uncompiled,
                compiled_out=validation.compiled,
                run=lambda judge, label: self._judge(state, judge, state.valid, label),
                n_boot=self.n_boot,
                seed=self.seed,
                label=VALIDATION_ABLATION,
            )
        if plan.offline is not None:  # the offline judge on the same rows
            validation.offline = _run(
                plan.offline, state.valid, 1, self.progress, "validation (offline)"
            )
        return validation

    def baseline(self, state: CompileState) -> Judge:
        """The uncompiled student: a clone of the judge compile was given (in the first chosen
        mode when `modes` leaves out its own)."""
        judge = state.student.clone()
        judge.report_ = None
        mode = state.spec.mode
        choices = _mode_choices(state.spec, self.modes)
        if choices and mode is not None and mode not in choices:
            judge = judge.clone(mode=choices[0])
        return judge

    def report(
        self,
        state: CompileState,
        compiled: Judge,
        params: dict[str, Any],
        validation: Validation,
    ) -> CompileReport:
        """The evidence: agreement on validation with intervals, the study, sizes, LM calls."""
        assert state.study is not None and state.raw is not None, "report runs last"
        metric = state.student.metric

        def agree(results: Sequence[JudgeResult]) -> tuple[Any, dict[str, Any]]:
            return self._agreement(state, results)

        comp_agree, comp_src = agree(validation.compiled)
        base_agree, base_src = agree(validation.uncompiled)
        init_agree = agree(validation.init)[0] if validation.init else None
        offline_agree, offline_src = (
            agree(validation.offline) if validation.offline is not None else (None, {})
        )
        if comp_agree is None or base_agree is None:
            raise ConfigurationError("no validation row could be judged; check the LM and the data")
        summary = summarize_study(
            state.study, seed=self.seed, objectives=self.objectives, storage=self.storage
        )
        return CompileReport(
            metric=metric,
            lm=describe_judge_lm(compiled),
            objective=self.objective,
            params=_report_params(state, compiled, params, validation),
            baseline_params=_plain(validation.baseline.get_params()),
            validation=comp_agree,
            baseline=base_agree,
            init=init_agree,
            by_source={
                s: {
                    "compiled": comp_src[s],
                    "baseline": base_src[s],
                    **({"offline": offline_src[s]} if s in offline_src else {}),
                }
                for s in comp_src
                if s in base_src
            },
            offline=offline_agree,
            selection=state.selection,
            ablation=validation.ablation,
            gold={"path": None, "sha256": gold_fingerprint(state.rows), "rows": len(state.rows)},
            split={
                "labels": label_source(metric),
                "seed": self.seed,
                "valid_fraction": self.valid_fraction,
                "group_by": self.group_by,
                "stratified_on": "faithful",
            },
            sizes={
                "train": len(state.train),
                "validation": len(state.valid),
                "tuning": len(state.tune_rows),
                "demo_pool": len(state.pool),
                "demo_sets": len(state.demo_sets),
            },
            study=summary,
            lm_calls=_lm_calls(state, summary, validation, self.max_lm_calls_per_row),
            demos={name: len(p.demos) for name, p in compiled.named_predictors()},
            seconds=state.timings,
            versions=_versions(),
            predictions=_predictions(state.valid, validation, metric, self.group_by),
            fitted_rows=[row_hash(row) for row in state.train],
        )

    def _agreement(
        self, state: CompileState, results: Sequence[JudgeResult]
    ) -> tuple[Any, dict[str, Any]]:
        """Agreement on the validation rows, overall and per source. A row that ends in an
        error counts as failed and lowest, as in tuning: a judge that fails on hard rows
        (prompts cut by demos, say) must not look better for it."""
        if results and all(r.error for r in results):
            return None, {}
        overall, by_source, _, _ = agreement_of(
            state.valid,
            results,
            n_boot=self.n_boot,
            seed=self.seed,
            metric=state.student.metric,
            errors="lowest",
            group=lambda row: group_key(row, self.group_by),
        )
        return overall, by_source

    def _judge(
        self, state: CompileState, judge: Judge, rows: Sequence[GoldRecord], label: str
    ) -> list[JudgeResult]:
        """Judge rows after the study, charged to the budget: a row it cannot pay for ends in
        an error (counted as failed and lowest). The calls are recorded under `label`."""
        results = self._judge_rows(state, judge, rows, label)
        state.after_calls[label] = state.after_calls.get(label, 0) + sum(
            r.lm_calls for r in results
        )
        return results

    def _judge_rows(
        self, state: CompileState, judge: Judge, rows: Sequence[GoldRecord], label: str
    ) -> list[JudgeResult]:
        if state.budget.limit is None or judge.runs_offline():
            return _run(judge, rows, self.concurrency, self.progress, label)
        bar = self.progress(len(rows), label) if self.progress else None
        try:
            return judge_within_budget(
                judge,
                rows,
                budget=state.budget,
                mode=judge.compile_spec().mode or "",
                demos=-1,
                concurrency=self.concurrency,
                on_result=(lambda i, r: bar.update(1)) if bar is not None else None,
                fill=True,
            )
        finally:
            if bar is not None:
                bar.close()


def _report_params(
    state: CompileState, compiled: Judge, params: dict[str, Any], validation: Validation
) -> dict[str, Any]:
    """The compiled judge's parameters as the report shows them, with the learner's record."""
    return {
        **_plain(compiled.get_params()),
        "demos": _chosen_demo_count(compiled, validation.baseline),
        **(state.learner.record() if state.learner is not None else {}),
        "best_trial": params.get("best_trial"),
    }


def _lm_calls(
    state: CompileState, summary: Any, validation: Validation, max_per_row: float | None
) -> dict[str, Any]:
    """What the report says of LM calls: raw outputs, per trial, after the study (validation,
    and the start judged on the tuning rows), the budget and its plan."""
    assert state.raw is not None and state.study is not None
    del validation
    after = state.after_calls
    return {
        "raw_outputs": state.raw.total_calls,
        "raw_output_sets": len(state.raw.results),
        "per_trial": [t.lm_calls for t in summary.trials],
        "trials_without_lm_calls": sum(1 for t in summary.trials if t.lm_calls == 0),
        "validation": sum(n for label, n in after.items() if label != START_TUNING),
        "start_on_tuning_rows": after.get(START_TUNING, 0),
        "after_study": dict(after),
        "budget": {
            **state.budget.record(),
            "planned_after_study": (
                []
                if state.after is None
                else [
                    {"run": r.label, "rows": r.rows, "calls_per_row": r.calls_per_row}
                    for r in state.after.runs
                ]
            ),
        },
        "max_per_row": max_per_row,
        "ceiling": _ceiling_record(),
        "pruned_trials": len(state.study.get_trials(deepcopy=False, states=(TrialState.PRUNED,))),
    }


def _ceiling_record() -> dict[str, Any]:
    """The most LM calls the compile announced, the calls its rows made and the rows it did
    not start for want of calls (`ragjudge.lm._meter`)."""
    meter = active_meter()
    if meter is None or meter.ceiling is None:
        return {}
    return {"announced": meter.ceiling, "made": meter.made, "rows_not_started": meter.refused}


def _predictions(
    valid: Sequence[GoldRecord], validation: Validation, metric: str, group_by: str | None
) -> list[RowPrediction]:
    """Each validation row's group and label, and the compiled and uncompiled judges' scores
    and passes."""
    return [
        RowPrediction(
            id=row.id,
            source=row.source,
            group=group_key(row, group_by),
            gold=int(gold_label(row, metric) or 0),
            score=None if math.isnan(c.score) else c.score,
            passed=c.passed,
            baseline_score=None if math.isnan(b.score) else b.score,
            baseline_passed=b.passed,
        )
        for row, c, b in zip(valid, validation.compiled, validation.uncompiled, strict=True)
    ]


@contextmanager
def _timed(state: CompileState, step: str) -> Iterator[None]:
    t0 = time.perf_counter()
    try:
        yield
    finally:
        state.timings[step] = time.perf_counter() - t0


def _as_gold(row: GoldRecord | dspy.Example | Mapping[str, Any]) -> GoldRecord:
    """A gold row from a `GoldRecord`, a `dspy.Example` or a mapping of its fields."""
    if isinstance(row, GoldRecord):
        return row
    if isinstance(row, dspy.Example):
        return GoldRecord.model_validate(row.toDict())
    return GoldRecord.model_validate(dict(row))


def _objective_value(
    name: str,
    results: Sequence[JudgeResult],
    labels: np.ndarray,
    *,
    spec: CompileSpec | None = None,
) -> float:
    """The objective on the tuning rows. A row the judge leaves unscored (NaN: e.g. every
    statement unsure and excluded) counts as it behaves, never passing and ranked lowest, so
    abstaining on hard rows cannot raise the objective; so does a row that ended in an error
    (a reply cut at max_tokens, say), or a demo set whose longer prompts fail on the hardest
    rows would win by losing them. `spec` gives the unit scores (the results' own scores when
    None)."""
    if len(results) < 2 or len(set(labels.tolist())) < 2:
        return 0.0
    scores = (
        _unit_scores(spec, results)
        if spec is not None
        else floored(math.nan if r.error else r.score for r in results)
    )
    if name == "auroc":
        value = auroc(labels, scores)
    else:
        passed = np.array([bool(r.passed) and not r.error for r in results])
        value = objective_value(name, labels, passed)
    return 0.0 if math.isnan(value) else float(value)


def _unit_scores(spec: CompileSpec, results: Sequence[JudgeResult]) -> np.ndarray:
    """Unit scores (`CompileSpec.unit`), `UNSCORED` (failing, lowest) for rows without one or
    with an error."""
    return np.array([spec.unit(r) for r in results], dtype=float)


@dataclass
class _RawCache:
    """Raw judge outputs on the tuning rows, per (mode, demo set): LM work happens once.

    With `folds` (cross-fitted offline weights), each row is judged by its fold's judge, so
    every output is out-of-fold.
    """

    make: Callable[[str, int, int], Judge]  # (mode, demo set, fold) -> raw-output judge
    rows: Sequence[GoldRecord]
    concurrency: int
    progress: ProgressFactory | None
    folds: list[int] | None = None  # cross-fitting: row i is judged by fold folds[i]'s judge
    budget: LMCallBudget = field(default_factory=lambda: LMCallBudget(None))
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

        self.budget.start_set(mode, demos, len(self.rows))
        outs: list[JudgeResult] = [None] * len(self.rows)  # type: ignore[list-item]
        try:
            for fold in sorted(set(folds)):
                index = [i for i, f in enumerate(folds) if f == fold]
                judge = self.make(mode, demos, fold)
                part = judge_within_budget(
                    judge,
                    [self.rows[i] for i in index],
                    budget=self.budget,
                    mode=mode,
                    demos=demos,
                    concurrency=self.concurrency,
                    on_result=tick,
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


def _plain(params: dict[str, Any]) -> dict[str, Any]:
    """Parameters as JSON values: an LM object is recorded by its model string."""
    return {
        k: str(getattr(v, "model", type(v).__name__)) if isinstance(v, dspy.BaseLM) else v
        for k, v in params.items()
    }


def _tune_folds(state: CompileState) -> list[int] | None:
    """The learner's fold of each tuning row (the tuning rows are train rows, all of them or
    those left after the demo pool), so that every raw output is out of fold; None when the
    learner does not cross-fit."""
    if state.learner is None or state.learner.folds is None:
        return None
    fold_of = {id(row): fold for row, fold in zip(state.train, state.learner.folds, strict=True)}
    return [fold_of[id(row)] for row in state.tune_rows]


def _carve_pool(
    train: list[GoldRecord],
    *,
    reads_demos: bool,
    groups: Sequence[str],
    labels: Sequence[int],
    seed: int,
) -> tuple[list[GoldRecord], list[GoldRecord]]:
    """Rows for tuning and rows for demos. An LM sees demos, so their rows are kept out of
    tuning, whole groups of them (a demo's twin tuning the judge would flatter it): the pool
    is one fold of the grouped, label-stratified folds (`stats.group_folds`, the fold maker
    of the split and the learner), about a fifth of train, at most about 60 rows. A judge that
    reads no demos (the offline judge) tunes on all of train."""
    if not reads_demos:
        return train, train
    n_pool = min(60, max(4, len(train) // 5))
    folds = max(2, -(-len(train) // n_pool))
    in_pool = group_folds(list(groups), np.asarray(labels), folds=folds, seed=seed) == 0
    tune = [r for r, pooled in zip(train, in_pool, strict=True) if not pooled]
    pool = [r for r, pooled in zip(train, in_pool, strict=True) if pooled]
    return tune, pool


def _mode_choices(spec: CompileSpec, modes: Sequence[str] | None) -> list[str]:
    """The modes the study may choose."""
    if modes is None:
        return list(spec.modes)
    unknown = [m for m in modes if m not in spec.modes]
    if unknown or not modes:
        raise ConfigurationError(
            f"`modes` {','.join(modes)!r}: choose from {', '.join(spec.modes) or 'none'}"
        )
    return list(dict.fromkeys(modes))


def _chosen_demo_count(compiled: Judge, baseline: Judge) -> int:
    """The most few-shot demos compile put on one predictor: 0 when every predictor kept the
    uncompiled judge's own (its signatures' built-in examples)."""
    own = dict(baseline.named_predictors())
    return max(
        (
            len(p.demos)
            for name, p in compiled.named_predictors()
            if name not in own or demos_key(p.demos) != demos_key(own[name].demos)
        ),
        default=0,
    )


def demos_key(demos: Sequence[Any]) -> str:
    """Demos as canonical JSON: equal for the same examples whether their fields hold pydantic
    models or the dicts a saved judge reads back."""

    def plain(value: Any) -> Any:
        return value.model_dump(mode="json") if hasattr(value, "model_dump") else str(value)

    return json.dumps([dict(d) for d in demos], default=plain, sort_keys=True)


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


def _retry_cheapest(
    spec: CompileSpec, trial: optuna.Trial, params: dict[str, Any], mode_choices: Sequence[str]
) -> None:
    """Before any trial is complete, a trial the budget refused is tried again in the mode
    that costs least a row: the budget `plan_budget` accepted pays for one pass of that mode."""
    study = trial.study
    cheapest = min(mode_choices, key=spec.mode_calls)
    if params["mode"] == cheapest or study.get_trials(
        deepcopy=False, states=(TrialState.COMPLETE, TrialState.WAITING)
    ):
        return
    study.enqueue_trial({"mode": cheapest, "demos": params["demos"]})


def _baseline_params(
    spec: CompileSpec, student: Judge, mode_choices: Sequence[str]
) -> dict[str, Any]:
    """The uncompiled student's own trial: its mode (when the study may choose it), zero-shot,
    its own policies (the pass cut is refitted, not enqueued)."""
    params = student.get_params()
    mode = student.compile_spec().mode
    out: dict[str, Any] = {"mode": mode if mode in mode_choices else mode_choices[0], "demos": 0}
    for name, dist in spec.space.items():
        if name != spec.threshold and _within(dist, params.get(name)):
            out[name] = params[name]
    return out


def _within(dist: Any, value: Any) -> bool:
    """True when `value` is one the distribution can suggest (enqueued values must be)."""
    try:
        return value is not None and bool(dist._contains(dist.to_internal_repr(value)))
    except (ValueError, TypeError):
        return False


def _init_params(state: CompileState, demo_index: int) -> dict[str, Any]:
    """The warm-start judge's trial: its mode, policies, learner values and demos."""
    assert state.init is not None
    params = state.init.get_params()
    out: dict[str, Any] = {"mode": state.init.compile_spec().mode}
    for name in state.spec.space:
        if name in params and name != state.spec.threshold:
            out[name] = params[name]
    if state.learner is not None:
        out.update(state.learner.start_params(state.init))
    if state.reads_demos:
        out["demos"] = demo_index
    return out


def _best_trial(
    study: optuna.Study, *, keep: Callable[[optuna.trial.FrozenTrial], bool] | None = None
) -> optuna.trial.FrozenTrial | None:
    """The best complete trial (that `keep` accepts, when given); among trials within
    `TIE_TOLERANCE` of the best value (noise on the tuning rows), the one whose scores rank the
    rows best (AUROC) wins. Multi-objective: the highest agreement on the Pareto front, then
    the fewest calls."""
    complete = [
        t
        for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
        if t.values is not None and (keep is None or keep(t))
    ]
    if not complete:
        return None
    if len(study.directions) == 1:
        at = pick_best(
            [t.values[0] for t in complete],
            [float(t.user_attrs.get("auroc", 0.0)) for t in complete],
        )
        return complete[at]
    numbers = {t.number for t in complete}
    front = [t for t in study.best_trials if t.number in numbers] or complete
    return max(front, key=lambda t: (t.values[0], -t.values[1]))


def _full_params(
    trial: optuna.trial.FrozenTrial, spec: CompileSpec, search_demos: bool
) -> dict[str, Any]:
    """Every parameter of a finished trial, with what it fitted (the pass cut), judge defaults
    and the learner's values."""
    best = {**trial.params, **trial.user_attrs.get(FITTED, {})}
    defaults = spec.judge.get_params()
    params: dict[str, Any] = {"mode": best.get("mode", defaults.get("mode"))}
    params["demos"] = best.get("demos", 0) if search_demos else 0
    for name in spec.space:
        params[name] = best.get(name, defaults.get(name))
    for name, value in best.items():  # the learner's searched values
        params.setdefault(name, value)
    return params


def _increasing(calibration: Sequence[float] | None) -> tuple[float, float] | None:
    """A Platt calibration `(a, b)` that keeps the order of scores (a > 0), else None."""
    if calibration is None or float(calibration[0]) <= 0:
        return None
    return float(calibration[0]), float(calibration[1])


def _fit_calibration(scores: np.ndarray, labels: np.ndarray) -> tuple[float, float] | None:
    """Platt scaling `(a, b)` of unit scores (`UNSCORED` for rows without one, left out) to
    P(label = 1); None if not increasing."""
    keep = scores != UNSCORED
    y = labels[keep]
    if keep.sum() < 10 or len(set(y.tolist())) < 2:
        return None
    s = scores[keep]
    # nearly unregularized (as a C=100 logistic regression), the fit the offline weights use
    w, b = fit_logistic(
        s.reshape(-1, 1), y.astype(float), np.ones(len(y)), np.zeros(1), 0.0, 1.0 / (100 * len(y))
    )
    a = float(w[0])
    return (a, b) if a > 1e-6 else None


def _refine_threshold(
    scores: np.ndarray, labels: np.ndarray, objective: str, current: float
) -> tuple[float, float]:
    """The best pass threshold on these unit scores (`ragjudge.stats.best_threshold`: the
    middle of the best plateau nearest `current`), and its value."""
    if len(scores) < 2:
        return current, 0.0
    cut, value = best_threshold(scores, labels, objective=objective, current=current)
    return cut, 0.0 if math.isnan(value) else value


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
