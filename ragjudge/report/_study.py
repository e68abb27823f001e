"""The Optuna study of a compile, rebuilt in memory from its summary, and Optuna's own plots."""

from __future__ import annotations

import json
import logging
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import optuna
import plotly.graph_objects as go
from optuna.distributions import BaseDistribution, CategoricalDistribution, json_to_distribution
from optuna.importance import BaseImportanceEvaluator
from optuna.study import StudyDirection
from optuna.trial import FrozenTrial, TrialState, create_trial

from ragjudge.optimize._report import StudySummary

__all__ = ["rebuild_study", "study_figures"]

logger = logging.getLogger(__name__)


@contextmanager
def _quiet_optuna() -> Iterator[None]:
    """Silence Optuna's 'new study created' log line and its experimental warnings."""
    storage_logger = logging.getLogger("optuna.storages._in_memory")
    level = storage_logger.level
    storage_logger.setLevel(logging.WARNING)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
            yield
    finally:
        storage_logger.setLevel(level)


def _distribution(raw: Any) -> BaseDistribution:
    text = raw if isinstance(raw, str) else json.dumps(raw)
    return json_to_distribution(text)


def rebuild_study(summary: StudySummary) -> optuna.Study:
    """An in-memory study holding the recorded trials, for Optuna's visualizations.

    Trials whose parameters do not fit the recorded distributions are skipped (and logged);
    a parameter without a recorded distribution gets a categorical one over its values.

    Args:
        summary: The study summary of a compile report.

    Returns:
        The study.

    Example:
        >>> s = StudySummary(name="s", seed=0, directions=["maximize"],
        ...                  objectives=["balanced_accuracy"], n_trials=0)
        >>> len(rebuild_study(s).trials)
        0
    """
    distributions = {name: _distribution(raw) for name, raw in summary.distributions.items()}
    for trial in summary.trials:
        for name, value in trial.params.items():
            if name not in distributions:
                seen = sorted(
                    {json.dumps(t.params[name]) for t in summary.trials if name in t.params}
                )
                distributions[name] = CategoricalDistribution([json.loads(v) for v in seen])
                logger.debug("no distribution recorded for %s (value %r)", name, value)
    frozen: list[FrozenTrial] = []
    for trial in summary.trials:
        try:
            state = TrialState[trial.state.upper()]
        except KeyError:
            logger.warning("trial %d has an unknown state %r; left out", trial.number, trial.state)
            continue
        if state not in (TrialState.COMPLETE, TrialState.PRUNED, TrialState.FAIL):
            continue
        values = trial.values if state == TrialState.COMPLETE else None
        if state == TrialState.COMPLETE and (not values or len(values) != len(summary.directions)):
            logger.warning("trial %d has no objective values; left out", trial.number)
            continue
        try:
            frozen.append(
                create_trial(
                    state=state,
                    params=trial.params,
                    distributions={k: distributions[k] for k in trial.params},
                    values=values,
                    user_attrs={"lm_calls": trial.lm_calls, "seconds": trial.seconds},
                )
            )
        except ValueError as exc:
            logger.warning(
                "trial %d does not fit its distributions (%s); left out", trial.number, exc
            )
    with _quiet_optuna():
        study = optuna.create_study(
            directions=[StudyDirection[d.upper()] for d in summary.directions or ["maximize"]],
            study_name=summary.name or "ragjudge-compile",
            sampler=optuna.samplers.RandomSampler(seed=0),
        )
        study.add_trials(frozen)
    return study


class _Recorded(BaseImportanceEvaluator):
    """Returns the importances the compile recorded instead of computing new ones."""

    def __init__(self, importances: dict[str, float]) -> None:
        self.importances = importances

    def evaluate(
        self,
        study: optuna.Study,
        params: list[str] | None = None,
        *,
        target: Callable[[FrozenTrial], float] | None = None,
    ) -> dict[str, float]:
        del study, target
        kept = {k: float(v) for k, v in self.importances.items() if params is None or k in params}
        return dict(sorted(kept.items(), key=lambda kv: -kv[1]))


def _style(fig: go.Figure, *, title: str, height: int = 380) -> go.Figure:
    from ragjudge.report._figures import FONT

    fig.update_layout(
        template="plotly_white",
        title={"text": title, "x": 0.01, "xanchor": "left", "font": {"size": 15}},
        height=height,
        margin={"l": 60, "r": 20, "t": 56, "b": 50},
        font={"family": FONT, "size": 12, "color": "#1f2937"},
    )
    return fig


#: Axis titles of the objectives a multi-objective compile records.
_AXIS = {"cost": "LM calls per row"}


def study_figures(summary: StudySummary) -> tuple[dict[str, go.Figure], list[str]]:
    """Optuna's optimization history, parameter importances and Pareto front for a study.

    Args:
        summary: The study summary of a compile report.

    Returns:
        The figures by name (`"history"`, `"importances"`, `"pareto"`, as applicable) and notes
        on the plots that could not be drawn.
    """
    from optuna.visualization import (
        plot_optimization_history,
        plot_param_importances,
        plot_pareto_front,
    )

    study = rebuild_study(summary)
    figures: dict[str, go.Figure] = {}
    notes: list[str] = []
    complete = [t for t in study.trials if t.state == TrialState.COMPLETE]
    if not complete:
        return figures, ["the study has no finished trials to plot"]
    objectives = list(summary.objectives) or [
        f"objective {i}" for i in range(len(study.directions))
    ]
    multi = len(study.directions) > 1
    first = objectives[0]
    target: Callable[[FrozenTrial], float] | None = (lambda t: t.values[0]) if multi else None
    with _quiet_optuna():
        fig = plot_optimization_history(study, target=target, target_name=first)
        figures["history"] = _style(fig, title=f"Optimization history ({first})")
        params = sorted({k for t in complete for k in t.params})
        evaluator: BaseImportanceEvaluator
        if summary.importances:
            evaluator = _Recorded(summary.importances)
        else:  # fANOVA does not care whether the objective is maximized or minimized
            evaluator = optuna.importance.FanovaImportanceEvaluator(seed=summary.seed)
        if params and (summary.importances or len(complete) > 1):
            try:
                fig = plot_param_importances(
                    study, evaluator=evaluator, target=target, target_name=first
                )
                figures["importances"] = _style(
                    fig, title="Parameter importances", height=max(240, 90 + 34 * len(params))
                )
            except (ValueError, RuntimeError) as exc:
                notes.append(f"parameter importances could not be computed ({exc})")
        if multi and len(study.directions) <= 3:
            names = [_AXIS.get(name, name) for name in objectives[: len(study.directions)]]
            fig = plot_pareto_front(study, target_names=names)
            figures["pareto"] = _style(fig, title="Pareto front", height=420)
    return figures, notes
