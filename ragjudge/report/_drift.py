"""The drift report: a compiled judge on new labeled rows beside its compile's validation."""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ragjudge._version import __version__
from ragjudge.data._gold import GoldRecord
from ragjudge.data._rowhash import fitted_on
from ragjudge.evaluation._drift import DriftReport
from ragjudge.optimize._report import CompileReport
from ragjudge.programs._base import Judge
from ragjudge.programs._results import JudgeResult
from ragjudge.report._data import Variant, variant_from_predictions
from ragjudge.report._figures import agreement_figure, histogram_figure, roc_figure
from ragjudge.report._html import agreement_table, esc, figure_html, fmt, kv_table, page

__all__ = ["build_drift_report", "write_drift_report"]

NAMES = {"balanced_accuracy": "bal. acc.", "cohen_kappa": "κ", "auroc": "AUROC", "f1": "F1"}


def _difference_table(drift: DriftReport) -> str:
    rows = []
    for metric, name in NAMES.items():
        low, high = (drift.difference_ci.get(metric) or [None, None])[:2]
        ci = f" [{fmt(low)}, {fmt(high)}]" if low is not None and high is not None else ""
        value = drift.difference.get(metric)
        shown = "–" if value is None else f"{value:+.3f}"
        tested = " (tested)" if metric == drift.figure else ""
        rows.append(f"<tr><th>{esc(name)}{tested}</th><td>{shown}{esc(ci)}</td></tr>")
    level = f"{100 * drift.level:g}% CI"
    return (
        f'<table class="kv"><tr><th>new − compile</th><th>{esc(level)}</th></tr>'
        + "".join(rows)
        + "</table>"
        + f'<p class="note">{esc(level)}: its upper end is the one-sided '
        f"{100 * (1 - drift.alpha):g}% bound the test at α = {drift.alpha:g} matches.</p>"
    )


def build_drift_report(
    *,
    drift: DriftReport,
    judge: Judge,
    rows: Sequence[GoldRecord],
    results: Sequence[JudgeResult],
    gold_name: str = "",
    judge_name: str = "",
) -> str:
    """Render the drift report as one self-contained HTML document.

    Args:
        drift: `drift_test`'s report.
        judge: The compiled judge (its compile report gives the validation rows).
        rows: The new rows.
        results: The judge's results on them.
        gold_name: What the new rows are called.
        judge_name: What the judge file is called.

    Returns:
        The HTML document.
    """
    compile_report = CompileReport.model_validate(judge.report_ or {})
    scale = judge.compile_spec().scale
    threshold = getattr(judge, "threshold", None)
    fitted = compile_report.fitted_rows or ()
    unseen = [  # the new rows the test compares (those the judge was fitted on left out)
        (row, res) for row, res in zip(rows, results, strict=True) if not fitted_on(row, fitted)
    ]
    rows, results = [r for r, _ in unseen], [x for _, x in unseen]
    variants = [
        variant_from_predictions(
            "compile validation", compile_report.predictions, scale=scale, threshold=threshold
        ),
        Variant.from_results(
            "new rows", rows, results, metric=drift.metric, scale=scale, threshold=threshold
        ),
    ]
    verdict = (
        f"Agreement fell beyond chance: {NAMES[drift.figure]} "
        f"{fmt(getattr(drift.new, drift.figure))} on the new rows against "
        f"{fmt(getattr(drift.reference, drift.figure))} at compile time "
        f"(one-sided permutation test, p = {drift.p_value:.4f} < α = {drift.alpha:g})."
        if drift.dropped
        else f"No drop beyond chance: {NAMES[drift.figure]} "
        f"{fmt(getattr(drift.new, drift.figure))} on the new rows against "
        f"{fmt(getattr(drift.reference, drift.figure))} at compile time "
        f"(one-sided permutation test, p = {drift.p_value:.4f} ≥ α = {drift.alpha:g})."
    )
    color = "#b91c1c" if drift.dropped else "#15803d"
    table = {"compile validation": {"judge": drift.reference}, "new rows": {"judge": drift.new}}
    sections = [
        (
            "verdict",
            "Did agreement fall?",
            f'<p style="font-size:17px;color:{color}"><b>{esc(verdict)}</b></p>'
            + "".join(
                f'<p class="note">Note: {esc(text)}.</p>'
                for text in [drift.disagreement, *drift.notes]
                if text
            )
            + agreement_table(table)
            + _difference_table(drift),
        ),
        (
            "figures",
            "Agreement with intervals",
            figure_html(
                agreement_figure(table, metric=drift.figure, title="compile vs new rows"),
                "drift-forest",
            ),
        ),
    ]
    usable = [v for v in variants if v.n and len(np.unique(v.gold)) == 2]
    if usable:
        sections.append(
            (
                "diagnostics",
                "Scores and ROC",
                figure_html(roc_figure(usable), "drift-roc")
                + figure_html(histogram_figure(usable), "drift-hist"),
            )
        )
    sections.append(
        (
            "test",
            "The test",
            kv_table(
                {
                    "figure tested": drift.figure,
                    "test": "one-sided permutation test (pooled rows re-split at the same sizes, "
                    "whole groups where the rows carry them)",
                    "permutations": drift.permutations,
                    "p-value": drift.p_value,
                    "alpha": drift.alpha,
                    "compile validation rows": drift.reference.n,
                    "new rows": drift.new.n,
                    "new rows that ended in an error (count as failed)": drift.errors,
                    "new rows unscored (count as failed)": drift.unscored,
                    "new rows left out (the judge was fitted on them)": drift.fitted,
                    "compiled on": str(compile_report.gold.get("path", "")),
                }
            ),
        )
    )
    when = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    subtitle = esc(
        " · ".join(
            p for p in (judge_name, gold_name, f"generated {when}", f"ragjudge {__version__}") if p
        )
    )
    body = "".join(
        f'<section id="{anchor}"><h2>{esc(text)}</h2>{html}</section>'
        for anchor, text, html in sections
    )
    body += "<footer>Made by <code>ragjudge drift</code>. The file needs no network.</footer>"
    return page(
        title=f"{drift.metric} drift report",
        subtitle=subtitle,
        nav=[(anchor, text) for anchor, text, _ in sections],
        body=body,
    )


def write_drift_report(path: str | os.PathLike[str], **kwargs: object) -> Path:
    """Write `build_drift_report(**kwargs)` to `path`."""
    document = build_drift_report(**kwargs)  # type: ignore[arg-type]
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(target.name + ".tmp")
    tmp.write_text(document, encoding="utf-8")
    os.replace(tmp, target)
    return target
