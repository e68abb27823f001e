"""A CI gate: lower bounds on an evaluation's figures (`ragjudge evaluate --fail-under`)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import pydantic

from ragjudge.evaluation._evaluate import EvaluationReport
from ragjudge.exceptions import ConfigurationError
from ragjudge.programs._results import JudgeResult
from ragjudge.stats._summary import wilson_interval

__all__ = [
    "FIGURES",
    "LABEL_FIGURES",
    "GateCheck",
    "check_bounds",
    "parse_bounds",
    "parse_named_bounds",
    "pass_rate",
]

#: Figures that need labeled rows, by the name `--fail-under` takes -> the report's name.
LABEL_FIGURES = {
    "balanced_accuracy": "balanced_accuracy",
    "kappa": "cohen_kappa",
    "auroc": "auroc",
    "f1": "f1",
}
#: Every figure `--fail-under` takes.
FIGURES = ("pass_rate", *LABEL_FIGURES)


class GateCheck(pydantic.BaseModel):
    """One bound checked against one figure.

    Attributes:
        metric: The judge's metric (`faithfulness`, ...).
        figure: The figure's name as given (`pass_rate`, `kappa`, ...).
        value: The measured value; None when it is undefined (e.g. AUROC on one class).
        ci: Its 95% interval.
        bound: The lower bound.
        passed: `value >= bound`; an undefined value fails.
    """

    metric: str
    figure: str
    value: float | None
    ci: list[float | None]
    bound: float
    passed: bool

    def line(self) -> str:
        """One line for a person: figure, value, interval and bound."""
        shown = "undefined" if self.value is None else f"{self.value:.3f}"
        low, high = self.ci if len(self.ci) == 2 else (None, None)
        interval = "" if low is None or high is None else f" [95% CI {low:.3f}, {high:.3f}]"
        relation = ">=" if self.passed else "is below"
        return f"{self.metric} {self.figure} {shown}{interval} {relation} the bound {self.bound:g}"


def parse_bounds(spec: str | Sequence[str]) -> dict[str, float]:
    """Parse `--fail-under pass_rate=0.9,balanced_accuracy=0.8` (several flags may be given).

    Args:
        spec: `figure=bound` pairs separated by commas, or a list of such strings.

    Returns:
        figure -> bound, for figures of `FIGURES` and bounds in [0, 1] (kappa: [-1, 1]).

    Raises:
        ConfigurationError: For an unknown figure or a malformed or out-of-range bound.

    Example:
        >>> parse_bounds("pass_rate=0.9,kappa=0.6")
        {'pass_rate': 0.9, 'kappa': 0.6}
    """
    return parse_named_bounds(
        spec,
        choices=FIGURES,
        name="figure",
        value="bound",
        unknown="unknown figure",
        low=lambda figure: -1.0 if figure == "kappa" else 0.0,
    )


def parse_named_bounds(
    spec: str | Sequence[str],
    *,
    choices: Sequence[str],
    name: str,
    value: str,
    unknown: str,
    low: Callable[[str], float] = lambda _: 0.0,
) -> dict[str, float]:
    """Parse `name=value` pairs (a `--fail-under` of any command): each name one of
    `choices`, each value a number in [`low(name)`, 1]; errors say `name`, `value` and
    `unknown` as the command calls them."""
    items = [spec] if isinstance(spec, str) else list(spec)
    bounds: dict[str, float] = {}
    for item in ",".join(items).split(","):
        item = item.strip()
        if not item:
            continue
        key, sep, text = item.partition("=")
        key = key.strip()
        if not sep:
            raise ConfigurationError(f"`fail_under` takes {name}={value}, got {item!r}")
        if key not in choices:
            raise ConfigurationError(
                f"`fail_under`: {unknown} {key!r}; choose from {', '.join(choices)}"
            )
        try:
            bound = float(text)
        except ValueError:
            raise ConfigurationError(
                f"`fail_under`: the {value} of {key} must be a number, got {text.strip()!r}"
            ) from None
        floor = low(key)
        if not (math.isfinite(bound) and floor <= bound <= 1.0):
            raise ConfigurationError(
                f"`fail_under`: the {value} of {key} must be in [{floor:g}, 1], got {text.strip()}"
            )
        bounds[key] = bound
    if not bounds:
        raise ConfigurationError(f"`fail_under` names no {name}={value}")
    return bounds


def pass_rate(results: Sequence[JudgeResult]) -> tuple[float, list[float | None]]:
    """The share of rows that passed, with its 95% Wilson interval.

    Rows with an error or no score did not pass: a gate never counts them in its favour.

    Example:
        >>> rate, ci = pass_rate([JudgeResult(score=1.0, passed=True), JudgeResult()])
        >>> rate
        0.5
    """
    n = len(results)
    if not n:
        return math.nan, [None, None]
    k = sum(1 for r in results if r.passed is True and r.error is None)
    return k / n, wilson_interval(k, n)


def check_bounds(
    bounds: dict[str, float],
    *,
    results: Sequence[JudgeResult],
    report: EvaluationReport,
) -> list[GateCheck]:
    """Check each bound against the figures of one evaluation.

    Args:
        bounds: `parse_bounds` output.
        results: The per-row results (for `pass_rate`).
        report: The evaluation's report (for the label figures).

    Returns:
        One check per bound, in the order given.

    Raises:
        ConfigurationError: For a label figure when no row carried a label.
    """
    checks = []
    for figure, bound in bounds.items():
        if figure == "pass_rate":
            value: float | None
            value, ci = pass_rate(results)
            value = None if math.isnan(value) else value
        else:
            a = report.agreement
            if a is None:
                raise ConfigurationError(
                    f"`fail_under` {figure} needs labeled rows, and no row was both labeled and "
                    "scored; use pass_rate, or add labels"
                )
            name = LABEL_FIGURES[figure]
            value, ci = getattr(a, name), list(a.ci.get(name, [None, None]))
        passed = value is not None and value >= bound
        checks.append(
            GateCheck(
                metric=report.metric, figure=figure, value=value, ci=ci, bound=bound, passed=passed
            )
        )
    return checks
