"""`--fail-under KIND=RATE` for probes: a CI gate on the share of probes a judge holds."""

from __future__ import annotations

from collections.abc import Sequence

from ragjudge.evaluation._gate import GateCheck, parse_named_bounds
from ragjudge.probing._report import ProbeReport

__all__ = ["SIDES", "check_probe_bounds", "parse_probe_bounds"]

#: Names for many kinds at once: every must-fail kind, every must-pass kind, every kind.
SIDES = {"must_fail": "fail", "must_pass": "pass", "all": None}


def parse_probe_bounds(spec: str | Sequence[str], *, kinds: Sequence[str]) -> dict[str, float]:
    """Parse `negation=0.95,must_pass=0.9` (several flags may be given).

    Args:
        spec: `kind=rate` pairs separated by commas, or a list of such strings; a kind is one
            of `kinds`, or `must_fail`, `must_pass`, `all`.
        kinds: The kinds that may be named.

    Returns:
        kind -> the least share of its probes the judge must hold, in [0, 1].

    Raises:
        ConfigurationError: For an unknown kind or a malformed or out-of-range rate.

    Example:
        >>> parse_probe_bounds("negation=0.95,must_pass=0.9", kinds=["negation"])
        {'negation': 0.95, 'must_pass': 0.9}
    """
    return parse_named_bounds(
        spec,
        choices=[*SIDES, *kinds],
        name="kind",
        value="rate",
        unknown="unknown probe kind",
    )


def check_probe_bounds(bounds: dict[str, float], report: ProbeReport) -> list[GateCheck]:
    """One check per bound: the share of probes held against its rate. A kind with no probe
    judged fails its bound (nothing was shown)."""
    checks = []
    for kind, bound in bounds.items():
        if kind in SIDES:
            held, total = report.side(SIDES[kind])
        else:
            row = next((r for r in report.kinds if r.kind == kind), None)
            held, total = (row.held, row.probes) if row else (0, 0)
        value = held / total if total else None
        checks.append(
            GateCheck(
                metric="probe",
                figure=kind,
                value=value,
                ci=[None, None],
                bound=bound,
                passed=value is not None and value >= bound,
            )
        )
    return checks
