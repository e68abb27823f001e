"""Optuna plumbing: storages, suggestions from distributions, study summaries."""

from __future__ import annotations

import json
import logging
import warnings
from pathlib import Path
from typing import Any

import optuna
from optuna.distributions import (
    BaseDistribution,
    CategoricalDistribution,
    FloatDistribution,
    IntDistribution,
    distribution_to_json,
)
from optuna.storages.journal import JournalFileBackend
from optuna.trial import TrialState

from ragjudge.exceptions import ConfigurationError
from ragjudge.optimize._report import StudySummary, TrialRecord

__all__ = ["open_storage", "storage_file", "suggest", "summarize_study"]

#: The trial attribute holding what a trial fitted rather than sampled (the pass cut, under
#: the name of the judge's policy): shown among the trial's parameters.
FITTED = "fitted"

logger = logging.getLogger(__name__)


def storage_file(url: str | None) -> str | None:
    """The local file a storage writes (a journal file, or SQLite's database file); None for
    none, in memory, or a database server.

    Example:
        >>> storage_file("study.log"), storage_file("sqlite:///runs/s.db")
        ('study.log', 'runs/s.db')
        >>> storage_file("postgresql://user@host/db") is None
        True
    """
    if not url:
        return None
    if url.startswith("sqlite:///"):
        return url.removeprefix("sqlite:///") or None
    return None if "://" in url else url


def _check_journal(path: Path) -> None:
    """Refuse an existing file that is not an Optuna journal (Optuna would fail on it with
    `KeyError: 'op_code'` or append its log to someone's data)."""
    if not path.is_file():
        return
    with path.open("rb") as handle:
        first = handle.readline()
    try:
        entry = json.loads(first) if first.strip() else {"op_code": 0}
    except ValueError:
        entry = None
    if not isinstance(entry, dict) or "op_code" not in entry:
        raise ConfigurationError(
            f"`storage` {path}: is not an Optuna journal file (its first line is not a study "
            "log entry); name a new file, or the journal of an earlier compile"
        )


def open_storage(url: str | None) -> optuna.storages.BaseStorage | None:
    """An Optuna storage from a URL or a journal file path (None: in memory).

    `sqlite:///x.db`, `postgresql://user:pw@host/db` (any SQLAlchemy URL) give an RDB storage
    with heartbeats, so a trial whose worker died is failed and retried by another; any other
    value is a journal file (created if missing), safe for several processes on one machine.
    """
    if not url:
        return None
    if "://" in url:
        try:
            with warnings.catch_warnings():
                # RetryFailedTrialCallback is marked experimental; its behaviour is what we want
                warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
                warnings.simplefilter("ignore", FutureWarning)
                retry = optuna.storages.RetryFailedTrialCallback(max_retry=3)
            return optuna.storages.RDBStorage(
                url,
                heartbeat_interval=5,
                grace_period=20,
                failed_trial_callback=retry,
            )
        except ImportError as exc:
            raise ConfigurationError(
                f"`storage` {url.split('://')[0]}://...: a database driver is missing ({exc}); "
                "for PostgreSQL run `pip install 'ragjudge[postgres]'`"
            ) from None
        except Exception as exc:  # SQLAlchemy raises many types for unreachable databases
            raise ConfigurationError(f"`storage`: cannot open the study storage ({exc})") from None
    path = Path(url)
    _check_journal(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    backend = JournalFileBackend(str(path))
    return optuna.storages.JournalStorage(backend)


def suggest(trial: optuna.Trial, name: str, dist: BaseDistribution) -> Any:
    """Suggest a value for `name` from an Optuna distribution."""
    if isinstance(dist, CategoricalDistribution):
        return trial.suggest_categorical(name, dist.choices)
    if isinstance(dist, FloatDistribution):
        return trial.suggest_float(name, dist.low, dist.high, log=dist.log, step=dist.step)
    if isinstance(dist, IntDistribution):
        return trial.suggest_int(name, dist.low, dist.high, log=dist.log, step=dist.step)
    raise TypeError(f"unsupported distribution {dist!r}")


def _record(trial: optuna.trial.FrozenTrial) -> TrialRecord:
    start, end = trial.datetime_start, trial.datetime_complete
    return TrialRecord(
        number=trial.number,
        state=trial.state.name,
        params={
            **trial.params,
            **trial.user_attrs.get(FITTED, {}),
        },
        values=list(trial.values) if trial.values is not None else None,
        lm_calls=int(trial.user_attrs.get("lm_calls", 0)),
        lm_calls_per_row=(
            round(float(trial.user_attrs["lm_calls_per_row"]), 4)
            if "lm_calls_per_row" in trial.user_attrs
            else None
        ),
        seconds=(end - start).total_seconds() if start and end else 0.0,
    )


def summarize_study(
    study: optuna.Study, *, seed: int, objectives: list[str], storage: str | None
) -> StudySummary:
    """A JSON-able summary of a study (trials, best, Pareto front, importances)."""
    trials = study.get_trials(deepcopy=False)
    complete = [t for t in trials if t.state == TrialState.COMPLETE]
    distributions: dict[str, Any] = {}
    for t in complete:
        for name, dist in t.distributions.items():
            distributions.setdefault(name, distribution_to_json(dist))
    for t in complete:
        # fitted exactly in each trial (not suggested): recorded as a parameter for plots
        for name in t.user_attrs.get(FITTED, {}):
            distributions.setdefault(name, distribution_to_json(FloatDistribution(0.0, 1.0)))
    multi = len(study.directions) > 1
    best_value = None
    best_params: dict[str, Any] = {}
    pareto: list[TrialRecord] = []
    if complete and not multi:
        best_value = float(study.best_value)
        best_params = dict(study.best_params)
    if complete and multi:
        pareto = [_record(t) for t in study.best_trials]
    importances: dict[str, float] = {}
    if len(complete) >= 5 and not multi:
        try:
            importances = {
                k: float(v)
                for k, v in optuna.importance.get_param_importances(
                    study, evaluator=optuna.importance.FanovaImportanceEvaluator(seed=seed)
                ).items()
            }
        except (RuntimeError, ValueError) as exc:  # too few distinct values to assess
            logger.info("parameter importances unavailable: %s", exc)
    return StudySummary(
        name=study.study_name,
        storage=_redact(storage),
        seed=seed,
        directions=[d.name.lower() for d in study.directions],
        objectives=objectives,
        n_trials=len(complete),
        best_value=best_value,
        best_params=best_params,
        distributions=distributions,
        trials=[_record(t) for t in trials],
        pareto_front=pareto,
        importances=importances,
    )


def _redact(url: str | None) -> str | None:
    """Hide a password in a database URL."""
    if not url or "://" not in url or "@" not in url:
        return url
    scheme, rest = url.split("://", 1)
    creds, host = rest.rsplit("@", 1)
    user = creds.split(":", 1)[0]
    return f"{scheme}://{user}:***@{host}"
