"""How faithful is a system? The faithful rate of its rows, from the judge's verdicts on every row
and a few human labels (prediction-powered inference, PPI++), with valid intervals.

`estimate` judges the rows (or reads an `evaluate --out` results file, judging nothing twice),
matches the labeled rows, leaves out the labeled rows the judge was fitted on, and reports the
PPI++ estimate, the labels-only estimate and the judge's raw (biased) pass rate, each with its
interval, per stratum when asked. `compare_systems` sets two estimates side by side: the
difference in faithful rate, its interval and p-value, paired when both systems were labeled
on the same questions.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pydantic

from ragjudge.data._gold import GoldRecord, load_gold
from ragjudge.data._labels import gold_label, read_label
from ragjudge.data._rowhash import fitted_on, row_hash
from ragjudge.estimation._crossfit import Prediction, verdict
from ragjudge.estimation._crossfit import cross_fit as fit_folds
from ragjudge.estimation._drawn import drawn_estimate, draws_of
from ragjudge.evaluation._runner import run_rows
from ragjudge.exceptions import ConfigurationError, GoldDataError
from ragjudge.programs._base import Judge
from ragjudge.programs._results import JudgeResult
from ragjudge.stats._active import labels_for_active_width
from ragjudge.stats._ppi import (
    MeanEstimate,
    combine_strata,
    difference,
    effective_labels,
    labels_for_width,
    mean_estimate,
    satterthwaite,
    z_value,
)
from ragjudge.stats._summary import wilson_interval

__all__ = [
    "Comparison",
    "Estimate",
    "Figure",
    "LabelsNeeded",
    "Stratum",
    "compare_systems",
    "estimate",
    "is_results_file",
    "load_judge",
]

MIN_LABELS = 10


class Figure(pydantic.BaseModel):
    """A rate (or a difference of rates) with its standard error and interval.

    Attributes:
        estimate: The point estimate.
        se: The standard error of the interval.
        ci: `[low, high]`, within the rate's range.
        centre: The middle of the interval before it is kept within the range (None: the
            estimate).
        df: Degrees of freedom of the interval's t quantile (None: normal).
    """

    estimate: float
    se: float
    ci: list[float]
    centre: float | None = None
    df: float | None = None


class Stratum(pydantic.BaseModel):
    """The figures of the rows whose `by` field has one value."""

    value: str
    n_rows: int
    n_labeled: int
    weight: float
    ppi: Figure
    classical: Figure
    judge: Figure
    lam: float
    effective_labels: float | None


class LabelsNeeded(pydantic.BaseModel):
    """How many labels give an interval `width` wide (in all; `*_more`: beyond those used).

    None: more labels alone cannot get there (the judge's own part is already wider)."""

    width: float
    ppi: int | None
    classical: int | None
    ppi_more: int | None
    classical_more: int | None


class Estimate(pydantic.BaseModel):
    """The faithful rate of a system's rows.

    Attributes:
        n_rows: Rows measured (the system's traffic).
        n_labeled: Labeled rows used for the correction.
        level: The intervals' level.
        ppi: The PPI++ estimate (stratified when `by` is set).
        classical: The labels-only estimate.
        judge: The judge's raw pass rate over all rows: biased by the judge's errors; its
            interval covers only the sampling of rows, not that bias.
        lam: The PPI++ weight given the judge (0: labels alone, 1: plain PPI).
        effective_labels: How many labels alone would give the PPI++ interval's width.
        by: The field the rows were stratified on, if any.
        strata: The figures per value of `by`.
        dropped_fitted: Labeled rows left out because the judge was fitted on them.
        fitted_rows_known: Whether the judge records the rows it was fitted on (None: the judge
            was not compiled, so it fitted on none).
        cross_fit: Folds of cross-fitting, if used.
        labeled_errors: Labeled rows the judge could not judge (counted as failing).
        row_errors: Measured rows the judge could not judge (counted as failing).
        labeled_unscored: Labeled rows with no score and no error (counted as failing,
            `ragjudge.stats._threshold.UNSCORED`).
        row_unscored: Unlabeled rows with no score and no error (the same).
        target: Labels needed for `target_width`, when asked.
        notes: What a reader should know (dropped rows, errors, old judge files).
        rows: Name of the measured rows; gold: of the labeled rows; judge_name: of the judge.
        verdicts_from_file: True when every verdict was read from results files (no judge ran).
    """

    model_config = pydantic.ConfigDict(ser_json_inf_nan="null")

    n_rows: int
    n_labeled: int
    level: float
    ppi: Figure
    classical: Figure
    judge: Figure
    lam: float
    effective_labels: float | None
    by: str | None = None
    strata: list[Stratum] = pydantic.Field(default_factory=list)
    dropped_fitted: int = 0
    fitted_rows_known: bool | None = None
    cross_fit: int | None = None
    labeled_errors: int = 0
    row_errors: int = 0
    labeled_unscored: int = 0
    row_unscored: int = 0
    target: LabelsNeeded | None = None
    notes: list[str] = pydantic.Field(default_factory=list)
    rows: str = ""
    gold: str = ""
    judge_name: str = ""
    verdicts_from_file: bool = False
    _labeled: dict[str, tuple[float, float]] = pydantic.PrivateAttr(default_factory=dict)
    _unlabeled: dict[str, float] = pydantic.PrivateAttr(default_factory=dict)
    _labeled_rows: dict[str, int] = pydantic.PrivateAttr(default_factory=dict)
    _measured_ids: set[str] = pydantic.PrivateAttr(default_factory=set)

    def summary(self) -> dict[str, Any]:
        """The estimate as JSON data (`ragjudge estimate --format json`)."""
        return self.model_dump(mode="json")


class Comparison(pydantic.BaseModel):
    """System B against system A: `b - a` in faithful rate.

    Attributes:
        a: A's estimate; b: B's.
        paired: True when the difference was estimated per question (shared labeled ids).
        ppi: The PPI++ difference with its interval and p-value.
        classical: The labels-only difference.
        judge: The difference of the judges' raw rates (biased, and the bias need not cancel).
        effective_labels: Labels per system that alone would give the PPI++ interval's width.
        bound: `fail_under_diff`: how much worse B may be.
        worse: True when B is worse than A by more than `bound` beyond chance (the interval's
            upper end below `-bound`); None without a bound.
    """

    a: Estimate
    b: Estimate
    paired: bool
    level: float
    ppi: dict[str, Any]
    classical: dict[str, Any]
    judge: dict[str, Any]
    lam: float | None = None
    effective_labels: float | None = None
    bound: float | None = None
    worse: bool | None = None

    def summary(self) -> dict[str, Any]:
        """The comparison as JSON data."""
        return self.model_dump(mode="json")


# -- inputs ------------------------------------------------------------------------------------


class _Row:
    """A measured or labeled row: its id, what is known of it, and the judge's verdict."""

    __slots__ = ("id", "label", "number", "record", "result", "source")

    def __init__(
        self,
        *,
        id: str,
        number: int,
        record: GoldRecord | None = None,
        result: JudgeResult | None = None,
        label: int | None = None,
        source: str = "",
    ) -> None:
        self.id, self.number, self.record, self.result = id, number, record, result
        self.label, self.source = label, source


def load_judge(
    judge: Judge | str | os.PathLike[str] | None, *, trust_modified: bool = False
) -> Judge:
    """The judge to use: a judge object, a judge file, or (None) the offline default
    (`ragjudge.programs.build_judge`)."""
    from ragjudge.programs._build import build_judge

    if isinstance(judge, Judge):
        return judge
    return build_judge(
        judge=judge, lm=None if judge is not None else "local", trust_modified=trust_modified
    )


def is_results_file(path: str | os.PathLike[str]) -> bool:
    """True when `path` is a results file written by `ragjudge evaluate --out`."""
    target = Path(path)
    if not target.is_file():
        return False
    keys: set[str]
    if target.suffix == ".parquet":
        import pyarrow.parquet as pq

        keys = set(pq.read_schema(target).names)
    else:
        with target.open("rb") as handle:
            first = handle.readline()
        try:
            obj = json.loads(first)
        except ValueError:
            return False
        keys = set(obj) if isinstance(obj, dict) else set()
    return {"id", "metric", "passed", "score"} <= keys and "answer" not in keys


def _result_records(path: Path) -> list[tuple[int, Any]]:
    """The records of a results file with their row numbers (JSONL or Parquet)."""
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        return list(enumerate(pq.read_table(path).to_pylist(), start=1))
    records = []
    for number, line in enumerate(path.read_bytes().splitlines(), start=1):
        if not line.strip():
            continue
        try:
            records.append((number, json.loads(line)))
        except ValueError:
            raise GoldDataError("is not a JSON object", file=str(path), row=number) from None
    return records


def _result_row(record: Any, *, file: str, number: int) -> _Row:
    """One faithfulness result of a results file, with its label (`read_label`)."""
    if not isinstance(record, dict) or record.get("id") is None:
        raise GoldDataError("is not a result with an id", file=file, row=number)
    for key in ("statements", "details"):
        if isinstance(record.get(key), str):
            record[key] = json.loads(record[key])
    try:
        result = JudgeResult.from_json_data(record)
    except pydantic.ValidationError as exc:
        message = str(exc).splitlines()[0]
        raise GoldDataError(f"is not a result ({message})", file=file, row=number) from None
    if result.metric != "faithfulness":
        raise GoldDataError(
            f"holds {result.metric} results; the faithful rate needs faithfulness results",
            file=file,
            row=number,
            field="metric",
        )
    return _Row(
        id=str(record["id"]),
        number=number,
        result=result,
        label=read_label(record.get("gold"), file=file, row=number, field="gold"),
        source=str(record.get("source") or ""),
    )


def _read_results_file(path: Path) -> list[_Row]:
    rows: list[_Row] = []
    seen: set[str] = set()
    for number, record in _result_records(path):
        row = _result_row(record, file=str(path), number=number)
        if row.id in seen:
            raise GoldDataError(f"duplicate id {row.id!r}", file=str(path), row=number, field="id")
        seen.add(row.id)
        rows.append(row)
    if not rows:
        raise GoldDataError("holds no rows", file=str(path))
    return rows


def _rows_of(
    data: str | os.PathLike[str] | Sequence[GoldRecord],
    *,
    mapping: dict[str, str] | None,
    metric: str = "faithfulness",
) -> tuple[list[_Row], str]:
    if isinstance(data, (str, os.PathLike)):
        name = os.fspath(data)
        if is_results_file(name):
            return _read_results_file(Path(name)), name
        records = load_gold(name, mapping=mapping)
    else:
        name, records = "rows", list(data)
    return [
        _Row(id=r.id, number=i, record=r, label=gold_label(r, metric), source=r.source)
        for i, r in enumerate(records, start=1)
    ], name


def _value_of(row: _Row, field: str, file: str) -> str:
    """The row's value of `field` (`source`, `task`, or a `meta` key, `meta.` optional)."""
    if field == "source":
        return row.source or "(none)"
    if row.record is None:
        raise GoldDataError(
            f"a results file holds only each row's source; to stratify by {field!r} give the "
            "rows themselves",
            file=file,
            row=row.number,
            field=field,
        )
    if field == "task":
        return row.record.task or "(none)"
    value: Any = row.record.meta
    for part in field.removeprefix("meta.").split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return "(none)" if value is None else str(value)


# -- the estimate, step by step ----------------------------------------------------------------


class _Judge:
    """The judge, loaded when first needed (a results file needs none)."""

    def __init__(self, judge: Judge | str | os.PathLike[str] | None, trust_modified: bool):
        self.given, self.trust_modified = judge, trust_modified
        self._judge: Judge | None = None

    def get(self) -> Judge:
        if self._judge is None:
            self._judge = load_judge(self.given, trust_modified=self.trust_modified)
        return self._judge

    @property
    def metric(self) -> str:
        """The metric whose labels the rows are read for (the offline judge's: faithfulness)."""
        return "faithfulness" if self.given is None else self.get().metric

    @property
    def name(self) -> str:
        if isinstance(self.given, Judge):
            return type(self.given).__name__
        return "offline judge" if self.given is None else os.fspath(self.given)


@dataclasses.dataclass
class _Inputs:
    """The measured rows (the system's traffic) and the labeled rows, with their names."""

    measured: list[_Row]
    labeled: list[_Row]
    rows_name: str
    gold_name: str
    dropped: int = 0
    fitted_known: bool | None = None

    @property
    def measured_ids(self) -> set[str]:
        return {r.id for r in self.measured}

    @property
    def unlabeled(self) -> list[_Row]:
        """The measured rows without a label (the judge's part of PPI)."""
        labeled_ids = {r.id for r in self.labeled}
        return [r for r in self.measured if r.id not in labeled_ids]


@dataclasses.dataclass
class _Verdicts:
    """What PPI takes from the judge: its prediction and pass verdict on every row."""

    labeled: np.ndarray
    unlabeled: np.ndarray
    passed_labeled: np.ndarray
    passed_unlabeled: np.ndarray
    judge_name: str
    from_file: bool = False
    labeled_errors: int = 0
    row_errors: int = 0
    labeled_unscored: int = 0
    row_unscored: int = 0


def _check_options(
    *, level: float, target_width: float | None, cross_fit: int | None, judge: object
) -> None:
    if not 0 < level < 1:
        raise ConfigurationError(f"The `level` parameter must be in (0, 1). Got {level!r}.")
    if target_width is not None and not 0 < target_width < 1:
        raise ConfigurationError(
            f"The `target_width` parameter must be in (0, 1). Got {target_width!r}."
        )
    if cross_fit is not None and judge is not None:
        raise ConfigurationError(
            "`cross_fit` compiles the offline judge once per fold; drop `judge` (--judge)"
        )


def _inputs(
    rows: str | os.PathLike[str] | Sequence[GoldRecord],
    gold: str | os.PathLike[str] | Sequence[GoldRecord] | None,
    mapping: dict[str, str] | None,
    metric: str = "faithfulness",
) -> _Inputs:
    """The measured rows and the labeled rows (the rows' own labels when `gold` is None), each
    row's label the one `metric` reads (data/_labels.py)."""
    measured, rows_name = _rows_of(rows, mapping=mapping, metric=metric)
    if gold is None:
        labeled = [r for r in measured if r.label is not None]
        return _Inputs(measured, labeled, rows_name, f"{rows_name} (its labels)")
    labeled, gold_name = _rows_of(gold, mapping=mapping, metric=metric)
    missing = next((r for r in labeled if r.label is None), None)
    if missing is not None:
        raise GoldDataError(
            "has no label; labeled rows need faithful = 0 or 1",
            file=gold_name,
            row=missing.number,
            field="faithful",
        )
    _match_labeled(labeled, {r.id: r for r in measured}, rows_name, gold_name)
    return _Inputs(measured, labeled, rows_name, gold_name)


def _match_labeled(
    labeled: list[_Row], by_id: dict[str, _Row], rows_name: str, gold_name: str
) -> None:
    """A labeled row takes its measured twin's verdict; a twin that is another row is refused."""
    for row in labeled:
        twin = by_id.get(row.id)
        if twin is None:
            continue
        if twin.record is not None and row.record is not None:
            if row_hash(twin.record) != row_hash(row.record):
                raise GoldDataError(
                    f"id {row.id!r} names another row in {rows_name} (its question, "
                    "contexts or answer differ); give each row its own id",
                    file=gold_name,
                    row=row.number,
                    field="id",
                )
        if row.result is None:
            row.result = twin.result


def _fitted_hashes(judge: _Judge, cross_fit: int | None, notes: list[str]) -> set[str] | None:
    """The hashes of the rows the judge was fitted on; None when it records none (an
    uncompiled judge fitted on none; a judge file from before they were recorded: noted)."""
    if cross_fit is not None or judge.given is None:
        return None
    report = getattr(judge.get(), "report_", None)
    fitted = None if report is None else report.get("fitted_rows")
    if report is not None and fitted is None:
        notes.append(
            "the judge file does not record the rows it was fitted on (compiled before "
            "ragjudge recorded them): labeled rows it fitted on cannot be left out, and "
            "would make the interval too narrow; recompile, or use cross-fitting"
        )
    return None if fitted is None else set(fitted)


def _leave_out_fitted(
    data: _Inputs, judge: _Judge, cross_fit: int | None, notes: list[str]
) -> None:
    """Leave the rows the judge was fitted on out of the estimate: out of the labeled rows
    (its verdicts on them are too good to correct it with) and out of the measured rows (the
    estimate is of the rows it was not fitted on: one population for both parts)."""
    compiled = cross_fit is None and judge.given is not None
    if compiled and getattr(judge.get(), "report_", None) is not None:
        data.fitted_known = False
    fitted = _fitted_hashes(judge, cross_fit, notes)
    if fitted is None:
        return
    data.fitted_known = True

    def was_fitted(row: _Row) -> bool:
        return row.record is not None and fitted_on(row.record, fitted)

    fitted_ids = {r.id for r in [*data.labeled, *data.measured] if was_fitted(r)}
    kept = [r for r in data.labeled if r.id not in fitted_ids]
    measured = [r for r in data.measured if r.id not in fitted_ids]
    data.dropped = len(data.labeled) - len(kept)
    left_measured = len(data.measured) - len(measured)
    data.labeled, data.measured = kept, measured
    if data.dropped or left_measured:
        notes.append(
            f"{data.dropped} labeled rows were left out, and {left_measured} of the measured "
            "rows: the judge was fitted on them (the estimate is of the other rows)"
        )
    unknown = sum(1 for r in data.labeled if r.record is None)
    if unknown:
        notes.append(
            f"{unknown} labeled rows come from a results file without their text: "
            "whether the judge was fitted on them cannot be checked"
        )


def _check_labels(labels: np.ndarray, *, gold: str, dropped: int, what: str = "") -> None:
    n = labels.size
    if n < MIN_LABELS:
        why = (
            f"; {dropped} more were left out because the judge was fitted on them: pass "
            "`cross_fit` (--cross-fit 5) to compile the offline judge per fold instead"
            if dropped
            else ""
        )
        raise GoldDataError(
            f"{n} labeled rows{what}, fewer than the {MIN_LABELS} an interval needs (below "
            f"{MIN_LABELS}, no interval ragjudge knows holds its level for every judge and "
            f"rate; docs/estimate.md){why}",
            file=gold,
        )
    if labels.min() == labels.max():
        value = int(labels[0])
        bound = 3 / n
        raise GoldDataError(
            f"all {n} labeled rows{what} have faithful = {value}: they show no "
            f"{'un' if value else ''}faithful row to correct the judge with; with none among {n}, "
            f"the rate is only known to be {'above' if value else 'below'} "
            f"{1 - bound if value else bound:.3f} (95%, rule of three); label more rows",
            file=gold,
            field="faithful",
        )


def _refuse_mixed_judges(data: _Inputs, pending: list[_Row], judge: _Judge) -> None:
    """Verdicts read from a results file and verdicts judged now would be two judges' mixed:
    refuse, saying how to get one judge's verdicts on every row."""
    read = [r for r in [*data.labeled, *data.unlabeled] if r.record is None]
    if not pending or not read:
        return
    first = pending[0]
    in_gold = any(first is r for r in data.labeled)
    raise ConfigurationError(
        f"{len(pending)} rows (first: id {first.id!r} of "
        f"{data.gold_name if in_gold else data.rows_name}) have no verdict and would be judged "
        f"by {judge.name}, while {len(read)} others take their verdicts from a results file "
        "written by whatever judge made it: the estimate would mix two judges. Give both the "
        "rows and the labels as results files of one judge (`ragjudge evaluate --judge J "
        "--gold labeled.jsonl --out labeled-results.jsonl`), or both as rows"
    )


def _judge_now(
    data: _Inputs,
    judge: _Judge,
    concurrency: int,
    on_result: Callable[[int, JudgeResult], None] | None,
) -> None:
    """Judge the rows that have no verdict yet (each once)."""
    pending = [r for r in [*data.labeled, *data.unlabeled] if r.result is None]
    _refuse_mixed_judges(data, pending, judge)
    if not pending:
        return
    records = [r.record for r in pending if r.record is not None]
    results = run_rows(judge.get(), records, concurrency=concurrency, on_result=on_result)
    for row, judged in zip(pending, results, strict=True):
        row.result = judged


def _read_verdicts(
    data: _Inputs, predictions: Prediction, judge_name: str, scale: float = 1.0
) -> _Verdicts:
    """The verdicts the rows carry, as PPI's predictions (`verdict`: scores over the judge's
    `scale`, so that an estimate does not depend on it)."""

    def results(rows: list[_Row]) -> list[JudgeResult]:
        return [r.result for r in rows if r.result is not None]

    labeled, unlabeled = results(data.labeled), results(data.unlabeled)

    def unscored(rs: list[JudgeResult]) -> int:
        return sum(1 for r in rs if r.error is None and math.isnan(r.score))

    return _Verdicts(
        labeled=np.array([verdict(r, predictions, scale=scale) for r in labeled], dtype=float),
        unlabeled=np.array([verdict(r, predictions, scale=scale) for r in unlabeled], dtype=float),
        passed_labeled=np.array([verdict(r, "passed") for r in labeled], dtype=float),
        passed_unlabeled=np.array([verdict(r, "passed") for r in unlabeled], dtype=float),
        judge_name=judge_name,
        labeled_errors=sum(1 for r in labeled if r.error),
        row_errors=sum(1 for r in unlabeled if r.error),
        labeled_unscored=unscored(labeled),
        row_unscored=unscored(unlabeled),
    )


def _cross_fitted(
    data: _Inputs, *, folds: int, n_trials: int, seed: int, concurrency: int, kind: Prediction
) -> _Verdicts:
    """Each labeled row predicted by the fold judge that did not see it; every other row by
    the mean of the fold judges (cross-PPI)."""
    if any(r.record is None for r in [*data.labeled, *data.unlabeled]):
        raise ConfigurationError(
            "`cross_fit` judges every row again with each fold's judge: give the rows "
            "themselves, not a results file"
        )
    fitted = fit_folds(
        [r.record for r in data.labeled if r.record is not None],
        folds=folds,
        n_trials=n_trials,
        seed=seed,
        concurrency=concurrency,
        kind=kind,
    )
    predicted, passed = fitted.predict(
        [r.record for r in data.unlabeled if r.record is not None], concurrency=concurrency
    )
    return _Verdicts(
        labeled=fitted.labeled,
        unlabeled=predicted,
        passed_labeled=fitted.labeled_passed,
        passed_unlabeled=passed,
        judge_name=f"offline judge, cross-fitted on {folds} folds of the labels",
        labeled_errors=fitted.labeled_errors,
    )


def _verdict_notes(data: _Inputs, v: _Verdicts) -> list[str]:
    """What the reader should know about the verdicts: errors and unscored rows (counted as
    failing, `stats._threshold.UNSCORED`), and unlabeled rows too few to use."""
    notes = []
    if v.labeled_errors:
        first = next((r for r in data.labeled if r.result is not None and r.result.error), None)
        where = (
            ""
            if first is None or first.result is None
            else f" (first: {data.gold_name} row {first.number}, id {first.id!r}: "
            f"{first.result.error})"
        )
        notes.append(
            f"the judge errored on {v.labeled_errors} labeled rows, counted as failing{where}"
        )
    if v.row_errors:
        notes.append(f"the judge errored on {v.row_errors} unlabeled rows, counted as failing")
    if v.labeled_unscored or v.row_unscored:
        notes.append(
            f"{v.labeled_unscored} labeled and {v.row_unscored} unlabeled rows have no score "
            "(and no error): counted as failing, as an unscored row is everywhere in ragjudge"
        )
    unlabeled = len(data.unlabeled)
    if unlabeled == 0:
        notes.append("every measured row is labeled: the estimate is the labels alone")
    elif unlabeled < 2:
        notes.append(
            f"only {unlabeled} of {len(data.measured)} measured rows is unlabeled, too few "
            "for the judge to add anything: the estimate is the labels alone"
        )
    return notes


@dataclasses.dataclass
class _Sample:
    """The numbers PPI takes: the labels, the judge's predictions on the labeled rows and on
    the unlabeled ones, and its pass verdicts (for its raw rate).

    Every figure is computed from this one object (`_overall`, `_strata`): an estimate that
    weights rows (rows drawn with known probabilities) would carry the weights here and hand
    them to `mean_estimate`.
    """

    labels: np.ndarray
    predicted: np.ndarray
    predicted_unlabeled: np.ndarray
    passed: np.ndarray
    passed_unlabeled: np.ndarray
    in_measured: np.ndarray

    def estimate(self, level: float, mask_l: Any = None, mask_u: Any = None) -> MeanEstimate:
        """PPI++ on all rows, or on the rows the masks pick (one stratum)."""
        mask_l = slice(None) if mask_l is None else mask_l
        mask_u = slice(None) if mask_u is None else mask_u
        return mean_estimate(
            labels=self.labels[mask_l],
            predicted=self.predicted[mask_l],
            predicted_unlabeled=self.predicted_unlabeled[mask_u],
            level=level,
        )

    def judge_rate(self, level: float, mask_l: Any = None, mask_u: Any = None) -> Figure:
        """The judge's raw pass rate over the measured rows, with its Wilson interval."""
        mask_l = self.in_measured if mask_l is None else mask_l & self.in_measured
        mask_u = slice(None) if mask_u is None else mask_u
        passed = np.concatenate([self.passed[mask_l], self.passed_unlabeled[mask_u]])
        return _rate_figure(int(passed.sum()), int(passed.size), level)


def _rate_figure(successes: int, n: int, level: float) -> Figure:
    """A pass rate with the one pass-rate interval (Wilson, `stats._summary`)."""
    if not n:
        return Figure(estimate=math.nan, se=0.0, ci=[math.nan, math.nan])
    low, high = wilson_interval(successes, n, level=level)
    assert low is not None and high is not None
    return Figure(estimate=successes / n, se=(high - low) / (2 * z_value(level)), ci=[low, high])


def _figure(est: MeanEstimate, kind: str) -> Figure:
    """The PPI++ (`kind="ppi"`) or labels-only figure of an estimate."""
    if kind == "ppi":
        return Figure(estimate=est.estimate, se=est.se, ci=est.ci, centre=est.centre, df=est.df)
    return Figure(
        estimate=est.classical,
        se=est.classical_se,
        ci=est.classical_ci,
        centre=est.classical_centre,
        df=est.df,
    )


def _effective(est: MeanEstimate) -> float | None:
    value = est.effective_labels
    return None if math.isinf(value) else value


def _strata(
    sample: _Sample, data: _Inputs, by: str, level: float
) -> tuple[MeanEstimate, list[Stratum]]:
    """Each stratum estimated on its own; pooled by each stratum's share of the rows."""
    values_l = np.array([_value_of(r, by, data.gold_name) for r in data.labeled])
    values_u = np.array([_value_of(r, by, data.rows_name) for r in data.unlabeled])
    values_m = [_value_of(r, by, data.rows_name) for r in data.measured]
    extra = sorted(set(values_l.tolist()) - set(values_m))
    if extra:
        raise GoldDataError(
            f"labeled rows have {by} = {extra[0]!r}, which no measured row has",
            file=data.gold_name,
            field=by,
        )
    parts, strata = [], []
    for value in sorted(set(values_m)):
        mask_l, mask_u = values_l == value, values_u == value
        if mask_l.sum() < 2:
            raise GoldDataError(
                f"stratum {by} = {value!r} has {int(mask_l.sum())} labeled rows; each "
                "stratum needs at least 2 (label more of its rows, or stratify on a coarser "
                "field)",
                file=data.gold_name,
                field=by,
            )
        part = sample.estimate(level, mask_l, mask_u)
        n_value = values_m.count(value)
        parts.append(part)
        strata.append(
            Stratum(
                value=value,
                n_rows=n_value,
                n_labeled=int(mask_l.sum()),
                weight=n_value / len(values_m),
                ppi=_figure(part, "ppi"),
                classical=_figure(part, "classical"),
                judge=sample.judge_rate(level, mask_l, mask_u),
                lam=part.lam,
                effective_labels=_effective(part),
            )
        )
    return combine_strata(parts, [s.weight for s in strata], level=level), strata


def _target(est: MeanEstimate, width: float | None, level: float, by: str | None) -> Any:
    """How many labels give an interval `width` wide, from the labels so far."""
    if width is None:
        return None
    n = est.n_labeled
    if by:  # pooled: the spread of one label's term, from the pooled standard errors
        ppi_sd, fixed, cls_sd = est.se * math.sqrt(n), 0.0, est.classical_se * math.sqrt(n)
    else:
        ppi_sd, fixed, cls_sd = est.label_sd, est.imputed_se, est.classical_sd
    need_ppi = labels_for_width(label_sd=ppi_sd, fixed_se=fixed, width=width, level=level)
    need_cls = labels_for_width(label_sd=cls_sd, width=width, level=level)
    return LabelsNeeded(
        width=width,
        ppi=need_ppi,
        classical=need_cls,
        ppi_more=None if need_ppi is None else max(0, need_ppi - n),
        classical_more=None if need_cls is None else max(0, need_cls - n),
    )


def _verdicts(
    data: _Inputs,
    judge: _Judge,
    *,
    cross_fit: int | None,
    n_trials: int,
    seed: int,
    concurrency: int,
    predictions: Prediction,
    on_result: Callable[[int, JudgeResult], None] | None,
) -> _Verdicts:
    """The judge's verdicts on every row: cross-fitted, read from results files, or judged
    now (never a mix of the last two)."""
    if cross_fit is not None:
        return _cross_fitted(
            data,
            folds=cross_fit,
            n_trials=n_trials,
            seed=seed,
            concurrency=concurrency,
            kind=predictions,
        )
    _judge_now(data, judge, concurrency, on_result)
    every = [*data.labeled, *data.unlabeled]
    from_files = all(r.record is None for r in every)
    name = f"verdicts read from {data.rows_name}" if from_files else judge.name
    scale = 1.0 if from_files else judge.get().compile_spec().scale
    found = _read_verdicts(data, predictions, name, scale)
    found.from_file = from_files
    return found


def estimate(
    *,
    rows: str | os.PathLike[str] | Sequence[GoldRecord],
    gold: str | os.PathLike[str] | Sequence[GoldRecord] | None = None,
    judge: Judge | str | os.PathLike[str] | None = None,
    by: str | None = None,
    level: float = 0.95,
    target_width: float | None = None,
    cross_fit: int | None = None,
    n_trials: int = 30,
    seed: int = 0,
    concurrency: int = 1,
    predictions: Prediction = "score",
    mapping: dict[str, str] | None = None,
    trust_modified: bool = False,
    on_result: Callable[[int, JudgeResult], None] | None = None,
) -> Estimate:
    """Estimate the faithful rate of a system's rows with PPI++ and a valid interval.

    Args:
        rows: The system's rows (a `.jsonl`/`.csv`/`.parquet` file or `GoldRecord`s), or a
            results file of `ragjudge evaluate --out` (its verdicts are used, nothing is judged
            again).
        gold: The labeled rows (any subset a person labeled; their ids may or may not be among
            `rows`). None: the labels the rows themselves carry. Rows or a results file, as
            `rows` is: the verdicts of one judge, never mixed (refused).
        judge: A judge, a judge file, or None for the offline judge.
        by: Stratify on this field: `source`, `task` or a `meta` key (`domain`, `meta.domain`);
            the pooled figure weights each stratum by its share of the rows.
        level: The intervals' level.
        target_width: Also say how many labels give an interval this wide.
        cross_fit: Compile the offline judge once per fold of the labeled rows (K folds) and
            correct each fold with the judge that did not see it (cross-PPI); for when the only
            labels are the rows a judge was compiled on.
        n_trials: Optuna trials per fold's compile.
        seed: Seeds the folds and the compiles.
        concurrency: Rows judged at once.
        predictions: What PPI takes from each verdict: the judge's `score` in [0, 1] (the
            default: a graded score corrects more than a yes/no) or whether it `passed`. The
            judge's raw rate is always the pass rate.
        mapping: Field -> column names of the row and gold files.
        trust_modified: Load a hand-edited judge file.
        on_result: Called as each row is judged (for a progress bar).

    Returns:
        An `Estimate`.

    Raises:
        GoldDataError: Too few labeled rows (fewer than 10 after leaving out the fitted ones),
            labels all of one class, a labeled id whose row differs from the measured one, a
            label that is not 0 or 1.
        ConfigurationError: A bad option; verdicts that would mix a results file's judge with
            the judge run now.

    Example:
        >>> est = estimate(rows="traffic.jsonl", gold="labeled.jsonl")  # doctest: +SKIP
        >>> est.ppi.estimate, est.ppi.ci, est.classical.ci, est.effective_labels  # doctest: +SKIP
    """
    _check_options(level=level, target_width=target_width, cross_fit=cross_fit, judge=judge)
    the_judge = _Judge(judge, trust_modified)
    run = _Run(
        judge=the_judge,
        cross_fit=cross_fit,
        n_trials=n_trials,
        seed=seed,
        concurrency=concurrency,
        predictions=predictions,
        on_result=on_result,
        by=by,
        level=level,
        target_width=target_width,
    )
    return run.estimate(_inputs(rows, gold, mapping, the_judge.metric))


@dataclasses.dataclass
class _Run:
    """One `estimate`: its options (see there) and its steps."""

    judge: _Judge
    cross_fit: int | None
    n_trials: int
    seed: int
    concurrency: int
    predictions: Prediction
    on_result: Callable[[int, JudgeResult], None] | None
    by: str | None
    level: float
    target_width: float | None

    def estimate(self, data: _Inputs) -> Estimate:
        """The estimate from the rows: the labels checked, the verdicts, PPI++ (pooled and by
        stratum), or the drawn rows' weighted estimate where the labels were drawn."""
        notes: list[str] = []
        # -- rows drawn by `ragjudge label --strategy estimate` (estimation/_drawn.py): their
        # weights are for all the rows, so none is left out (see drawn_estimate) --
        drawn_mode = self.cross_fit is None and any(draws_of(r.record) for r in data.labeled)
        if not drawn_mode:
            _leave_out_fitted(data, self.judge, self.cross_fit, notes)
        labels = np.array([float(r.label or 0) for r in data.labeled])
        _check_labels(labels, gold=data.gold_name, dropped=data.dropped)
        found = _verdicts(
            data,
            self.judge,
            cross_fit=self.cross_fit,
            n_trials=self.n_trials,
            seed=self.seed,
            concurrency=self.concurrency,
            predictions=self.predictions,
            on_result=self.on_result,
        )
        notes += _verdict_notes(data, found)
        sample = _Sample(
            labels=labels,
            predicted=found.labeled,
            predicted_unlabeled=found.unlabeled,
            passed=found.passed_labeled,
            passed_unlabeled=found.passed_unlabeled,
            in_measured=np.isin([r.id for r in data.labeled], list(data.measured_ids)),
        )
        overall, strata = sample.estimate(self.level), list[Stratum]()
        if self.by:
            overall, strata = _strata(sample, data, self.by, self.level)
        if overall.fell_back and not drawn_mode:
            notes.append(
                "the judge does not help on these labels: PPI++ is the labels-only interval"
            )
        result = _assemble(
            data,
            found,
            sample,
            overall,
            strata,
            notes=notes,
            level=self.level,
            by=self.by,
            target=_target(overall, self.target_width, self.level, self.by),
            cross_fit=self.cross_fit,
        )
        if drawn_mode:
            self.drawn(result, data, found, sample, labels)
        return result

    def drawn(
        self,
        result: Estimate,
        data: _Inputs,
        found: _Verdicts,
        sample: _Sample,
        labels: np.ndarray,
    ) -> None:
        """The drawn rows' weighted estimate replaces PPI++ in `result` (estimation/_drawn.py)."""
        drawn = drawn_estimate(
            labeled=data.labeled,
            labels=labels,
            predicted=found.labeled,
            predicted_all=np.concatenate([found.labeled[sample.in_measured], found.unlabeled]),
            gold=data.gold_name,
            by=self.by,
            level=self.level,
        )
        assert drawn is not None
        result.notes.append(drawn.note)
        result.ppi = Figure(estimate=drawn.ppi.estimate, se=drawn.ppi.se, ci=drawn.ppi.ci)
        result.classical = Figure(
            estimate=drawn.classical.estimate, se=drawn.classical.se, ci=drawn.classical.ci
        )
        result.lam = drawn.ppi.lam
        result.n_labeled = drawn.rows
        ratio = (drawn.classical.se / drawn.ppi.se) ** 2 if drawn.ppi.se > 0 else math.inf
        result.effective_labels = None if math.isinf(ratio) else drawn.ppi.n_draws * ratio
        if self.target_width is not None:
            width = self.target_width
            need_ppi = labels_for_active_width(drawn.ppi, width=width)
            need_cls = labels_for_active_width(drawn.classical, width=width)
            n = drawn.ppi.n_draws
            result.target = LabelsNeeded(
                width=width,
                ppi=need_ppi,
                classical=need_cls,
                ppi_more=None if need_ppi is None else max(0, need_ppi - n),
                classical_more=None if need_cls is None else max(0, need_cls - n),
            )


def _assemble(
    data: _Inputs,
    found: _Verdicts,
    sample: _Sample,
    overall: MeanEstimate,
    strata: list[Stratum],
    *,
    notes: list[str],
    level: float,
    by: str | None,
    target: LabelsNeeded | None,
    cross_fit: int | None,
) -> Estimate:
    """The `Estimate`, with the per-row figures a paired comparison needs."""
    result = Estimate(
        n_rows=len(data.measured),
        n_labeled=int(sample.labels.size),
        level=level,
        ppi=_figure(overall, "ppi"),
        classical=_figure(overall, "classical"),
        judge=sample.judge_rate(level),
        lam=overall.lam,
        effective_labels=_effective(overall),
        by=by,
        strata=strata,
        dropped_fitted=data.dropped,
        fitted_rows_known=data.fitted_known,
        cross_fit=cross_fit,
        labeled_errors=found.labeled_errors,
        row_errors=found.row_errors,
        labeled_unscored=found.labeled_unscored,
        row_unscored=found.row_unscored,
        target=target,
        notes=notes,
        rows=data.rows_name,
        gold=data.gold_name,
        judge_name=found.judge_name,
        verdicts_from_file=found.from_file,
    )
    result._labeled = {
        r.id: (float(y), float(f))
        for r, y, f in zip(data.labeled, sample.labels, sample.predicted, strict=True)
    }
    result._labeled_rows = {r.id: r.number for r in data.labeled}
    result._unlabeled = {
        r.id: float(f) for r, f in zip(data.unlabeled, sample.predicted_unlabeled, strict=True)
    }
    result._measured_ids = data.measured_ids
    return result


def compare_systems(
    *, a: Estimate, b: Estimate, paired: bool = False, fail_under_diff: float | None = None
) -> Comparison:
    """System B against system A: the difference in faithful rate, `b - a`.

    Args:
        a: The estimate of system A (the baseline).
        b: The estimate of system B (the candidate).
        paired: Estimate the difference per question: both systems were labeled on the same
            question ids, and every labeled id is among both systems' rows. Pairing removes the
            questions' own difficulty from the difference, which usually narrows it.
        fail_under_diff: How much worse (a share, e.g. 0.02) B may be; `worse` is True when
            the interval of `b - a` lies wholly below `-fail_under_diff`.

    Raises:
        GoldDataError: When pairing, a labeled id of one system that the other system's
            labels or rows lack.
    """
    if a.level != b.level:
        raise ConfigurationError("the two estimates have intervals of different levels")
    if fail_under_diff is not None and fail_under_diff < 0:
        raise ConfigurationError(
            f"The `fail_under_diff` parameter must be >= 0. Got {fail_under_diff!r}."
        )
    level = a.level
    effective: float | None
    if paired:
        _check_pairs(a, b)
        diff = _paired_difference(a, b)
        ppi = difference(
            estimate=diff.estimate, se=diff.se, level=level, centre=diff.centre, df=diff.df
        )
        classical = difference(
            estimate=diff.classical,
            se=diff.classical_se,
            level=level,
            centre=diff.classical_centre,
            df=diff.df,
        )
        lam, effective = diff.lam, _effective(diff)
    else:
        ppi = _independent_difference(a.ppi, b.ppi, level)
        classical = _independent_difference(a.classical, b.classical, level)
        lam = None
        effective = effective_labels(
            n_labeled=(a.n_labeled + b.n_labeled) / 2, se=ppi.se, classical_se=classical.se
        )
    judge = _independent_difference(a.judge, b.judge, level)
    worse = None if fail_under_diff is None else ppi.ci[1] < -fail_under_diff
    return Comparison(
        a=a,
        b=b,
        paired=paired,
        level=level,
        ppi=ppi.model_dump(),
        classical=classical.model_dump(),
        judge=judge.model_dump(),
        lam=lam,
        effective_labels=None if effective is None or math.isinf(effective) else effective,
        bound=fail_under_diff,
        worse=worse,
    )


def _independent_difference(a: Figure, b: Figure, level: float) -> Any:
    """`b - a` of two independent figures: the centres' difference, the standard errors
    added in quadrature, Welch-Satterthwaite degrees of freedom."""
    se = math.hypot(a.se, b.se)
    centre = (b.centre if b.centre is not None else b.estimate) - (
        a.centre if a.centre is not None else a.estimate
    )
    df = satterthwaite(np.array([a.se**2, b.se**2]), [a.df, b.df])
    return difference(estimate=b.estimate - a.estimate, se=se, level=level, centre=centre, df=df)


def _check_pairs(a: Estimate, b: Estimate) -> None:
    """Pairing needs both systems labeled on the same ids, each among both systems' rows."""
    for one, other in ((a, b), (b, a)):
        for row_id, number in one._labeled_rows.items():
            if row_id not in other._labeled:
                raise GoldDataError(
                    f"labeled id {row_id!r} has no label for the other system ({other.gold}); "
                    "pairing needs both systems labeled on the same questions",
                    file=one.gold,
                    row=number,
                    field="id",
                )
            for est in (a, b):
                if row_id not in est._measured_ids:
                    raise GoldDataError(
                        f"labeled id {row_id!r} is not among the measured rows of "
                        f"{est.rows}; pairing needs every labeled question in both systems",
                        file=one.gold,
                        row=number,
                        field="id",
                    )


def _paired_difference(a: Estimate, b: Estimate) -> MeanEstimate:
    """PPI++ on the per-question differences `label_B - label_A`, corrected by
    `judge_B - judge_A` (both in [-1, 1])."""
    ids = sorted(a._labeled)
    z_labels = np.array([b._labeled[i][0] - a._labeled[i][0] for i in ids])
    z_pred = np.array([b._labeled[i][1] - a._labeled[i][1] for i in ids])
    common = sorted(set(a._unlabeled) & set(b._unlabeled))
    z_unlabeled = np.array([b._unlabeled[i] - a._unlabeled[i] for i in common])
    return mean_estimate(
        labels=z_labels,
        predicted=z_pred,
        predicted_unlabeled=z_unlabeled,
        level=a.level,
        label_range=(-1.0, 1.0),
        prediction_range=(-1.0, 1.0),
    )
