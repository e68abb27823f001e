"""compile(): held-out honesty, demos from gold, cached raw outputs, storage resume, warm start."""

from __future__ import annotations

import json
import math
import threading
from pathlib import Path

import dspy
import numpy as np
import pytest
from dspy.lm15 import Message, Request, Response, Usage

import ragjudge
from ragjudge.data._gold import GoldRecord, load_gold
from ragjudge.offline.engine import _TASKS, _render, parse_prompt
from ragjudge.offline.model import OfflineModel
from ragjudge.optimize import compile_judge, split_gold
from ragjudge.optimize._optimizer import demos_key

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "faithfulness"


class RuleEngine:
    """A stand-in for a real LM: answers every ragjudge signature by rule, counts calls and
    records prompts. Not an OfflineEngine, so compile treats it as an LM (demos are searched)."""

    supports_response_schema = False

    def __init__(self) -> None:
        self.model = OfflineModel()
        self.calls = 0
        self.prompts: list[str] = []
        self._lock = threading.Lock()

    def complete(self, request: Request) -> Response:
        with self._lock:
            self.calls += 1
            self.prompts.append(
                "\n".join([request.system or ""] + [m.text or "" for m in request.messages])
            )
        parsed = parse_prompt(request)
        result = _TASKS[frozenset(parsed.outputs)](self.model, parsed.inputs)
        text = _render(result, parsed.outputs, json_mode=parsed.json_mode)
        return Response(
            id=None,
            model=request.model,
            message=Message.assistant(text),
            finish_reason="stop",
            usage=Usage(input_tokens=1, output_tokens=1),
        )


@pytest.fixture(scope="module")
def gold_rows(gold_dir: Path) -> list[GoldRecord]:
    rows: list[GoldRecord] = []
    for source in ("halueval", "begin", "faithbench"):
        rows += load_gold(gold_dir / source / "dev.jsonl", limit=50)
    return rows


def test_split_is_grouped_stratified_and_seeded(gold_dir: Path) -> None:
    rows = load_gold(gold_dir / "faithbench" / "dev.jsonl")
    train, valid = split_gold(rows, seed=3)
    assert {r.group for r in train}.isdisjoint({r.group for r in valid})
    assert 0.25 < len(valid) / len(rows) < 0.42
    rate = lambda rs: sum(r.faithful or 0 for r in rs) / len(rs)  # noqa: E731
    assert abs(rate(train) - rate(valid)) < 0.1
    assert [r.id for r in split_gold(rows, seed=3)[1]] == [r.id for r in valid]
    assert [r.id for r in split_gold(rows, seed=4)[1]] != [r.id for r in valid]


def test_split_holds_out_every_source_in_proportion() -> None:
    # the quick start's rows: four sources, summedits in three groups of eight rows
    rows = load_gold(EXAMPLES / "train.jsonl")
    counts = {s: sum(r.source == s for r in rows) for s in {r.source for r in rows}}
    for seed in range(6):
        train, valid = split_gold(rows, seed=seed)
        # stratified on source and label: every source held out, in proportion (a split by
        # label alone left summedits out of validation under seeds 0 and 3)
        for source, n in counts.items():
            held = sum(r.source == source for r in valid)
            assert abs(held - n / 3) <= 3, (seed, source, held)
        assert {r.meta.get("group_id") for r in train}.isdisjoint(
            {r.meta.get("group_id") for r in valid}
        )


def test_offline_compile_beats_baseline_and_records_evidence(gold_dir: Path) -> None:
    # halueval, where the default judge is stricter than its labels: on its first 300 rows
    # compile beat the baseline on each of seeds 0-4 (BA +0.07 to +0.14). On its first 150
    # (50 validation rows), once the default judge read a choice made in a sentence, the
    # baseline tied or won on 2 of 5 seeds (0.90 vs 0.92 at seed 0). On lfqa's 150 rows it lost
    # on 2 of 5 seeds (0.641 vs 0.752 at seed 0); lfqa is the source where the README reports
    # the compiled judge below the uncompiled one.
    rows = load_gold(gold_dir / "halueval" / "dev.jsonl", limit=300)
    compiled = compile_judge(ragjudge.Faithfulness(), gold=rows, n_trials=25, seed=0)
    report = compiled.report_
    assert report["sizes"]["train"] + report["sizes"]["validation"] == len(rows)
    assert report["validation"]["n"] == report["sizes"]["validation"]
    assert report["validation"]["balanced_accuracy"] > report["baseline"]["balanced_accuracy"]
    for key in ("balanced_accuracy", "cohen_kappa", "auroc", "f1"):
        low, high = report["validation"]["ci"][key]
        assert low <= report["validation"][key] <= high
    assert len(report["gold"]["sha256"]) == 64
    assert report["study"]["n_trials"] == 25 and report["study"]["seed"] == 0
    assert compiled.offline_params_ is not None
    assert report["params"]["regularization"] > 0  # chosen by cross-validation on train
    # raw outputs are computed once per mode; the offline judge makes no LM call at all
    per_trial = report["lm_calls"]["per_trial"]
    modes = len(ragjudge.Faithfulness.modes)
    assert 1 <= report["lm_calls"]["raw_output_sets"] <= modes
    assert report["lm_calls"]["trials_without_lm_calls"] == len(per_trial) == 25
    assert sum(per_trial) == report["lm_calls"]["raw_outputs"] == 0


def test_tiny_gold_compiles_with_fewer_folds(gold_rows: list[GoldRecord]) -> None:
    # 12 rows, 6 of each label: the train side holds fewer than 5 of a label, so cross-fitting
    # must use fewer folds rather than fail (`best`: the tuned judge ships on a tie, so the
    # fitted weights and head are the shipped judge's)
    rows = [r for r in gold_rows if r.faithful == 1][:6] + [
        r for r in gold_rows if r.faithful == 0
    ][:6]
    compiled = compile_judge(
        ragjudge.Faithfulness(),
        gold=rows,
        n_trials=4,
        seed=0,
        group_by="",
        head=True,
        select="best",
    )
    assert compiled.report_["sizes"]["train"] + compiled.report_["sizes"]["validation"] == 12
    assert compiled.offline_params_.answer_head is not None


def test_seeded_compile_is_reproducible(gold_rows: list[GoldRecord]) -> None:
    a = compile_judge(ragjudge.Faithfulness(), gold=gold_rows, n_trials=12, seed=7).report_
    b = compile_judge(ragjudge.Faithfulness(), gold=gold_rows, n_trials=12, seed=7).report_
    assert a["params"] == b["params"]
    assert a["validation"] == b["validation"]
    assert [t["params"] for t in a["study"]["trials"]] == [
        t["params"] for t in b["study"]["trials"]
    ]


def test_lm_compile_demos_reach_file_and_prompt(
    gold_rows: list[GoldRecord], tmp_path: Path
) -> None:
    engine = RuleEngine()
    lm = dspy.LM("rules/test@1", engine=engine, cache=False, num_retries=0)
    compiled = compile_judge(
        ragjudge.Faithfulness(lm=lm),
        gold=gold_rows,
        n_trials=15,
        seed=1,
        max_demos=2,
        demo_candidates=2,
    )
    report = compiled.report_
    # each (mode, demo set) computed once; all other trials reuse the cache
    assert report["lm_calls"]["raw_output_sets"] == sum(
        1 for c in report["lm_calls"]["per_trial"] if c
    )
    assert engine.calls == report["lm_calls"]["raw_outputs"] + report["lm_calls"]["validation"]
    # the report counts gold demos, not the signatures' built-in examples
    own = {name: list(p.demos) for name, p in ragjudge.Faithfulness().named_predictors()}
    changed = [
        len(p.demos)
        for n, p in compiled.named_predictors()
        if demos_key(p.demos) != demos_key(own[n])
    ]
    assert report["params"]["demos"] == max(changed, default=0)
    # force a judge with gold demos to check they survive save/load and are rendered
    gold_ids = {r.id for r in gold_rows}
    if not report["params"]["demos"]:  # compile kept the built-in examples
        from ragjudge.optimize._demos import demo_pool
        from ragjudge.programs._demos import faithfulness_demo

        compiled.whole.demos = demo_pool(gold_rows, annotate=faithfulness_demo)[:2]
        compiled.judge.demos = compiled.whole.demos
        compiled.extract.demos = compiled.whole.demos
    path = tmp_path / "j.json"
    compiled.save(path)
    state = json.dumps(json.loads(path.read_text())["state"])
    assert not any(f'"{i}"' in state for i in gold_ids), "gold ids leaked into the demos"
    assert '"faithful"' not in state and '"hallucinated_spans"' not in state
    loaded = ragjudge.load(path)
    demo = loaded.whole.demos[0]
    recorder = RuleEngine()
    lm2 = dspy.LM("rules/test@2", engine=recorder, cache=False)
    loaded.clone(lm=lm2, mode="statement")(
        question="q", contexts=["The cat sat."], answer="The cat sat."
    )
    extract_prompt, judge_prompt = recorder.prompts[-2:]
    assert demo["answer"] in extract_prompt
    statement = loaded.judge.demos[0]["statements"][0]
    assert json.dumps(statement, ensure_ascii=False)[1:-1] in judge_prompt
    loaded.clone(lm=lm2, mode="whole")(
        question="q", contexts=["The cat sat."], answer="The cat sat."
    )
    assert demo["reasoning"] in recorder.prompts[-1] and demo["answer"] in recorder.prompts[-1]


def test_storage_resume_runs_only_the_missing_trials(
    gold_rows: list[GoldRecord], tmp_path: Path
) -> None:
    storage = str(tmp_path / "study.journal")
    first = compile_judge(
        ragjudge.Faithfulness(), gold=gold_rows, n_trials=5, seed=0, storage=storage
    )
    assert first.report_["study"]["n_trials"] == 5
    second = compile_judge(
        ragjudge.Faithfulness(), gold=gold_rows, n_trials=9, seed=0, storage=storage
    )
    trials = second.report_["study"]["trials"]
    assert second.report_["study"]["n_trials"] == 9
    assert [t["number"] for t in trials] == list(range(9))
    assert [t["params"] for t in trials[:5]] == [
        t["params"] for t in first.report_["study"]["trials"]
    ]


def test_init_warm_start_enqueues_the_old_params(
    gold_rows: list[GoldRecord], gold_dir: Path
) -> None:
    old = compile_judge(ragjudge.Faithfulness(), gold=gold_rows, n_trials=10, seed=0)
    other = load_gold(gold_dir / "lfqa_verification" / "dev.jsonl", limit=120)
    new = compile_judge(old.clone(), gold=other, n_trials=6, seed=0, init=old)
    first = new.report_["study"]["trials"][0]["params"]
    assert first["mode"] == old.mode
    assert first["aggregation"] == old.aggregation
    assert new.report_["init"] is not None and new.report_["init"]["n"] > 0


def test_multi_objective_records_a_pareto_front(gold_rows: list[GoldRecord]) -> None:
    compiled = compile_judge(
        ragjudge.Faithfulness(),
        gold=gold_rows,
        n_trials=10,
        seed=0,
        objectives=["agreement", "cost"],
    )
    front = compiled.report_["study"]["pareto_front"]
    assert front and all(len(t["values"]) == 2 for t in front)
    assert compiled.report_["study"]["directions"] == ["maximize", "minimize"]


def test_bad_objective_is_refused(gold_rows: list[GoldRecord]) -> None:
    with pytest.raises(ragjudge.ConfigurationError, match="objective"):
        compile_judge(ragjudge.Faithfulness(), gold=gold_rows, objective="accuracy")  # type: ignore[arg-type]


def test_report_is_json(gold_rows: list[GoldRecord]) -> None:
    compiled = compile_judge(ragjudge.Faithfulness(), gold=gold_rows, n_trials=3, seed=0)
    json.dumps(compiled.report_, allow_nan=False)


def test_relevancy_compiles_on_derived_labels(gold_dir: Path) -> None:
    rows = load_gold(gold_dir / "halueval" / "dev.jsonl", limit=200)
    compiled = compile_judge(ragjudge.AnswerRelevancy(), gold=rows, n_trials=8, seed=0)
    report = compiled.report_
    assert report is not None and report["split"]["labels"] == "derived"
    assert report["validation"]["n"] > 50
    # Demos from the derived labels, by the relevancy judge's own annotator (they used to be
    # none: the faithfulness annotator knew no relevancy label).
    gold_demos = [d for _, p in compiled.named_predictors() for d in p.demos if "gold_label" in d]
    assert report["params"]["demos"] > 0 and gold_demos
    assert all("relevancy_score" in d and "verdicts" not in d for d in gold_demos)
    assert report["validation"]["auroc"] > 0.7


def test_calibration_is_monotone_and_keeps_decisions(gold_dir: Path) -> None:
    rows = load_gold(gold_dir / "halueval" / "dev.jsonl", limit=200)
    cal = compile_judge(ragjudge.Faithfulness(), gold=rows, n_trials=10, seed=0, n_boot=0)
    raw = compile_judge(
        ragjudge.Faithfulness(), gold=rows, n_trials=10, seed=0, n_boot=0, calibrate=False
    )
    assert cal.calibration is not None and raw.calibration is None
    a, b = cal.report_["validation"], raw.report_["validation"]
    assert (a["balanced_accuracy"], a["auroc"]) == pytest.approx(
        (b["balanced_accuracy"], b["auroc"])
    )
    scores = [p["score"] for p in cal.report_["predictions"] if p["score"] is not None]
    assert all(0.0 < s < 1.0 for s in scores)


def test_unscored_rows_count_as_failing_in_the_objective() -> None:
    """Abstaining (NaN score) on a hard row must not raise the tuning objective."""
    from ragjudge.optimize._compile import _objective_value, _refine_threshold
    from ragjudge.programs._results import JudgeResult

    def result(score: float, passed: bool | None) -> JudgeResult:
        return JudgeResult(metric="faithfulness", score=score, passed=passed)

    labels = np.array([1, 1, 0, 0])
    results = [result(0.9, True), result(math.nan, None), result(0.2, False), result(0.1, False)]
    assert _objective_value("balanced_accuracy", results, labels) == pytest.approx(0.75)
    assert _objective_value("auroc", results, labels) == pytest.approx(0.5)
    spec = ragjudge.Faithfulness().compile_spec()
    scores = np.array([0.9, -1.0, 0.2, 0.1])  # the unscored row ranks lowest (UNSCORED)
    assert _objective_value("auroc", results, labels, spec=spec) == pytest.approx(0.5)
    cut, value = _refine_threshold(scores, labels, "balanced_accuracy", 0.5)
    assert value == pytest.approx(0.75) and 0.2 < cut < 0.9
