"""`--fail-under KIND=RATE` for probes: a CI gate on the share of probes a judge holds."""

from __future__ import annotations

import math
from collections.abc import Sequence

from ragjudge.evaluation._gate import GateCheck
from ragjudge.exceptions import ConfigurationError
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
    items = [spec] if isinstance(spec, str) else list(spec)
    bounds: dict[str, float] = {}
    for item in ",".join(items).split(","):
        item = item.strip()
        if not item:
            continue
        kind, sep, text = item.partition("=")
        kind = kind.strip()
        if not sep:
            raise ConfigurationError(f"`fail_under` takes kind=rate, got {item!r}")
        if kind not in kinds and kind not in SIDES:
            raise ConfigurationError(
                f"`fail_under`: unknown probe kind {kind!r}; choose from "
                + ", ".join([*SIDES, *kinds])
            )
        try:
            rate = float(text)
        except ValueError:
            raise ConfigurationError(
                f"`fail_under`: the rate of {kind} must be a number, got {text.strip()!r}"
            ) from None
        if not (math.isfinite(rate) and 0.0 <= rate <= 1.0):
            raise ConfigurationError(
                f"`fail_under`: the rate of {kind} must be in [0, 1], got {text.strip()}"
            )
        bounds[kind] = rate
    if not bounds:
        raise ConfigurationError("`fail_under` names no kind=rate")
    return bounds


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
