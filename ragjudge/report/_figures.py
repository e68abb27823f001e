"""The report's agreement plots, as plotly figures."""

from __future__ import annotations

import html
import itertools
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots
from sklearn.metrics import roc_auc_score, roc_curve

from ragjudge.report._data import Variant
from ragjudge.stats._agreement import Agreement

__all__ = [
    "COLORS",
    "agreement_figure",
    "confusion_figure",
    "histogram_figure",
    "reliability_figure",
    "roc_figure",
]

#: Colours of the judges (in order) and of the two gold labels.
COLORS = ("#2563eb", "#f59e0b", "#6b7280", "#7c3aed")
FAITHFUL, HALLUCINATED = "#16a34a", "#dc2626"
FONT = "system-ui, -apple-system, Segoe UI, Roboto, Helvetica, Arial, sans-serif"
_INSIDE = {
    "orientation": "v",
    "x": 0.98,
    "xanchor": "right",
    "y": 0.02,
    "yanchor": "bottom",
    "bgcolor": "rgba(255,255,255,0.85)",
    "bordercolor": "#e5e7eb",
    "borderwidth": 1,
}
METRIC_NAMES = {
    "balanced_accuracy": "balanced accuracy",
    "cohen_kappa": "Cohen's κ",
    "auroc": "AUROC",
    "f1": "F1",
}


def label(text: str) -> str:
    """Untrusted text made safe for a plotly label (plotly.js reads a subset of HTML tags)."""
    return html.escape(text, quote=False)


def _layout(fig: go.Figure, *, title: str, height: int = 360) -> go.Figure:
    fig.update_layout(
        template="plotly_white",
        title={"text": title, "x": 0.01, "xanchor": "left", "font": {"size": 15}},
        height=height,
        margin={"l": 60, "r": 20, "t": 56, "b": 50},
        font={"family": FONT, "size": 12, "color": "#1f2937"},
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.0, "x": 1, "xanchor": "right"},
        hoverlabel={"font": {"family": FONT}},
    )
    return fig


def agreement_figure(
    table: Mapping[str, Mapping[str, Agreement | None]],
    *,
    metric: str = "balanced_accuracy",
    title: str = "",
) -> go.Figure:
    """A forest plot: `metric` with its 95% interval per scope (overall, each source) and judge.

    Args:
        table: scope -> judge name -> agreement (None where not measured).
        metric: One of `ragjudge.stats._agreement.METRICS`.
        title: The figure's title.

    Returns:
        The figure.
    """
    scopes = list(table)
    judges: list[str] = []
    for row in table.values():
        judges.extend(name for name in row if name not in judges)
    fig = go.Figure()
    offsets = np.linspace(-0.18, 0.18, len(judges)) if len(judges) > 1 else np.zeros(1)
    for j, name in enumerate(judges):
        ys, xs, lows, highs, texts = [], [], [], [], []
        for s, scope in enumerate(scopes):
            a = table[scope].get(name)
            value = None if a is None else getattr(a, metric)
            if value is None or a is None:
                continue
            low, high = (a.ci.get(metric) or [None, None])[:2]
            ys.append(s + offsets[j])
            xs.append(value)
            lows.append(value - low if low is not None else 0.0)
            highs.append(high - value if high is not None else 0.0)
            ci = f" [{low:.3f}, {high:.3f}]" if low is not None and high is not None else ""
            texts.append(f"{label(scope)} · {label(name)}<br>{value:.3f}{ci} · n={a.n}")
        fig.add_trace(
            go.Scatter(
                x=xs,
                y=ys,
                mode="markers",
                name=label(name),
                marker={"color": COLORS[j % len(COLORS)], "size": 10, "symbol": "diamond"},
                error_x=interval_bars(lows, highs),
                hovertext=texts,
                hoverinfo="text",
            )
        )
    chance = 0.0 if metric == "cohen_kappa" else 0.5
    fig.add_vline(
        x=chance,
        line={"dash": "dot", "color": "#9ca3af"},
        annotation_text="chance",
        annotation_font={"color": "#6b7280", "size": 11},
    )
    fig.update_yaxes(
        tickmode="array",
        tickvals=list(range(len(scopes))),
        ticktext=[label(s) for s in scopes],
        autorange="reversed",
        showgrid=False,
    )
    low = -1.03 if metric == "cohen_kappa" else -0.03
    fig.update_xaxes(title=METRIC_NAMES.get(metric, metric), range=[low, 1.03], zeroline=False)
    return _layout(fig, title=title, height=max(260, 70 + 42 * len(scopes)))


def confusion_figure(variants: Sequence[Variant]) -> go.Figure:
    """Confusion matrices (gold label × judge decision), one per judge, with counts and shares."""
    fig = make_subplots(
        rows=1,
        cols=len(variants),
        subplot_titles=[f"{label(v.name)} (n={v.n})" for v in variants]
        if len(variants) > 1
        else None,
        horizontal_spacing=0.12,
    )
    for i, v in enumerate(variants, start=1):
        gold, passed = v.gold.astype(bool), v.passed.astype(bool)
        counts = np.array(
            [
                [np.sum(gold & passed), np.sum(gold & ~passed)],
                [np.sum(~gold & passed), np.sum(~gold & ~passed)],
            ]
        )
        totals = counts.sum(axis=1, keepdims=True)
        shares = np.divide(counts, np.where(totals == 0, 1, totals))
        text = [[f"{counts[r, c]}<br>{shares[r, c]:.0%}" for c in range(2)] for r in range(2)]
        signed = shares * np.array([[1, -1], [-1, 1]])  # agreement blue, disagreement red
        fig.add_trace(
            go.Heatmap(
                z=signed,
                x=["judge: pass", "judge: fail"],
                y=["gold: faithful", "gold: hallucinated"],
                text=text,
                texttemplate="%{text}",
                textfont={"size": 15},
                colorscale=[[0, "#f87171"], [0.5, "#f8fafc"], [1, "#60a5fa"]],
                zmin=-1,
                zmax=1,
                showscale=False,
                hovertemplate="%{y} · %{x}<br>%{text}<extra></extra>",
            ),
            row=1,
            col=i,
        )
        fig.update_yaxes(autorange="reversed", row=1, col=i, showticklabels=i == 1)
    fig = _layout(fig, title="Confusion matrix (shares of each gold label)", height=340)
    fig.update_annotations(font={"size": 13})
    return fig


def histogram_figure(variants: Sequence[Variant], *, bins: int = 20) -> go.Figure:
    """Score histograms split by gold label, one panel per judge, with the threshold marked
    (the scored rows: an unscored row has no score to show)."""
    fig = make_subplots(
        rows=1,
        cols=len(variants),
        shared_yaxes=True,
        horizontal_spacing=0.06,
    )
    edges = np.linspace(0.0, 1.0, bins + 1)
    centers = (edges[:-1] + edges[1:]) / 2
    ranges = [f"{a:.2f}–{b:.2f}" for a, b in itertools.pairwise(edges.tolist())]
    for i, v in enumerate(variants, start=1):
        for value, name, color in (
            (1, "gold: faithful", FAITHFUL),
            (0, "gold: hallucinated", HALLUCINATED),
        ):
            counts, _ = np.histogram(v.prob[(v.gold == value) & v.scored], bins=edges)
            fig.add_trace(
                go.Bar(
                    x=centers.tolist(),
                    y=counts.tolist(),
                    width=1.0 / bins * 0.45,
                    offset=(-1.0 / bins * 0.45) if value == 1 else 0.0,
                    name=name,
                    legendgroup=name,
                    showlegend=i == 1,
                    marker={"color": color, "line": {"width": 0}},
                    opacity=0.85,
                    customdata=ranges,
                    hovertemplate="score %{customdata}<br>%{y} rows<extra>" + name + "</extra>",
                ),
                row=1,
                col=i,
            )
        if v.threshold is not None:
            fig.add_vline(
                x=v.threshold,
                line={"dash": "dash", "color": "#111827"},
                annotation_text=f"threshold {v.threshold:.2f}",
                annotation_position="top left",
                row=1,
                col=i,
            )
        axis = f"score of the {label(v.name)} judge" if len(variants) > 1 else "score"
        fig.update_xaxes(title=axis, range=[-0.02, 1.02], row=1, col=i)
    fig.update_yaxes(title="rows", row=1, col=1)
    fig = _layout(fig, title="Scores by gold label", height=380)
    fig.update_layout(
        barmode="overlay",
        legend={"orientation": "h", "y": -0.3, "yanchor": "top", "x": 0.5, "xanchor": "center"},
        margin={"b": 90},
    )
    return fig


def roc_figure(variants: Sequence[Variant]) -> go.Figure:
    """ROC curves (faithful = positive), with each judge's operating point."""
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=[0, 1],
            y=[0, 1],
            mode="lines",
            line={"dash": "dot", "color": "#9ca3af"},
            name="chance",
            hoverinfo="skip",
        )
    )
    for j, v in enumerate(variants):
        color = COLORS[j % len(COLORS)]
        if len(set(v.gold.tolist())) < 2:
            continue
        fpr, tpr, thresholds = roc_curve(v.gold, v.prob)
        auc = roc_auc_score(v.gold, v.prob)
        fig.add_trace(
            go.Scatter(
                x=fpr,
                y=tpr,
                mode="lines+markers",
                line={"color": color, "width": 2.5, "shape": "linear"},
                marker={"size": 4},
                name=f"{label(v.name)} (AUROC {auc:.3f})",
                customdata=np.clip(thresholds, 0, 1),
                hovertemplate="score ≥ %{customdata:.2f}<br>FPR %{x:.2f} · TPR %{y:.2f}"
                "<extra></extra>",
            )
        )
        gold, passed = v.gold.astype(bool), v.passed
        tpr_op = float(np.mean(passed[gold])) if gold.any() else 0.0
        fpr_op = float(np.mean(passed[~gold])) if (~gold).any() else 0.0
        fig.add_trace(
            go.Scatter(
                x=[fpr_op],
                y=[tpr_op],
                mode="markers",
                marker={"color": color, "size": 13, "symbol": "x", "line": {"width": 1}},
                name=f"{label(v.name)} threshold",
                hovertemplate="pass/fail decisions<br>FPR %{x:.2f} · TPR %{y:.2f}<extra></extra>",
            )
        )
    fig.update_xaxes(title="false positive rate (hallucinated rows passed)", range=[0, 1])
    fig.update_yaxes(title="true positive rate (faithful rows passed)", range=[0, 1.02])
    fig = _layout(fig, title="ROC curve", height=400)
    fig.update_layout(legend=_INSIDE)
    return fig


def reliability_figure(variants: Sequence[Variant], *, bins: int = 10) -> go.Figure:
    """Reliability diagram: the share of faithful rows among rows with similar scores.

    The scored rows are put into `bins` equal-width score bins; each point is a non-empty bin
    at its mean score, sized by its row count. The legend gives the expected calibration error
    (ECE).
    """
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=[0, 1],
            y=[0, 1],
            mode="lines",
            line={"dash": "dot", "color": "#9ca3af"},
            name="perfectly calibrated",
            hoverinfo="skip",
        )
    )
    for j, v in enumerate(variants):
        if not v.scored.any():
            continue
        color = COLORS[j % len(COLORS)]
        which = np.where(v.scored, np.minimum((v.prob * bins).astype(int), bins - 1), -1)
        xs, ys, ns = [], [], []
        for b in range(bins):
            mask = which == b
            if mask.any():
                xs.append(float(v.prob[mask].mean()))
                ys.append(float(v.gold[mask].mean()))
                ns.append(int(mask.sum()))
        counts = np.array(ns, dtype=float)
        ece = float(np.sum(counts * np.abs(np.array(xs) - np.array(ys))) / counts.sum())
        fig.add_trace(
            go.Scatter(
                x=xs,
                y=ys,
                mode="lines+markers",
                name=f"{label(v.name)} (ECE {ece:.3f})",
                line={"color": color, "width": 2},
                marker={
                    "color": color,
                    "size": 6 + 18 * np.sqrt(counts / counts.max()),
                    "line": {"color": "white", "width": 1},
                },
                customdata=ns,
                hovertemplate="mean score %{x:.2f}<br>faithful %{y:.0%}<br>%{customdata} rows"
                "<extra></extra>",
            )
        )
    fig.update_xaxes(title="mean score in bin", range=[-0.03, 1.03])
    fig.update_yaxes(title="share labeled faithful", range=[-0.03, 1.03])
    fig = _layout(fig, title="Reliability diagram", height=400)
    fig.update_layout(legend=_INSIDE)
    return fig


def interval_bars(lows: Sequence[float], highs: Sequence[float]) -> dict[str, Any]:
    """Plotly's asymmetric horizontal error bars: distances below and above each point."""
    return {
        "type": "data",
        "symmetric": False,
        "array": list(highs),
        "arrayminus": list(lows),
        "thickness": 2,
        "width": 4,
    }
