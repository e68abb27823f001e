"""Building a judge from options: the one function the command line, the Python API and the Ray
workers call, so that a metric name, a mode, an LM and its bounds mean the same everywhere."""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from typing import Any

import dspy

from ragjudge.exceptions import ConfigurationError
from ragjudge.lm._openai_engine import OpenAICompatibleEngine
from ragjudge.lm._resolve import CONNECTION_KEYS, is_offline_lm, is_offline_name, resolve_lm
from ragjudge.lm._retry import lm_options
from ragjudge.programs._base import GENERATION_PARAMS, Judge
from ragjudge.programs._serialization import judge_class, load
from ragjudge.programs.cascade import Cascade
from ragjudge.programs.ensemble import Ensemble

__all__ = ["build_judge", "default_concurrency", "with_lm_options"]

logger = logging.getLogger(__name__)

#: Items in flight for a judge that talks to an LM (a server waits on the network); a judge
#: that makes no network call (offline, deterministic, a GGUF model in process) runs one.
LM_CONCURRENCY = 8


def default_concurrency(judge: Judge) -> int:
    """How many items a judge should have in flight when the caller does not say: 1 for a
    judge that computes in this process (the offline judge, deterministic metrics, a GGUF
    model), `LM_CONCURRENCY` for one that waits on an LM server. A cascade counts as its LM
    (the offline judge it runs first is cheap beside the calls it waits on).

    Example:
        >>> from ragjudge.programs import Faithfulness
        >>> default_concurrency(Faithfulness(lm="local")), default_concurrency(
        ...     Faithfulness(lm="openai/gpt-4o-mini"))
        (1, 8)
    """
    if not judge.uses_lm:
        return 1
    lm = judge.lm
    if isinstance(judge, Ensemble):
        members = judge.lms or [judge.inner.lm]
        return 1 if all(_local(m) for m in members) else LM_CONCURRENCY
    return 1 if _local(lm) else LM_CONCURRENCY


def _local(lm: object) -> bool:
    if is_offline_name(lm) or is_offline_lm(lm):
        return True
    name = lm if isinstance(lm, str) else getattr(lm, "model", "")
    return str(name).startswith("gguf/")


def build_judge(
    *,
    metric: str = "faithfulness",
    judge: Judge | str | os.PathLike[str] | None = None,
    mode: str | None = None,
    threshold: float | None = None,
    lm: str | dspy.BaseLM | Sequence[str | dspy.BaseLM] | None = None,
    repeat: int = 1,
    max_tokens: int | None = None,
    temperature: float | None = None,
    timeout: float | None = None,
    api_base: str | None = None,
    cache: bool = True,
    max_retries: int | None = None,
    trust_modified: bool = False,
    cascade: bool = False,
    **options: Any,
) -> Judge:
    """The judge a set of options describes.

    Args:
        metric: The metric (`faithfulness`, `answer_relevancy`, `context_recall`,
            `deterministic`), looked up in the judge registry; ignored when `judge` is given.
        judge: A judge to start from, or a judge file to load (a compiled judge keeps its
            compile report).
        mode: The judge's mode; `"statement"` means `"questions"` for answer relevancy.
        threshold: The pass threshold in [0, 1].
        lm: The LM (`"local"`, a model string, a `dspy.LM`); several form an ensemble. None
            keeps the judge's own (a new judge: the offline judge).
        repeat: Ask each LM this many times and aggregate (`Ensemble`).
        max_tokens: Tokens one LM reply may have.
        temperature: Sampling temperature of the LM calls.
        timeout: Seconds one LM call may take.
        api_base: Base URL of an OpenAI-compatible server for the LM.
        cache: Use the LM response cache.
        max_retries: Retries of an LM call after a timeout, HTTP 429 or 5xx.
        trust_modified: Load a judge file whose checksum does not match (edited by hand).
        cascade: Build a `Cascade` (faithfulness only): the offline judge scores every row
            and `lm`, which must name a model, judges the rows it finds unclear; `mode` is
            the LM judge's (`"whole"` or `"statement"`) and the bounds go to its LM judge. A
            judge file that holds a cascade loads as one without it.
        **options: Further constructor arguments of the metric's judge class (for
            `deterministic`: `variant`, `compat`, `workers`; for a cascade: `route`, `low`,
            `high`, `weight`, ...).

    Returns:
        The judge.

    Raises:
        ConfigurationError: For an unknown metric, a mode the metric does not have, or
            options that contradict each other; naming the parameter.

    Example:
        >>> build_judge(metric="faithfulness", mode="whole", threshold=0.6)
        Faithfulness(mode='whole', lm='local', threshold=0.6)
        >>> build_judge(lm="openai/gpt-4o-mini", cascade=True, mode="statement", cache=False)
        Cascade(mode='statement', lm='openai/gpt-4o-mini')
    """
    lms = list(lm) if isinstance(lm, (list, tuple)) else [] if lm is None else [lm]
    made = _made(
        metric=metric,
        judge=judge,
        mode=mode,
        threshold=threshold,
        cascade=cascade,
        lms=lms,
        repeat=repeat,
        trust_modified=trust_modified,
        options=options,
    )
    bounds = {"max_tokens": max_tokens, "temperature": temperature, "timeout": timeout}
    connection: dict[str, Any] = {"api_base": api_base, "cache": cache, "max_retries": max_retries}
    made = with_lm_options(
        made, bounds={k: v for k, v in bounds.items() if v is not None}, **connection
    )
    if repeat == 1 and len(lms) <= 1:
        return made
    members = [with_lm_options(made.clone(lm=name), **connection).lm for name in lms]
    return Ensemble.of(made, repeat=repeat, lms=members or None)


def _made(
    *,
    metric: str,
    judge: Judge | str | os.PathLike[str] | None,
    mode: str | None,
    threshold: float | None,
    cascade: bool,
    lms: list[str | dspy.BaseLM],
    repeat: int,
    trust_modified: bool,
    options: dict[str, Any],
) -> Judge:
    """The one judge `build_judge` starts from (before LM options and repeats): `judge`
    (loaded from its file) with the options given, or a new one of `metric`'s class."""
    if repeat < 1:
        raise ConfigurationError(f"The `repeat` parameter must be at least 1. Got {repeat}.")
    if cascade and judge is None:
        _check_cascade(metric=metric, lms=lms, repeat=repeat)
    overrides: dict[str, Any] = {}
    if threshold is not None:
        overrides["threshold"] = threshold
    if len(lms) == 1:
        overrides["lm"] = lms[0]
    if judge is not None:
        base = judge if isinstance(judge, Judge) else load(judge, trust_modified=trust_modified)
        if cascade and not isinstance(base, Cascade):
            raise ConfigurationError(
                f"The `cascade` parameter builds a new cascade, but the judge given is a "
                f"{type(base).__name__} (a judge file of a cascade is one already: drop `cascade`)"
            )
        if isinstance(base, Cascade):  # its own LM, unless `lm` names another
            _check_cascade(metric=base.metric, lms=lms, repeat=repeat, own_lm=True)
        if mode is not None:
            overrides["mode"] = _mode_for(type(base), base.metric, mode)
        made = _clone(base, **overrides, **options)
    else:
        cls: type[Judge] = Cascade if cascade else judge_class(metric)
        if mode is not None:
            overrides["mode"] = _mode_for(cls, metric, mode)
        if cls.uses_lm:
            overrides.setdefault("lm", "local")
        else:
            overrides.pop("lm", None)
        made = cls(**overrides, **options)
    return made


def _check_cascade(
    *, metric: str, lms: Sequence[str | dspy.BaseLM], repeat: int, own_lm: bool = False
) -> None:
    """Refuse a cascade the other options contradict: it needs one LM that names a model
    (`own_lm`: a loaded cascade keeps its own when `lms` is empty)."""
    if metric != Cascade.metric:
        raise ConfigurationError(
            f"The `cascade` parameter applies to faithfulness; got `metric` {metric!r}"
        )
    if len(lms) > 1 or repeat != 1:
        raise ConfigurationError(
            "A cascade (`cascade`) sends the unclear rows to one LM, asked once: pass one `lm` "
            "and leave `repeat` at 1"
        )
    if own_lm and not lms:
        return
    if not lms or is_offline_name(lms[0]) or is_offline_lm(lms[0]):
        shown = "" if not lms or not isinstance(lms[0], str) else f"; got {lms[0]!r}"
        raise ConfigurationError(
            "A cascade (`cascade`) needs an `lm` that names a model (e.g. 'openai/gpt-4o-mini'): "
            f"the offline judge is its first judge already{shown}"
        )


def _mode_for(cls: type[Judge], metric: str, mode: str) -> str:
    if metric == "answer_relevancy" and mode == "statement":
        return "questions"
    if cls.modes and mode not in cls.modes:
        what = "a cascade's LM judge" if issubclass(cls, Cascade) else metric
        raise ConfigurationError(
            f"`mode` {mode} does not apply to {what}; choose from: {', '.join(cls.modes)}"
        )
    return mode


def _clone(judge: Judge, **overrides: Any) -> Judge:
    """`judge.clone(**overrides)` that keeps the compile report (a clone does not)."""
    if not overrides:
        return judge
    report = judge.report_
    made = judge.clone(**overrides)
    if report is not None:
        made.report_ = report
    return made


def with_lm_options(
    judge: Judge,
    *,
    bounds: dict[str, Any] | None = None,
    api_base: str | None = None,
    cache: bool = True,
    max_retries: int | None = None,
) -> Judge:
    """The judge with its LM connection options and generation bounds applied.

    Args:
        judge: The judge.
        bounds: `max_tokens`, `temperature`, `timeout`: stored in the judge's parameters (and a
            judge file), for judges that have them.
        api_base: Base URL of an OpenAI-compatible server.
        cache: False turns the LM response cache off.
        max_retries: Retries of an LM call after a timeout, HTTP 429 or 5xx.

    Returns:
        The judge (a clone when anything changed; the compile report kept). The offline judge
        makes no network call, so connection options do not apply to it.

    Raises:
        ConfigurationError: For `api_base` with the offline judge.
    """
    bounds = dict(bounds or {})
    generation = {k: v for k, v in bounds.items() if k in GENERATION_PARAMS}
    params = judge.get_params()
    if generation and "max_tokens" in params:
        judge = _clone(judge, **generation)
    elif generation and "lm_params" in params:  # a cascade: its LM judge's parameters
        judge = _clone(judge, lm_params={**(params["lm_params"] or {}), **generation})
    options: dict[str, Any] = lm_options(max_retries=max_retries, timeout=bounds.get("timeout"))
    name = judge.lm
    if not judge.uses_lm:
        return judge
    if name is None or is_offline_name(name):
        if api_base:
            raise ConfigurationError(
                "The `api_base` parameter needs an LM that names a model (e.g. "
                "'openai/my-model'); the offline judge makes no network call."
            )
        return judge
    if isinstance(name, str):
        if api_base:
            options.setdefault("api_key", api_key(name))
        return _clone(judge, lm=resolve_lm(name, api_base=api_base, cache=cache, **options))
    if options or api_base or not cache:  # an LM object from a saved judge / the API
        engine = getattr(name, "_engine_spec", None)
        if api_base or isinstance(engine, OpenAICompatibleEngine):
            # Rebuild it: a connection setting of an engine-backed LM cannot be copied over.
            base = api_base or getattr(engine, "api_base", None)
            kept = {k: v for k, v in name.kwargs.items() if k not in CONNECTION_KEYS}
            kept["num_retries"] = name.num_retries
            kept["api_key"] = name.kwargs.get("api_key") or api_key(name.model)
            kept.update(options)
            lm = resolve_lm(name.model, api_base=base, cache=bool(name.cache) and cache, **kept)
            return _clone(judge, lm=lm)
        updates: dict[str, Any] = dict(options)
        if not cache:
            updates["cache"] = False
        return _clone(judge, lm=name.copy(**updates))
    return judge


def api_key(model: str) -> str:
    """The key for a self-hosted OpenAI-compatible server: $RAGJUDGE_API_KEY, the provider's
    usual variable (e.g. $OPENAI_API_KEY), else "EMPTY" (what vLLM and most proxies accept)."""
    provider = model.split("/", 1)[0].upper()
    for name in ("RAGJUDGE_API_KEY", f"{provider}_API_KEY"):
        value = os.environ.get(name)
        if value:
            return value
    logger.info("no API key in $RAGJUDGE_API_KEY or $%s_API_KEY; sending 'EMPTY'", provider)
    return "EMPTY"
