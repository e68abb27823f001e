"""Probe tables: a judge's capability per kind and source on probes made from the gold dev rows.

    python benchmarks/bench_probe.py --generate-only --out benchmarks/results/probe_yield.json
    python benchmarks/bench_probe.py --per-source 200 --out benchmarks/results/probe_offline.json
    python benchmarks/bench_probe.py --mode whole --per-source 200 \\
        --out benchmarks/results/probe_offline_whole.json
    python benchmarks/bench_probe.py --lm gguf/smollm2 --mode whole --per-kind 3 \\
        --max-context-chars 2000 --out benchmarks/results/probe_smollm2_whole.json
    python benchmarks/bench_probe.py --lm gguf/qwen2.5-coder-1.5b --cascade --per-kind 6 \\
        --out benchmarks/results/probe_cascade_qwen.json

Makes probes of every kind from each source's `dev.jsonl` (`--per-source` probes of a kind
from a source at most, or `--per-kind` in all, spread over the sources), judges them with the
judge the options describe (the uncompiled offline judge by default), and prints the
capability table, the kinds x sources table (share held) and the generation and judging
speed. `--out` keeps the report as JSON without per-probe outcomes and without any of the gold's
text (the gold is not redistributed); `--misses` writes every miss, gold text included, for a
local read. The ragjudge imported is the one on `PYTHONPATH`.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import gold_args

import ragjudge
from ragjudge.probing import ProbeReport, generate_probes, probe
from ragjudge.programs._build import build_judge, default_concurrency


def markdown(report: ProbeReport) -> str:
    """The kinds x sources table (share held, probes) as Markdown."""
    sources = sorted({s for cells in report.sources.values() for s in cells})
    lines = [
        "| kind | expect | all | sure misses | " + " | ".join(sources) + " |",
        "|---|---|---|---|" + "---|" * len(sources),
    ]
    for row in report.kinds:
        cells = report.sources.get(row.kind, {})

        def cell(held: int, n: int) -> str:
            return f"{held / n:.0%} ({n})" if n else "–"

        per = [cell(cells[s].held, cells[s].probes) if s in cells else "–" for s in sources]
        lines.append(
            f"| {row.kind} | {row.expect} | {cell(row.held, row.probes)} | "
            f"{row.confident_misses} | " + " | ".join(per) + " |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = gold_args(__doc__ or "")
    parser.add_argument("--lm", action="append", default=None)
    parser.add_argument("--mode", default=None, choices=["statement", "whole"])
    parser.add_argument("--cascade", action="store_true")
    parser.add_argument("--judge", default=None, help="a judge file")
    parser.add_argument("--kinds", default=None)
    parser.add_argument("--per-kind", type=int, default=None)
    parser.add_argument("--per-source", type=int, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-lm-calls", type=int, default=None)
    parser.add_argument(
        "--max-context-chars",
        type=int,
        default=None,
        help="leave out rows whose passages are longer (small CPU models on long contexts)",
    )
    parser.add_argument("--out", type=Path, default=None, help="the report, without gold text")
    parser.add_argument(
        "--misses", type=Path, default=None, help="every miss, gold text included (not to commit)"
    )
    parser.add_argument(
        "--generate-only",
        action="store_true",
        help="make the probes and write what each kind made and skipped (no judge)",
    )
    args = parser.parse_args()
    rows = [
        r for s in args.sources for r in ragjudge.load_gold(str(args.gold_dir / s / "dev.jsonl"))
    ]
    if args.max_context_chars is not None:
        rows = [r for r in rows if sum(map(len, r.contexts)) <= args.max_context_chars]
    kinds = args.kinds.split(",") if args.kinds else None
    start = time.perf_counter()
    made = generate_probes(
        rows, kinds=kinds, per_kind=args.per_kind, per_source=args.per_source, seed=args.seed
    )
    generating = time.perf_counter() - start
    if args.generate_only:
        yields = {
            "command": " ".join(["python", *sys.argv]),
            "rows": len(rows),
            "probes": len(made.probes),
            "seconds": generating,
            "counts": [c.model_dump() for c in made.counts],
        }
        for c in made.counts:
            print(f"{c.kind:22} made {c.made:6} of {c.tried} rows")
        print(f"{len(made.probes)} probes from {len(rows)} rows in {generating:.0f} s")
        if args.out:
            args.out.write_text(json.dumps(yields, indent=1) + "\n")
        return
    judge = build_judge(
        judge=args.judge, mode=args.mode, lm=args.lm, cascade=args.cascade, cache=False
    )
    report = probe(
        judge,
        made,
        max_lm_calls=args.max_lm_calls,
        concurrency=default_concurrency(judge),
        on_result=None
        if judge.runs_offline()
        else lambda i, r: print(  # a line a probe where each takes seconds (an LM)
            f"judged {i + 1}/{len(made.probes)}: {made.probes[i].kind} score {r.score} "
            f"{r.lm_calls} call(s) {time.perf_counter() - start:.0f} s",
            file=sys.stderr,
            flush=True,
        ),
    )
    print(report.table())
    print()
    print(markdown(report))
    rate = len(made.probes) / generating if generating else float("inf")
    judged = len(report.outcomes)
    print(
        f"\n{len(made.probes)} probes from {len(rows)} rows in {generating:.1f} s "
        f"({rate:.0f} probes/s); judged {judged} in {report.seconds_judge:.1f} s "
        f"({judged / max(report.seconds_judge, 1e-9):.1f} probes/s)"
    )
    if args.out:
        data = report.summary()
        data["command"] = " ".join(["python", *sys.argv])
        data["generation"] = {
            "rows": len(rows),
            "probes": len(made.probes),
            "seconds": generating,
            "probes_per_second": rate,
        }
        for line in data["kinds"]:  # the gold's own text stays out of committed results
            line.pop("example", None)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(data, indent=1, default=str) + "\n")
    if args.misses:
        misses = [o.model_dump(mode="json") for o in report.outcomes if not o.held]
        args.misses.write_text(json.dumps(misses, indent=1, default=str) + "\n")


if __name__ == "__main__":
    main()
