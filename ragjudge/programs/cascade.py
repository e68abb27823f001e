"""A cascade from the offline judge to an LM: the LM judges only the rows the offline judge
finds unclear.

The offline judge scores every row (no LM call). Its score `s` in [0, 1] decides the route:

- `route="offline"`: the offline score is final; no LM call.
- `route="lm"`: the LM judges every row; its probability `q` is final.
- `route="cascade"`: a row whose offline score lies in the band `[low, high]` goes to the LM;
  the others keep the offline score. A row the LM judged scores `low + q * (high - low)`: the LM
  orders the rows of the band among themselves, and a row never moves past one outside the
  band. So the final score is monotone in the offline score outside the band, and an LM that
  only guesses cannot make a band pay by carving out rows the offline score orders badly.
- `route="combined"`: as `"cascade"`, with `weight * q + (1 - weight) * (s - low) / (high -
  low)` in place of `q`: the LM's probability and the offline score's place in the band.

The row passes when the final score is at least `threshold`. `q` is the LM judge's score under
`lm_aggregation` and `lm_unsure` (`"mean"`: its confidence, P(yes) from logprobs where the LM
gives them; `"fraction"`: its verdict). A row whose offline score is missing (no statement it
could check) is unclear: it goes to the LM under `"cascade"` and `"combined"`.

The raw output (`CascadeOutput`) keeps both judges' results; the LM's is None for a row the LM
was not asked about. Compile asks the LM on every tuning row (`CompileSpec.raw_params`), so every
route and band is scored from one set of LM calls; a result judged under a band keeps only the
LM outputs that band needed, and rescoring it under a wider band is an error for the rows it
would send to the LM (`score` says so), never a made-up verdict.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any, ClassVar

import dspy

from ragjudge.exceptions import ConfigurationError
from ragjudge.lm._resolve import LOCAL
from ragjudge.offline.model import OfflineParams
from ragjudge.programs._base import GENERATION_PARAMS, Judge, check_choice, check_inputs
from ragjudge.programs._learner import OfflineLearner
from ragjudge.programs._results import (
    CascadeOutput,
    JudgeResult,
    RawOutput,
    outcome_reason,
    own_verdict,
    reason_text,
)
from ragjudge.programs._serialization import register_judge
from ragjudge.programs._spec import CompileSpec
from ragjudge.programs.faithfulness import AGGREGATIONS, UNSURE, Faithfulness
from ragjudge.stats._threshold import UNSCORED

__all__ = ["ROUTES", "Cascade"]

#: How a cascade decides a row (see the module docs).
ROUTES = ("offline", "lm", "cascade", "combined")
#: The LM judge's modes a cascade can use (rubric ratings are not probabilities).
LM_MODES = ("statement", "whole")
#: The offline judge's parameters by default: whole-answer mode, its confidence as the score
#: (a probability to route on, not a 0/1 verdict).
OFFLINE_DEFAULTS: dict[str, Any] = {"mode": "whole", "aggregation": "mean"}


@register_judge
class Cascade(Judge):
    """Faithfulness from the offline judge, with an LM asked only where the offline judge is
    unclear (see the module docs for the routes).

    Args:
        mode: The LM judge's mode: `"whole"` (one call a row) or `"statement"` (two).
        route: `"offline"`, `"lm"`, `"cascade"` or `"combined"`.
        low: The lower end of the band of offline scores sent to the LM.
        high: The upper end of that band (given in either order, the two are kept sorted:
            compile searches them independently).
        weight: The LM's weight in a `"combined"` score (0: the offline score, 1: the LM's).
        threshold: Pass when the final score is at least this.
        lm_aggregation: How the LM judge's output becomes its probability (`Faithfulness`'s
            `aggregation`: `"mean"` reads its confidence, `"fraction"` its verdict).
        lm_unsure: How the LM judge counts an "unsure" statement (statement mode).
        lm: The LM: a model string such as `"openai/gpt-4o-mini"`, a `dspy.LM`, or None (the
            configured LM).
        offline: The offline judge's parameters (`Faithfulness`, without `lm`); None: whole
            mode scored by its confidence.
        lm_params: Other parameters of the LM judge (`max_tokens`, `temperature`, `timeout`).

    Example:
        >>> from ragjudge.testing import scripted_lm
        >>> lm, _ = scripted_lm([{"reasoning": "r", "verdict": "no", "confidence": 0.1}])
        >>> judge = Cascade(lm=lm, low=0.0, high=1.0)
        >>> r = judge(contexts=["Einstein was born in Ulm in 1879."],
        ...           answer="Einstein was born in Berlin.")
        >>> r.details["routed"], r.passed, r.lm_calls
        (True, False, 1)
    """

    metric: ClassVar[str] = "faithfulness"
    metric_option: ClassVar[str | None] = None
    modes: ClassVar[tuple[str, ...]] = LM_MODES
    memoize_results: ClassVar[bool] = False  # two judges decide a result
    needs_contexts: ClassVar[bool] = True
    policy_names: ClassVar[tuple[str, ...]] = (
        "route",
        "low",
        "high",
        "weight",
        "threshold",
        "lm_aggregation",
        "lm_unsure",
    )

    def __init__(
        self,
        *,
        mode: str = "whole",
        route: str = "cascade",
        low: float = 0.3,
        high: float = 0.7,
        weight: float = 0.5,
        threshold: float = 0.5,
        lm_aggregation: str = "mean",
        lm_unsure: str = "unsupported",
        lm: str | dspy.BaseLM | None = None,
        offline: dict[str, Any] | None = None,
        lm_params: dict[str, Any] | None = None,
    ) -> None:
        super().__init__()
        owner = "Cascade"
        check_choice(owner, "mode", mode, LM_MODES)
        check_choice(owner, "route", route, ROUTES)
        check_choice(owner, "lm_aggregation", lm_aggregation, AGGREGATIONS)
        check_choice(owner, "lm_unsure", lm_unsure, UNSURE)
        bounded = {"low": low, "high": high, "weight": weight, "threshold": threshold}
        for name, value in bounded.items():
            if not 0.0 <= float(value) <= 1.0:
                raise ConfigurationError(
                    f"The `{name}` parameter of {owner} must be in [0, 1]. Got {value!r} instead."
                )
        if offline is not None and "lm" in offline:
            raise ConfigurationError(
                f"The `offline` parameter of {owner} holds the offline judge's other parameters; "
                "its LM is always the offline judge"
            )
        taken = sorted({"lm", "mode", "aggregation", "unsure"} & set(lm_params or {}))
        if taken:
            raise ConfigurationError(
                f"The `lm_params` parameter of {owner} cannot set {', '.join(taken)}: pass them "
                "as the cascade's lm=, mode=, lm_aggregation= and lm_unsure="
            )
        self.mode = mode
        self.route = route
        self.low, self.high = min(low, high), max(low, high)  # either order: a band
        self.weight = weight
        self.threshold = threshold
        self.lm_aggregation = lm_aggregation
        self.lm_unsure = lm_unsure
        self.lm = lm
        self.offline = offline
        self.lm_params = lm_params
        try:
            self.offline_judge = Faithfulness(**{**OFFLINE_DEFAULTS, **(offline or {})}, lm=LOCAL)
            self.lm_judge = Faithfulness(
                **(lm_params or {}),
                mode=mode,  # type: ignore[arg-type]
                aggregation=lm_aggregation,  # type: ignore[arg-type]
                unsure=lm_unsure,  # type: ignore[arg-type]
                lm=lm,
            )
        except TypeError as exc:
            raise ConfigurationError(f"Invalid member parameters for {owner}: {exc}") from None

    @classmethod
    def of(cls, offline: Judge, *, lm: str | dspy.BaseLM | None = None, **params: Any) -> Cascade:
        """A cascade whose offline judge is `offline` (a compiled offline judge, say): its
        parameters and fitted weights.

        Args:
            offline: A `Faithfulness` judge on the offline judge.
            lm: The LM of the cascade.
            **params: The cascade's other parameters (`mode`, `route`, `low`, ...).

        Returns:
            The cascade.
        """
        if not isinstance(offline, Faithfulness) or not offline.runs_offline():
            raise ConfigurationError(
                "Cascade.of() takes a Faithfulness judge on the offline judge (lm='local')"
            )
        kept = {
            k: v for k, v in offline.get_params().items() if k not in ("lm", *GENERATION_PARAMS)
        }
        cascade = cls(lm=lm, offline=kept, **params)
        cascade.offline_judge.load_state(offline.dump_state())
        return cascade

    # -- the offline judge's fitted weights are the cascade's ---------------------------------
    @property
    def offline_params_(self) -> OfflineParams | None:
        """The offline judge's fitted weights (compile fits them through `learner`)."""
        return self.offline_judge.offline_params_

    @offline_params_.setter
    def offline_params_(self, value: OfflineParams | None) -> None:
        self.offline_judge.offline_params_ = value

    # -- judging ---------------------------------------------------------------------------
    def band(self, p: Mapping[str, Any] | None = None) -> tuple[float, float]:
        """The band of offline scores sent to the LM under policies `p` (default: own)."""
        p = self.policy() if p is None else p
        low, high = float(p["low"]), float(p["high"])
        return min(low, high), max(low, high)

    def runs_offline(self) -> bool:
        """True on the offline route (the LM is never asked), else when the LM is offline."""
        return self.route == "offline" or super().runs_offline()

    def needs_lm(self, offline_score: float, p: Mapping[str, Any] | None = None) -> bool:
        """True when a row with this offline score goes to the LM under policies `p`."""
        p = self.policy() if p is None else p
        if p["route"] == "offline":
            return False
        if p["route"] == "lm" or math.isnan(offline_score):
            return True
        low, high = self.band(p)
        return low <= offline_score <= high

    def raw_item(
        self,
        *,
        answer: str,
        contexts: Sequence[str] | str = (),
        question: str = "",
        reference: str | None = None,
    ) -> CascadeOutput:
        """Both judges' results (the LM's only where this cascade's route needs it)."""
        inputs = {"answer": answer, "contexts": contexts, "question": question}
        offline = self.offline_judge(**inputs)
        needed = self.needs_lm(_unit(offline, self.offline_judge))
        lm = self.lm_judge(**inputs) if needed else None
        return CascadeOutput(offline=offline, lm=lm)

    def forward(self, **inputs: Any) -> JudgeResult:
        """Judge one item; each member counts its own calls (never raises for LM failures)."""
        check_inputs(self, inputs)
        if "answer" not in inputs:
            raise TypeError("Cascade() missing required keyword argument: 'answer'")
        return self.judge_item(**inputs)

    # -- scoring -----------------------------------------------------------------------------
    def score(self, raw: RawOutput, policy: Mapping[str, Any]) -> JudgeResult:
        """The result of both judges' outputs under `policy` (see the module docs).

        `lm_calls` and `tokens` are the LM's where the row goes to it, else 0: what this
        policy spends on the row. `details` records the route, whether the row went to the
        LM, and both scores.
        """
        if not isinstance(raw, CascadeOutput):
            raise TypeError(f"Cascade cannot score a {type(raw).__name__}")
        p = dict(policy)
        offline = raw.offline
        if offline.error:
            return self._failed(raw, f"offline judge: {offline.error}")
        s = _unit(offline, self.offline_judge)
        routed = self.needs_lm(s, p)
        details: dict[str, Any] = {"route": p["route"], "routed": routed, "offline_score": s}
        if not routed:
            return self._final(raw, s, p, offline, details, lm_used=False)
        if raw.lm is None:
            return self._failed(
                raw,
                "the LM was not asked about this row under the band it was judged with; "
                "judge it again under this policy",
            )
        if raw.lm.error:
            return self._failed(raw, raw.lm.error, lm=raw.lm)
        lm_result = self.lm_judge.rescore(
            raw.lm, aggregation=p["lm_aggregation"], unsure=p["lm_unsure"], threshold=0.5
        )
        q = _unit(lm_result, self.lm_judge)
        details["lm_score"] = None if math.isnan(q) else q
        value = _in_band(s, q, p, self.band(p))
        return self._final(raw, value, p, lm_result, details, lm_used=True)

    def _final(
        self,
        raw: CascadeOutput,
        value: float,
        p: Mapping[str, Any],
        decider: JudgeResult,
        details: dict[str, Any],
        *,
        lm_used: bool,
    ) -> JudgeResult:
        passed = None if math.isnan(value) else value >= float(p["threshold"])
        lm = raw.lm if lm_used else None
        if lm_used:
            low, high = self.band(p)
            why = (
                "the LM judged it"
                if p["route"] == "lm"
                else f"offline score {_shown(details['offline_score'])} in the band "
                f"[{low:.2f}, {high:.2f}], so the LM judged it"
            )
            if p["route"] == "combined":
                why += f" (combined, LM weight {float(p['weight']):.2f})"
        else:
            why = "the offline judge decided it" + (
                "" if p["route"] == "offline" else " (outside the band)"
            )
        text = f"{why}; {reason_text(decider)}".strip("; ")
        reason = outcome_reason(
            score=value,
            passed=passed,
            threshold=float(p["threshold"]),
            text=text,
            verdict=own_verdict(decider),
        )
        return JudgeResult(
            metric=self.metric,
            score=value,
            passed=passed,
            mode="cascade",
            reason=reason,
            statements=list(decider.statements),
            confidence=None if math.isnan(value) else value,
            confidence_source=decider.confidence_source if lm_used else None,
            details=details,
            raw=raw,
            lm_calls=lm.lm_calls if lm is not None else 0,
            tokens=lm.tokens if lm is not None else 0,
            lm_stats=lm.lm_stats if lm is not None else None,
            offline=not lm_used,
        )

    def _failed(
        self, raw: CascadeOutput, error: str, *, lm: JudgeResult | None = None
    ) -> JudgeResult:
        return JudgeResult(
            metric=self.metric,
            mode="cascade",
            error=error,
            raw=raw,
            lm_calls=0 if lm is None else lm.lm_calls,
            tokens=0 if lm is None else lm.tokens,
        )

    def rescore(self, result: JudgeResult, **policy: Any) -> JudgeResult:
        """Score a result's raw output again under other policies (no LM call); `lm_calls`
        and `tokens` become what those policies spend (see `score`)."""
        unknown = sorted(set(policy) - set(self.policy_names))
        if unknown:
            raise TypeError(f"Cascade.rescore() got unknown policies {unknown}")
        if not isinstance(result.raw, CascadeOutput):
            return result
        return self.score(result.raw, {**self.policy(), **policy}).model_copy(
            update={"id": result.id}
        )

    def compile_spec(self) -> CompileSpec[Judge]:
        """What compile needs of a cascade (`CascadeSpec`): the route, the band, the LM's
        weight, the threshold and the LM judge's scoring searched; the offline judge's
        weights fitted (cross-fitted per fold); the LM asked on every tuning row, so that
        every route and band is scored from one set of LM calls; the offline judge alone, its
        threshold tuned, as the start."""
        from optuna.distributions import CategoricalDistribution, FloatDistribution

        space = {
            "route": CategoricalDistribution(ROUTES),
            "low": FloatDistribution(0.0, 1.0),
            "high": FloatDistribution(0.0, 1.0),
            "weight": FloatDistribution(0.0, 1.0),
            "threshold": FloatDistribution(0.0, 1.0),
            "lm_aggregation": CategoricalDistribution(("fraction", "mean")),
            "lm_unsure": CategoricalDistribution(UNSURE),
        }
        lm = self.lm_judge.compile_spec()
        base = super().compile_spec()
        return CascadeSpec(
            **{f.name: getattr(base, f.name) for f in fields(base)}
            | {
                "space": space,
                "calls_lm": lm.calls_lm,
                "calls_by_mode": {m: lm.mode_calls(m) for m in LM_MODES},
                "learner": functools.partial(OfflineLearner, paraphrase=False, support=False),
                "raw_params": {"route": "lm"},
                "rescores_any_result": False,
                "demo": lm.demo,
                "start_arm": OFFLINE_ARM,
            }
        )


#: The arm of a cascade's trials that never ask the LM (whatever the LM's mode).
OFFLINE_ARM = "offline"


@dataclass(frozen=True)
class CascadeSpec(CompileSpec[Judge]):
    """A cascade's compile: trials group by route and LM mode; a row costs the LM's calls
    where its offline score sends it to the LM; the offline judge alone is the start."""

    def own_calls(self) -> int:
        """No call on the offline route; else the LM judge's calls for a row sent to it."""
        judge = self.judge
        assert isinstance(judge, Cascade)
        return 0 if judge.route == "offline" else self.mode_calls(judge.mode)

    def row_calls(self, result: JudgeResult, mode: str | None = None) -> float:
        """The LM judge's calls per row where the row goes to the LM, else none."""
        return float(self.mode_calls(mode)) if result.details.get("routed") else 0.0

    def arm(self, params: Mapping[str, Any]) -> str:
        """`"offline"` (no LM, whatever the LM's mode), else the route and the LM's mode,
        e.g. `"cascade:whole"`."""
        judge = self.judge
        assert isinstance(judge, Cascade)
        route = params.get("route", judge.route)
        return OFFLINE_ARM if route == "offline" else f"{route}:{params.get('mode', judge.mode)}"

    def arm_label(self, arm: str) -> str:
        """`"tuned, offline"`, or the route and the LM's mode."""
        route, _, mode = arm.partition(":")
        return f"tuned, {route} route, {mode} mode" if mode else f"tuned, {arm}"

    def settle(self, params: dict[str, Any], calls_per_row: float | None) -> dict[str, Any]:
        """A route whose band sent no tuning row to the LM ships as the offline judge alone:
        it scored those rows the same, and it never sends a new row to the LM."""
        if params.get("route") in ("cascade", "combined") and calls_per_row == 0:
            return {**params, "route": "offline"}
        return params

    def start(self) -> Judge:
        """What compile must beat: the offline judge alone. An LM is worth its calls only when
        a route that uses it agrees better, out of fold, by more than the noise."""
        return self.judge.clone(route="offline")


def _in_band(s: float, q: float, p: Mapping[str, Any], band: tuple[float, float]) -> float:
    """The final score of a row the LM judged: its probability `q` (with the offline score
    `s`, combined) placed inside the band, so that the LM orders the rows of the band among
    themselves and never moves a row past one outside it; the whole range for `route="lm"`."""
    if math.isnan(q):
        return math.nan
    low, high = (0.0, 1.0) if p["route"] == "lm" else band
    inside = q
    if p["route"] == "combined" and not math.isnan(s) and high > low:
        weight = float(p["weight"])
        inside = weight * q + (1.0 - weight) * (s - low) / (high - low)
    return low + inside * (high - low)


def _unit(result: JudgeResult, judge: Faithfulness) -> float:
    """A member's unit score (`JudgeResult.unit`), NaN when it has none: a score the cascade
    builds its own from, and a result's missing score is NaN."""
    unit = result.unit(scale=judge.scale)
    return math.nan if unit == UNSCORED else unit


def _shown(value: float) -> str:
    return "none" if math.isnan(value) else f"{value:.2f}"
