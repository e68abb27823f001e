"""The base class of every judge: a `dspy.Module` with sklearn-style params and JSON state."""

from __future__ import annotations

import contextlib
import contextvars
import copy
import difflib
import inspect
import logging
import math
import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import Any, ClassVar

import dspy
from dspy.dsp.utils.settings import thread_local_overrides
from dspy.utils.usage_tracker import track_usage

from ragjudge.data._gold import GoldRecord
from ragjudge.exceptions import ConfigurationError
from ragjudge.lm._adapters import default_adapter, parse_stats
from ragjudge.lm._cache import ResultMemo
from ragjudge.lm._generation import GenerationOptions, check_generation, generation_options
from ragjudge.lm._meter import WORST_CALLS_PER_PREDICTOR_CALL, active_meter
from ragjudge.lm._resolve import is_offline_lm, resolve_lm
from ragjudge.lm._safety import fence
from ragjudge.offline.model import OfflineParams
from ragjudge.programs._metric import JudgeMetric
from ragjudge.programs._results import JudgeResult, RawOutput
from ragjudge.programs._spec import CompileSpec
from ragjudge.signatures.rubric import rubric_fraction
from ragjudge.stats._logistic import calibrated

__all__ = [
    "GENERATION_PARAMS",
    "JUDGE_INPUTS",
    "Judge",
    "calibrated",
    "check_calibration",
    "check_choice",
    "check_inputs",
    "judge_inputs",
    "lm_runs_offline",
]

#: The parameters that bound a judge's LM calls (see `ragjudge.lm._generation`).
GENERATION_PARAMS = ("max_tokens", "temperature", "timeout")

logger = logging.getLogger(__name__)


def check_choice(owner: str, name: str, value: Any, choices: Iterable[Any]) -> None:
    """Raise the house-style error when a parameter is not one of its choices."""
    options = tuple(choices)
    if value not in options:
        shown = ", ".join(repr(c) for c in options)
        raise ConfigurationError(
            f"The `{name}` parameter of {owner} must be one of {shown}. Got {value!r} instead."
        )


def check_calibration(owner: str, calibration: Sequence[float] | None) -> list[float] | None:
    """Validate a Platt calibration `(a, b)`; returns it as a list of floats (or None)."""
    if calibration is None:
        return None
    if len(calibration) != 2 or not all(math.isfinite(float(v)) for v in calibration):
        raise ConfigurationError(
            f"The `calibration` parameter of {owner} must be two finite numbers (a, b). "
            f"Got {calibration!r} instead."
        )
    return [float(v) for v in calibration]


def judge_inputs(row: GoldRecord | dict[str, Any]) -> dict[str, Any]:
    """The keyword arguments a judge takes, from a gold record or a dict."""
    if isinstance(row, GoldRecord):
        return {
            "question": row.question,
            "contexts": row.contexts,
            "answer": row.answer,
            "reference": row.reference,
        }
    return {k: row[k] for k in ("question", "contexts", "answer", "reference") if k in row}


#: The keyword arguments a judge call takes.
JUDGE_INPUTS = ("question", "contexts", "answer", "reference")


def passages_text(contexts: Sequence[str] | str) -> str:
    """The retrieved passages as a judge's LM reads them: fenced (`ragjudge.lm.fence`), empty
    ones left out, in one canonical order (sorted), so that the passages are a set to the
    judge: a prompt, and so a verdict, never depends on the order retrieval returned them in.

    Example:
        >>> passages_text(["b", "", "a"])
        'a\n\nb'
    """
    passages = [contexts] if isinstance(contexts, str) else list(contexts)
    return fence("\n\n".join(sorted(p for p in passages if p)))


def check_inputs(judge: Judge, inputs: dict[str, Any]) -> None:
    """Raise `TypeError` for a call a Python function would refuse (an unknown keyword) and
    for `contexts=None`, which would otherwise be judged as "no passages".

    Example:
        >>> check_inputs(Judge(), {"answer": "a", "context": ["p"]})
        Traceback (most recent call last):
        TypeError: Judge() got an unexpected keyword argument 'context'; did you mean 'contexts'?
    """
    name = type(judge).__name__
    allowed = _accepted_inputs(type(judge))
    for key in inputs:
        if allowed is not None and key not in allowed:
            close = difflib.get_close_matches(key, allowed, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise TypeError(f"{name}() got an unexpected keyword argument {key!r}{hint}")
    if "contexts" in inputs and inputs["contexts"] is None:
        raise TypeError(
            f"{name}() got contexts=None; pass the retrieved passages as a list of strings "
            "([] when retrieval found none)"
        )


_ACCEPTED: dict[type, tuple[str, ...] | None] = {}


def _accepted_inputs(cls: type[Judge]) -> tuple[str, ...] | None:
    """The keywords a judge class's `judge_item` takes (None when it takes any: a wrapper)."""
    if cls in _ACCEPTED:
        return _ACCEPTED[cls]
    params = inspect.signature(cls.judge_item).parameters.values()
    accepted: tuple[str, ...] | None = None
    if not any(p.kind is p.VAR_KEYWORD for p in params):
        names = [p.name for p in params if p.name != "self"]
        accepted = tuple(dict.fromkeys([*JUDGE_INPUTS, *names]))
    _ACCEPTED[cls] = accepted
    return accepted


def lm_runs_offline(lm: str | dspy.BaseLM | None) -> bool:
    """True when `lm` (a judge's `lm` parameter) is the offline judge; None reads the
    configured LM (`dspy.settings.lm`), offline when none is configured."""
    from ragjudge.lm._resolve import is_offline_name
    from ragjudge.offline.engine import OfflineEngine

    if lm is None:
        return dspy.settings.lm is None
    if isinstance(lm, str):
        return is_offline_name(lm)
    return isinstance(getattr(lm, "engine", None), OfflineEngine)


def _with_id(row: GoldRecord | dict[str, Any], result: JudgeResult) -> JudgeResult:
    row_id = row.id if isinstance(row, GoldRecord) else row.get("id")
    return result.model_copy(update={"id": None if row_id is None else str(row_id)})


class Judge(dspy.Module):
    """A judge: `judge(question=..., contexts=..., answer=...)` returns a `JudgeResult`.

    Subclasses store their keyword arguments verbatim in `__init__` (so `get_params` and
    `clone` work), declare `metric`, and implement `judge_item`. What compiling learns lives in
    attributes ending in an underscore and travels in `dump_state`.
    """

    metric: ClassVar[str] = "judge"
    #: The metric name that builds this class (`build_judge(metric=...)`, `--metric`); None for
    #: a class that wraps other judges. Defaults to `metric` where a subclass leaves it unset.
    metric_option: ClassVar[str | None]
    #: The values of `mode` (each needs its own LM calls); compiling searches them.
    modes: ClassVar[tuple[str, ...]] = ()
    #: False for judges that never call an LM (deterministic metrics).
    uses_lm: ClassVar[bool] = True
    #: False for judges whose result depends on more than `resolved_lm()` (several LMs).
    memoize_results: ClassVar[bool] = True
    #: True when the judge reads the retrieved passages: a row without `contexts` is refused
    #: when loaded for it (an empty list is allowed: it is a row whose retrieval found nothing).
    needs_contexts: ClassVar[bool] = False
    lm: str | dspy.BaseLM | None
    offline_params_: OfflineParams | None
    #: What compiling recorded (a `CompileReport` as a dict); None for an uncompiled judge.
    report_: dict[str, Any] | None = None

    # -- sklearn-style parameters -------------------------------------------------------
    @classmethod
    def _param_names(cls) -> list[str]:
        sig = inspect.signature(cls.__init__)
        return [p.name for p in sig.parameters.values() if p.kind is p.KEYWORD_ONLY]

    def get_params(self) -> dict[str, Any]:
        """The constructor arguments, as given."""
        return {name: getattr(self, name) for name in self._param_names()}

    def __repr__(self) -> str:
        """One line: the class, its mode and LM, the parameters that differ from the defaults
        (floats to 4 significant digits), and whether it was compiled."""
        defaults = {
            p.name: p.default
            for p in inspect.signature(type(self).__init__).parameters.values()
            if p.kind is p.KEYWORD_ONLY
        }
        params = self.get_params()
        shown: list[str] = []
        for name in ("mode", "lm"):
            if name in params and (name != "lm" or self.uses_lm):
                value = params[name]
                if name == "lm" and value is not None and not isinstance(value, str):
                    value = getattr(value, "model", type(value).__name__)
                shown.append(f"{name}={_short_value(value)}")
        for name, value in params.items():
            if name in ("mode", "lm") or _same(value, defaults.get(name, inspect.Parameter.empty)):
                continue
            shown.append(f"{name}={_short_value(value)}")
        if self.report_ is not None:
            shown.append("compiled")
        return f"{type(self).__name__}({', '.join(shown)})"

    def clone(self, **overrides: Any) -> Judge:
        """A new judge with the same parameters (but `overrides`) and the same learned state."""
        params = {**self.get_params(), **overrides}
        new = type(self)(**params)
        new.load_state(self.dump_state())
        new.report_ = copy.deepcopy(self.report_)
        return new

    # -- LM -----------------------------------------------------------------------------
    def _set_generation(
        self,
        owner: str,
        *,
        max_tokens: int | None,
        temperature: float | None,
        timeout: float | None,
    ) -> None:
        """Check and store the generation parameters (`GENERATION_PARAMS`)."""
        check_generation(owner, max_tokens=max_tokens, temperature=temperature, timeout=timeout)
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.timeout = timeout

    def generation(self) -> GenerationOptions | None:
        """How this judge bounds its LM calls; None for judges without generation parameters."""
        if "max_tokens" not in self._param_names():
            return None
        return GenerationOptions(
            max_tokens=self.max_tokens, temperature=self.temperature, timeout=self.timeout
        )

    def resolved_lm(self, *, cache: bool = True) -> dspy.BaseLM:
        """The LM this judge talks to (see `ragjudge.lm._resolve.resolve_lm`)."""
        return resolve_lm(self.lm, offline_params=self.offline_params_, cache=cache)

    def runs_offline(self) -> bool:
        """True exactly when this judge makes no LM call: its LM is the offline judge (no
        network, no demos read), or it never calls one (the deterministic metrics)."""
        if not self.uses_lm:
            return True
        return lm_runs_offline(self.lm)

    # -- calling ------------------------------------------------------------------------
    def judge_item(
        self,
        *,
        answer: str,
        contexts: Sequence[str] | str = (),
        question: str = "",
        reference: str | None = None,
    ) -> JudgeResult:
        """Judge one item: its raw output (`raw_item`, the LM calls) scored under this judge's
        policies (`score`). May raise on LM failures."""
        raw = self.raw_item(
            answer=answer, contexts=contexts, question=question, reference=reference
        )
        return self.score(raw, self.policy())

    def raw_item(
        self,
        *,
        answer: str,
        contexts: Sequence[str] | str = (),
        question: str = "",
        reference: str | None = None,
    ) -> RawOutput:
        """The raw output for one item (every LM call happens here); implemented by each judge."""
        raise NotImplementedError

    def forward(self, **inputs: Any) -> JudgeResult:
        """Judge one item under this judge's LM, counting LM calls and tokens.

        Never raises for LM or parsing failures: the result carries `error` instead.
        """
        check_inputs(self, inputs)
        if "answer" not in inputs:
            raise TypeError(f"{type(self).__name__}() missing required keyword argument: 'answer'")
        meter = active_meter()
        if meter is None or self.runs_offline():
            return self._forward(inputs)
        with meter.row(self.worst_row_calls()) as row:  # a run that said how many calls at most
            if not row.allowed:
                return JudgeResult(
                    metric=self.metric,
                    mode=str(getattr(self, "mode", "")),
                    error=f"LM call ceiling reached ({meter.made} of the {meter.ceiling} calls "
                    "announced made)",
                )
            result = self._forward(inputs)
            row.made = result.lm_calls
            return result

    def worst_row_calls(self) -> int:
        """The most LM calls one row can cost this judge as it is: each predictor call of its
        mode may make one more (`ragjudge.lm._meter.WORST_CALLS_PER_PREDICTOR_CALL`)."""
        return WORST_CALLS_PER_PREDICTOR_CALL * self.compile_spec().own_calls()

    def _forward(self, inputs: dict[str, Any]) -> JudgeResult:
        """`forward` without the meter: the LM calls, counted."""
        lm = self.resolved_lm()
        options = self.generation()
        bounds = contextlib.nullcontext() if options is None else generation_options(options)
        context = dspy.context(lm=lm, adapter=default_adapter(lm))
        with context, bounds, track_usage() as usage, parse_stats() as stats:
            try:
                result = self.judge_item(**inputs)
            except (KeyboardInterrupt, SystemExit):
                raise
            except Exception as exc:  # an LM or parse failure must not stop a batch
                logger.debug("item failed", exc_info=True)
                result = JudgeResult(
                    metric=self.metric,
                    mode=str(getattr(self, "mode", "")),
                    error=f"{type(exc).__name__}: {_first_line(exc)}",
                )
        calls, tokens = _usage_counts(usage.usage_data)
        calls += stats.lm_errors  # calls that raised: cut replies, failures after retries
        update: dict[str, Any] = {"lm_calls": calls, "tokens": tokens}
        if is_offline_lm(lm):
            update["offline"] = True
        if stats.predictor_calls:
            update["lm_stats"] = {**stats.as_dict(), **_prompt_counts(usage.usage_data)}
        return result.model_copy(update=update)

    def __call__(self, *args: Any, **kwargs: Any) -> JudgeResult:
        if args:
            raise TypeError(f"{type(self).__name__}() takes keyword arguments only")
        check_inputs(self, kwargs)
        return self.forward(**kwargs)

    def batch(
        self,
        rows: Sequence[GoldRecord | dict[str, Any]],
        *,
        concurrency: int = 1,
        on_result: Callable[[int, JudgeResult], None] | None = None,
    ) -> list[JudgeResult]:
        """Judge many rows; results come back in input order, each with its row id.

        Args:
            rows: Gold records or dicts with the judge's inputs.
            concurrency: How many items are judged at once (LM calls in flight).
            on_result: Called as `(index, result)` as each item finishes (any order).

        Returns:
            One result per row, in input order.
        """
        results: list[JudgeResult | None] = [None] * len(rows)
        for index, result in self.iter_batch(rows, concurrency=concurrency):
            results[index] = result
            if on_result is not None:
                on_result(index, result)
        return [r for r in results if r is not None]

    def iter_batch(
        self, rows: Sequence[GoldRecord | dict[str, Any]], *, concurrency: int = 1
    ) -> Iterator[tuple[int, JudgeResult]]:
        """Yield `(index, result)` as items finish, `concurrency` at a time.

        Rows whose result is already in the result memo (a re-run) come first, at once;
        the others are judged `concurrency` at a time.
        """
        memo = self._result_memo()
        keys: list[str | None] = [None] * len(rows)
        todo: list[int] = []
        for index, row in enumerate(rows):
            if memo is not None:
                key = keys[index] = memo.key(judge_inputs(row))
                stored = memo.get(key)
                if stored is not None:  # judged before: no LM call for it now
                    result = JudgeResult.from_json_data(stored, lm_calls=0, tokens=0)
                    yield index, _with_id(row, result)
                    continue
            todo.append(index)

        def run(index: int) -> JudgeResult:
            row = rows[index]
            result = self(**judge_inputs(row))
            key = keys[index]
            if memo is not None and key is not None and result.error is None:
                memo.put(key, result.model_dump(mode="json"))
            return _with_id(row, result)

        if concurrency <= 1 or len(todo) <= 1:
            for index in todo:
                yield index, run(index)
            return
        parent = thread_local_overrides.get().copy()

        def worker(index: int) -> tuple[int, JudgeResult]:
            token = thread_local_overrides.set({**thread_local_overrides.get(), **parent})
            try:
                return index, run(index)
            finally:
                thread_local_overrides.reset(token)

        pool = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="ragjudge")
        # each row in a copy of this thread's context (the call meter, generation options)
        pending = [pool.submit(contextvars.copy_context().run, worker, i) for i in todo]
        finished = False
        try:
            for future in as_completed(pending):
                yield future.result()
            finished = True
        finally:
            # On Ctrl-C, or when the consumer stops early, queued rows are cancelled and the
            # calls in flight finish in the background instead of holding up the caller.
            pool.shutdown(wait=finished, cancel_futures=True)

    def _result_memo(self) -> ResultMemo | None:
        """Where finished results are kept for re-runs (see `ragjudge.lm._cache.ResultMemo`)."""
        if not (self.memoize_results and self.uses_lm):
            return None
        return ResultMemo.for_judge(self, self.resolved_lm())

    # -- as a DSPy metric -----------------------------------------------------------------
    def as_metric(
        self,
        *,
        question_field: str = "question",
        contexts_field: str = "contexts",
        answer_field: str = "answer",
        reference_field: str | None = None,
        pass_on_trace: bool = True,
    ) -> JudgeMetric:
        """This judge as a DSPy metric for `dspy.Evaluate` and DSPy's optimizers.

        Args:
            question_field: The field holding the question (example first, then prediction).
            contexts_field: The field holding the contexts (prediction first, then example).
            answer_field: The field holding the answer (prediction first, then example).
            reference_field: The field holding a reference answer, for context recall.
            pass_on_trace: When `trace` is set (an optimizer bootstrapping demos), return the
                pass verdict as a bool, DSPy's convention; False keeps returning the score.

        Returns:
            `metric(example, pred, trace=None)`: the score in [0, 1], a bool with `trace`, and
            `dspy.Prediction(score=..., feedback=...)` when GEPA asks for feedback
            (`metric(gold, pred, trace, pred_name, pred_trace)`).

        Example:
            >>> metric = Faithfulness(lm="local").as_metric(contexts_field="context")
            >>> ex = dspy.Example(question="Capital of France?").with_inputs("question")
            >>> pred = dspy.Prediction(context=["Paris is the capital of France."],
            ...                        answer="Paris is the capital of France.")
            >>> round(metric(ex, pred), 2), metric(ex, pred, trace=[])  # doctest: +SKIP
            (1.0, True)
        """
        return JudgeMetric(
            self,
            question_field=question_field,
            contexts_field=contexts_field,
            answer_field=answer_field,
            reference_field=reference_field,
            pass_on_trace=pass_on_trace,
        )

    # -- scoring ------------------------------------------------------------------------
    def _result(self, value: float, p: Mapping[str, Any], **fields: Any) -> JudgeResult:
        """A result from an unscaled score under policies `p` (`threshold`, `scale`, and
        `calibration` where the judge has one)."""
        value = calibrated(value, p.get("calibration"))
        passed = None if math.isnan(value) else value >= p["threshold"]
        return JudgeResult(metric=self.metric, score=value * p["scale"], passed=passed, **fields)

    def _rubric_result(self, rubric: dict[str, Any], p: Mapping[str, Any]) -> JudgeResult:
        """The result of a 1-5 rubric rating: unscaled score `(rating - 1) / 4`."""
        rating = int(rubric["rubric_score"])
        reason = f"{rating}/5: {rubric.get('reasoning', '')}".strip()
        return self._result(
            rubric_fraction(rating), p, mode="rubric", reason=reason, details=dict(rubric)
        )

    # -- compiling -----------------------------------------------------------------------
    #: The parameters `score` reads: changing them needs no new LM call.
    policy_names: ClassVar[tuple[str, ...]] = ()

    def compile_spec(self) -> CompileSpec[Judge]:
        """What compile needs of this judge, as one object (`ragjudge.programs._spec`): its
        search space, how it rescores, what it fits, what a row costs. This default searches
        no policy and fits nothing; judges extend it (`dataclasses.replace`)."""
        offline = self.runs_offline()
        names = self.policy_names
        mode = getattr(self, "mode", None)
        return CompileSpec(
            judge=self,
            threshold="threshold" if "threshold" in names else None,
            calibration="calibration" if "calibration" in names else None,
            scale=float(getattr(self, "scale", 1.0) or 1.0),
            scale_policy="scale" if "scale" in names else None,
            modes=tuple(self.modes),
            mode=None if mode is None else str(mode),
            calls_lm=not offline,
            reads_demos=not offline and bool(list(self.named_predictors())),
            calls_by_mode={m: 1 for m in self.modes},
        )

    def policy(self) -> dict[str, Any]:
        """This judge's values of its policy parameters (`policy_names`)."""
        return {name: getattr(self, name) for name in self.policy_names}

    def score(self, raw: RawOutput, policy: Mapping[str, Any]) -> JudgeResult:
        """The result of a raw output under `policy` (every name of `policy_names`): a pure
        function, the one scoring rule judging and rescoring share. Implemented by each judge."""
        raise NotImplementedError(f"{type(self).__name__} cannot score raw outputs")

    def rescore(self, result: JudgeResult, **policy: Any) -> JudgeResult:
        """Score a result's raw output again under other policy values (no LM call).

        `judge.rescore(judge(**row), **p)` equals `judge.clone(**p)(**row)`: verdicts, score and
        pass. Compiling searches `compile_spec().space` over cached raw outputs this way.

        Args:
            result: A result this judge (in any policy) produced.
            **policy: Values for names in `policy_names`; the others keep this judge's.

        Returns:
            The result as the judge with those policies would have returned it (same id, LM
            calls and tokens); a failed result, or one with nothing to score, unchanged.
        """
        unknown = sorted(set(policy) - set(self.policy_names))
        if unknown:
            raise TypeError(f"{type(self).__name__}.rescore() got unknown policies {unknown}")
        if result.error:
            return result
        raw = result.raw if result.raw is not None else self.legacy_raw(result)
        if raw is None:
            return result
        new = self.score(raw, {**self.policy(), **policy})
        return new.model_copy(
            update={
                "id": result.id,
                "lm_calls": result.lm_calls,
                "tokens": result.tokens,
                "lm_stats": result.lm_stats,
                "offline": result.offline,
            }
        )

    def legacy_raw(self, result: JudgeResult) -> RawOutput | None:
        """The raw output of a result written before results carried it (results format 1):
        read back from its fields; None when there is nothing to score."""
        return None

    # -- state --------------------------------------------------------------------------
    def dump_state(self, json_mode: bool = True) -> dict[str, Any]:
        """DSPy's state (demos, instructions) plus ragjudge's learned state."""
        state = super().dump_state(json_mode=json_mode)
        for name, predictor in self.named_predictors():
            allowed = set(predictor.signature.fields)
            state[name]["demos"] = [
                {k: v for k, v in demo.items() if k in allowed} for demo in state[name]["demos"]
            ]
            state[name]["lm"] = None
        state["ragjudge"] = {"learned": self._dump_learned()}
        return state

    def load_state(self, state: dict[str, Any], **kwargs: Any) -> Judge:
        """Restore `dump_state()` output."""
        own = state.get("ragjudge", {})
        dspy_state = {k: v for k, v in state.items() if k != "ragjudge"}
        super().load_state(dspy_state, **kwargs)
        for _, predictor in self.named_predictors():
            predictor.demos = [
                d if isinstance(d, dspy.Example) else dspy.Example(**d) for d in predictor.demos
            ]
        self._load_learned(own.get("learned", {}))
        return self

    def _dump_learned(self) -> dict[str, Any]:
        params = self.offline_params_
        return {"offline_params": None if params is None else params.model_dump(mode="json")}

    def _load_learned(self, learned: dict[str, Any]) -> None:
        raw = learned.get("offline_params")
        self.offline_params_ = None if raw is None else OfflineParams.model_validate(raw)

    def save(self, path: str | os.PathLike[str], **_: Any) -> None:
        """Save the judge as versioned JSON (never pickle). See `ragjudge.load`."""
        from ragjudge.programs._document import save_judge

        save_judge(self, path)


def _short_value(value: Any) -> str:
    """A parameter as `repr` shows it: floats to 4 significant digits, long values cut."""
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, (list, tuple)):
        inner = ", ".join(_short_value(v) for v in value[:4])
        return f"[{inner}{', ...' if len(value) > 4 else ''}]"
    if isinstance(value, dict):
        inner = ", ".join(f"{k}={_short_value(v)}" for k, v in list(value.items())[:4])
        return f"{{{inner}{', ...' if len(value) > 4 else ''}}}"
    if isinstance(value, Judge):
        return repr(value)
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _same(value: Any, default: Any) -> bool:
    try:
        return bool(value == default)
    except Exception:  # an LM object or array compares oddly: show it
        return False


def _usage_counts(usage_data: dict[str, list[dict[str, Any]]]) -> tuple[int, int]:
    calls = sum(len(entries) for entries in usage_data.values())
    tokens = 0
    for entries in usage_data.values():
        for entry in entries:
            total = entry.get("total_tokens")
            if total is None:
                total = (entry.get("prompt_tokens") or 0) + (entry.get("completion_tokens") or 0)
            tokens += int(total or 0)
    return calls, tokens


def _prompt_counts(usage_data: dict[str, list[dict[str, Any]]]) -> dict[str, int]:
    """Prompt tokens, and those served from a prefix cache (where the LM reports them)."""
    prompt = cached = 0
    for entries in usage_data.values():
        for entry in entries:
            prompt += int(entry.get("prompt_tokens") or 0)
            details = entry.get("prompt_tokens_details") or {}
            if isinstance(details, dict):
                cached += int(details.get("cached_tokens") or 0)
    return {"prompt_tokens": prompt, "cached_tokens": cached}


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:300] if text else ""
