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

__all__ = [
    "Agreement",
    "RatingAgreement",
    "agreement",
    "auroc",
    "balanced_accuracy",
    "cohen_kappa",
    "f1",
    "krippendorff_alpha",
    "paired_difference",
    "rating_agreement",
]
