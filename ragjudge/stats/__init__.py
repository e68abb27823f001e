"""Agreement statistics with bootstrap intervals: binary verdicts and ratings."""

from ragjudge.stats._agreement import (
    Agreement,
    RatingAgreement,
    agreement,
    auroc,
    balanced_accuracy,
    cohen_kappa,
    f1,
    krippendorff_alpha,
    paired_difference,
    rating_agreement,
)
from ragjudge.stats._summary import ScoreSummary, mean_interval, score_summary, wilson_interval

__all__ = [
    "Agreement",
    "RatingAgreement",
    "ScoreSummary",
    "agreement",
    "auroc",
    "balanced_accuracy",
    "cohen_kappa",
    "f1",
    "krippendorff_alpha",
    "mean_interval",
    "paired_difference",
    "rating_agreement",
    "score_summary",
    "wilson_interval",
]
