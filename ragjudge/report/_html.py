"""HTML pieces of the report. Every text from data goes through `esc` (it is untrusted)."""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence
from typing import Any

import plotly.graph_objects as go
import plotly.io as pio
from plotly.offline import get_plotlyjs

from ragjudge.data._gold import GoldRecord
from ragjudge.optimize._report import CompileReport, finalist_name
from ragjudge.optimize._select import Selection
from ragjudge.programs._results import JudgeResult
from ragjudge.report._data import Disagreement
from ragjudge.stats._agreement import Agreement

__all__ = ["esc", "page"]

_SEP = ' class="sep"'
_PLOT_CONFIG = {"displaylogo": False, "responsive": True, "displayModeBar": False}


def esc(value: Any) -> str:
    """HTML-escape any value (quotes included)."""
    return html.escape(str(value), quote=True)


def figure_html(fig: go.Figure, div_id: str) -> str:
    """A plotly figure as a `<div>` plus its drawing script (plotly.js is inlined once per page)."""
    height = fig.layout.height or 380
    body = pio.to_html(
        fig,
        full_html=False,
        include_plotlyjs=False,
        div_id=div_id,
        config=_PLOT_CONFIG,
        default_height=f"{height}px",
        default_width="100%",
        validate=True,
    )
    return f'<div class="plot" data-plot="{esc(div_id)}">{body}</div>'


def fmt(value: float | None, digits: int = 3) -> str:
    """A number or an en dash."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"{value:.{digits}f}"


def with_ci(a: Agreement | None, metric: str) -> str:
    """`value [low, high]` as HTML."""
    if a is None:
        return '<span class="na">–</span>'
    value = getattr(a, metric)
    low, high = (a.ci.get(metric) or [None, None])[:2]
    interval = (
        f'<br><span class="ci">[{fmt(low, 2)}, {fmt(high, 2)}]</span>'
        if low is not None and high is not None
        else ""
    )
    return f"<b>{fmt(value)}</b>{interval}"


def agreement_table(
    table: Mapping[str, Mapping[str, Agreement | None]],
    *,
    metrics: Sequence[str] = ("balanced_accuracy", "cohen_kappa", "auroc", "f1"),
) -> str:
    """Agreement per scope (rows) and judge (column groups), with 95% intervals."""
    judges: list[str] = []
    for row in table.values():
        judges.extend(name for name in row if name not in judges)
    names = {"balanced_accuracy": "bal. acc.", "cohen_kappa": "κ", "auroc": "AUROC", "f1": "F1"}
    head1 = '<th rowspan="2">scope</th><th rowspan="2">n</th><th rowspan="2">faithful</th>'
    head1 += "".join(f'<th class="sep" colspan="{len(metrics)}">{esc(j)}</th>' for j in judges)
    head2 = "".join(
        f"<th{_SEP if i == 0 else ''}>{esc(names.get(m, m))}</th>"
        for _ in judges
        for i, m in enumerate(metrics)
    )
    lines = []
    for scope, row in table.items():
        ref = next((a for a in row.values() if a is not None), None)
        n = ref.n if ref else 0
        share = f"{ref.positives / ref.n:.0%}" if ref and ref.n else "–"
        cells = "".join(
            f"<td{_SEP if i == 0 else ''}>{with_ci(row.get(j), m)}</td>"
            for j in judges
            for i, m in enumerate(metrics)
        )
        cls = ' class="total"' if scope == "all rows" else ""
        lines.append(f"<tr{cls}><th>{esc(scope)}</th><td>{n}</td><td>{share}</td>{cells}</tr>")
    return (
        '<div class="scroll"><table class="agree"><thead><tr>'
        + head1
        + "</tr><tr>"
        + head2
        + "</tr></thead><tbody>"
        + "".join(lines)
        + "</tbody></table></div>"
    )


def selection_table(selection: Selection) -> str:
    """The finalists compile compared out of fold on its train rows, and its decision."""
    lines = []
    for f in selection.finalists:
        low, high = f.ci
        diff = "–" if f.difference is None else f"{f.difference:+.3f}"
        se = "–" if f.se is None else f"{f.se:.3f}"
        losses = "; ".join(str(d) for d in f.losing_sources)
        ships = " <b>ships</b>" if f.name == selection.chosen else ""
        lines.append(
            f"<tr><th>{esc(finalist_name(f))}{ships}</th><td>{fmt(f.value)}"
            f'<br><span class="ci">[{fmt(low, 2)}, {fmt(high, 2)}]</span></td><td>{diff}</td>'
            f"<td>{se}</td><td>{esc(losses) or '–'}</td></tr>"
        )
    return (
        f'<p class="note">Finalists, {esc(selection.scope)}.</p>'
        '<div class="scroll"><table class="agree"><thead><tr><th>finalist</th>'
        "<th>out of fold</th><th>vs start</th><th>se</th><th>agrees less on (beyond its bar)</th>"
        "</tr></thead><tbody>" + "".join(lines) + "</tbody></table></div>"
        f'<p class="note">Decision: {esc(selection.reason)}</p>'
    )


def source_gain_table(report: CompileReport) -> str:
    """Each source's validation balanced-accuracy gain, compiled minus uncompiled, with its
    paired 95% bootstrap interval (`CompileReport.gain_by_source`)."""
    lines = []
    for source, (diff, low, high) in report.gain_by_source().items():
        shown = "–" if diff is None else f"{diff:+.3f}"
        if low is not None and high is not None:
            interval = f"[{low:+.3f}, {high:+.3f}]"
        else:
            interval = f"too few to tell ({report.no_interval(source) or 'no interval'})"
        lines.append(f"<tr><th>{esc(source)}</th><td>{shown}</td><td>{interval}</td></tr>")
    return (
        '<div class="scroll"><table class="agree"><thead><tr><th>source</th>'
        "<th>gain, bal. acc.</th><th>paired 95% interval</th></tr></thead><tbody>"
        + "".join(lines)
        + "</tbody></table></div>"
    )


def kv_table(items: Mapping[str, Any], *, cls: str = "kv") -> str:
    """A two-column key/value table."""
    rows = "".join(f"<tr><th>{esc(k)}</th><td>{esc(_plain(v))}</td></tr>" for k, v in items.items())
    return f'<table class="{cls}">{rows}</table>'


def _plain(value: Any) -> str:
    if isinstance(value, float):
        return fmt(value, 3) if abs(value) < 1000 else f"{value:,.0f}"
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, (list, tuple)):
        numbers = [v for v in value if isinstance(v, (int, float)) and not isinstance(v, bool)]
        if value and len(numbers) == len(value):
            return f"{len(value)} values, total {sum(numbers):,}"
        return ", ".join(_plain(v) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{k}: {_plain(v)}" for k, v in value.items())
    return str(value)


def params_table(compiled: Mapping[str, Any], baseline: Mapping[str, Any] | None) -> str:
    """The judge's parameters, next to the uncompiled judge's, changes highlighted."""
    names = list(compiled)
    if baseline:
        names += [k for k in baseline if k not in compiled]
    head = "<tr><th>parameter</th><th>compiled</th>"
    head += "<th>uncompiled</th></tr>" if baseline is not None else "</tr>"
    rows = []
    for name in names:
        value = compiled.get(name, "–")
        cells = f"<td>{esc(_plain(value))}</td>"
        changed = False
        if baseline is not None:
            other = baseline.get(name, "–")
            changed = _plain(other) != _plain(value)
            cells += f"<td>{esc(_plain(other))}</td>"
        cls = ' class="changed"' if changed else ""
        rows.append(f"<tr{cls}><th>{esc(name)}</th>{cells}</tr>")
    return f'<table class="kv params">{head}{"".join(rows)}</table>'


def _answer_html(row: GoldRecord) -> str:
    """The answer with its labeled hallucinated spans marked."""
    text = row.answer
    spans = sorted(
        (s for s in row.hallucinated_spans if 0 <= s.start < s.end <= len(text)),
        key=lambda s: s.start,
    )
    out, at = [], 0
    for span in spans:
        if span.start < at:
            continue
        out.append(esc(text[at : span.start]))
        title = f"labeled hallucination{': ' + span.type if span.type else ''}"
        out.append(f'<mark title="{esc(title)}">{esc(text[span.start : span.end])}</mark>')
        at = span.end
    out.append(esc(text[at:]))
    return "".join(out)


_BADGE = {"yes": ("supported", "ok"), "no": ("unsupported", "bad"), "unsure": ("unsure", "warn")}


def _statements_html(result: JudgeResult) -> str:
    if result.statements:
        rows = []
        for st in result.statements:
            word, cls = _BADGE.get(st.verdict, (st.verdict, "warn"))
            conf = "" if st.confidence is None else f"{st.confidence:.2f}"
            rows.append(
                f'<tr><td><span class="badge {cls}">{esc(word)}</span></td>'
                f"<td>{esc(st.text)}</td><td>{esc(st.reason)}</td>"
                f'<td class="num">{esc(conf)}</td></tr>'
            )
        return (
            '<table class="statements"><thead><tr><th>verdict</th><th>statement</th>'
            "<th>reason</th><th>conf.</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table>"
        )
    reasoning = result.details.get("reasoning") if result.details else None
    if reasoning:
        verdict = str(result.details.get("verdict", ""))
        word, cls = _BADGE.get(verdict, (verdict, "warn"))
        return f'<p class="whole"><span class="badge {cls}">{esc(word)}</span> {esc(reasoning)}</p>'
    if result.mode == "statement":
        return '<p class="na">no statements were extracted from the answer</p>'
    return ""


def disagreement_html(d: Disagreement, number: int, *, judge_name: str) -> str:
    """One disagreement as a card."""
    row, res = d.row, d.result
    if d.metric == "faithfulness":
        gold = "gold: faithful" if d.label else "gold: hallucinated"
    else:
        gold = f"{d.metric} label: {'pass' if d.label else 'fail'}"
    unscored = math.isnan(d.prob)
    verdict = "fail" if unscored or not res.passed else "pass"
    shown = "unscored" if unscored else f"{d.prob:.2f}"
    other = ""
    if d.other is not None and d.other.error is None and not math.isnan(d.other.score):
        other_verdict = "pass" if d.other.passed else "fail"
        other = (
            f'<span class="pill muted">{esc(d.other_name)}: {d.other.score:.2f} '
            f"{other_verdict}</span>"
        )
    full = "\n\n".join(row.contexts)
    more = ""
    if len(full) > len(d.excerpt.strip(" …")) + 4:
        text = full if len(full) <= 20000 else full[:20000] + " …"
        more = (
            f"<details><summary>full context ({len(full):,} characters)</summary>"
            f'<div class="text">{esc(text)}</div></details>'
        )
    question = (
        f'<div class="field"><h4>question</h4><div class="text">{esc(row.question)}</div></div>'
        if row.question
        else ""
    )
    spans_note = (
        f' <span class="hint">({len(row.hallucinated_spans)} labeled span'
        f"{'s' if len(row.hallucinated_spans) != 1 else ''} marked)</span>"
        if row.hallucinated_spans
        else ""
    )
    return f"""
<article class="case" id="case-{number}">
  <header>
    <span class="caseno">#{number}</span>
    <code>{esc(row.id)}</code>
    <span class="pill">{esc(row.source or "no source")}</span>
    <span class="pill {"ok" if d.label else "bad"}">{esc(gold)}</span>
    <span class="pill {"ok" if verdict == "pass" else "bad"}">{esc(judge_name)}: {shown}
      {verdict}</span>
    {other}
  </header>
  <div class="cols">
    <div>{question}
      <div class="field"><h4>answer{spans_note}</h4>
        <div class="text answer">{_answer_html(row)}</div></div></div>
    <div class="field"><h4>context excerpt</h4>
      <div class="text context">{esc(d.excerpt)}</div>{more}</div>
  </div>
  {_verdicts_html(d)}
</article>"""


def _verdicts_html(d: Disagreement) -> str:
    """The judge's verdicts; when it judged the answer whole, the other judge's statements too."""
    res = d.result
    whole = bool(res.details.get("reasoning")) and not res.statements
    reason = "" if whole else f'<p class="reason">{esc(res.reason)}</p>'
    if res.statements or res.mode == "statement":
        title = "per-statement verdicts"
    else:
        title = "verdict on the whole answer" if whole else "the judge's reason"
    out = f'<div class="field"><h4>{esc(title)}</h4>{reason}{_statements_html(res)}</div>'
    other = d.other
    if not res.statements and other is not None and other.error is None and other.statements:
        out += (
            f'<div class="field"><h4>per-statement verdicts of the {esc(d.other_name)} judge'
            f'</h4><p class="reason">{esc(other.reason)}</p>{_statements_html(other)}</div>'
        )
    return out


CSS = """
:root { --fg:#1f2937; --muted:#6b7280; --line:#e5e7eb; --bg:#f8fafc; --card:#fff;
        --blue:#2563eb; --ok:#15803d; --bad:#b91c1c; --warn:#b45309; }
* { box-sizing: border-box; }
body { margin:0; background:var(--bg); color:var(--fg);
       font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif; }
main { max-width:1240px; margin:0 auto; padding:28px 28px 60px; }
h1 { font-size:26px; margin:0 0 4px; letter-spacing:-.01em; }
h2 { font-size:19px; margin:38px 0 6px; padding-bottom:6px; border-bottom:1px solid var(--line); }
h3 { font-size:15px; margin:22px 0 8px; }
h4 { font-size:11px; text-transform:uppercase; letter-spacing:.06em; color:var(--muted);
     margin:12px 0 4px; }
p.lead, .sub { color:var(--muted); margin:0 0 10px; }
.note { color:var(--muted); font-size:13px; max-width:880px; }
.cards { display:grid; grid-template-columns:repeat(4,minmax(0,1fr)); gap:12px;
         margin:18px 0 6px; }
.card { background:var(--card); border:1px solid var(--line); border-radius:10px;
        padding:14px 16px; }
.card .k { color:var(--muted); font-size:12px; text-transform:uppercase; letter-spacing:.05em; }
.card .v { font-size:28px; font-weight:650; margin:2px 0; font-variant-numeric:tabular-nums; }
.card .ci, .ci { color:var(--muted); font-size:12px; font-weight:400; }
.delta.up { color:var(--ok); } .delta.down { color:var(--bad); } .delta { font-size:13px; }
.grid { display:grid; grid-template-columns:repeat(2,minmax(0,1fr)); gap:14px; }
@media (max-width:1000px) { .grid { grid-template-columns:minmax(0,1fr); }
                            .cards { grid-template-columns:repeat(2,minmax(0,1fr)); } }
.panel { background:var(--card); border:1px solid var(--line); border-radius:10px; padding:6px;
         min-width:0; }
.panel.wide { grid-column:1/-1; }
.scroll { overflow-x:auto; }
table { border-collapse:collapse; background:var(--card); font-variant-numeric:tabular-nums; }
th, td { padding:5px 10px; border-bottom:1px solid var(--line); text-align:left;
         vertical-align:top; }
table.agree { width:100%; border:1px solid var(--line); border-radius:8px; }
table.agree thead th { background:#f1f5f9; font-size:12px; text-align:center; }
table.agree tbody th { white-space:nowrap; }
table.cost { margin-bottom:8px; }
table.agree td { text-align:right; white-space:nowrap; line-height:1.25; }
table.agree td.sep, table.agree th.sep { border-left:1px solid var(--line); }
tr.total th, tr.total td { background:#eff6ff; }
table.kv { border:1px solid var(--line); min-width:360px; }
table.kv th { color:var(--muted); font-weight:500; white-space:nowrap; }
tr.changed td:first-of-type { color:var(--blue); font-weight:600; }
.two { display:flex; flex-wrap:wrap; gap:18px; align-items:flex-start; }
.case { background:var(--card); border:1px solid var(--line); border-left:4px solid var(--bad);
        border-radius:10px; padding:12px 18px 14px; margin:14px 0; }
.case header { display:flex; flex-wrap:wrap; gap:8px; align-items:center; }
.case .caseno { font-weight:700; color:var(--muted); }
.case .cols { display:grid; grid-template-columns:1fr 1fr; gap:16px; }
@media (max-width:900px) { .case .cols { grid-template-columns:1fr; } }
p.reason { margin:0 0 6px; }
.case code { font-size:12px; background:#f1f5f9; padding:1px 6px; border-radius:4px; }
.pill { font-size:12px; padding:1px 9px; border-radius:999px; background:#eef2ff; color:#3730a3; }
.pill.ok { background:#dcfce7; color:var(--ok); }
.pill.bad { background:#fee2e2; color:var(--bad); }
.pill.muted { background:#f3f4f6; color:var(--muted); }
.text { white-space:pre-wrap; overflow-wrap:anywhere; background:#f9fafb; border-radius:6px;
        padding:8px 10px; max-height:360px; overflow-y:auto; }
.text.answer { background:#fffbeb; }
mark { background:#fecaca; border-bottom:2px solid var(--bad); padding:0 1px; }
details summary { cursor:pointer; color:var(--blue); font-size:12px; margin-top:4px; }
table.statements { width:100%; border:1px solid var(--line); font-size:13px; }
table.statements th { background:#f9fafb; font-size:12px; }
table.statements td:first-child { white-space:nowrap; }
.badge { font-size:11px; font-weight:600; padding:1px 7px; border-radius:4px; }
.badge.ok { background:#dcfce7; color:var(--ok); }
.badge.bad { background:#fee2e2; color:var(--bad); }
.badge.warn { background:#fef3c7; color:var(--warn); }
.hint, .na { color:var(--muted); font-weight:400; text-transform:none; letter-spacing:0; }
td.num { text-align:right; }
nav { position:sticky; top:0; z-index:10; background:rgba(248,250,252,.94);
      backdrop-filter:blur(4px); border-bottom:1px solid var(--line); }
nav div { max-width:1240px; margin:0 auto; padding:8px 28px; display:flex; gap:18px;
          flex-wrap:wrap; font-size:13px; }
nav a { color:var(--muted); text-decoration:none; } nav a:hover { color:var(--blue); }
footer { margin-top:40px; color:var(--muted); font-size:12px; }
"""


def page(*, title: str, subtitle: str, nav: Sequence[tuple[str, str]], body: str) -> str:
    """The whole self-contained document: CSS and plotly.js inlined, no external resource."""
    links = "".join(f'<a href="#{esc(anchor)}">{esc(text)}</a>' for anchor, text in nav)
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="ragjudge">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; \
script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data: blob:; font-src data:">
<title>{esc(title)}</title>
<style>{CSS}</style>
<script type="text/javascript">{get_plotlyjs()}</script>
</head>
<body>
<nav><div>{links}</div></nav>
<main>
<h1>{esc(title)}</h1>
<p class="sub">{subtitle}</p>
{body}
</main>
</body>
</html>
"""
