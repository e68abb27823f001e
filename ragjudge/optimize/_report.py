"""What a compile records: the evidence that the compiled judge agrees with the labels."""

from __future__ import annotations

from typing import Any

import pydantic

from ragjudge.evaluation._predictions import RowPrediction
from ragjudge.lm._resolve import is_offline_lm
from ragjudge.optimize._ablation import AblationStep
from ragjudge.optimize._select import FinalistScore, Selection
from ragjudge.stats._agreement import Agreement, paired_difference
from ragjudge.stats._threshold import UNSCORED

__all__ = ["CompileReport", "RowPrediction", "StudySummary", "TrialRecord", "finalist_name"]

#: Validation rows of each label a source needs for its gain to get an interval.
SOURCE_INTERVAL_MIN = 5


class TrialRecord(pydantic.BaseModel):
    """One finished Optuna trial."""

    number: int
    state: str
    params: dict[str, Any]
    values: list[float] | None = None
    lm_calls: int = 0
    lm_calls_per_row: float | None = pydantic.Field(
        default=None, description="LM calls a row costs under the trial's choices"
    )
    seconds: float = 0.0


class StudySummary(pydantic.BaseModel):
    """The Optuna study behind a compile."""

    name: str
    storage: str | None = None
    sampler: str = "TPESampler"
    seed: int
    directions: list[str]
    objectives: list[str]
    n_trials: int
    best_value: float | None = None
    best_params: dict[str, Any] = pydantic.Field(default_factory=dict)
    distributions: dict[str, Any] = pydantic.Field(
        default_factory=dict, description="param name -> optuna.distributions.distribution_to_json"
    )
    trials: list[TrialRecord] = pydantic.Field(default_factory=list)
    pareto_front: list[TrialRecord] = pydantic.Field(default_factory=list)
    importances: dict[str, float] = pydantic.Field(default_factory=dict)


class CompileReport(pydantic.BaseModel):
    """Everything a compile records, saved in the judge file under `compile`.

    Every agreement figure is measured on the validation rows, which no fitting has seen.
    """

    model_config = pydantic.ConfigDict(ser_json_inf_nan="null")

    metric: str
    lm: str
    objective: str
    params: dict[str, Any]
    baseline_params: dict[str, Any]
    validation: Agreement
    baseline: Agreement
    init: Agreement | None = pydantic.Field(
        default=None, description="the --init judge, unchanged, on this gold's validation rows"
    )
    by_source: dict[str, dict[str, Agreement]] = pydantic.Field(
        default_factory=dict,
        description="source -> {'compiled': ..., 'baseline': ..., 'offline': ... (LM judges)}",
    )
    offline: Agreement | None = pydantic.Field(
        default=None, description="the uncompiled offline judge on the same validation rows"
    )
    selection: Selection | None = pydantic.Field(
        default=None,
        description="the finalists' out-of-fold agreement on the training rows and the one shipped",
    )
    ablation: list[AblationStep] = pydantic.Field(
        default_factory=list,
        description="uncompiled -> +mode -> +threshold & policies -> +demos, on validation",
    )
    gold: dict[str, Any] = pydantic.Field(default_factory=dict)
    split: dict[str, Any] = pydantic.Field(default_factory=dict)
    sizes: dict[str, int] = pydantic.Field(default_factory=dict)
    study: StudySummary
    lm_calls: dict[str, Any] = pydantic.Field(default_factory=dict)
    demos: dict[str, int] = pydantic.Field(default_factory=dict)
    seconds: dict[str, float] = pydantic.Field(default_factory=dict)
    versions: dict[str, str] = pydantic.Field(default_factory=dict)
    predictions: list[RowPrediction] = pydantic.Field(default_factory=list)
    fitted_rows: list[str] | None = pydantic.Field(
        default=None,
        description="`ragjudge.data.row_hash` of every train row (fitted on, tuned on or a demo "
        "pool row); None in judge files written before it was recorded (unknown)",
    )

    # -- views (issue 32: a short repr, a table, rounded figures) ----------------------------
    def __repr__(self) -> str:
        v = self.validation
        shown = [f"metric={self.metric!r}", f"mode={self.params.get('mode')!r}"]
        if v.balanced_accuracy is not None:
            shown.append(f"validation_balanced_accuracy={v.balanced_accuracy:.3f}")
        shown.append(f"n={v.n}")
        return f"CompileReport({', '.join(shown)})"

    def __str__(self) -> str:
        return self.table()

    @property
    def offline_judge(self) -> bool:
        """True when the offline judge was compiled (pure-Python rules, no LM)."""
        return is_offline_lm(self.lm)

    def shown_params(self) -> dict[str, Any]:
        """The chosen parameters worth printing: no `lm`, and `demos` only for a judge that
        reads them (an LM; the offline judge never sees demos)."""
        hidden = {"lm", "demos"} if is_offline_lm(self.lm) else {"lm"}
        return {k: v for k, v in self.params.items() if k not in hidden and v is not None}

    def gain(
        self, *, source: str | None = None, n_boot: int = 1000
    ) -> dict[str, list[float | None]]:
        """Compiled minus uncompiled on the validation rows, with paired 95% bootstrap intervals
        (an unscored row fails and ranks lowest, as everywhere).

        Args:
            source: Only this source's rows (`RowPrediction.source`); None for all.
            n_boot: Bootstrap resamples.

        Returns:
            `{metric: [difference, low, high]}` (see `ragjudge.stats.paired_difference`).
        """
        rows = [r for r in self.predictions if source is None or r.source == source]

        def side(compiled: bool) -> tuple[list[bool], list[float]]:
            passed = [bool(r.passed if compiled else r.baseline_passed) for r in rows]
            scores = [r.score if compiled else r.baseline_score for r in rows]
            return passed, [UNSCORED if s is None else s for s in scores]

        return paired_difference(
            [r.gold for r in rows],
            side(True),
            side(False),
            n_boot=n_boot,
            seed=int(self.split.get("seed", 0)),
            groups=[r.group or r.id for r in rows],
        )

    def summary(self) -> dict[str, Any]:
        """The flat JSON summary `ragjudge compile --format json` prints (keys as in
        `evaluate`, plus `baseline`, `gain` and `params`)."""
        v = self.validation
        return {
            "n": v.n,
            "balanced_accuracy": v.balanced_accuracy,
            "cohen_kappa": v.cohen_kappa,
            "auroc": v.auroc,
            "f1": v.f1,
            "ci": v.ci,
            "lm_calls": self.lm_calls,
            "offline_judge": self.offline_judge,
            "errors": v.errors,
            "baseline": self.baseline.model_dump(mode="json"),
            "gain": self.gain(),
            "gain_by_source": self.gain_by_source(),
            "offline": None if self.offline is None else self.offline.model_dump(mode="json"),
            "ablation": [a.model_dump(mode="json") for a in self.ablation],
            "init": None if self.init is None else self.init.model_dump(mode="json"),
            "params": self.params,
            "sizes": self.sizes,
            "study": {
                "name": self.study.name,
                "n_trials": self.study.n_trials,
                "best_value": self.study.best_value,
                "seed": self.study.seed,
            },
            "pareto_front": [t.model_dump(mode="json") for t in self.study.pareto_front],
            "selection": None if self.selection is None else self.selection.model_dump(mode="json"),
            "seconds": self.seconds,
            "lm": self.lm,
        }

    def table(self, path: str | None = None) -> str:
        """The report as text for a person: sizes, time, what ran, the chosen parameters
        (floats to 4 significant digits) and validation agreement, compiled against uncompiled
        with the paired gain.

        Args:
            path: Where the judge was saved, for the first line.
        """
        v, b = self.validation, self.baseline
        where = f" -> {path}" if path else ""
        if self.offline_judge:
            who, cost = ", offline judge (no LM)", "raw outputs computed offline, no LM"
        else:
            who = f" with {self.lm}"
            cost = (
                f"LM calls: {self.lm_calls.get('raw_outputs', 0)} for raw outputs, "
                f"{self.lm_calls.get('trials_without_lm_calls', 0)} trials made none"
            )
            ceiling = self.lm_calls.get("ceiling") or {}
            if ceiling:
                cost += f"; {ceiling['made']} in all, of at most {ceiling['announced']} announced"
        lines = [
            f"compiled {self.metric} judge{who}{where}",
            f"  train {self.sizes.get('train', 0)} rows, validation "
            f"{self.sizes.get('validation', 0)} rows; {self.study.n_trials} trials in "
            f"{self.seconds.get('total', 0.0):.1f} s; {cost}",
            "  params: " + ", ".join(f"{k}={_num(x)}" for k, x in self.shown_params().items()),
            f"  validation agreement (n={v.n}{f', {v.groups} groups' if v.groups else ''}):"
            "   compiled                  uncompiled default   gain (paired bootstrap)",
        ]
        gains = self.gain()
        for key in ("balanced_accuracy", "cohen_kappa", "auroc", "f1"):
            d = gains[key]
            shown = "n/a" if d[0] is None else f"{d[0]:+.3f}"
            if d[0] is not None and d[1] is not None and d[2] is not None:
                shown += f" [{d[1]:+.3f}, {d[2]:+.3f}]"
            lines.append(f"    {key:<18} {_cell(v, key):<26} {_cell(b, key):<26} {shown}")
        if v.errors or b.errors:
            lines.append(
                f"    rows ending in an error    {v.errors:<26} {b.errors:<26} "
                "(counted as failed, ranked lowest)"
            )
        lines += self.source_lines()
        offline = self.offline
        if offline is not None:
            lines.append(
                "    offline judge, same rows: balanced_accuracy "
                + _cell(offline, "balanced_accuracy")
                + ", auroc "
                + _cell(offline, "auroc")
            )
        if self.ablation:
            lines.append("  which choice bought the gain (validation balanced accuracy):")
            for step in self.ablation:
                cell = _cell(step.validation, "balanced_accuracy") if step.validation else "n/a"
                lines.append(f"    {step.step:<24} {cell}")
        budget = self.lm_calls.get("budget") or {}
        if budget.get("limit") is not None and not self.offline_judge:
            skipped = budget.get("skipped") or []
            lines.append(
                f"  LM call budget: {budget['spent']} of {budget['limit']} spent"
                + (
                    "; skipped (budget spent): "
                    + ", ".join(
                        f"mode {s['mode']} demo set {s['demos']} "
                        f"({s['rows_judged']}/{s['rows']} rows judged)"
                        for s in skipped
                    )
                    if skipped
                    else "; nothing skipped"
                )
            )
        if self.init is not None:
            lines.append(
                "    --init judge, unchanged: balanced_accuracy "
                + _cell(self.init, "balanced_accuracy")
            )
        lines += self.selection_lines()
        return "\n".join(lines)

    def gain_by_source(self) -> dict[str, list[float | None]]:
        """Each source's balanced-accuracy gain on its validation rows, with its paired 95%
        bootstrap interval (`[difference, low, high]`), where the rows come from several
        sources.

        A source with fewer than `SOURCE_INTERVAL_MIN` validation rows of either label gets no
        interval (`[difference, None, None]`): there a bootstrap is degenerate (with one
        faithful row, every resample that holds it gives the same difference) and says
        nothing of how the judges compare on the source. Nor does a source whose rows are all
        one group (`no_interval` says why).
        """
        if len(self.by_source) < 2:
            return {}
        return {
            source: self.gain(source=source, n_boot=0 if self.no_interval(source) else 1000)[
                "balanced_accuracy"
            ]
            for source in self.by_source
        }

    def no_interval(self, source: str) -> str | None:
        """Why a source's gain gets no interval (too few validation rows of a label, or all
        its rows one group), or None when it gets one."""
        rows = [r for r in self.predictions if r.source == source]
        faithful = sum(r.gold for r in rows)
        if min(faithful, len(rows) - faithful) < SOURCE_INTERVAL_MIN:
            return f"under {SOURCE_INTERVAL_MIN} rows of a label"
        if len({r.group or r.id for r in rows}) < 2:
            return "its rows are one group"
        return None

    def source_lines(self) -> list[str]:
        """Validation balanced accuracy per source, compiled against uncompiled, with the
        paired gain and its interval (where the rows come from several sources)."""
        if len(self.by_source) < 2:
            return []
        width = max(len(s) for s in self.by_source)
        lines = [
            "  per source, validation balanced accuracy:",
            f"    {'source':<{width}}    n  faithful  compiled  uncompiled    "
            "gain (paired bootstrap)",
        ]
        gains = self.gain_by_source()
        for source, pair in self.by_source.items():
            compiled, baseline = pair.get("compiled"), pair.get("baseline")
            if compiled is None or baseline is None:
                continue
            a, b = compiled.balanced_accuracy, baseline.balanced_accuracy
            d = gains.get(source, [None, None, None])
            gain = "n/a" if a is None or b is None else f"{a - b:+.3f}"
            if gain != "n/a" and d[1] is not None and d[2] is not None:
                gain += f" [{d[1]:+.3f}, {d[2]:+.3f}]"
            elif gain != "n/a" and (why := self.no_interval(source)):
                gain += f" (too few to tell: {why})"
            cells = (
                f"{compiled.n:>3}  {compiled.positives:>8}  {_value(a):>8}  {_value(b):>10}  {gain}"
            )
            lines.append(f"    {source:<{width}}  {cells}")
        return lines

    def selection_lines(self) -> list[str]:
        """The finalists' cross-validated agreement on the train rows, and the decision."""
        selection = self.selection
        if selection is None:
            return []
        lines = [f"  finalists, {selection.scope}:"]
        names = [finalist_name(f) for f in selection.finalists]
        costs = {f.lm_calls_per_row for f in selection.finalists}
        priced = len(costs) > 1  # LM calls a row, where the finalists differ in them
        width = max([24, *(len(n) for n in names)])
        for f, name in zip(selection.finalists, names, strict=True):
            low, high = f.ci
            line = f"    {name:<{width}} {f.value:.3f} [{low:.3f}, {high:.3f}]"
            if f.difference is not None and f.se is not None:
                line += f"   {f.difference:+.3f} vs start (se {f.se:.3f})"
            if f.lm_calls_per_row is not None and priced:
                line += f"   {f.lm_calls_per_row:.2f} LM calls/row"
            if f.name == selection.chosen:
                line += "   <- ships"
            lines.append(line)
            for d in f.losing_sources:
                lines.append(
                    f"    {'':<{width}} on {d.source} ({d.n} rows): {d.difference:+.3f} vs start "
                    f"(se {d.se:.3f}), less by more than {d.bar:.2f} standard errors"
                )
        lines.append(f"  decision: {selection.reason}")
        return lines

    def to_markdown(self) -> str:
        """Validation agreement as a Markdown table: compiled, uncompiled, gain."""
        gains = self.gain()
        out = [
            f"| figure (n={self.validation.n}) | compiled | uncompiled | gain |",
            "| --- | --- | --- | --- |",
        ]
        for key in ("balanced_accuracy", "cohen_kappa", "auroc", "f1"):
            d = gains[key]
            gain = "n/a" if d[0] is None else f"{d[0]:+.3f}"
            out.append(
                f"| {key} | {_cell(self.validation, key)} | {_cell(self.baseline, key)} | {gain} |"
            )
        return "\n".join(out)


def _num(value: Any) -> str:
    """A parameter for print: floats to 4 significant digits."""
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_num(v) for v in value) + "]"
    return str(value)


def finalist_name(finalist: FinalistScore) -> str:
    """How the finalists table names a finalist (the label its judge's compile spec gave it;
    older files: from its name)."""
    if finalist.label is not None:
        return finalist.label
    if finalist.name == "start":
        return "starting judge" if finalist.lm_calls_per_row is None else "starting judge, tuned"
    route, _, mode = finalist.name.partition(":")
    if mode:  # a cascade's arm, "route:mode"
        return f"tuned, {route} route, {mode} mode" if route != "offline" else "tuned, offline"
    return f"tuned, {finalist.name} mode"


def _value(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.3f}"


def _cell(a: Agreement | None, key: str) -> str:
    if a is None:
        return "n/a"
    value = getattr(a, key)
    ci = a.ci.get(key) or [None, None]
    if value is None:
        return "n/a"
    if ci[0] is None or ci[1] is None:
        return f"{value:.3f}"
    return f"{value:.3f} [{ci[0]:.3f}, {ci[1]:.3f}]"
