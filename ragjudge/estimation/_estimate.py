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

import json
import math
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pydantic

from ragjudge.data._gold import GoldRecord, load_gold
from ragjudge.data._rowhash import row_hash
from ragjudge.estimation._crossfit import Prediction, verdict
from ragjudge.estimation._crossfit import cross_fit as fit_folds
from ragjudge.evaluation._runner import run_rows
from ragjudge.exceptions import ConfigurationError, GoldDataError
from ragjudge.programs._base import Judge
from ragjudge.programs._results import JudgeResult
from ragjudge.stats._ppi import (
    MeanEstimate,
    combine_strata,
    difference,
    labels_for_width,
    mean_estimate,
    z_value,
)

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
    """A rate (or a difference of rates) with its standard error and interval."""

    estimate: float
    se: float
    ci: list[float]


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
        target: Labels needed for `target_width`, when asked.
        notes: What a reader should know (dropped rows, errors, old judge files).
        rows: Name of the measured rows; gold: of the labeled rows; judge_name: of the judge.
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
    target: LabelsNeeded | None = None
    notes: list[str] = pydantic.Field(default_factory=list)
    rows: str = ""
    gold: str = ""
    judge_name: str = ""
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


def _read_results_file(path: Path) -> list[_Row]:
    records: list[dict[str, Any]]
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        records = pq.read_table(path).to_pylist()
    else:
        records = []
        for number, line in enumerate(path.read_bytes().splitlines(), start=1):
            if not line.strip():
                continue
            try:
                records.append(json.loads(line))
            except ValueError:
                raise GoldDataError("is not a JSON object", file=str(path), row=number) from None
    rows: list[_Row] = []
    seen: set[str] = set()
    for number, record in enumerate(records, start=1):
        if not isinstance(record, dict) or record.get("id") is None:
            raise GoldDataError("is not a result with an id", file=str(path), row=number)
        for key in ("statements", "details"):
            if isinstance(record.get(key), str):
                record[key] = json.loads(record[key])
        row_id = str(record["id"])
        if row_id in seen:
            raise GoldDataError(f"duplicate id {row_id!r}", file=str(path), row=number, field="id")
        seen.add(row_id)
        try:
            result = JudgeResult.from_json_data(record)
        except pydantic.ValidationError as exc:
            message = str(exc).splitlines()[0]
            raise GoldDataError(
                f"is not a result ({message})", file=str(path), row=number
            ) from None
        if result.metric != "faithfulness":
            raise GoldDataError(
                f"holds {result.metric} results; the faithful rate needs faithfulness results",
                file=str(path),
                row=number,
                field="metric",
            )
        gold = record.get("gold")
        rows.append(
            _Row(
                id=row_id,
                number=number,
                result=result,
                label=None if gold is None else int(gold),
                source=str(record.get("source") or ""),
            )
        )
    if not rows:
        raise GoldDataError("holds no rows", file=str(path))
    return rows


def _rows_of(
    data: str | os.PathLike[str] | Sequence[GoldRecord], *, mapping: dict[str, str] | None
) -> tuple[list[_Row], str]:
    if isinstance(data, (str, os.PathLike)):
        name = os.fspath(data)
        if is_results_file(name):
            return _read_results_file(Path(name)), name
        records = load_gold(name, mapping=mapping)
    else:
        name, records = "rows", list(data)
    return [
        _Row(id=r.id, number=i, record=r, label=r.faithful, source=r.source)
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


# -- the estimate ------------------------------------------------------------------------------


def _figure(value: float, se: float, z: float) -> Figure:
    return Figure(estimate=value, se=se, ci=[value - z * se, value + z * se])


def _judge_figure(predictions: np.ndarray, z: float) -> Figure:
    se = float(np.std(predictions)) / math.sqrt(predictions.size) if predictions.size else 0.0
    return _figure(float(predictions.mean()) if predictions.size else math.nan, se, z)


def _effective(est: MeanEstimate) -> float | None:
    value = est.effective_labels
    return None if math.isinf(value) else value


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
            f"{n} labeled rows{what}, fewer than the {MIN_LABELS} an interval needs{why}",
            file=gold,
        )
    if labels.min() == labels.max():
        value = int(labels[0])
        bound = 3 / n
        raise GoldDataError(
            f"all {n} labeled rows{what} have faithful = {value}: both intervals would have zero "
            f"width and mean nothing; with no {'un' if value else ''}faithful row among {n}, "
            f"the rate is only known to be {'above' if value else 'below'} "
            f"{1 - bound if value else bound:.3f} (95%, rule of three); label more rows",
            file=gold,
            field="faithful",
        )


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
            `rows`). None: the labels the rows themselves carry.
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
            labels all of one class, a labeled id whose row differs from the measured one.
        ConfigurationError: A bad option.

    Example:
        >>> est = estimate(rows="traffic.jsonl", gold="labeled.jsonl")  # doctest: +SKIP
        >>> est.ppi.estimate, est.ppi.ci, est.classical.ci, est.effective_labels  # doctest: +SKIP
    """
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
    z = z_value(level)
    notes: list[str] = []
    measured, rows_name = _rows_of(rows, mapping=mapping)
    by_id = {r.id: r for r in measured}
    if gold is None:
        labeled = [r for r in measured if r.label is not None]
        gold_name = f"{rows_name} (its labels)"
    else:
        labeled, gold_name = _rows_of(gold, mapping=mapping)
        missing = next((r for r in labeled if r.label is None), None)
        if missing is not None:
            raise GoldDataError(
                "has no label; labeled rows need faithful = 0 or 1",
                file=gold_name,
                row=missing.number,
                field="faithful",
            )
        for row in labeled:  # same id, other row: refuse
            twin = by_id.get(row.id)
            if twin is not None and twin.record is not None and row.record is not None:
                if row_hash(twin.record) != row_hash(row.record):
                    raise GoldDataError(
                        f"id {row.id!r} names another row in {rows_name} (its question, "
                        "contexts or answer differ); give each row its own id",
                        file=gold_name,
                        row=row.number,
                        field="id",
                    )
            if twin is not None and row.result is None:
                row.result = twin.result
    judge_obj: Judge | None = None
    judge_name = "offline judge" if judge is None else str(judge)

    def get_judge() -> Judge:
        nonlocal judge_obj
        if judge_obj is None:
            judge_obj = load_judge(judge, trust_modified=trust_modified)
        return judge_obj

    # Leave out the labeled rows the judge was fitted on.
    dropped = 0
    fitted_known: bool | None = None
    if cross_fit is None and judge is not None:
        report = getattr(get_judge(), "report_", None)
        if report is not None:
            fitted = report.get("fitted_rows")
            fitted_known = fitted is not None
            if fitted is None:
                notes.append(
                    "the judge file does not record the rows it was fitted on (compiled before "
                    "ragjudge recorded them): labeled rows it fitted on cannot be left out, and "
                    "would make the interval too narrow; recompile, or use cross-fitting"
                )
            else:
                seen = set(fitted)
                keep = [r for r in labeled if r.record is None or row_hash(r.record) not in seen]
                dropped = len(labeled) - len(keep)
                unknown = sum(1 for r in labeled if r.record is None)
                labeled = keep
                if dropped:
                    notes.append(
                        f"{dropped} labeled rows were left out: the judge was fitted on them"
                    )
                if unknown:
                    notes.append(
                        f"{unknown} labeled rows come from a results file without their text: "
                        "whether the judge was fitted on them cannot be checked"
                    )
    labels = np.array([float(r.label or 0) for r in labeled])
    _check_labels(labels, gold=gold_name, dropped=dropped)

    # The judge's verdicts: from the results file, else judged now (each row once).
    labeled_ids = {r.id for r in labeled}
    unlabeled = [r for r in measured if r.id not in labeled_ids]
    if cross_fit is not None:
        if any(r.record is None for r in [*labeled, *unlabeled]):
            raise ConfigurationError(
                "`cross_fit` judges every row again with each fold's judge: give the rows "
                "themselves, not a results file"
            )
        folds = fit_folds(
            [r.record for r in labeled if r.record is not None],
            folds=cross_fit,
            n_trials=n_trials,
            seed=seed,
            concurrency=concurrency,
            kind=predictions,
        )
        predicted, passed_l = folds.labeled, folds.labeled_passed
        labeled_errors = folds.labeled_errors
        predicted_unlabeled, passed_u = folds.predict(
            [r.record for r in unlabeled if r.record is not None], concurrency=concurrency
        )
        row_errors = 0
        judge_name = f"offline judge, cross-fitted on {cross_fit} folds of the labels"
    else:
        pending = [r for r in [*labeled, *unlabeled] if r.result is None]
        if pending:
            records = [r.record for r in pending if r.record is not None]
            results = run_rows(get_judge(), records, concurrency=concurrency, on_result=on_result)
            for row, judged in zip(pending, results, strict=True):
                row.result = judged
        predicted = np.array(
            [verdict(r.result, predictions) for r in labeled if r.result is not None]
        )
        predicted_unlabeled = np.array(
            [verdict(r.result, predictions) for r in unlabeled if r.result is not None]
        )
        passed_l = np.array([verdict(r.result, "passed") for r in labeled if r.result])
        passed_u = np.array([verdict(r.result, "passed") for r in unlabeled if r.result])
        labeled_errors = sum(1 for r in labeled if r.result is not None and r.result.error)
        row_errors = sum(1 for r in unlabeled if r.result is not None and r.result.error)
        if labeled_errors:
            first = next(r for r in labeled if r.result is not None and r.result.error)
            assert first.result is not None
            notes.append(
                f"the judge errored on {labeled_errors} labeled rows, counted as failing "
                f"(first: {gold_name} row {first.number}, id {first.id!r}: {first.result.error})"
            )
    if row_errors:
        notes.append(f"the judge errored on {row_errors} unlabeled rows, counted as failing")
    if len(unlabeled) < 2:
        notes.append("every measured row is labeled: the estimate is the labels alone")

    overall = mean_estimate(
        labels=labels, predicted=predicted, predicted_unlabeled=predicted_unlabeled, level=level
    )
    if overall.fell_back:
        notes.append("the judge does not help on these labels: PPI++ is the labels-only interval")
    # Rows measured: the system's rows; labeled rows not among them are extra evidence only.
    in_measured = np.array([r.id in by_id for r in labeled], dtype=bool)
    n_measured = len(measured)
    judge_rate = _judge_figure(np.concatenate([passed_l[in_measured], passed_u]), z)
    strata: list[Stratum] = []
    ppi_fig = _figure(overall.estimate, overall.se, z)
    cls_fig = _figure(overall.classical, overall.classical_se, z)
    lam, effective = overall.lam, _effective(overall)
    if by:
        values_l = [_value_of(r, by, gold_name) for r in labeled]
        values_u = [_value_of(r, by, rows_name) for r in unlabeled]
        values_m = [_value_of(r, by, rows_name) for r in measured]
        parts: list[MeanEstimate] = []
        weights: list[float] = []
        for value in sorted(set(values_m)):
            mask_l = np.array([v == value for v in values_l], dtype=bool)
            mask_u = np.array([v == value for v in values_u], dtype=bool)
            n_value = sum(1 for v in values_m if v == value)
            if mask_l.sum() < 2:
                raise GoldDataError(
                    f"stratum {by} = {value!r} has {int(mask_l.sum())} labeled rows; each "
                    "stratum needs at least 2 (label more of its rows, or stratify on a coarser "
                    "field)",
                    file=gold_name,
                    field=by,
                )
            part = mean_estimate(
                labels=labels[mask_l],
                predicted=predicted[mask_l],
                predicted_unlabeled=predicted_unlabeled[mask_u],
                level=level,
            )
            if labels[mask_l].min() == labels[mask_l].max():
                notes.append(
                    f"{by} = {value!r}: all {int(mask_l.sum())} labels are "
                    f"{int(labels[mask_l][0])}, so its interval has no width; read it as "
                    f"'within {3 / mask_l.sum():.2f} of {int(labels[mask_l][0])}' (rule of three)"
                )
            parts.append(part)
            weights.append(n_value / n_measured)
            judge_part = _judge_figure(
                np.concatenate([passed_l[mask_l & in_measured], passed_u[mask_u]]),
                z,
            )
            strata.append(
                Stratum(
                    value=value,
                    n_rows=n_value,
                    n_labeled=int(mask_l.sum()),
                    weight=n_value / n_measured,
                    ppi=_figure(part.estimate, part.se, z),
                    classical=_figure(part.classical, part.classical_se, z),
                    judge=judge_part,
                    lam=part.lam,
                    effective_labels=_effective(part),
                )
            )
        if set(values_l) - set(values_m):
            extra = sorted(set(values_l) - set(values_m))[0]
            raise GoldDataError(
                f"labeled rows have {by} = {extra!r}, which no measured row has",
                file=gold_name,
                field=by,
            )
        pooled = combine_strata(parts, weights, level=level)
        ppi_fig = _figure(pooled.estimate, pooled.se, z)
        cls_fig = _figure(pooled.classical, pooled.classical_se, z)
        lam = pooled.lam
        effective = labels.size * (pooled.classical_se / pooled.se) ** 2 if pooled.se > 0 else None
    target = None
    if target_width is not None:
        n = labels.size
        if by:
            ppi_sd, fixed = ppi_fig.se * math.sqrt(n), 0.0
            cls_sd = cls_fig.se * math.sqrt(n)
        else:
            ppi_sd, fixed, cls_sd = overall.label_sd, overall.imputed_se, overall.classical_sd
        need_ppi = labels_for_width(
            label_sd=ppi_sd, fixed_se=fixed, width=target_width, level=level
        )
        need_cls = labels_for_width(label_sd=cls_sd, width=target_width, level=level)
        target = LabelsNeeded(
            width=target_width,
            ppi=need_ppi,
            classical=need_cls,
            ppi_more=None if need_ppi is None else max(0, need_ppi - n),
            classical_more=None if need_cls is None else max(0, need_cls - n),
        )
    result = Estimate(
        n_rows=n_measured,
        n_labeled=int(labels.size),
        level=level,
        ppi=ppi_fig,
        classical=cls_fig,
        judge=judge_rate,
        lam=lam,
        effective_labels=effective,
        by=by,
        strata=strata,
        dropped_fitted=dropped,
        fitted_rows_known=fitted_known,
        cross_fit=cross_fit,
        labeled_errors=labeled_errors,
        row_errors=row_errors,
        target=target,
        notes=notes,
        rows=rows_name,
        gold=gold_name,
        judge_name=judge_name,
    )
    result._labeled = {
        r.id: (float(y), float(f)) for r, y, f in zip(labeled, labels, predicted, strict=True)
    }
    result._labeled_rows = {r.id: r.number for r in labeled}
    result._unlabeled = {
        r.id: float(f) for r, f in zip(unlabeled, predicted_unlabeled, strict=True)
    }
    result._measured_ids = set(by_id)
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
    z = z_value(level)
    lam: float | None = None
    effective: float | None = None
    if paired:
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
        ids = sorted(a._labeled)
        z_labels = np.array([b._labeled[i][0] - a._labeled[i][0] for i in ids])
        z_pred = np.array([b._labeled[i][1] - a._labeled[i][1] for i in ids])
        common = sorted(set(a._unlabeled) & set(b._unlabeled))
        z_unlabeled = np.array([b._unlabeled[i] - a._unlabeled[i] for i in common])
        diff = mean_estimate(
            labels=z_labels, predicted=z_pred, predicted_unlabeled=z_unlabeled, level=level
        )
        ppi = difference(estimate=diff.estimate, se=diff.se, level=level)
        classical = difference(estimate=diff.classical, se=diff.classical_se, level=level)
        lam, effective = diff.lam, _effective(diff)
    else:
        ppi = difference(
            estimate=b.ppi.estimate - a.ppi.estimate,
            se=math.hypot(a.ppi.se, b.ppi.se),
            level=level,
        )
        classical = difference(
            estimate=b.classical.estimate - a.classical.estimate,
            se=math.hypot(a.classical.se, b.classical.se),
            level=level,
        )
        if ppi.se > 0:
            n = (a.n_labeled + b.n_labeled) / 2
            effective = n * (classical.se / ppi.se) ** 2
    judge = _figure(b.judge.estimate - a.judge.estimate, math.hypot(a.judge.se, b.judge.se), z)
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
        effective_labels=effective,
        bound=fail_under_diff,
        worse=worse,
    )
