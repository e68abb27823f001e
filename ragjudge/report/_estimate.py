"""The estimate report: PPI++, labels-only and the judge's raw rate, with intervals, per stratum."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import plotly.graph_objects as go

from ragjudge._version import __version__
from ragjudge.estimation._estimate import Comparison, Estimate, Figure
from ragjudge.report._figures import COLORS, _layout, interval_bars, label
from ragjudge.report._html import esc, figure_html, fmt, kv_table, page

__all__ = ["build_estimate_report", "estimate_figure", "write_estimate_report"]

#: The three figures, in the order drawn: (attribute, name, colour).
KINDS = (
    ("ppi", "PPI++ (judge + labels)", COLORS[0]),
    ("classical", "labels alone", COLORS[1]),
    ("judge", "judge's raw pass rate (biased)", COLORS[2]),
)


def _scopes(est: Estimate) -> list[tuple[str, dict[str, Figure], str]]:
    """(name, figures by kind, detail) for the pooled figure and each stratum."""
    pooled = "all rows" + (" (stratified)" if est.by else "")
    scopes = [
        (
            pooled,
            {"ppi": est.ppi, "classical": est.classical, "judge": est.judge},
            f"{est.n_rows} rows, {est.n_labeled} labeled",
        )
    ]
    for s in est.strata:
        scopes.append(
            (
                f"{est.by} = {s.value}",
                {"ppi": s.ppi, "classical": s.classical, "judge": s.judge},
                f"{s.n_rows} rows, {s.n_labeled} labeled",
            )
        )
    return scopes


def estimate_figure(est: Estimate, *, title: str = "") -> go.Figure:
    """A forest plot: the three rates with their intervals, overall and per stratum."""
    scopes = _scopes(est)
    fig = go.Figure()
    offsets = (-0.22, 0.0, 0.22)
    for k, (kind, name, color) in enumerate(KINDS):
        xs, ys, lows, highs, texts = [], [], [], [], []
        for i, (scope, figures, detail) in enumerate(scopes):
            f = figures[kind]
            xs.append(f.estimate)
            ys.append(i + offsets[k])
            lows.append(f.estimate - f.ci[0])
            highs.append(f.ci[1] - f.estimate)
            texts.append(
                f"{label(scope)} · {label(name)}<br>{f.estimate:.3f} "
                f"[{f.ci[0]:.3f}, {f.ci[1]:.3f}] · {label(detail)}"
            )
        fig.add_trace(
            go.Scatter(
                x=xs,
                y=ys,
                mode="markers",
                name=label(name),
                marker={
                    "color": color,
                    "size": 10,
                    "symbol": ("diamond", "circle", "x")[k],
                },
                error_x=interval_bars(lows, highs),
                hovertext=texts,
                hoverinfo="text",
            )
        )
    fig.update_yaxes(
        tickmode="array",
        tickvals=list(range(len(scopes))),
        ticktext=[label(s[0]) for s in scopes],
        autorange="reversed",
        showgrid=False,
    )
    fig.update_xaxes(title="faithful rate", range=[-0.03, 1.03], zeroline=False)
    return _layout(fig, title=title, height=max(280, 90 + 56 * len(scopes)))


def _table(est: Estimate) -> str:
    head = (
        "<tr><th>scope</th><th>rows</th><th>labeled</th><th>PPI++</th><th>labels alone</th>"
        "<th>judge raw (biased)</th><th>effective labels</th></tr>"
    )

    def cell(f: Figure) -> str:
        return f'{fmt(f.estimate)}<br><span class="ci">[{fmt(f.ci[0])}, {fmt(f.ci[1])}]</span>'

    rows = [
        f"<tr><th>all rows{' (stratified)' if est.by else ''}</th><td>{est.n_rows}</td>"
        f"<td>{est.n_labeled}</td><td>{cell(est.ppi)}</td><td>{cell(est.classical)}</td>"
        f"<td>{cell(est.judge)}</td><td>{fmt(est.effective_labels, 0)}</td></tr>"
    ]
    for s in est.strata:
        rows.append(
            f"<tr><th>{esc(est.by)} = {esc(s.value)}</th><td>{s.n_rows}</td>"
            f"<td>{s.n_labeled}</td><td>{cell(s.ppi)}</td><td>{cell(s.classical)}</td>"
            f"<td>{cell(s.judge)}</td><td>{fmt(s.effective_labels, 0)}</td></tr>"
        )
    return f'<table class="agree" data-table="estimate">{head}{"".join(rows)}</table>'


def _comparison_html(c: Comparison) -> str:
    rows = []
    for name, d in (("PPI++", c.ppi), ("labels alone", c.classical)):
        rows.append(
            f"<tr><th>{esc(name)}</th><td>{d['estimate']:+.3f}</td>"
            f"<td>[{d['ci'][0]:+.3f}, {d['ci'][1]:+.3f}]</td><td>{d['p_value']:.4f}</td></tr>"
        )
    j = c.judge
    rows.append(
        f"<tr><th>judge raw (biased)</th><td>{j['estimate']:+.3f}</td>"
        f"<td>[{j['ci'][0]:+.3f}, {j['ci'][1]:+.3f}]</td><td>–</td></tr>"
    )
    verdict = ""
    if c.bound is not None:
        text = (
            f"B is worse than A by more than {c.bound:g} beyond chance."
            if c.worse
            else f"No evidence that B is worse than A by more than {c.bound:g}."
        )
        color = "#b91c1c" if c.worse else "#15803d"
        verdict = f'<p style="font-size:17px;color:{color}"><b>{esc(text)}</b></p>'
    how = "paired per question" if c.paired else "independent samples"
    return (
        verdict
        + f"<p>B − A in faithful rate ({esc(how)}; A: {esc(c.a.rows)}, B: {esc(c.b.rows)})</p>"
        + '<table class="kv" data-table="difference"><tr><th></th><th>B − A</th>'
        + f"<th>{c.level:.0%} CI</th><th>p-value</th></tr>"
        + "".join(rows)
        + "</table>"
    )


def build_estimate_report(
    *, estimates: Sequence[Estimate], comparison: Comparison | None = None
) -> str:
    """Render one or two estimates (and their comparison) as one self-contained HTML page."""
    sections = []
    if comparison is not None:
        sections.append(("difference", "B against A", _comparison_html(comparison)))
    for i, est in enumerate(estimates):
        tag = ("A", "B")[i] if len(estimates) == 2 else ""
        anchor = f"estimate{tag.lower()}"
        notes = "".join(f"<li>{esc(n)}</li>" for n in est.notes)
        sections.append(
            (
                anchor,
                f"Faithful rate{' of ' + tag if tag else ''}: {est.rows}",
                figure_html(
                    estimate_figure(est, title=f"faithful rate with {est.level:.0%} intervals"),
                    f"{anchor}-forest",
                )
                + _table(est)
                + (f"<ul>{notes}</ul>" if notes else "")
                + kv_table(
                    {
                        "judge": est.judge_name,
                        "labeled rows": est.gold,
                        "PPI++ weight λ": round(est.lam, 3),
                        "labeled rows left out (judge fitted on them)": est.dropped_fitted,
                        "judge errors (labeled / other rows, counted as failing)": (
                            f"{est.labeled_errors} / {est.row_errors}"
                        ),
                        "unscored rows, no error (labeled / other rows, counted as failing)": (
                            f"{est.labeled_unscored} / {est.row_unscored}"
                        ),
                        "cross-fitting folds": est.cross_fit or "–",
                    }
                ),
            )
        )
    subtitle = esc(" · ".join([*(e.rows for e in estimates), f"ragjudge {__version__}"]))
    body = "".join(
        f'<section id="{anchor}"><h2>{esc(text)}</h2>{html}</section>'
        for anchor, text, html in sections
    )
    body += (
        "<footer>Made by <code>ragjudge estimate</code>: prediction-powered inference (PPI++). "
        "The judge's raw rate is biased by its errors; the PPI++ and labels-only intervals are "
        "valid whatever the judge's quality, from 10 labels on (small-sample intervals, "
        "docs/estimate.md). The file needs no network.</footer>"
    )
    return page(
        title="How faithful is the system?",
        subtitle=subtitle,
        nav=[(anchor, text) for anchor, text, _ in sections],
        body=body,
    )


def write_estimate_report(
    path: str | os.PathLike[str],
    *,
    estimates: Sequence[Estimate],
    comparison: Comparison | None = None,
) -> Path:
    """Write `build_estimate_report` to `path` (atomically)."""
    document = build_estimate_report(estimates=estimates, comparison=comparison)
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(target.name + ".tmp")
    tmp.write_text(document, encoding="utf-8")
    os.replace(tmp, target)
    return target
