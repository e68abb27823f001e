"""The one compile protocol and the one selection rule.

`optimize/` knows no judge: it imports no judge class and reads no judge parameter by name
(everything comes through `judge.compile_spec()`); one decision function decides for every
judge, and its line says what is true; the budget held back before the study is the plan of
what runs after it.
"""

from __future__ import annotations

import ast
import itertools
import random
import re
from pathlib import Path

import numpy as np
import pytest

import ragjudge
from ragjudge.data._gold import GoldRecord, load_gold
from ragjudge.optimize import compile_judge
from ragjudge.optimize._select import (
    COSTLIER_SE,
    Finalist,
    FinalistScore,
    decide,
    pick_best,
    select_finalist,
    source_bar,
)
from ragjudge.programs import Faithfulness
from ragjudge.programs._serialization import registry
from ragjudge.programs.cascade import Cascade
from ragjudge.programs.ensemble import Ensemble
from ragjudge.stats._threshold import best_threshold
from ragjudge.testing import scripted_lm

OPTIMIZE = Path(ragjudge.__file__).parent / "optimize"

#: The one judge parameter compile knows by name: the mode its raw outputs are cached by
#: (`Judge.modes`, part of every judge's contract). Compile sets it (`clone(mode=...)`, the
#: study's `mode` choice) but reads a judge's own only from its spec (`CompileSpec.mode`).
PROTOCOL_NAMES = {"mode"}


def _judge_names() -> set[str]:
    """Every policy of every registered judge (what changes a score: thresholds, scales,
    calibrations, routes, bands, aggregations), and what their learners search (the offline
    judge's support threshold)."""
    names: set[str] = {"support_threshold"}
    for cls in registry().values():
        policies = cls.__dict__.get("policy_names")
        if isinstance(policies, tuple):
            names.update(policies)
    return names - PROTOCOL_NAMES


#: What the optimizer calls the judges it holds.
JUDGES = {"judge", "student", "start", "baseline", "compiled", "init", "candidate", "moved"}


def _on_judge(node: ast.Attribute) -> bool:
    """True for an attribute read off a judge (`judge.scale`, `state.student.threshold`)."""
    value = node.value
    name = value.attr if isinstance(value, ast.Attribute) else getattr(value, "id", "")
    return name in JUDGES


def _reads_mode(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    """True for a judge's mode read by name rather than from its spec: `judge.mode`,
    `getattr(judge, "mode", ...)`, `judge.get_params().get("mode")`, `...get_params()["mode"]`."""
    if isinstance(node, ast.Attribute):
        return node.attr == "mode" and _on_judge(node)
    if not (isinstance(node, ast.Constant) and node.value == "mode"):
        return False
    parent = parents.get(node)
    if isinstance(parent, ast.Call) and getattr(parent.func, "id", "") == "getattr":
        return True
    target: ast.AST | None = None
    if isinstance(parent, ast.Call):
        if not (isinstance(parent.func, ast.Attribute) and parent.func.attr == "get"):
            return False
        target = parent.func.value
    else:
        target = getattr(parent, "value", None)
    return isinstance(target, ast.Call) and getattr(target.func, "attr", "") == "get_params"


def _judge_call(node: ast.keyword, parents: dict[ast.AST, ast.AST]) -> bool:
    """True for a keyword of a call that makes a judge (`clone`, `candidate`)."""
    call = parents.get(node)
    func = getattr(call, "func", None)
    return isinstance(func, ast.Attribute) and func.attr in {"clone", "candidate"}


@pytest.mark.parametrize("path", sorted(OPTIMIZE.glob("*.py")), ids=lambda p: p.name)
def test_optimize_imports_no_judge_and_reads_no_parameter_by_name(path: Path) -> None:
    judge_modules = {
        f"ragjudge.programs.{m}"
        for m in ("faithfulness", "relevancy", "recall", "deterministic", "ensemble", "suite")
    } | {"ragjudge.programs.cascade"}
    classes = set(registry()) | {"Suite", "LOCAL", "LOCAL_MINILM"}
    names = _judge_names()
    found: list[str] = []
    tree = ast.parse(path.read_text())
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if module in judge_modules:
                found.append(f"line {node.lineno}: imports {module}")
            found += [
                f"line {node.lineno}: imports {a.name}" for a in node.names if a.name in classes
            ]
        elif isinstance(node, ast.Import):
            found += [
                f"line {node.lineno}: imports {a.name}"
                for a in node.names
                if a.name in judge_modules
            ]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if node.value in names:
                found.append(f"line {node.lineno}: the name {node.value!r}")
        elif isinstance(node, ast.keyword) and (
            node.arg in names or (node.arg == "lm" and _judge_call(node, parents))
        ):
            found.append(f"line {node.value.lineno}: the keyword {node.arg}=")
        elif isinstance(node, ast.Attribute) and node.attr in names and _on_judge(node):
            found.append(f"line {node.lineno}: the attribute .{node.attr}")
        if _reads_mode(node, parents):
            found.append(f"line {getattr(node, 'lineno', 0)}: a judge's mode read by name")
    assert not found, f"{path.name} knows judges by name: " + "; ".join(found)


def test_the_ast_check_sees_what_the_optimizer_used_to_read() -> None:
    """The check above would have caught what the optimizer read before the protocol."""
    names = _judge_names()
    old = 'scale = float(getattr(judge, "scale", 1.0))\nj = b.clone(lm=LOCAL)\nx = j.route'
    tree = ast.parse(old)
    constants = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)}
    keywords = {n.arg for n in ast.walk(tree) if isinstance(n, ast.keyword)}
    attributes = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    assert "scale" in constants & names and "lm" in keywords
    assert "route" in attributes & names
    reads = (
        'a = judge.get_params().get("mode")\nb = getattr(start, "mode", None)\n'
        'c = baseline.get_params()["mode"]\nd = student.mode\n'
        'ok = (params["mode"], judge.clone(mode="whole"), spec.mode)'
    )
    tree = ast.parse(reads)
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    lines = {n.lineno for n in ast.walk(tree) if _reads_mode(n, parents)}  # type: ignore[attr-defined]
    assert lines == {1, 2, 3, 4}
    assert {"threshold", "calibration", "support_threshold", "low", "high"} <= names


def test_every_judge_hands_compile_one_spec() -> None:
    faithfulness = Faithfulness(lm="local").compile_spec()
    assert faithfulness.learner is not None and not faithfulness.calls_lm
    assert faithfulness.mode_calls("statement") == 0  # the offline judge makes no LM call
    lm, _ = scripted_lm([])
    statement = Faithfulness(lm=lm, mode="statement").compile_spec()
    assert statement.learner is None and statement.reads_demos
    assert (statement.mode_calls("statement"), statement.mode_calls("whole")) == (2, 1)
    assert statement.own_calls() == 2 and statement.refits_threshold
    cascade = Cascade(lm=lm, mode="whole").compile_spec()
    assert cascade.start_arm == "offline" and cascade.learner is not None
    assert cascade.raw_params == {"route": "lm"} and not cascade.rescores_any_result
    assert cascade.start().get_params()["route"] == "offline"
    assert (
        cascade.own_calls() == 1 and Cascade(lm=lm, route="offline").compile_spec().own_calls() == 0
    )
    assert cascade.arm({"route": "combined", "mode": "whole"}) == "combined:whole"
    assert cascade.arm_label("combined:whole") == "tuned, combined route, whole mode"
    assert cascade.settle({"route": "cascade"}, 0.0) == {"route": "offline"}


def test_runs_offline_is_true_exactly_when_no_lm_is_called() -> None:
    assert not Ensemble(lms=["openai/a", "openai/b"]).runs_offline()
    assert not Ensemble(lms=["local", "openai/b"]).runs_offline()
    assert Ensemble(lms=["local", "local"]).runs_offline()
    assert ragjudge.DeterministicJudge().runs_offline()
    assert not Ensemble(lms=["openai/a", "openai/b"]).compile_spec().learner
    spec = Ensemble(lms=["openai/a", "openai/b"], repeat=2).compile_spec()
    assert spec.calls_lm and spec.mode_calls("statement") == 8  # 2 LMs, twice, 2 calls


# -- the one decision rule -------------------------------------------------------------------


def _score(
    name: str, value: float, diff: float | None, se: float | None, **kw: object
) -> FinalistScore:
    return FinalistScore(name=name, value=value, ci=(value, value), difference=diff, se=se, **kw)  # type: ignore[arg-type]


def test_the_same_finalists_get_the_same_decision_whatever_the_judge() -> None:
    """The case the two old rules split on: the best finalist is within its bar, a lesser one
    clears it. An offline-judge path (no costs) and a cascade-like one (every finalist's calls
    priced, all equal) decide alike: the lesser, clearing one ships."""
    for cost in (None, 0.0, 1.0):
        scores = [
            _score("start", 0.70, None, None, lm_calls_per_row=cost),
            _score("a", 0.80, 0.10, 0.08, lm_calls_per_row=cost, bar=1.0),
            _score("b", 0.82, 0.12, 0.15, lm_calls_per_row=cost, bar=1.0),
        ]
        chosen, reason = decide(scores, rule="one-se", start_label="the starting judge")
        assert chosen == "a", (cost, reason)
        assert "a beats the starting judge by +0.100" in reason and "one standard error" in reason


def test_a_costlier_finalist_needs_the_larger_bar() -> None:
    scores = [
        _score("start", 0.70, None, None, lm_calls_per_row=0.0),
        _score("cascade:whole", 0.80, 0.10, 0.08, lm_calls_per_row=0.4, bar=COSTLIER_SE),
    ]
    chosen, reason = decide(scores, rule="one-se", start_label="the offline judge alone")
    assert chosen == "start"
    assert "within 2 standard errors (2 x 0.080)" in reason and "0.40 LM calls a row" in reason


def test_select_finalist_gives_a_costlier_finalist_its_bar_from_the_costs() -> None:
    rng = np.random.default_rng(0)
    y = np.array([1, 0] * 60)
    groups = [f"g{i // 2}" for i in range(len(y))]
    good = np.clip(y * 0.6 + 0.2 + rng.normal(0, 0.15, len(y)), 0, 1)
    start = good > 0.5
    finalists = [
        Finalist("start", passed=start, cost=0.0),
        Finalist("cheap", candidates=[good], cost=0.0),
        Finalist("dear", candidates=[good], cost=1.0),
    ]
    selection = select_finalist(finalists, y, groups, refit=_refit, n_boot=100)
    bars = {f.name: f.bar for f in selection.finalists}
    assert bars == {"start": None, "cheap": 1.0, "dear": COSTLIER_SE}


def _refit(scores: np.ndarray, labels: np.ndarray, current: float) -> tuple[float, float]:
    return best_threshold(scores, labels, objective="balanced_accuracy", current=current)


def test_the_decision_line_reads_true() -> None:
    """Every reason states the difference against the bar truthfully: "within" only when the
    difference is within the bar, "beats" only when it clears it. Among them the issue's case:
    -0.150 with a standard error of 0.105 is not "within one standard error"."""
    rng = random.Random(0)
    cases = [[(-0.150, 0.105)]] + [
        [(round(rng.uniform(-0.2, 0.2), 3), round(rng.uniform(0.0, 0.1), 3)) for _ in range(k)]
        for k in (1, 2, 3)
        for _ in range(60)
    ]
    for case, costlier in itertools.product(cases, (False, True)):
        scores = [_score("start", 0.7, None, None)] + [
            _score(f"m{i}", 0.7 + d, d, se, bar=COSTLIER_SE if costlier and i == 0 else 1.0)
            for i, (d, se) in enumerate(case)
        ]
        chosen, reason = decide(scores, rule="one-se", start_label="the start")
        shipped = next((s for s in scores if s.name == chosen), None)
        if chosen != "start":
            assert shipped is not None and shipped.difference is not None
            assert shipped.difference > (shipped.bar or 1) * (shipped.se or 0)
            continue
        best = max(scores[1:], key=lambda s: s.value)
        diff, se, k = best.difference or 0.0, best.se or 0.0, best.bar or 1.0
        assert all(
            (s.difference or 0.0) <= (s.bar or 1) * (s.se or 0) or (s.difference or 0) <= 0
            for s in scores[1:]
        )
        shown = re.search(r"is ([+-]\d\.\d{3}) out of fold", reason)
        assert shown is not None and float(shown.group(1)) == pytest.approx(diff), reason
        if "within" in reason:
            assert abs(diff) <= k * se + 1e-9, reason
        if "lower by more than" in reason:
            assert diff < -se, reason
    chosen, reason = decide(
        [_score("start", 0.7, None, None), _score("whole", 0.55, -0.150, 0.105, bar=1.0)],
        rule="one-se",
        start_label="the starting judge",
    )
    assert chosen == "start" and "within" not in reason
    assert (
        "-0.150 out of fold, an agreement lower by more than one standard error (0.105)" in reason
    )


def test_the_select_help_says_what_the_rule_does() -> None:
    """`--select one-se`'s help names every bar `decide` applies: one standard error, the
    larger one for a costlier finalist, and the per-source bars."""
    import argparse

    from ragjudge.cli.compile import add_parser

    sub = argparse.ArgumentParser().add_subparsers()
    add_parser(sub)
    parser = sub.choices["compile"]
    (action,) = [a for a in parser._actions if a.dest == "select"]
    text = " ".join((action.help or "").split())
    assert "one standard error" in text
    assert f"{COSTLIER_SE:g} for one that makes more LM calls a row" in text
    assert "source's bar" in text and f"{source_bar(4):.2f} for four" in text


def test_pick_best_is_the_studys_rule() -> None:
    # within the tie band the better ranking wins; outside it the higher value
    assert pick_best([0.800, 0.803], [0.9, 0.8]) == 0
    assert pick_best([0.800, 0.810], [0.9, 0.8]) == 1
    assert pick_best([float("nan"), 0.5], [0.9, 0.1]) == 1


def test_the_selection_measures_the_studys_objective() -> None:
    rng = np.random.default_rng(1)
    y = np.array([1] * 30 + [0] * 90)
    groups = [f"g{i}" for i in range(len(y))]
    scores = np.clip(y * 0.5 + 0.25 + rng.normal(0, 0.2, len(y)), 0, 1)
    finalists = [Finalist("start", passed=scores > 0.9), Finalist("whole", candidates=[scores])]

    def refit_f1(s: np.ndarray, labels: np.ndarray, current: float) -> tuple[float, float]:
        return best_threshold(s, labels, objective="f1", current=current)

    ba = select_finalist(finalists, y, groups, refit=_refit, n_boot=0)
    f1 = select_finalist(finalists, y, groups, refit=refit_f1, objective="f1", n_boot=0)
    assert f1.objective == "f1" and "(f1, 95% interval" in f1.scope
    assert ba.finalists[0].value != f1.finalists[0].value  # the start, measured two ways


# -- the budget plan is what runs after the study ---------------------------------------------


@pytest.fixture(scope="module")
def rows(gold_dir: Path) -> list[GoldRecord]:
    return load_gold(gold_dir / "halueval" / "dev.jsonl", limit=60)


def _replies(n: int) -> list[dict[str, object]]:
    rng = random.Random(1)
    out: list[dict[str, object]] = []
    for _ in range(n):
        confidence = round(rng.random(), 2)
        out.append(
            {
                "reasoning": "r",
                "verdict": "yes" if confidence >= 0.5 else "no",
                "confidence": confidence,
            }
        )
    return out


@pytest.mark.parametrize("with_init", [False, True])
def test_the_budget_plan_is_the_runs_after_the_study(
    rows: list[GoldRecord], with_init: bool
) -> None:
    lm, engine = scripted_lm(_replies(600))
    init = Faithfulness(lm=lm, mode="whole", threshold=0.4) if with_init else None
    compiled = compile_judge(
        Faithfulness(lm=lm, mode="whole"),
        gold=rows,
        modes=["whole"],
        max_lm_calls=400,
        n_trials=4,
        max_demos=0,
        seed=0,
        n_boot=20,
        init=init,
    )
    report = compiled.report_
    assert report is not None
    calls = report["lm_calls"]
    plan = {
        r["run"]: r["rows"] * r["calls_per_row"] for r in calls["budget"]["planned_after_study"]
    }
    # held back: exactly the plan; spent after the study: only runs of the plan, within it
    assert calls["budget"]["reserved_after_study"] == sum(plan.values())
    ran = {label: n for label, n in calls["after_study"].items() if n}
    assert ran and set(ran) <= set(plan)
    assert all(n <= plan[label] for label, n in ran.items())
    assert calls["validation"] + calls["start_on_tuning_rows"] == sum(ran.values())
    assert len(engine.requests) == calls["raw_outputs"] + sum(ran.values())
    n_valid, n_tune = report["sizes"]["validation"], report["sizes"]["tuning"]
    # one mode: no ablation mode step is planned; an init judge is planned where it runs
    expected = {"validation (compiled)": n_valid, "validation (baseline)": n_valid}
    if with_init:
        expected |= {"validation (--init)": n_valid, "start judge (tuning rows)": n_tune}
    assert plan == expected
    if with_init:  # the init judge differs from every other: its runs are paid in full
        assert ran["validation (--init)"] == n_valid
        assert ran["start judge (tuning rows)"] == n_tune
