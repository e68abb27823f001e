"""Held-out hand-written claims: what a judge catches and keeps, kind by kind.

    python benchmarks/bench_heldout.py                      # the offline judge, statement mode
    python benchmarks/bench_heldout.py --mode whole
    python benchmarks/bench_heldout.py --judge judges/faithfulness.json --out heldout.json

Reads `benchmarks/heldout/claims.jsonl` (`--file` for another file in the same schema: each row's
`meta.kind`, `meta.expect` and `meta.language`), judges every row with `ragjudge.evaluate` and
prints, per kind, how many rows the judge held: a must-fail row is held when the judge did not
pass it (caught), a must-pass row when it passed it (kept). A row the judge could not score
(an error) is not held. Sure misses are misses the judge was sure of: a score of 0.9 or more on
a must-fail row, 0.1 or less on a must-pass row (scores as a share of the judge's scale). Then
the totals (must fail, must pass, all) and the same per language. `--out` writes the tables as
JSON, without any row's text.

`--mode` is the judge's mode (`statement` by default; a judge file keeps its own mode unless
`--mode` is given). The ragjudge imported is the one on `PYTHONPATH`.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import REPO

import ragjudge
from ragjudge.programs._build import build_judge, default_concurrency

HELDOUT = REPO / "benchmarks" / "heldout" / "claims.jsonl"
SURE = 0.9  # a miss at a score this far on the wrong side is a sure miss


@dataclass
class Line:
    """One row of the table: rows of a kind (or a language, or a total), how many were held."""

    name: str
    expect: str
    rows: int = 0
    held: int = 0
    sure_misses: int = 0
    errors: int = 0

    @property
    def share(self) -> float:
        return self.held / self.rows if self.rows else math.nan


@dataclass
class Outcome:
    kind: str
    language: str
    expect: str
    held: bool
    sure_miss: bool
    error: bool


def outcome(row: ragjudge.GoldRecord, result: ragjudge.JudgeResult, scale: float) -> Outcome:
    """Whether the judge held one row: caught a must-fail row, kept a must-pass row."""
    expect = str(row.meta.get("expect") or ("pass" if row.faithful else "fail"))
    error = bool(result.error) or result.passed is None
    score = result.score / scale if scale else result.score
    if error:
        held, sure = False, False
    elif expect == "fail":
        held, sure = not result.passed, score >= SURE
    else:
        held, sure = bool(result.passed), score <= 1 - SURE
    return Outcome(
        kind=str(row.meta.get("kind", "?")),
        language=str(row.meta.get("language", "?")),
        expect=expect,
        held=held,
        sure_miss=not held and not error and sure,
        error=error,
    )


def tally(outcomes: Iterable[Outcome], key: str) -> list[Line]:
    """Lines grouped by `key` (`kind` or `language`), must-fail kinds first; a kind with rows
    of both verdicts (`injection`) has a line for each."""
    lines: dict[tuple[str, str], Line] = {}
    for o in outcomes:
        name, expect = getattr(o, key), (o.expect if key == "kind" else "")
        line = lines.setdefault((name, expect), Line(name=name, expect=expect))
        line.rows += 1
        line.held += o.held
        line.sure_misses += o.sure_miss
        line.errors += o.error
    order = {"fail": 0, "pass": 1}
    return sorted(lines.values(), key=lambda x: (order.get(x.expect, 2), x.name))


def total(name: str, expect: str, outcomes: Sequence[Outcome]) -> Line:
    line = Line(name=name, expect=expect, rows=len(outcomes))
    line.held = sum(o.held for o in outcomes)
    line.sure_misses = sum(o.sure_miss for o in outcomes)
    line.errors = sum(o.error for o in outcomes)
    return line


def table(title: str, lines: Sequence[Line]) -> str:
    width = max([len(title), *(len(x.name) for x in lines)])
    head = f"{title:<{width}}  expect  rows  held  share  sure misses  errors"
    body = [
        f"{x.name:<{width}}  {x.expect:<6}  {x.rows:>4}  {x.held:>4}  {x.share:>5.0%}  "
        f"{x.sure_misses:>11}  {x.errors:>6}"
        for x in lines
    ]
    return "\n".join([head, "-" * len(head), *body])


def shown(path: Path) -> str:
    """A path as the JSON keeps it: relative to the repository when inside it."""
    try:
        return str(path.resolve().relative_to(REPO))
    except ValueError:
        return str(path)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--file", type=Path, default=HELDOUT, help="the rows (JSONL)")
    parser.add_argument("--mode", default=None, choices=["statement", "whole"])
    parser.add_argument("--judge", default=None, help="a saved judge file")
    parser.add_argument("--out", type=Path, default=None, help="the tables as JSON, no row text")
    args = parser.parse_args()
    mode = args.mode or (None if args.judge else "statement")
    judge = build_judge(judge=args.judge, mode=mode, cache=False)
    rows = ragjudge.load_gold(str(args.file), require_labels=True)
    start = time.perf_counter()
    results, _ = ragjudge.evaluate(judge, rows, concurrency=default_concurrency(judge), n_boot=0)
    seconds = time.perf_counter() - start
    scale = float(getattr(judge, "scale", 1.0) or 1.0)
    outcomes = [outcome(r, res, scale) for r, res in zip(rows, results, strict=True)]
    kinds = tally(outcomes, "kind")
    languages = tally(outcomes, "language")
    totals = [
        total("must fail (caught)", "fail", [o for o in outcomes if o.expect == "fail"]),
        total("must pass (kept)", "pass", [o for o in outcomes if o.expect == "pass"]),
        total("all", "", outcomes),
    ]
    judge_mode = str(getattr(judge, "mode", ""))
    print(
        f"{args.file.name}: {len(rows)} rows, judge {args.judge or 'offline (uncompiled)'}, "
        f"mode {judge_mode}, {seconds:.1f} s"
    )
    print()
    print(table("kind", kinds))
    print()
    print(table("total", totals))
    print()
    print(table("language", languages))
    if args.out:
        data = {
            "command": " ".join(["python", *sys.argv]),
            "file": shown(args.file),
            "judge": args.judge or "offline",
            "mode": judge_mode,
            "rows": len(rows),
            "seconds": seconds,
            "sure_miss_score": SURE,
            "kinds": [asdict(x) | {"share": x.share} for x in kinds],
            "totals": [asdict(x) | {"share": x.share} for x in totals],
            "languages": [asdict(x) | {"share": x.share} for x in languages],
        }
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(data, indent=1) + "\n")


if __name__ == "__main__":
    main()
