"""Which choice of a compile bought its gain: the compiled judge rebuilt one choice at a time.

On the held-out rows: the uncompiled judge, then its mode changed to the chosen one, then the
chosen threshold and policies, then the chosen demos (the compiled judge). A step that changes
nothing (the mode was already the default, no demos were chosen) is left out. Only the mode
step may need new LM calls (raw outputs of the chosen mode without demos); the policy step
re-scores outputs already made; the last step is the compiled judge's own validation run.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pydantic

from ragjudge.data._gold import GoldRecord
from ragjudge.evaluation._evaluate import agreement_of
from ragjudge.programs._base import Judge
from ragjudge.programs._results import JudgeResult
from ragjudge.stats._agreement import Agreement

__all__ = ["AblationStep", "ablation"]

Runner = Callable[[Judge, str], list[JudgeResult]]


class AblationStep(pydantic.BaseModel):
    """One judge of the ablation, measured on the validation rows."""

    model_config = pydantic.ConfigDict(ser_json_inf_nan="null")

    step: str
    changed: dict[str, Any] = pydantic.Field(default_factory=dict)
    validation: Agreement | None
    lm_calls: int = 0


def ablation(
    *,
    baseline: Judge,
    compiled: Judge,
    policy: dict[str, Any],
    demos: int,
    valid: Sequence[GoldRecord],
    baseline_out: Sequence[JudgeResult],
    compiled_out: Sequence[JudgeResult],
    run: Runner,
    n_boot: int,
    seed: int,
    label: str = "validation (ablation: mode)",
) -> list[AblationStep]:
    """The ablation from the uncompiled to the compiled judge on the validation rows.

    Args:
        baseline: The uncompiled judge.
        compiled: The compiled judge.
        policy: The compiled judge's policy values (threshold, calibration, ...).
        demos: How many demos the compiled judge carries per predictor.
        valid: The validation rows.
        baseline_out: The baseline's results on them.
        compiled_out: The compiled judge's results on them.
        run: `(judge, label) -> results` on the validation rows (the mode step's LM run).
        n_boot: Bootstrap resamples for the intervals.
        seed: Seed of the bootstrap.
        label: The label of the mode step's run (what its calls are recorded under).

    Returns:
        The steps in order, the first the baseline and the last the compiled judge.
    """
    metric = compiled.metric

    def measure(outs: Sequence[JudgeResult]) -> Agreement | None:
        # an error row fails and ranks lowest, as in the rest of compile's report
        overall, *_ = agreement_of(
            valid, outs, n_boot=n_boot, seed=seed, metric=metric, errors="lowest"
        )
        return overall

    def calls(outs: Sequence[JudgeResult]) -> int:
        return sum(r.lm_calls for r in outs)

    steps = [AblationStep(step="uncompiled", validation=measure(baseline_out))]
    mode = compiled.compile_spec().mode
    raw: Sequence[JudgeResult] = baseline_out
    if mode is not None and mode != baseline.compile_spec().mode:
        moved = baseline.clone(mode=mode)
        raw = run(moved, label)
        steps.append(
            AblationStep(
                step="+mode", changed={"mode": mode}, validation=measure(raw), lm_calls=calls(raw)
            )
        )
    if policy:
        rescored = [compiled.rescore(r, **policy) for r in raw]
        steps.append(
            AblationStep(
                step="+threshold & policies", changed=dict(policy), validation=measure(rescored)
            )
        )
    steps.append(
        AblationStep(
            step="+demos (compiled)" if demos else "compiled",
            changed={"demos": demos},
            validation=measure(compiled_out),
            lm_calls=calls(compiled_out),
        )
    )
    return steps
