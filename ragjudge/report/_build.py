"""Assemble the HTML report from judged rows and a compile report."""

from __future__ import annotations

import datetime as dt
import logging
import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import plotly.graph_objects as go

from ragjudge._version import __version__
from ragjudge.data._gold import GoldRecord, gold_fingerprint
from ragjudge.evaluation._evaluate import EvaluationReport, agreement_of, evaluate
from ragjudge.exceptions import ConfigurationError
from ragjudge.optimize._report import CompileReport
from ragjudge.probing._report import ProbeReport
from ragjudge.programs._base import Judge
from ragjudge.programs._results import JudgeResult
from ragjudge.report._data import Variant, variant_from_predictions, worst_disagreements
from ragjudge.report._figures import (
    agreement_figure,
    confusion_figure,
    histogram_figure,
    reliability_figure,
    roc_figure,
)
from ragjudge.report._html import (
    agreement_table,
    disagreement_html,
    esc,
    figure_html,
    fmt,
    kv_table,
    page,
    params_table,
    selection_table,
    source_gain_table,
)
from ragjudge.report._study import study_figures
from ragjudge.stats._agreement import Agreement

__all__ = ["baseline_of", "build_report", "report_judge", "write_report"]

logger = logging.getLogger(__name__)

ALL = "all rows"


def _compile_report(value: CompileReport | Mapping[str, Any] | None) -> CompileReport | None:
    if value is None or isinstance(value, CompileReport):
        return value
    try:
        return CompileReport.model_validate(dict(value))
    except ValueError as exc:
        raise ConfigurationError(
            f"the judge's compile report does not follow the CompileReport schema ({exc}); "
            "re-compile the judge with this release"
        ) from None


def baseline_of(judge: Judge) -> Judge | None:
    """The uncompiled judge a compiled judge was compared with, on the same LM.

    Args:
        judge: A judge; compiled judges carry `report_` with the baseline's parameters.

    Returns:
        A new judge with the baseline's parameters and no learned state, or None when the judge
        was not compiled.

    Example:
        >>> from ragjudge import Faithfulness
        >>> baseline_of(Faithfulness()) is None
        True
    """
    report = _compile_report(getattr(judge, "report_", None))
    if report is None:
        return None
    allowed = set(type(judge)._param_names())
    params = {k: v for k, v in report.baseline_params.items() if k in allowed}
    if "lm" in allowed:
        params["lm"] = judge.lm
    return type(judge)(**params)


def _judge_params(judge: Judge | None, report: CompileReport | None) -> dict[str, Any]:
    if judge is not None:
        params = dict(judge.get_params())
        if params.get("lm") is not None and not isinstance(params["lm"], str):
            params["lm"] = str(getattr(params["lm"], "model", "") or "")
        return params
    return dict(report.params) if report is not None else {}


def _scale(params: Mapping[str, Any]) -> float:
    try:
        scale = float(params.get("scale", 1.0) or 1.0)
    except (TypeError, ValueError):
        return 1.0
    return scale if scale > 0 else 1.0


def _threshold(params: Mapping[str, Any]) -> float | None:
    value = params.get("threshold")
    return float(value) if isinstance(value, (int, float)) else None


def _cards(main: Agreement, other: Agreement | None, other_name: str) -> str:
    names = {
        "balanced_accuracy": "balanced accuracy",
        "cohen_kappa": "Cohen's κ",
        "auroc": "AUROC",
        "f1": "F1 (faithful)",
    }
    out = []
    for metric, name in names.items():
        value = getattr(main, metric)
        low, high = (main.ci.get(metric) or [None, None])[:2]
        ci = f"95% CI [{fmt(low)}, {fmt(high)}]" if low is not None and high is not None else ""
        delta = ""
        if other is not None and value is not None and getattr(other, metric) is not None:
            diff = value - getattr(other, metric)
            cls = "up" if diff > 0.0005 else "down" if diff < -0.0005 else ""
            delta = (
                f'<div class="delta {cls}">{diff:+.3f} vs {esc(other_name)} '
                f"({fmt(getattr(other, metric))})</div>"
            )
        out.append(
            f'<div class="card"><div class="k">{esc(name)}</div><div class="v">{fmt(value)}</div>'
            f'<div class="ci">{ci}</div>{delta}</div>'
        )
    return f'<div class="cards">{"".join(out)}</div>'


def _panel(fig: go.Figure, div_id: str, *, wide: bool = False) -> str:
    return f'<div class="panel{" wide" if wide else ""}">{figure_html(fig, div_id)}</div>'


def _cost_html(
    judged: Sequence[tuple[str, EvaluationReport | None, Sequence[JudgeResult] | None]],
    report: CompileReport | None,
) -> str:
    """LM calls, tokens and time: of judging these rows (per judge), and of the compile."""
    out = ""
    lines = []
    for name, evaluation, results in judged:
        if evaluation is None and not results:
            continue
        if evaluation is not None:
            rows, calls, tokens = evaluation.rows, evaluation.lm_calls, evaluation.tokens
            seconds: float | None = evaluation.seconds
            errors, unscored = evaluation.errors, evaluation.unscored
        else:
            assert results is not None
            rows = len(results)
            calls = sum(r.lm_calls for r in results)
            tokens = sum(r.tokens for r in results)
            seconds = None
            errors = sum(1 for r in results if r.error)
            unscored = sum(1 for r in results if not r.error and math.isnan(r.score))
        offline = (evaluation is not None and evaluation.offline) or (
            evaluation is None and bool(results) and all(r.offline for r in results or [])
        )
        no_lm = ["offline judge, no LM", "–", "–", "–"]
        cells = [
            f"{rows:,}",
            *(
                no_lm
                if offline
                else [
                    f"{calls:,}",
                    f"{calls / rows:.2f}" if rows else "–",
                    f"{tokens:,}",
                    f"{tokens / rows:,.0f}" if rows else "–",
                ]
            ),
            f"{seconds:.2f}" if seconds is not None else "–",
            f"{rows / seconds:.1f}" if seconds else "–",
            f"{errors:,}",
            f"{unscored:,}",
        ]
        lines.append(f"<tr><th>{esc(name)}</th>{''.join(f'<td>{c}</td>' for c in cells)}</tr>")
    if lines:
        head = "".join(
            f"<th>{h}</th>"
            for h in (
                "judge",
                "rows judged",
                "LM calls",
                "per row",
                "tokens",
                "per row",
                "seconds",
                "rows / s",
                "errors",
                "unscored",
            )
        )
        out += (
            "<h3>Judging these rows</h3>"
            f'<table class="agree cost"><thead><tr>{head}</tr></thead><tbody>'
            + "".join(lines)
            + "</tbody></table>"
        )
    if report is not None:
        compile_calls = dict(report.lm_calls)
        seconds_items = {k: f"{v:.2f} s" for k, v in report.seconds.items()}
        if report.study.trials:
            seconds_items["inside trials"] = f"{sum(t.seconds for t in report.study.trials):.2f} s"
        out += (
            "<h3>Compile</h3>"
            '<div class="two">'
            + (
                "<div><h4>offline judge, no LM</h4><p>requests to its engine:</p>"
                f"{kv_table(compile_calls)}</div>"
                if report.offline_judge
                else f"<div><h4>LM calls</h4>{kv_table(compile_calls)}</div>"
            )
            + f"<div><h4>time</h4>{kv_table(seconds_items)}</div></div>"
        )
    return out


@dataclass(frozen=True)
class _Judged:
    """What `build_report` was given about the rows judged, and what the report calls things."""

    rows: Sequence[GoldRecord]
    results: Sequence[JudgeResult]
    baseline_results: Sequence[JudgeResult] | None
    report: CompileReport | None
    metric: str
    params: dict[str, Any]
    base_params: dict[str, Any]
    n_boot: int

    @property
    def compiled(self) -> bool:
        return self.report is not None

    @property
    def main_name(self) -> str:
        return "compiled" if self.compiled else "judge"

    @property
    def other_name(self) -> str:
        return "uncompiled" if self.compiled else "baseline"

    def agreement(
        self, rows: Sequence[GoldRecord], results: Sequence[JudgeResult], *, per_source: bool = True
    ) -> tuple[Agreement | None, dict[str, Agreement], int, int]:
        """`agreement_of` for the judge's metric (its labels: `gold_label`)."""
        return agreement_of(
            rows, results, n_boot=self.n_boot, metric=self.metric, per_source=per_source
        )


def build_report(
    *,
    rows: Sequence[GoldRecord] = (),
    results: Sequence[JudgeResult] = (),
    judge: Judge | None = None,
    evaluation: EvaluationReport | None = None,
    baseline_results: Sequence[JudgeResult] | None = None,
    baseline_evaluation: EvaluationReport | None = None,
    compile_report: CompileReport | Mapping[str, Any] | None = None,
    title: str | None = None,
    gold_name: str = "",
    max_disagreements: int = 20,
    n_boot: int = 1000,
    probes: ProbeReport | None = None,
) -> str:
    """Render the report as one self-contained HTML document (plotly.js inlined, no network).

    The report shows what is available: agreement of `results` with the rows' labels for the
    judge's metric (faithfulness, answer relevancy, context recall: `gold_label`), and of
    `baseline_results`, the uncompiled judge, next to it; the compile's own validation evidence
    and Optuna study (from `compile_report`, or `judge.report_`), diagnostic plots, the worst
    disagreements with the judge's per-statement verdicts, and LM calls, tokens and time.

    Args:
        rows: The gold rows that were judged.
        results: The judge's results, one per row in the same order.
        judge: The judge (for its parameters and compile report).
        evaluation: `ragjudge.evaluate`'s report for `results` (for cost figures).
        baseline_results: The uncompiled judge's results on the same rows.
        baseline_evaluation: `ragjudge.evaluate`'s report for `baseline_results`.
        compile_report: The compile report; defaults to `judge.report_`.
        title: The page title.
        gold_name: What the rows are called (e.g. the file name).
        max_disagreements: How many disagreements to show.
        n_boot: Bootstrap resamples for intervals computed here.
        probes: A probe run of the judge (`ragjudge.probe`): its kinds x sources table.

    Returns:
        The HTML document.

    Raises:
        ConfigurationError: If there is nothing to report or the inputs do not line up.

    Example:
        >>> import ragjudge
        >>> from ragjudge.report import build_report
        >>> rows = ragjudge.load_gold("gold.jsonl")  # doctest: +SKIP
        >>> results, ev = ragjudge.evaluate(judge, rows)  # doctest: +SKIP
        >>> html = build_report(  # doctest: +SKIP
        ...     rows=rows, results=results, judge=judge, evaluation=ev
        ... )
    """
    _check_inputs(rows, results, baseline_results)
    report = _compile_report(
        compile_report if compile_report is not None else getattr(judge, "report_", None)
    )
    if not results and report is None and probes is None:
        raise ConfigurationError(
            "nothing to report: pass `rows` and `results` (from `ragjudge.evaluate`), a "
            "compiled judge / `compile_report`, or `probes`"
        )
    params = _judge_params(judge, report)
    judged = _Judged(
        rows=rows,
        results=results,
        baseline_results=baseline_results,
        report=report,
        metric=_metric_of(judge, report, results),
        params=params,
        base_params=dict(report.baseline_params) if report is not None else {},
        n_boot=n_boot,
    )
    sections: list[tuple[str, str, str]] = []  # (anchor, nav text, html)
    variants: list[Variant] = []
    variant_note = ""
    if results:
        body, variants, variant_note = _agreement_section(judged, gold_name)
        sections.append(("agreement", "Agreement", body))
    if report is not None:
        sections.append(("compile", "Compile evidence", _compile_section(report, bool(results))))
        if not variants:
            variants, variant_note = (
                _validation_variants(report),
                "on the compile's validation rows",
            )
    if any(v.n for v in variants):
        sections.append(
            ("diagnostics", "Diagnostics", _diagnostics_section(variants, variant_note))
        )
    if report is not None:
        sections.append(("study", "Optuna study", _study_section(report)))
    if results and max_disagreements > 0:
        body = _disagreements_section(judged, max_disagreements)
        sections.append(("disagreements", "Worst disagreements", body))
    cost = _cost_html(
        [
            (judged.main_name, evaluation, results),
            (judged.other_name, baseline_evaluation, baseline_results),
        ],
        report,
    )
    if cost:
        sections.append(("cost", "LM calls, tokens, time", cost))
    if probes is not None:
        from ragjudge.report._probe import probe_section

        sections.append(("probes", "Probes, kind by kind", probe_section(probes)))
    lm = evaluation.lm if evaluation else (report.lm if report else str(params.get("lm") or ""))
    return _page(sections, metric=judged.metric, lm=lm, gold_name=gold_name, title=title)


def _check_inputs(
    rows: Sequence[GoldRecord],
    results: Sequence[JudgeResult],
    baseline_results: Sequence[JudgeResult] | None,
) -> None:
    """One result per row, in row order, for the judge and the baseline."""
    if len(rows) != len(results):
        raise ConfigurationError(
            f"`rows` has {len(rows)} items but `results` has {len(results)}; pass one result "
            "per row, in row order"
        )
    if baseline_results is not None and len(baseline_results) != len(rows):
        raise ConfigurationError(
            f"`baseline_results` has {len(baseline_results)} items for {len(rows)} rows; pass "
            "one result per row, in row order"
        )


def _metric_of(
    judge: Judge | None, report: CompileReport | None, results: Sequence[JudgeResult]
) -> str:
    """The metric reported: the judge's, else the compile's, else the results'."""
    if judge is not None and judge.metric:
        return judge.metric
    if report is not None and report.metric:
        return report.metric
    return results[0].metric if results else "faithfulness"


def _agreement_section(judged: _Judged, gold_name: str) -> tuple[str, list[Variant], str]:
    """Agreement on the rows given (cards, table, forest plots); the variants the diagnostics
    plot, and what they are measured on."""
    rows, results, baseline_results = judged.rows, judged.results, judged.baseline_results
    main_name, other_name = judged.main_name, judged.other_name
    overall, by_source, errors, unscored = judged.agreement(rows, results)
    other = other_src = None
    if baseline_results is not None:
        other, other_src, _, _ = judged.agreement(rows, baseline_results)
    if overall is None:
        raise ConfigurationError(
            f"no row has both a {judged.metric} label and a result without an error; agreement "
            f"needs labeled rows ({_label_hint(judged.metric)}) that the judge could judge"
        )
    table: dict[str, dict[str, Agreement | None]] = {ALL: {main_name: overall}}
    if other is not None:
        table[ALL][other_name] = other
    held_out_note = _held_out(judged, table)
    for source, a in by_source.items():
        table[source] = {main_name: a}
        if other_src is not None and source in other_src:
            table[source][other_name] = other_src[source]
    counted = []
    if unscored:
        counted.append(f"{unscored} unscored counted as failing, ranked lowest")
    if errors:
        counted.append(f"{errors} errors left out")
    counted_text = f" ({'; '.join(counted)})" if counted else ""
    body = _cards(overall, other, other_name)
    body += (
        f'<p class="note">Agreement of the judge\'s pass/fail decisions (AUROC: of its '
        f"scores) with the {judged.metric} labels of {overall.n} rows{counted_text}"
        f"; 95% percentile-bootstrap intervals"
        f"{f', resampling {overall.groups} groups whole' if overall.groups else ''}. "
        f"{held_out_note}</p>"
    )
    body += agreement_table(table)
    figs = [
        _panel(agreement_figure(table, title="Balanced accuracy, 95% CI"), "plot-agree-ba"),
        _panel(agreement_figure(table, metric="auroc", title="AUROC, 95% CI"), "plot-agree-auroc"),
    ]
    body += f'<div class="grid" style="margin-top:14px">{"".join(figs)}</div>'
    variants = [
        Variant.from_results(
            main_name,
            rows,
            results,
            metric=judged.metric,
            scale=_scale(judged.params),
            threshold=_threshold(judged.params),
        )
    ]
    if baseline_results is not None:
        variants.append(
            Variant.from_results(
                other_name,
                rows,
                baseline_results,
                metric=judged.metric,
                scale=_scale(judged.base_params or judged.params),
                threshold=_threshold(judged.base_params),
            )
        )
    note = f"on the {overall.n} labeled rows of {esc(gold_name or 'the data')}"
    return body, variants, note


def _label_hint(metric: str) -> str:
    if metric == "faithfulness":
        return "`faithful` 0 or 1"
    return f"{metric} labels, derived from faithfulness gold: docs/derived-gold.md"


def _held_out(judged: _Judged, table: dict[str, dict[str, Agreement | None]]) -> str:
    """How the rows given relate to the compile's: a note, and (for the compile's own gold)
    a held-out row added to `table`."""
    report = judged.report
    if report is None:
        return ""
    rows = judged.rows
    valid_ids = {p.id for p in report.predictions}
    if valid_ids and all(r.id in valid_ids for r in rows):
        return "These are the compile's validation rows, which no fitting saw, judged again."
    if report.gold.get("sha256") != gold_fingerprint(rows):
        return (
            f"The judge was compiled on {esc(report.gold.get('path') or 'other rows')}; if "
            "these rows overlap its training rows, agreement here is optimistic. The compile's "
            "own validation rows (below) were held out from fitting."
        )
    held = [i for i, r in enumerate(rows) if r.id in valid_ids]
    if held:
        held_rows = [rows[i] for i in held]
        row: dict[str, Agreement | None] = {
            judged.main_name: judged.agreement(
                held_rows, [judged.results[i] for i in held], per_source=False
            )[0]
        }
        if judged.baseline_results is not None:
            base = judged.baseline_results
            row[judged.other_name] = judged.agreement(
                held_rows, [base[i] for i in held], per_source=False
            )[0]
        table["held-out (validation) rows"] = row
    return (
        "These are the rows the judge was compiled on: all rows include the rows it was "
        "tuned on, so their agreement is optimistic; the held-out rows are the fair measure."
    )


def _compile_section(report: CompileReport, judged_rows: bool) -> str:
    """The compile's own evidence: validation agreement, gains, selection, params, data."""
    table: dict[str, dict[str, Agreement | None]] = {
        "validation rows": {"compiled": report.validation, "uncompiled": report.baseline}
    }
    if report.init is not None:
        table["validation rows"]["--init judge"] = report.init
    for source, pair in report.by_source.items():
        table[source] = {k.replace("baseline", "uncompiled"): v for k, v in pair.items()}
    body = ""
    if not judged_rows:
        body += _cards(report.validation, report.baseline, "uncompiled")
    sizes = ", ".join(f"{k} {v}" for k, v in report.sizes.items())
    body += (
        f'<p class="note">Measured by the compile on its validation rows, which no fitting '
        f"saw (objective: <b>{esc(report.objective)}</b>; split: {esc(sizes)}). The "
        "uncompiled judge is the default judge on the same LM.</p>"
    )
    body += agreement_table(table)
    if report.gain_by_source():
        body += "<h3>Gain per source</h3>" + source_gain_table(report)
    if report.selection is not None and report.selection.finalists:
        body += "<h3>Which judge ships</h3>" + selection_table(report.selection)
    if not judged_rows:
        figs = [
            _panel(agreement_figure(table, title="Balanced accuracy, 95% CI"), "plot-val-ba"),
            _panel(
                agreement_figure(table, metric="auroc", title="AUROC, 95% CI"), "plot-val-auroc"
            ),
        ]
        body += f'<div class="grid" style="margin-top:14px">{"".join(figs)}</div>'
    gold_items = {f"gold {k}": v for k, v in report.gold.items()}
    split_items = {f"split {k}": v for k, v in report.split.items()}
    body += (
        '<div class="two" style="margin-top:14px">'
        f"<div><h3>Parameters</h3>{params_table(report.params, report.baseline_params)}</div>"
        f"<div><h3>Data</h3>{kv_table({**gold_items, **split_items})}</div></div>"
    )
    return body


def _validation_variants(report: CompileReport) -> list[Variant]:
    """The compiled and uncompiled judge on the compile's validation rows, as it recorded."""
    variants = [
        variant_from_predictions(
            "compiled",
            report.predictions,
            scale=_scale(report.params),
            threshold=_threshold(report.params),
        ),
        variant_from_predictions(
            "uncompiled",
            report.predictions,
            baseline=True,
            scale=_scale(report.baseline_params),
            threshold=_threshold(report.baseline_params),
        ),
    ]
    return [v for v in variants if v.n]


def _diagnostics_section(variants: Sequence[Variant], note: str) -> str:
    """Confusion matrix, score histograms, ROC curve and reliability diagram."""
    panels = [
        _panel(confusion_figure(variants), "plot-confusion"),
        _panel(histogram_figure(variants), "plot-histogram"),
        _panel(roc_figure(variants), "plot-roc"),
        _panel(reliability_figure(variants), "plot-reliability"),
    ]
    unscored = sum(int((~v.scored).sum()) for v in variants[:1])
    counted = (
        f" {unscored} unscored rows fail and rank lowest (confusion matrix, ROC curve); the "
        "score plots show the scored rows."
        if unscored
        else ""
    )
    return (
        f'<p class="note">Scores are divided by the judge\'s scale, so they lie in [0, 1]; '
        f"{note}.{counted} The reliability diagram reads the score as a probability that the "
        "answer is faithful; a fraction of supported statements is not calibrated by "
        f'design.</p><div class="grid">{"".join(panels)}</div>'
    )


def _study_section(report: CompileReport) -> str:
    """The Optuna study: its figures, settings and notes."""
    figures, notes = study_figures(report.study)
    s = report.study
    items: dict[str, Any] = {
        "study": s.name,
        "sampler": s.sampler,
        "seed": s.seed,
        "objectives": ", ".join(
            f"{o} ({d})" for o, d in zip(s.objectives, s.directions, strict=False)
        ),
        "finished trials": s.n_trials,
    }
    if s.best_value is not None:
        items["best value"] = s.best_value
    items.update({f"best {k}": v for k, v in s.best_params.items()})
    if s.pareto_front:
        items["Pareto-optimal trials"] = len(s.pareto_front)
    panels = [
        _panel(fig, f"plot-study-{name}", wide=name == "history") for name, fig in figures.items()
    ]
    body = '<div class="grid">' + "".join(panels) + "</div>"
    body += f'<div class="two" style="margin-top:14px">{kv_table(items)}</div>'
    body += "".join(f'<p class="note">{esc(n)}</p>' for n in notes)
    return body


def _disagreements_section(judged: _Judged, limit: int) -> str:
    """The worst disagreements with the label, and how many there are in all."""
    found = worst_disagreements(
        judged.rows,
        judged.results,
        metric=judged.metric,
        scale=_scale(judged.params),
        limit=len(judged.rows),
        others=judged.baseline_results,
        other_name=judged.other_name,
    )
    cases = found[:limit]
    judge_word = "compiled judge" if judged.compiled else "judge"
    body = (
        f'<p class="note">{len(found)} labeled rows where the {esc(judge_word)} disagrees '
        f"with the label; the {len(cases)} shown are those where its score is furthest from "
        "the label, sources taking turns. Labeled hallucinated spans are marked in the "
        "answer. Read the verdicts against the context to tell a judge error from a label "
        "error.</p>"
    )
    body += "".join(
        disagreement_html(d, i, judge_name=judged.main_name) for i, d in enumerate(cases, start=1)
    )
    if not cases:
        body += '<p class="na">The judge agrees with every label.</p>'
    return body


def _page(
    sections: Sequence[tuple[str, str, str]],
    *,
    metric: str,
    lm: str,
    gold_name: str,
    title: str | None,
) -> str:
    """The sections as one page, with its heading, navigation and footer."""
    heading = title or f"{metric or 'judge'} report"
    parts = [p for p in (metric, f"LM {lm}" if lm else "", gold_name) if p]
    when = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    subtitle = esc(" · ".join([*parts, f"generated {when}", f"ragjudge {__version__}"]))
    html_body = "".join(
        f'<section id="{anchor}"><h2>{esc(text)}</h2>{body}</section>'
        for anchor, text, body in sections
    )
    html_body += (
        "<footer>Made by <code>ragjudge report</code>. All text from the data is escaped; the "
        "file needs no network.</footer>"
    )
    return page(
        title=heading,
        subtitle=subtitle,
        nav=[(anchor, text) for anchor, text, _ in sections],
        body=html_body,
    )


def write_report(path: str | os.PathLike[str], **kwargs: Any) -> Path:
    """Write `build_report(**kwargs)` to `path` (parent folders are created).

    Args:
        path: The `.html` file to write.
        **kwargs: The keyword arguments of `build_report`.

    Returns:
        The path written.

    Example:
        >>> write_report("report.html", judge=compiled_judge)  # doctest: +SKIP
    """
    document = build_report(**kwargs)
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(target.name + ".tmp")
    tmp.write_text(document, encoding="utf-8")
    os.replace(tmp, target)
    logger.info("wrote the report to %s (%d kB)", target, len(document) // 1024)
    return target


def report_judge(
    judge: Judge,
    rows: Sequence[GoldRecord],
    *,
    baseline: bool = True,
    concurrency: int = 1,
    on_result: Callable[[int, JudgeResult], None] | None = None,
    n_boot: int = 1000,
    **render: Any,
) -> str:
    """Judge `rows` (and, for a compiled judge, the uncompiled judge too) and render the report.

    Args:
        judge: The judge, compiled or not.
        rows: Labeled gold rows.
        baseline: For a compiled judge, also judge the rows with the uncompiled judge (the
            same LM calls again) to compare the two on these rows.
        concurrency: Items judged at once.
        on_result: Called as each item finishes (both judges).
        n_boot: Bootstrap resamples for the intervals.
        **render: More keyword arguments of `build_report` (`title`, `gold_name`, ...).

    Returns:
        The HTML document.

    Example:
        >>> html = report_judge(ragjudge.load("judges/f.json"), rows)  # doctest: +SKIP
    """
    results, evaluation = evaluate(
        judge, rows, concurrency=concurrency, on_result=on_result, n_boot=n_boot
    )
    base_results = base_eval = None
    other = baseline_of(judge) if baseline else None
    if other is not None:
        base_results, base_eval = evaluate(
            other, rows, concurrency=concurrency, on_result=on_result, n_boot=n_boot
        )
    return build_report(
        rows=rows,
        results=results,
        judge=judge,
        evaluation=evaluation,
        baseline_results=base_results,
        baseline_evaluation=base_eval,
        n_boot=n_boot,
        **render,
    )
