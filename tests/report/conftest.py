"""Report fixtures: judged rows (one hostile), a compile report from a real Optuna study."""

from __future__ import annotations

import json
import math
from pathlib import Path

import dspy
import numpy as np
import optuna
import pytest
from optuna.distributions import distribution_to_json

from ragjudge.data._gold import GoldRecord
from ragjudge.optimize._report import CompileReport, RowPrediction, StudySummary, TrialRecord
from ragjudge.programs._results import JudgeResult, StatementResult
from ragjudge.stats._agreement import agreement

#: Text that would run script or fetch from the network if the report did not escape it.
HOSTILE = (
    '<script>window.__pwned = 1</script><img src="https://example.invalid/x.png" '
    'onerror="window.__pwned = 2"><b>bold</b> & "quotes"'
)


def _result(row_id: str, score: float, verdicts: list[str], *, reason: str = "") -> JudgeResult:
    statements = [
        StatementResult(
            text=f"statement {i} of {row_id}",
            verdict=v,
            reason=reason or f"because {v}",
            confidence={"yes": 0.9, "no": 0.1, "unsure": 0.5}[v],
        )
        for i, v in enumerate(verdicts)
    ]
    return JudgeResult(
        id=row_id,
        score=score,
        passed=None if math.isnan(score) else score >= 0.5,
        mode="statement",
        reason=f"{score:.2f}: judged",
        statements=statements,
        lm_calls=2,
        tokens=100,
    )


@pytest.fixture
def judged() -> tuple[list[GoldRecord], list[JudgeResult], list[JudgeResult]]:
    """40 labeled rows in two sources with a judge's and a weaker baseline's results; row
    `evil` (faithful, scored 0) carries hostile text in every field the report shows."""
    rng = np.random.default_rng(0)
    rows: list[GoldRecord] = []
    results: list[JudgeResult] = []
    baseline: list[JudgeResult] = []
    for i in range(40):
        gold = i % 2
        source = "alpha" if i < 20 else "beta"
        noisy = float(np.clip(gold * 0.6 + rng.normal(0.2, 0.25), 0, 1))
        score = round(noisy * 4) / 4
        rows.append(
            GoldRecord(
                id=f"r{i}",
                question=f"question {i}?",
                contexts=[f"Context sentence one of row {i}. Another sentence about item {i}."],
                answer=f"answer {i} says something",
                faithful=gold,
                source=source,
            )
        )
        results.append(_result(f"r{i}", score, ["yes" if score >= 0.5 else "no"]))
        base = float(rng.uniform(0, 1))
        baseline.append(_result(f"r{i}", base, ["yes" if base >= 0.5 else "unsure"]))
    rows.append(
        GoldRecord(
            id="evil<b>",
            question=HOSTILE,
            contexts=[HOSTILE + " " + "padding sentence. " * 80],
            answer="The answer " + HOSTILE,
            faithful=1,
            source="</script><script>window.__pwned=3</script>",
            hallucinated_spans=[{"start": 4, "end": 10, "text": "answer", "type": "<i>x</i>"}],
        )
    )
    results.append(_result("evil<b>", 0.0, ["no", "unsure"], reason=HOSTILE))
    baseline.append(_result("evil<b>", 0.0, ["no"], reason=HOSTILE))
    rows.append(GoldRecord(id="unscored", answer="", faithful=0, source="alpha"))
    results.append(JudgeResult(id="unscored", mode="statement", reason="no statements"))
    baseline.append(JudgeResult(id="unscored", error="ValueError: the LM said nothing"))
    return rows, results, baseline


def make_summary(*, multi: bool, n_trials: int = 16, seed: int = 0) -> StudySummary:
    """A real seeded Optuna study over a threshold and a categorical policy, summarized."""
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    directions = ["maximize", "minimize"] if multi else ["maximize"]
    study = optuna.create_study(
        directions=directions, sampler=optuna.samplers.TPESampler(seed=seed), study_name="s"
    )

    def objective(trial: optuna.Trial) -> float | tuple[float, float]:
        threshold = trial.suggest_float("threshold", 0.0, 1.0)
        unsure = trial.suggest_categorical("unsure", ["unsupported", "supported", "exclude"])
        agreement_value = 1 - abs(threshold - 0.6) - (0.1 if unsure == "supported" else 0.0)
        trial.set_user_attr("lm_calls", 0 if trial.number else 40)
        if multi:
            return agreement_value, 1.0 + (unsure == "exclude")
        return agreement_value

    study.optimize(objective, n_trials=n_trials)
    distributions: dict[str, str] = {}
    for t in study.trials:
        for name, dist in t.distributions.items():
            distributions.setdefault(name, distribution_to_json(dist))

    def record(t: optuna.trial.FrozenTrial) -> TrialRecord:
        return TrialRecord(
            number=t.number,
            state=t.state.name,
            params=dict(t.params),
            values=list(t.values) if t.values is not None else None,
            lm_calls=int(t.user_attrs.get("lm_calls", 0)),
            seconds=0.01,
        )

    return StudySummary(
        name="ragjudge-test",
        seed=seed,
        directions=directions,
        objectives=["agreement", "cost"] if multi else ["agreement"],
        n_trials=len(study.trials),
        best_value=None if multi else study.best_value,
        best_params={} if multi else dict(study.best_params),
        distributions=distributions,
        trials=[record(t) for t in study.trials],
        pareto_front=[record(t) for t in study.best_trials] if multi else [],
        importances={} if multi else {"threshold": 0.8, "unsure": 0.2},
    )


def make_compile_report(
    rows: list[GoldRecord], results: list[JudgeResult], baseline: list[JudgeResult], *, multi: bool
) -> CompileReport:
    """A compile report whose validation rows are `rows` (so its figures can be checked)."""
    pairs = [
        (r, c, b) for r, c, b in zip(rows, results, baseline, strict=True) if c.passed is not None
    ]
    labels = [int(r.faithful or 0) for r, _, _ in pairs]
    compiled = agreement(
        labels, [bool(c.passed) for _, c, _ in pairs], [c.score for _, c, _ in pairs]
    )
    base_pairs = [(r, b) for r, _, b in pairs if b.passed is not None]
    base = agreement(
        [int(r.faithful or 0) for r, _ in base_pairs],
        [bool(b.passed) for _, b in base_pairs],
        [b.score for _, b in base_pairs],
    )
    return CompileReport(
        metric="faithfulness",
        lm="local/ragjudge-offline@test",
        objective="balanced_accuracy",
        params={"mode": "statement", "threshold": 0.5, "scale": 1.0, "lm": "local", "demos": 4},
        baseline_params={"mode": "statement", "threshold": 0.5, "scale": 1.0, "lm": "local"},
        validation=compiled,
        baseline=base,
        by_source={},
        gold={"path": "gold.jsonl", "sha256": "0" * 64, "rows": len(rows)},
        split={"seed": 0, "valid_fraction": 0.3},
        sizes={"train": 100, "validation": len(rows)},
        study=make_summary(multi=multi),
        lm_calls={"raw_outputs": 120, "per_trial": [40, 0, 0]},
        seconds={"study": 1.5, "total": 3.25},
        predictions=[
            RowPrediction(
                id=r.id,
                source=r.source,
                gold=int(r.faithful or 0),
                score=None if math.isnan(c.score) else c.score,
                passed=c.passed,
                baseline_score=None if math.isnan(b.score) else b.score,
                baseline_passed=b.passed,
            )
            for r, c, b in zip(rows, results, baseline, strict=True)
        ],
    )


@pytest.fixture(scope="session")
def compiled_judge_file(tmp_path_factory: pytest.TempPathFactory, sample_path: Path) -> Path:
    """A judge compiled (offline, multi-objective so the Pareto front shows) on the sample."""
    from ragjudge import Faithfulness
    from ragjudge.optimize import compile_judge

    dspy.configure_cache(enable_disk_cache=False, enable_memory_cache=False)
    judge = compile_judge(
        Faithfulness(lm="local"),
        gold=str(sample_path),
        n_trials=10,
        seed=0,
        objectives=["agreement", "cost"],
        n_boot=200,
    )
    path = tmp_path_factory.mktemp("judges") / "compiled.json"
    judge.save(path)
    assert json.loads(path.read_text())["compile"]["study"]["trials"]
    return path
