"""HTML reports of a judge's agreement with human labels and of the compile behind it.

One self-contained file (plotly.js inlined, nothing fetched): headline agreement with
bootstrap intervals (compiled vs uncompiled, per source), confusion matrix, score histograms,
ROC curve, reliability diagram, the Optuna study (Optuna's own plots), the worst
disagreements with the judge's per-statement verdicts and reasons, and LM calls, tokens, time.

Example:
    >>> import ragjudge
    >>> from ragjudge.report import report_judge
    >>> judge = ragjudge.load("judges/faithfulness.json")  # doctest: +SKIP
    >>> rows = ragjudge.load_gold("gold.jsonl")  # doctest: +SKIP
    >>> html = report_judge(judge, rows, gold_name="gold.jsonl")  # doctest: +SKIP
"""

from ragjudge.report._build import baseline_of, build_report, report_judge, write_report
from ragjudge.report._study import rebuild_study, study_figures

__all__ = [
    "baseline_of",
    "build_report",
    "rebuild_study",
    "report_judge",
    "study_figures",
    "write_report",
]
