"""Learners: what a judge fits on gold rows beyond its policies, for compile.

`JudgeOptimizer` knows no judge. A judge that learns more than its policies from the labels
(the offline judge: its weights, fitted per fold, and its support threshold) hands compile a
`Learner` (through `CompileSpec.learner`; `offline_learner` builds the offline judge's):
compile calls `fit` once on the train rows, judges each tuning row
with its fold's state (`apply(judge, fold=...)`, so the study scores out-of-fold outputs),
searches `search_space(mode)` beside the judge's own policies, and has `finish` put the chosen
values on the judge it builds.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from ragjudge.data._gold import GoldRecord
from ragjudge.offline.model import CrossFit, OfflineParams, cross_fit_offline, fit_offline

if TYPE_CHECKING:
    from optuna.distributions import BaseDistribution

__all__ = ["Fitted", "Learner", "OfflineLearner", "offline_learner"]


class Fitted(Protocol):
    """What a learner reads and puts on a judge (`Judge` has it; this module imports no
    judge, so that the judge's module can hand out learners through its spec)."""

    offline_params_: OfflineParams | None

    def get_params(self) -> dict[str, Any]:
        """The judge's constructor arguments."""
        ...


class Learner:
    """The hook compile fits a judge's learned state through (this base learns nothing)."""

    #: The fold of each train row whose outputs must come from a judge that did not fit it
    #: (None: no cross-fitting, every row judged by `apply(judge)`).
    folds: list[int] | None = None

    def fit(
        self, rows: Sequence[GoldRecord], *, groups: Sequence[str], init: Fitted | None, seed: int
    ) -> None:
        """Fit on the train rows (`init`: the warm-start judge, if any)."""

    def apply(self, judge: Fitted, *, fold: int | None = None) -> None:
        """Put the fitted state (fold `fold`'s, when given) on a candidate judge."""

    def search_space(self, mode: str) -> dict[str, BaseDistribution]:
        """Parameters compile searches beside the judge's policies, in `mode`."""
        return {}

    def start_params(self, init: Fitted) -> dict[str, Any]:
        """The warm-start judge's values of `search_space` (the study's first trial)."""
        return {}

    def finish(self, judge: Fitted, params: dict[str, Any]) -> None:
        """Put the fitted state and the chosen values of `search_space` on the built judge."""
        self.apply(judge)

    def record(self) -> dict[str, Any]:
        """What the compile report keeps of the fit."""
        return {}


class OfflineLearner(Learner):
    """The offline judge's learner: weights cross-fitted per fold and fitted on all train
    rows (`ragjudge.offline.model`), and the support threshold searched in statement mode.

    Args:
        regularization: L2 strength of the weights; None chooses it by grouped
            cross-validation on the train rows.
        head: Train a tree head for the answer model: True, False, or None (kept when
            cross-validation says it ranks answers better).
        paraphrase: Fit with the MiniLM paraphrase evidence.
        support: Search the support threshold in statement mode (False for a judge whose
            offline judge is a member, such as `Cascade`, whose mode is its LM's).
    """

    def __init__(
        self,
        *,
        regularization: float | None = None,
        head: bool | None = None,
        paraphrase: bool,
        support: bool = True,
    ) -> None:
        self.support = support
        self.regularization = regularization
        self.head = head
        self.paraphrase = paraphrase
        self.fitted: OfflineParams | None = None
        self.cross: CrossFit | None = None
        self.support_threshold: float | None = None

    def fit(
        self, rows: Sequence[GoldRecord], *, groups: Sequence[str], init: Fitted | None, seed: int
    ) -> None:
        """Cross-fit the weights (out-of-fold outputs for the study), then fit them on all."""
        start = init.offline_params_ if init is not None else None
        self.cross = cross_fit_offline(
            list(rows),
            groups=list(groups),
            init=start,
            candidates=None if self.regularization is None else [self.regularization],
            seed=seed,
            paraphrase=self.paraphrase,
            head=self.head,
        )
        self.folds = list(self.cross.folds)
        self.fitted = fit_offline(
            list(rows),
            init=start,
            seed=seed,
            regularization=self.cross.regularization,
            paraphrase=self.paraphrase,
            head=self.cross.head,
        )

    def apply(self, judge: Fitted, *, fold: int | None = None) -> None:
        """The fitted weights, or fold `fold`'s cross-fitted ones."""
        if fold is not None and self.cross is not None:
            judge.offline_params_ = self.cross.fold_params[fold]
        elif self.fitted is not None:
            judge.offline_params_ = self.fitted

    def search_space(self, mode: str) -> dict[str, BaseDistribution]:
        """The support threshold, in statement mode."""
        from optuna.distributions import FloatDistribution

        if not (self.support and mode == "statement"):
            return {}
        return {"support_threshold": FloatDistribution(0.05, 0.95)}

    def start_params(self, init: Fitted) -> dict[str, Any]:
        """The warm-start judge's support threshold, in statement mode."""
        if not self.support or init.get_params().get("mode") != "statement":
            return {}
        if init.offline_params_ is None:
            return {}
        return {"support_threshold": init.offline_params_.support_threshold}

    def finish(self, judge: Fitted, params: dict[str, Any]) -> None:
        """The fitted weights, with the chosen support threshold."""
        self.apply(judge)
        support = params.get("support_threshold")
        if support is not None and self.fitted is not None:
            judge.offline_params_ = self.fitted.model_copy(update={"support_threshold": support})
            self.support_threshold = float(support)

    def record(self) -> dict[str, Any]:
        """The regularization and the tree head chosen by cross-validation, and the support
        threshold chosen by the study (where it searched one)."""
        if self.cross is None:
            return {}
        score = self.cross.scores[self.cross.regularization]
        head = self.cross.head_score
        return {
            **(
                {"support_threshold": self.support_threshold}
                if self.support_threshold is not None
                else {}
            ),
            "regularization": self.cross.regularization,
            "head": self.cross.head,
            "head_auroc": None if head is None else round(head, 4),
            "logistic_auroc": None if score is None else round(score, 4),
            "logistic_log_likelihood": round(
                self.cross.log_likelihood[self.cross.regularization], 4
            ),
        }


def offline_learner(judge: Fitted, *, support: bool = True) -> Callable[..., Learner]:
    """The offline judge's learner for `judge`, a judge that scores with the offline judge:
    `(regularization=..., head=...) -> OfflineLearner`, fitted with the MiniLM paraphrase
    evidence where the judge's offline judge uses it.

    Args:
        judge: The judge whose offline weights compile fits.
        support: Search the support threshold in statement mode (see `OfflineLearner`).
    """
    from ragjudge.lm._resolve import LOCAL_MINILM
    from ragjudge.offline.engine import OfflineEngine

    lm = getattr(judge, "lm", None)
    engine = getattr(lm, "engine", None)
    if lm == LOCAL_MINILM:
        paraphrase = True
    elif isinstance(engine, OfflineEngine):
        paraphrase = engine.model.params.paraphrase
    else:
        paraphrase = judge.offline_params_ is not None and judge.offline_params_.paraphrase

    def make(*, regularization: float | None = None, head: bool | None = None) -> Learner:
        return OfflineLearner(
            regularization=regularization, head=head, paraphrase=paraphrase, support=support
        )

    return make
