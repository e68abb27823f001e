"""Judging many rows: the runner (ordered, resumable output) and agreement with the labels."""

from ragjudge.evaluation._evaluate import (
    EvaluationReport,
    agreement_of,
    evaluate,
    evaluation_report,
    gold_label,
    rating_stats,
)
from ragjudge.evaluation._runner import (
    ResumeError,
    read_results,
    result_record,
    run_rows,
    write_results,
)

__all__ = [
    "EvaluationReport",
    "ResumeError",
    "agreement_of",
    "evaluate",
    "evaluation_report",
    "gold_label",
    "rating_stats",
    "read_results",
    "result_record",
    "run_rows",
    "write_results",
]
