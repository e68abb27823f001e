"""Repeats and ensembles: ask one judge several times, or several LMs, and aggregate.

Each repeat after the first runs on a copy of the LM with its own `rollout_id` (DSPy 3.4.1 puts
every LM keyword, `rollout_id` included, into the response-cache key, and strips `rollout_id`
before the request is sent), at a non-zero temperature, so repeats are distinct requests that
are each cached. The first repeat uses the LM unchanged, so it shares cache entries with a
plain, unrepeated run.

Aggregation follows the kind of score the judge gives: the median of 1-5 ratings (rubric
modes), the share of members that say yes (faithfulness whole mode), the mean of ratios
(statement modes, relevancy questions). The aggregate is one unit score, and the ensemble
passes when it (calibrated, where the judge has a calibration) is at least the threshold: the
cut compile refits on unit scores is the cut the ensemble applies. The result keeps every
member's full result, its score and the spread in `JudgeResult.details`, so compiling can
re-score members under other policies without LM calls (`rescore`).
"""

from __future__ import annotations

import math
import os
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, ClassVar

import dspy
from dspy.utils.usage_tracker import track_usage

from ragjudge.exceptions import ConfigurationError, SerializationError
from ragjudge.lm._adapters import lm_errors_so_far
from ragjudge.lm._resolve import describe_lm, resolve_lm
from ragjudge.offline.model import OfflineParams
from ragjudge.programs._base import Judge, _usage_counts
from ragjudge.programs._results import (
    JudgeResult,
    MemberOutput,
    MembersOutput,
    RawOutput,
    outcome_reason,
)
from ragjudge.programs._serialization import register_judge, registry
from ragjudge.programs._spec import CompileSpec
from ragjudge.programs.relevancy import is_offline_lm
from ragjudge.signatures.rubric import rubric_fraction
from ragjudge.stats._logistic import calibrated
from ragjudge.stats._threshold import unit_score

__all__ = ["Ensemble", "aggregation_kind"]

#: How each kind of score is aggregated: a whole-answer verdict by the share of members that say
#: yes (the mean of their unit scores), a ratio by the mean, a rubric rating by the median.
KINDS = {"rubric": "median", "verdict": "share", "ratio": "mean"}


def aggregation_kind(mode: str) -> str:
    """The kind of score a judge mode gives: `"rubric"`, `"verdict"` (whole mode) or `"ratio"`.

    Example:
        >>> aggregation_kind("rubric"), aggregation_kind("whole"), aggregation_kind("statement")
        ('rubric', 'verdict', 'ratio')
    """
    if mode == "rubric":
        return "rubric"
    if mode == "whole":
        return "verdict"
    return "ratio"


@register_judge
class Ensemble(Judge):
    """One judge asked several times (`repeat`) and/or with several LMs (`lms`), aggregated.

    Args:
        judge: The registered judge class to repeat, e.g. `"Faithfulness"`.
        params: That judge's parameters (without `lm`), e.g. `{"mode": "rubric"}`.
        mode: Overrides `params["mode"]` (so compiling can search modes of an ensemble).
        repeat: How many times each LM is asked (distinct cache keys, see the module docs).
        lms: The member LMs (model strings, `"local"` or `dspy.LM`s); None: `lm`, else the
            configured LM, else the offline judge.
        temperature: Temperature of the repeats after the first (0 makes repeats identical
            on deterministic providers).
        lm: The LM used when `lms` is None.

    Example:
        >>> ens = Ensemble(judge="Faithfulness", params={"mode": "rubric"}, repeat=3, lm="local")
        >>> r = ens(question="Where was Einstein born?",
        ...         contexts=["Albert Einstein was born in Ulm, Germany, in 1879."],
        ...         answer="Einstein was born in Ulm.")
        >>> r.details["aggregation"], len(r.details["members"])
        ('median', 3)
    """

    memoize_results: ClassVar[bool] = False  # several LMs decide a result

    metric: ClassVar[str] = "ensemble"
    metric_option: ClassVar[str | None] = None
    modes: ClassVar[tuple[str, ...]] = ()

    def __init__(
        self,
        *,
        judge: str = "Faithfulness",
        params: dict[str, Any] | None = None,
        mode: str | None = None,
        repeat: int = 1,
        lms: Sequence[str | dspy.BaseLM] | None = None,
        temperature: float = 1.0,
        lm: str | dspy.BaseLM | None = None,
    ) -> None:
        super().__init__()
        classes = registry()
        if judge not in classes or judge == "Ensemble":
            known = ", ".join(sorted(k for k in classes if k != "Ensemble"))
            raise ConfigurationError(
                f"The `judge` parameter of Ensemble must name a registered judge ({known}). "
                f"Got {judge!r} instead."
            )
        if not isinstance(repeat, int) or repeat < 1:
            raise ConfigurationError(
                f"The `repeat` parameter of Ensemble must be a positive integer. Got {repeat!r}."
            )
        if lms is not None and len(lms) == 0:
            raise ConfigurationError(
                "The `lms` parameter of Ensemble must name at least one LM, or be None."
            )
        if not 0.0 <= float(temperature) <= 2.0:
            raise ConfigurationError(
                f"The `temperature` parameter of Ensemble must be in [0, 2]. Got {temperature!r}."
            )
        inner_params = dict(params or {})
        if "lm" in inner_params:
            raise ConfigurationError(
                "Pass the LM of an Ensemble as lm=... or lms=[...], not inside params"
            )
        if mode is not None:
            inner_params["mode"] = mode
        self.judge = judge
        self.params = params
        self.mode = mode
        self.repeat = repeat
        self.lms = lms
        self.temperature = temperature
        self.lm = lm
        self.offline_params_: OfflineParams | None = None
        try:
            self.inner: Judge = classes[judge](**inner_params)
        except TypeError as exc:
            raise ConfigurationError(f"Invalid params for {judge}: {exc}") from None
        # The ensemble reports the repeated judge's metric and searches its modes.
        self.metric = self.inner.metric  # type: ignore[misc]
        self.modes = type(self.inner).modes  # type: ignore[misc]

    @classmethod
    def of(
        cls,
        judge: Judge,
        *,
        repeat: int = 1,
        lms: Sequence[str | dspy.BaseLM] | None = None,
        temperature: float = 1.0,
    ) -> Ensemble:
        """An ensemble of an existing judge (its parameters, demos and learned state).

        Args:
            judge: The judge to repeat.
            repeat: Times each LM is asked.
            lms: Member LMs; None: the judge's own LM.
            temperature: Temperature of repeats after the first.

        Returns:
            The ensemble.

        Example:
            >>> from ragjudge.programs import Faithfulness
            >>> Ensemble.of(Faithfulness(mode="rubric"), repeat=3).inner.mode
            'rubric'
        """
        params = {k: v for k, v in judge.get_params().items() if k not in ("lm", "mode")}
        mode = getattr(judge, "mode", None)
        ens = cls(
            judge=type(judge).__name__,
            params=params,
            mode=None if mode is None else str(mode),
            repeat=repeat,
            lms=lms,
            temperature=temperature,
            lm=judge.lm,
        )
        ens.inner.load_state(judge.dump_state())
        ens.offline_params_ = judge.offline_params_
        return ens

    @property
    def scale(self) -> float:
        """The scale of this ensemble's scores: the repeated judge's (`score` is the aggregate
        in [0, 1] times it), read by whatever puts a score back in [0, 1]."""
        return float(getattr(self.inner, "scale", 1.0) or 1.0)

    def _member_lms(self) -> list[dspy.BaseLM]:
        specs: Sequence[str | dspy.BaseLM | None] = self.lms if self.lms is not None else [self.lm]
        params = self.offline_params_ or self.inner.offline_params_
        return [resolve_lm(spec, offline_params=params) for spec in specs]

    def forward(self, **inputs: Any) -> JudgeResult:
        """Judge one item with every member (recall needs no `answer=`, like `ContextRecall`)."""
        if self.inner.metric == "context_recall":
            inputs.setdefault("answer", "")
        return super().forward(**inputs)

    def judge_item(self, **inputs: Any) -> JudgeResult:
        """Ask every member LM `repeat` times and aggregate (see the class docstring)."""
        return self.score(self.raw_item(**inputs), self.policy())

    def raw_item(self, **inputs: Any) -> MembersOutput:
        """Every member's result, each with its raw output (the LM calls)."""
        members: list[MemberOutput] = []
        for base in self._member_lms():
            for index in range(self.repeat):
                member_lm = base
                if index > 0:
                    member_lm = base.copy(rollout_id=index, temperature=self.temperature)
                raised = lm_errors_so_far()
                with dspy.context(lm=member_lm), track_usage() as usage:
                    try:
                        result = self.inner.judge_item(**inputs)
                    except (KeyboardInterrupt, SystemExit):
                        raise
                    except Exception as exc:  # one failed member must not sink the ensemble
                        text = str(exc).strip().splitlines()
                        result = JudgeResult(
                            metric=self.inner.metric,
                            mode=str(getattr(self.inner, "mode", "")),
                            error=f"{type(exc).__name__}: {text[0][:300] if text else ''}",
                        )
                calls, tokens = _usage_counts(usage.usage_data)
                calls += lm_errors_so_far() - raised  # cut replies are calls too
                result = result.model_copy(update={"lm_calls": calls, "tokens": tokens})
                members.append(
                    MemberOutput(
                        lm=describe_lm(member_lm),
                        repeat=index,
                        offline=is_offline_lm(member_lm),
                        result=result,
                    )
                )
        return MembersOutput(members=members)

    def policy(self) -> dict[str, Any]:
        """The repeated judge's policies (each member is scored under them)."""
        return self.inner.policy()

    @property
    def policy_names(self) -> tuple[str, ...]:  # type: ignore[override]
        """The repeated judge's policy names."""
        return self.inner.policy_names

    def runs_offline(self) -> bool:
        """True when every member LM is the offline judge (each member LM under the repeated
        judge's own rule, `Judge.runs_offline`): one member on a language model makes LM
        calls."""
        if not self.inner.uses_lm:
            return self.inner.runs_offline()
        specs = self.lms if self.lms is not None else [self.lm]
        return all(self.inner.clone(lm=spec).runs_offline() for spec in specs)

    def clone(self, **overrides: Any) -> Judge:
        """A new ensemble; overrides of the repeated judge's parameters go into `params`."""
        own = set(self._param_names())
        inner = {k: v for k, v in overrides.items() if k not in own}
        params = {k: v for k, v in overrides.items() if k in own}
        if inner:
            params["params"] = {**(self.params or {}), **params.get("params", {}), **inner}
            if "mode" in inner:
                params["mode"] = params["params"].pop("mode")
        return super().clone(**params)

    def score(self, raw: RawOutput, policy: Mapping[str, Any]) -> JudgeResult:
        """Every member scored under the repeated judge's `policy`, then aggregated.

        Each member keeps its own result under the whole policy (its verdict as a lone judge
        would give it); the aggregate is taken of the members' uncalibrated unit scores, and the
        calibration and the pass cut apply to the aggregate once, as they do to one judge's
        score: the ensemble passes exactly when its calibrated unit score is at least the
        threshold (the cut compile refits, `CompileSpec.threshold`).

        Args:
            raw: The members (`MembersOutput`).
            policy: A value for every policy name of the repeated judge.

        Returns:
            The aggregated result; `details` keeps the members, their scores and the spread.
        """
        if not isinstance(raw, MembersOutput):
            raise TypeError(f"Ensemble cannot score a {type(raw).__name__}")
        inner_policy = {k: v for k, v in policy.items() if k in self.inner.policy_names}
        calibration = inner_policy.get("calibration")
        records = [
            {
                "lm": m.lm,
                "repeat": m.repeat,
                "offline": m.offline,
                "result": self.inner.rescore(m.result, **inner_policy).model_dump(mode="json"),
            }
            for m in raw.members
        ]
        units = None
        if calibration is not None:  # the members' scores before any calibration
            plain = {**inner_policy, "calibration": None}
            units = [self.inner.rescore(m.result, **plain) for m in raw.members]
        return self.aggregate(
            records, threshold=policy.get("threshold"), calibration=calibration, uncalibrated=units
        ).model_copy(update={"raw": raw})

    def legacy_raw(self, result: JudgeResult) -> RawOutput | None:
        """A result of results format 1 (no `raw`): its members in `details`."""
        members = result.details.get("members")
        if not members:
            return None
        return MembersOutput(
            members=[
                MemberOutput(
                    lm=str(m.get("lm", "")),
                    repeat=int(m.get("repeat", 0)),
                    offline=bool(m.get("offline")),
                    result=JudgeResult.from_json_data(m["result"]),
                )
                for m in members
            ]
        )

    def aggregate(
        self,
        members: Sequence[dict[str, Any]],
        *,
        threshold: float | None = None,
        calibration: Sequence[float] | None = None,
        uncalibrated: Sequence[JudgeResult] | None = None,
    ) -> JudgeResult:
        """Aggregate scored member records into one result.

        The aggregate is a unit score in [0, 1]: the median rating (rubric modes) as a
        fraction, else the mean of the members' unit scores (a whole-answer verdict counts 1
        for yes and 0 for no, or its confidence under `aggregation="mean"`: then the mean is
        the share of members that say yes). The result passes exactly when that unit score,
        calibrated, is at least `threshold`: one cut on one score, as compile fits it.

        Args:
            members: `{"lm", "repeat", "offline", "result"}` records, `result` a dumped
                `JudgeResult` of the repeated judge, already scored.
            threshold: The pass threshold of the aggregate (None: the repeated judge's).
            calibration: The Platt calibration `(a, b)` of the aggregate (None: none).
            uncalibrated: The members' results scored without the calibration, in the order
                of `members` (None: `members` are uncalibrated).

        Returns:
            The aggregated result; `details` keeps the members, their scores and the spread.
        """
        inner = self.inner
        scale = self.scale
        threshold = float(threshold if threshold is not None else getattr(inner, "threshold", 0.5))
        mode = str(getattr(inner, "mode", ""))
        kind = aggregation_kind(mode)
        records = [dict(m) for m in members]
        results = [JudgeResult.from_json_data(m["result"]) for m in records]
        plain = list(uncalibrated) if uncalibrated is not None else results
        ok = [not r.error and not math.isnan(r.score) for r in results]
        for record, result in zip(records, results, strict=True):
            record["score"] = None if math.isnan(result.score) else result.score
            record["passed"] = result.passed
        details: dict[str, Any] = {
            "aggregation": KINDS[kind],
            "members": records,
            "member_scores": [r["score"] for r in records],
        }
        if all(r.get("offline") for r in records) and len(records) > 1:
            details["note"] = (
                "every member is the offline judge, which is deterministic: repeats give "
                "the same output"
            )
        base: dict[str, Any] = {"metric": inner.metric, "mode": mode}
        scored = [r for r, good in zip(plain, ok, strict=True) if good]
        if not scored:
            errors = [r.error for r in results if r.error]
            if errors and len(errors) == len(results):
                return JudgeResult(**base, error=f"every member failed; first: {errors[0]}")
            return JudgeResult(**base, reason="no member gave a score", details=details)
        units = [unit_score(r.score, scale=scale) for r in scored]
        unit, text = _center(kind, scored, units, details)
        value = calibrated(unit, calibration)
        passed = value >= threshold
        members_passed = [bool(r.passed) for r, good in zip(results, ok, strict=True) if good]
        details["spread"] = _spread(units, members_passed, passed=passed, members=len(records))
        reason = outcome_reason(
            score=value * scale, passed=passed, threshold=threshold, scale=scale, text=text
        )
        return JudgeResult(
            **base,
            score=value * scale,
            passed=passed,
            reason=reason,
            confidence=unit,
            details=details,
        )

    def compile_spec(self) -> CompileSpec:
        """The pass cut refitted on the aggregate's unit score, the cut the ensemble applies
        (`aggregate`); a row costs every member's calls: the repeated judge's, `repeat` times
        for each LM."""
        from optuna.distributions import FloatDistribution

        inner = self.inner.compile_spec()
        members = self.repeat * len(self.lms if self.lms is not None else [self.lm])
        spec = super().compile_spec()
        return replace(
            spec,
            space={"threshold": FloatDistribution(0.0, 1.0)},
            scale=inner.scale,
            mode=inner.mode,
            demo=inner.demo,
            calls_by_mode={m: members * n for m, n in inner.calls_by_mode.items()},
        )

    def save(self, path: str | os.PathLike[str], **kwargs: Any) -> None:
        """Save as versioned JSON; member LMs must be named by strings (model names)."""
        named = [self.lm, *(self.lms or [])]
        if any(lm is not None and not isinstance(lm, str) for lm in named):
            raise SerializationError(
                "An Ensemble is saved with its LMs named by strings; pass lms=['openai/...', ...] "
                "(not dspy.LM objects) to save it"
            )
        super().save(path, **kwargs)

    def _dump_learned(self) -> dict[str, Any]:
        learned = super()._dump_learned()
        inner = self.inner.offline_params_
        learned["inner_offline_params"] = None if inner is None else inner.model_dump(mode="json")
        return learned

    def _load_learned(self, learned: dict[str, Any]) -> None:
        super()._load_learned(learned)
        raw = learned.get("inner_offline_params")
        self.inner.offline_params_ = None if raw is None else OfflineParams.model_validate(raw)


def _center(
    kind: str, scored: Sequence[JudgeResult], units: Sequence[float], details: dict[str, Any]
) -> tuple[float, str]:
    """The members' one unit score and how the reason says it: the median rating as a
    fraction (rubric modes; the ratings go into `details`), else the mean unit score."""
    if kind == "rubric":
        ratings = [
            float(r.details.get("rubric_score", 1 + 4 * u))
            for r, u in zip(scored, units, strict=True)
        ]
        center = statistics.median(ratings)
        details["ratings"] = ratings
        shown = ", ".join(f"{x:g}" for x in ratings)
        return rubric_fraction(center), f"median rating {center:g} of {len(ratings)} ({shown})"
    text = f"mean score of {len(units)} members"
    if kind == "verdict" and all(u in (0.0, 1.0) for u in units):
        text = f"{int(sum(units))} of {len(units)} members say yes"
    return sum(units) / len(units), text


def _spread(
    units: Sequence[float], members_passed: Sequence[bool], *, passed: bool, members: int
) -> dict[str, Any]:
    """How far the scored members' unit scores lie apart, and how many agree with the verdict."""
    return {
        "min": min(units),
        "max": max(units),
        "range": max(units) - min(units),
        "stdev": statistics.pstdev(units) if len(units) > 1 else 0.0,
        "agreement": sum(1 for p in members_passed if p == passed) / len(members_passed),
        "members": members,
        "failed": members - len(units),
    }
