"""`CompileSpec`: everything compile needs of a judge, handed over as one object.

`JudgeOptimizer` imports no judge class and reads no judge parameter by name: it asks the
judge for `judge.compile_spec()` and works from that alone. The spec says what the study
searches (`space`, with the pass cut refitted rather than searched: `threshold`), how a raw
output is scored again under a trial's choices (`rescore`, `unit`), what the judge fits
beyond its policies (`learner`), what a row costs in LM calls (`mode_calls`, `own_calls`,
`row_calls`), whether the judge reads demos and calls an LM, which judge compile must beat
(`start`, `start_arm`) and how a trial's choices group into finalists (`arm`, `arm_label`,
`settle`). `Judge.compile_spec` gives the default; a judge whose compile differs
(`Cascade`) hands over a subclass.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from ragjudge.stats._logistic import calibrated

if TYPE_CHECKING:
    import dspy
    from optuna.distributions import BaseDistribution

    from ragjudge.data._gold import GoldRecord
    from ragjudge.programs._learner import Learner
    from ragjudge.programs._results import JudgeResult

__all__ = ["CompileSpec", "DemoAnnotator", "LearnerFactory", "SpecJudge"]


class SpecJudge(Protocol):
    """What a spec asks of its judge (`Judge` has it; this module imports no judge, so that
    `Judge.compile_spec` can hand out a spec)."""

    @property
    def policy_names(self) -> tuple[str, ...]:
        """The parameters `score` reads."""
        ...

    def rescore(self, result: JudgeResult, **policy: Any) -> JudgeResult:
        """A result scored again under other policies."""
        ...

    def clone(self, **overrides: Any) -> Any:
        """The same judge with other parameters (of the judge's own class)."""
        ...


#: The judge a spec describes (`Judge`, for every spec a judge hands out).
J = TypeVar("J", bound=SpecJudge)

#: `(regularization=..., head=...) -> Learner`: the options compile passes a learner.
LearnerFactory = Callable[..., "Learner"]

#: `(row) -> dspy.Example | None`: a labeled gold row as a demo for the judge (`CompileSpec.demo`).
DemoAnnotator = Callable[["GoldRecord"], "dspy.Example | None"]


@dataclass(frozen=True)
class CompileSpec(Generic[J]):
    """What compile needs of one judge (see the module docs).

    Attributes:
        judge: The judge this spec describes (compile's student).
        space: The policies the study searches over cached raw outputs (name ->
            Optuna distribution); changing them needs no new LM call.
        threshold: The policy that is the pass cut on `unit` scores: refitted exactly in every
            trial (never sampled); None when the judge has no cut to fit.
        calibration: The policy that holds a Platt calibration `(a, b)` of the unit score
            (None: the judge takes none). Compile rescores with it unset and fits it last.
        scale: The factor between a result's `score` and its unit score in [0, 1].
        scale_policy: The policy that sets `scale` (None when the judge's scale is fixed): it
            multiplies the score a person reads and changes no verdict and no estimate.
        modes: The modes compile may search (each needs its own raw outputs).
        mode: The judge's own mode (None for a judge without modes).
        calls_lm: False when the judge never makes an LM call (the offline judge, the
            deterministic metrics): nothing it does is charged to `max_lm_calls`.
        reads_demos: True when few-shot demos reach the judge's LM, so compile searches them
            and keeps their rows out of tuning.
        demo: Annotates a labeled gold row as a few-shot demo for the judge's predictors, its
            label in `gold_label` (`ragjudge.programs._demos`); None when the judge takes no
            demos from gold, or the row cannot be annotated soundly.
        calls_by_mode: The most LM calls one row costs in each mode, under any policy.
        learner: Builds what compile fits beyond the policies (`ragjudge.programs._learner`),
            given compile's `regularization` and `head`; None when the judge fits nothing.
        raw_params: Parameters of the judge whose raw outputs every policy of `space` can
            score (a cascade asks its LM on every tuning row); empty for most.
        rescores_any_result: True when a result holds everything any policy needs, so a
            result rescored under another policy equals judging again (the ablation rescores
            the uncompiled judge's outputs under the compiled policies).
        start_arm: The arm of the starting judge when compile tunes it like any finalist
            (a cascade's offline judge alone, its threshold fitted); None: the start is
            compared as it comes.
    """

    judge: J
    space: Mapping[str, BaseDistribution] = field(default_factory=dict)
    threshold: str | None = None
    calibration: str | None = None
    scale: float = 1.0
    scale_policy: str | None = None
    modes: tuple[str, ...] = ()
    mode: str | None = None
    calls_lm: bool = True
    reads_demos: bool = False
    demo: DemoAnnotator | None = None
    calls_by_mode: Mapping[str, int] = field(default_factory=dict)
    learner: LearnerFactory | None = None
    raw_params: Mapping[str, Any] = field(default_factory=dict)
    rescores_any_result: bool = True
    start_arm: str | None = None

    @property
    def refits_threshold(self) -> bool:
        """True when the study refits the pass cut in every trial (it is in `space`)."""
        return self.threshold is not None and self.threshold in self.space

    # -- scoring -----------------------------------------------------------------------------
    def unit(self, result: JudgeResult) -> float:
        """A result's score in [0, 1] (the scale taken off); `UNSCORED` for an error or no
        score (`JudgeResult.unit`)."""
        return result.unit(scale=self.scale)

    def rescore(self, result: JudgeResult, params: Mapping[str, Any]) -> JudgeResult:
        """A result scored again under a trial's choices (its policies among `params`), with
        no calibration: compile fits the calibration after the study."""
        names = self.judge.policy_names
        policy = {k: v for k, v in params.items() if k in names}
        if self.calibration is not None:
            policy[self.calibration] = None
        return self.judge.rescore(result, **policy)

    def calibrated(self, policy: Mapping[str, Any], calibration: tuple[float, float]) -> dict:
        """`policy` with a Platt calibration `(a, b)`: the pass cut moves with it, so every
        verdict stays the same."""
        out = dict(policy)
        if self.calibration is None:
            return out
        if self.threshold is not None and self.threshold in out:
            out[self.threshold] = calibrated(float(out[self.threshold]), calibration)
        out[self.calibration] = list(calibration)
        return out

    # -- cost --------------------------------------------------------------------------------
    def mode_calls(self, mode: str | None) -> int:
        """The most LM calls a row costs in `mode` (the judge's own when None), any policy."""
        if not self.calls_lm:
            return 0
        return int(self.calls_by_mode.get(mode or self.mode or "", 1))

    def own_calls(self) -> int:
        """The most LM calls one row costs this judge as it is (its own mode and policies)."""
        return self.mode_calls(self.mode)

    def row_calls(self, result: JudgeResult, mode: str | None = None) -> float:
        """The LM calls a row costs under the policy that scored `result` (the cost objective
        and `max_lm_calls_per_row`): the calls it made, none for a judge without an LM."""
        del mode
        return float(result.lm_calls) if self.calls_lm else 0.0

    # -- finalists ---------------------------------------------------------------------------
    def arm(self, params: Mapping[str, Any]) -> str:
        """The finalist a trial's parameters belong to: its mode, for most judges."""
        return str(params.get("mode", self.mode or ""))

    def arm_label(self, arm: str) -> str:
        """How compile's finalists table names a tuned arm."""
        return f"tuned, {arm} mode"

    def settle(self, params: dict[str, Any], calls_per_row: float | None) -> dict[str, Any]:
        """The parameters a trial ships with, given what its rows cost: `params`, for most."""
        del calls_per_row
        return params

    def start(self) -> J:
        """The judge compile must beat when it is given none (`init`): this judge as it is."""
        return self.judge

    def offline(self) -> J | None:
        """The same judge on the offline judge's LM, that validation measures beside a judge
        that reads demos; None for others."""
        if not self.reads_demos:
            return None
        from ragjudge.lm._resolve import LOCAL

        return self.judge.clone(lm=LOCAL)
