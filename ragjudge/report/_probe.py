"""The probe section of the HTML report: kinds x sources, the share of probes the judge held,
with each kind's misses to read."""

from __future__ import annotations

from ragjudge.probing._report import CONFIDENT, ProbeOutcome, ProbeReport
from ragjudge.report._html import esc, fmt

__all__ = ["probe_section"]


def _cell(held: int, probes: int) -> str:
    if not probes:
        return '<td class="num na">–</td>'
    rate = held / probes
    tone = "ok" if rate >= 0.95 else "warn" if rate >= 0.8 else "bad"
    return (
        f'<td class="num"><span class="badge {tone}">{rate:.0%}</span>'
        f'<br><span class="ci">{held}/{probes}</span></td>'
    )


def _misses(outcomes: list[ProbeOutcome], limit: int = 3) -> str:
    shown = sorted((o for o in outcomes if not o.held), key=lambda o: (not o.confident_miss, o.id))
    items = "".join(
        f"<li><code>{esc(o.edit)}</code> scored {fmt(o.score, 2)}"
        f" <span class='hint'>({esc(o.source)}; {esc(o.reason[:160])})</span></li>"
        for o in shown[:limit]
    )
    return f"<ul>{items}</ul>" if items else ""


def probe_section(report: ProbeReport) -> str:
    """The section's HTML: one row per kind, one column per source, and the misses."""
    sources = sorted({s for cells in report.sources.values() for s in cells})
    head = "".join(f"<th>{esc(s)}</th>" for s in sources)
    rows = []
    for line in report.kinds:
        cells = report.sources.get(line.kind, {})
        by_source = "".join(
            _cell(cells[s].held, cells[s].probes) if s in cells else _cell(0, 0) for s in sources
        )
        side = "must fail" if line.expect == "fail" else "must pass"
        mine = [o for o in report.outcomes if o.kind == line.kind]
        rows.append(
            f"<tr><td><b>{esc(line.kind)}</b><br><span class='hint'>{esc(side)}: "
            f"{esc(line.summary)}</span></td>{_cell(line.held, line.probes)}"
            f'<td class="num">{line.confident_misses}</td><td class="num">{line.unsure}</td>'
            f"{by_source}<td>{_misses(mine)}</td></tr>"
        )
    low, high = CONFIDENT
    return (
        f"<p>{esc(report.judge)}: probes made from {report.rows} rows (seed {report.seed}). "
        "<i>Held</i> is a must-fail probe caught or a must-pass probe kept; a <i>sure miss</i> "
        f"scored at least {high} (must fail) or at most {low} (must pass).</p>"
        '<div class="scroll"><table class="grid"><thead><tr><th>kind</th><th>held</th>'
        f"<th>sure misses</th><th>unsure</th>{head}<th>misses to read</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table></div>"
        + (f"<p class='hint'>{esc(report.note)}</p>" if report.note else "")
    )
