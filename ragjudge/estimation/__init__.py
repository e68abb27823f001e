"""Estimating a system's faithful rate from the judge's verdicts and a few labels (PPI++)."""

from ragjudge.estimation._estimate import (
    Comparison,
    Estimate,
    Figure,
    LabelsNeeded,
    Stratum,
    compare_systems,
    estimate,
    load_judge,
)

__all__ = [
    "Comparison",
    "Estimate",
    "Figure",
    "LabelsNeeded",
    "Stratum",
    "compare_systems",
    "estimate",
    "load_judge",
]
