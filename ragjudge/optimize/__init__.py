"""Compiling judges against gold labels: splits, demos, the Optuna study, the report."""

from ragjudge.optimize._compile import OBJECTIVES, compile_judge
from ragjudge.optimize._optimizer import CompileState, JudgeOptimizer
from ragjudge.optimize._report import CompileReport, StudySummary, TrialRecord
from ragjudge.optimize._split import split_gold

compile = compile_judge

__all__ = [
    "OBJECTIVES",
    "CompileReport",
    "CompileState",
    "JudgeOptimizer",
    "StudySummary",
    "TrialRecord",
    "compile",
    "compile_judge",
    "split_gold",
]
