"""`ragjudge probe`: behavioral tests of a judge, kind by kind, made from real rows.

Each generator (`generators/`) makes, from a row's own passages, an answer variant with one
known edit and the verdict a judge must give it: must-fail kinds (a changed number, date or
unit, a negation, a swapped name, a dropped condition, ...) and must-pass kinds (the context's
own sentence, another number format, a clause moved, arithmetic from stated figures, ...).
`probe` runs any judge on them and tells, per kind, how many it caught or kept.

Example:
    >>> import ragjudge
    >>> from ragjudge.probing import generate_probes
    >>> rows = ragjudge.load_gold("examples/faithfulness/test.jsonl")  # doctest: +SKIP
    >>> report = ragjudge.probe(ragjudge.Faithfulness(), rows, per_kind=50)  # doctest: +SKIP
    >>> print(report.table())  # doctest: +SKIP
"""

from __future__ import annotations

from ragjudge.probing._gate import check_probe_bounds, parse_probe_bounds
from ragjudge.probing._generate import KindCount, ProbeSet, generate_probes
from ragjudge.probing._probe import Expect, Probe, Skip, Variant
from ragjudge.probing._registry import GENERATORS, Generator, generator, kinds
from ragjudge.probing._report import KindRow, ProbeOutcome, ProbeReport, SourceCell
from ragjudge.probing._run import probe

__all__ = [
    "GENERATORS",
    "Expect",
    "Generator",
    "KindCount",
    "KindRow",
    "Probe",
    "ProbeOutcome",
    "ProbeReport",
    "ProbeSet",
    "Skip",
    "SourceCell",
    "Variant",
    "check_probe_bounds",
    "generate_probes",
    "generator",
    "kinds",
    "parse_probe_bounds",
    "probe",
]
