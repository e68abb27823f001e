"""Issue 32, the command line's half: output that tells the truth, no silent wrong result, help
with defaults and examples, and one library function that builds a judge.

Every bad input gets one line naming the file, row and field (or the option), exit code 2, no
traceback and no file left behind. Runs from a clone alone (no shared gold data)."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from _cli_helpers import refused as _refused
from _cli_helpers import run_cli as _cli

import ragjudge
from ragjudge.cli import main
from ragjudge.data import load_gold, rows_from
from ragjudge.data._gold import list_from_text, looks_local
from ragjudge.evaluation._evaluate import evaluate
from ragjudge.exceptions import (
    ConfigurationError,
    GoldDataError,
    SerializationError,
    UngroupedRowsWarning,
)
from ragjudge.optimize._report import CompileReport
from ragjudge.optimize._split import shared_question_rows
from ragjudge.programs import DeterministicJudge, Faithfulness, build_judge, default_concurrency
from ragjudge.programs._results import JudgeResult
from ragjudge.programs._serialization import judge_class, save_judge
from ragjudge.stats import score_summary, wilson_interval

REPO = Path(__file__).resolve().parents[2]
COMPILED = REPO / "tests" / "resources" / "faithfulness_v0_compiled.json"

ROWS = [
    {
        "id": "a",
        "question": "Where was Einstein born?",
        "contexts": ["Albert Einstein was born in Ulm, Germany, in 1879."],
        "answer": "Einstein was born in Ulm.",
        "faithful": 1,
    },
    {
        "id": "b",
        "question": "Where was Einstein born?",
        "contexts": ["Albert Einstein was born in Ulm, Germany, in 1879."],
        "answer": "Einstein was born in Paris in 1900.",
        "faithful": 0,
    },
    {
        "id": "c",
        "question": "What is the capital of France?",
        "contexts": ["Paris is the capital of France."],
        "answer": "Paris is the capital of France.",
        "faithful": 1,
    },
    {
        "id": "d",
        "question": "What is the capital of France?",
        "contexts": ["Paris is the capital of France."],
        "answer": "Lyon is the capital of France.",
        "faithful": 0,
    },
]


def _jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _unlabeled(tmp_path: Path) -> Path:
    return _jsonl(
        tmp_path / "unlabeled.jsonl",
        [{k: v for k, v in r.items() if k != "faithful"} for r in ROWS],
    )


# -- output that tells the truth --------------------------------------------------------------


def test_offline_run_names_no_lm_calls_and_shows_pass_rate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gold = _jsonl(tmp_path / "rows.jsonl", ROWS)
    code, out, _ = _cli(capsys, "evaluate", "--gold", str(gold))
    assert code == 0
    head = out.splitlines()[0]
    assert "offline judge, no LM" in head and "LM calls" not in out and "tokens" not in out
    assert "replies:" not in out and "labels: human" in out
    assert "pass_rate" in out and "mean_score" in out and "Wilson" in out

    code, out, _ = _cli(capsys, "evaluate", "--gold", str(gold), "--format", "json")
    summary = json.loads(out)
    assert summary["offline"] is True and summary["lm_calls"] == 0 and summary["tokens"] == 0
    assert "replies" not in summary
    assert 0 <= summary["pass_rate"] <= 1 and len(summary["ci"]["pass_rate"]) == 2


def test_unlabeled_rows_get_pass_rate_and_mean_score_and_no_label_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _cli(capsys, "evaluate", "--gold", str(_unlabeled(tmp_path)))
    assert code == 0
    assert "labels:" not in out and "no labeled rows: agreement not measured" in out
    rate = next(line for line in out.splitlines() if "pass_rate" in line)
    assert "[" in rate and "of 4 passed" in rate
    code, out, _ = _cli(capsys, "evaluate", "--gold", str(_unlabeled(tmp_path)), "--format", "json")
    summary = json.loads(out)
    assert summary["labels"] == "none" and summary["balanced_accuracy"] is None
    assert summary["mean_score"] is not None and summary["ci"]["mean_score"][0] is not None


def test_score_summary_and_wilson() -> None:
    s = score_summary([True, False, False, True], [1.0, 0.0, math.nan, 0.5], n_boot=200)
    assert (s.n, s.passed, s.scored, s.pass_rate) == (4, 2, 3, 0.5)
    assert s.mean_score == pytest.approx(0.5)
    low, high = s.mean_score_ci
    assert low is not None and high is not None and low <= 0.5 <= high
    low, high = wilson_interval(0, 10)
    assert low == 0.0 and high is not None and 0.2 < high < 0.35


def test_result_text_says_offline_or_no_lm() -> None:
    r = Faithfulness()(contexts=["Paris is the capital of France."], answer="Paris is in France.")
    assert r.offline and "(offline judge, no LM)" in r.format() and "LM calls" not in r.format()
    d = DeterministicJudge()(contexts=["Paris is in France."], answer="Paris is in France.")
    assert not d.offline and "(no LM call)" in d.format()


def test_reason_carries_the_final_score_and_says_when_the_verdict_was_overruled() -> None:
    # Whole mode, confidence aggregation, a calibration that maps 0.35 far down.
    judge = Faithfulness(mode="whole", aggregation="mean", calibration=[10.0, -7.0])
    r = judge.finish(whole={"verdict": "no", "confidence": 0.35, "reasoning": "0 of 1 supported"})
    assert r.passed is False and r.reason.startswith(f"{r.score:.2f} fails (below the threshold")
    assert "0.35" not in r.reason  # the raw confidence never stands beside another score
    # The calibrated confidence passes though the judge said "no": the reason says so.
    judge = Faithfulness(mode="whole", aggregation="mean", calibration=[10.0, -1.0])
    r = judge.finish(whole={"verdict": "no", "confidence": 0.35, "reasoning": "0 of 1 supported"})
    assert r.passed is True
    assert r.reason.startswith(f"{r.score:.2f} passes (at least the threshold 0.50; the judge's")
    # Statement mode: the number is the final (calibrated) score, not the raw fraction.
    from ragjudge.programs._results import StatementResult

    judge = Faithfulness(calibration=[4.0, -3.0])
    st = [StatementResult(text="a", verdict="yes"), StatementResult(text="b", verdict="no")]
    r = judge.finish(statements=st)
    assert r.reason.startswith(f"{r.score:.2f} fails (below the threshold 0.50): 1 of 2 statements")
    assert not r.reason.startswith("0.50")


def test_offline_answer_reasoning_agrees_with_its_verdict() -> None:
    from ragjudge.offline.model import _answer_reasoning

    judged = [{"statement": "x", "reason": "r", "verdict": "no", "confidence": 0.2}]
    assert _answer_reasoning(judged, "yes").startswith("supported as a whole, though only 0 of 1")
    assert _answer_reasoning(judged, "no").startswith("0 of 1 statements supported")


def test_short_reprs_and_rounded_parameters() -> None:
    judge = Faithfulness(mode="whole", threshold=0.691798183883893, lm="local")
    assert repr(judge) == "Faithfulness(mode='whole', lm='local', threshold=0.6918)"
    assert str(judge) == repr(judge)  # print(judge): one line, no prompt text
    compiled = ragjudge.load(COMPILED)
    text = repr(compiled)
    assert "\n" not in text and text.endswith("compiled)") and len(text) < 200
    report = CompileReport.model_validate(compiled.report_)
    assert "\n" not in repr(report) and repr(report).startswith("CompileReport(")
    table = report.table("judge.json")
    assert "offline judge (no LM)" in table and "LM calls" not in table
    assert "demos=" not in table  # the offline judge does not read demos
    assert "threshold=0.5067" in table and "0.50671" not in table
    assert report.to_markdown().startswith("| figure (n=14) | compiled | uncompiled | gain |")


def test_evaluation_report_repr_table_and_markdown() -> None:
    _, report = evaluate(Faithfulness(), ROWS)
    assert repr(report).startswith("EvaluationReport(metric='faithfulness'") and "\n" not in repr(
        report
    )
    assert report.table() == str(report) and "balanced_accuracy" in report.table()
    assert "| pass_rate |" in report.to_markdown()


def test_evaluate_exits_2_when_no_row_could_be_judged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gold = _jsonl(tmp_path / "rows.jsonl", ROWS[:2])
    code, out, err = _cli(
        capsys,
        "evaluate",
        "--gold",
        str(gold),
        "--lm",
        "openai/nothing-here",
        "--api-base",
        "http://127.0.0.1:9/v1",
        "--max-retries",
        "0",
        "--timeout",
        "2",
    )
    assert code == 2 and "error in 2 rows" in out
    _refused(err, "no row could be judged")


# -- no silent wrong result -------------------------------------------------------------------


def test_csv_list_reprs_are_read_as_lists(tmp_path: Path) -> None:
    csv = tmp_path / "export.csv"
    csv.write_text(
        "question,contexts,answer,faithful\n"
        "\"Where?\",\"['Paris is in France.', 'It is big.']\",Paris is in France.,1\n"
        'Where?,"[""JSON one."", ""JSON two.""]",x,0\n',
        encoding="utf-8",
    )
    rows = load_gold(csv)
    assert rows[0].contexts == ["Paris is in France.", "It is big."]
    assert rows[1].contexts == ["JSON one.", "JSON two."]
    assert list_from_text("[not a list") == ["[not a list"]


def test_csv_numpy_repr_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    csv = tmp_path / "export.csv"
    csv.write_text(
        "question,contexts,answer\nWhere?,\"['Paris is in France.' 'It is big.']\",Paris.\n",
        encoding="utf-8",
    )
    code, _, err = _cli(capsys, "evaluate", "--gold", str(csv))
    assert code == 2
    _refused(err, str(csv), "row 2", "field 'contexts'", "list")


@pytest.mark.parametrize("name", ["results.csv", "results.txt", "folder"])
def test_evaluate_out_is_checked_before_any_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    gold = _jsonl(tmp_path / "rows.jsonl", ROWS)
    out = tmp_path / name
    if name == "folder":
        out.mkdir()
    code, stdout, err = _cli(capsys, "evaluate", "--gold", str(gold), "--out", str(out))
    assert code == 2 and stdout == ""
    _refused(err, str(out))
    assert (out.is_dir() and not any(out.iterdir())) or not out.exists()


@pytest.mark.parametrize("name", ["existing_folder", "judge.txt"])
def test_compile_out_is_checked_before_any_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    gold = _jsonl(tmp_path / "rows.jsonl", ROWS)
    out = tmp_path / name
    if name == "existing_folder":
        out.mkdir()
    code, stdout, err = _cli(capsys, "compile", "--gold", str(gold), "--out", str(out))
    assert code == 2 and stdout == ""
    _refused(err, str(out))
    assert not list(tmp_path.glob("*.tmp"))


def test_save_judge_into_a_folder_leaves_nothing(tmp_path: Path) -> None:
    with pytest.raises(SerializationError, match="is a folder"):
        save_judge(Faithfulness(), tmp_path)
    assert not list(tmp_path.parent.glob(f"{tmp_path.name}.tmp"))


def test_rows_sharing_a_question_across_groups_are_counted() -> None:
    rows = rows_from(ROWS)
    assert shared_question_rows(rows, "meta.group_id") == 4  # no group ids: each row alone
    assert shared_question_rows(rows, "question") == 0
    claims = rows_from([{**r, "question": ""} for r in ROWS])
    assert shared_question_rows(claims, None) == 0  # an empty question is no key


def test_compile_warns_about_twins_and_names_the_fix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pairs = []
    for i in range(12):
        for j, (answer, label) in enumerate([(f"It is {i}.", 1), (f"It is {i + 50}.", 0)]):
            pairs.append(
                {
                    "id": f"{i}-{j}",
                    "question": f"What number is {i}?",
                    "contexts": [f"The number is {i}."],
                    "answer": answer,
                    "faithful": label,
                }
            )
    gold = _jsonl(tmp_path / "pairs.jsonl", pairs)
    out = tmp_path / "judge.json"
    args = ["compile", "--gold", str(gold), "--out", str(out), "--trials", "2", "--head", "off"]
    code, _, err = _cli(capsys, *args)
    assert code == 0 and out.exists()
    warning = [line for line in err if "warning" in line]
    assert len(warning) == 1 and "24 of 24 rows share their question" in warning[0]
    assert "--group-by question" in warning[0]
    code, _, err = _cli(capsys, *args, "--group-by", "question")
    assert code == 0 and not [line for line in err if "warning" in line]


def test_library_warns_with_the_parameter(tmp_path: Path) -> None:
    rows = rows_from(ROWS * 1)
    with pytest.warns(UngroupedRowsWarning, match="group_by='question'"):
        try:
            ragjudge.compile(Faithfulness(), gold=rows, n_trials=1, group_by=None)
        except GoldDataError:
            pass  # four rows are too few to split; the warning came first


def test_local_looking_paths_never_reach_the_hub(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "data").mkdir()
    monkeypatch.chdir(tmp_path)
    for name in ("data/my_labeled", "./labeled", "../labeled", "a/b/c", "gold.jsonl"):
        assert looks_local(name), name
        code, _, err = _cli(capsys, "evaluate", "--gold", name)
        assert code == 2
        _refused(err, name, "file not found")
    assert not looks_local("org/dataset")


def test_a_near_miss_column_gets_a_did_you_mean(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [{"id": "a", "question": "q", "context": ["Paris."], "answer": "Paris."}]
    gold = _jsonl(tmp_path / "rows.jsonl", rows)
    code, _, err = _cli(capsys, "evaluate", "--gold", str(gold))
    assert code == 2
    _refused(err, str(gold), "row 1", "'contexts'", "did you mean `--map contexts=context`?")
    with pytest.raises(GoldDataError, match="did you mean to map contexts=context") as info:
        rows_from(rows, require={"contexts": "faithfulness"})
    assert info.value.suggestion == {"contexts": "context"}


@pytest.mark.parametrize("command", ["evaluate", "compile"])
def test_a_label_column_gets_the_same_answer_in_evaluate_and_compile(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    rows = [{k: v for k, v in r.items() if k != "faithful"} | {"label": 1} for r in ROWS]
    gold = _jsonl(tmp_path / "rows.jsonl", rows)
    args = [command, "--gold", str(gold), "--out", str(tmp_path / "j.json")]
    if command == "evaluate":
        args = args[:3]
    code, _, err = _cli(capsys, *args)
    assert code == 2
    _refused(err, str(gold), "row 1", "'label'", "`--map faithful=label`")
    mapped = main([*args, "--map", "faithful=label", "--format", "json"])
    capsys.readouterr()
    assert mapped == 0 or command == "compile"  # compile on 4 rows: too few to split


def test_python_api_takes_dicts_and_dataframes() -> None:
    judge = Faithfulness()
    results, report = evaluate(judge, ROWS)
    assert [r.id for r in results] == ["a", "b", "c", "d"] and report.agreement is not None
    pd = pytest.importorskip("pandas")
    results2, _ = ragjudge.evaluate(judge, pd.DataFrame(ROWS))
    assert [r.score for r in results2] == [r.score for r in results]
    frame = pd.DataFrame([{k: v for k, v in r.items() if k != "question"} for r in ROWS])
    assert len(rows_from(frame)) == 4  # missing cells are absent fields, not NaN
    with pytest.raises(GoldDataError, match="row 1"):
        evaluate(judge, [{"answer": "x"}])


def test_wrong_keywords_raise_type_error() -> None:
    judge = Faithfulness()
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'context'.*'contexts'"):
        judge(context=["Paris."], answer="Paris.")
    with pytest.raises(TypeError, match="contexts=None"):
        judge(contexts=None, answer="Paris.")
    with pytest.raises(TypeError, match="answer"):
        judge(contexts=["Paris."])


# -- help -------------------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["evaluate", "compile", "report", "drift"])
def test_help_shows_defaults_and_two_examples(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main([command, "--help"])
    assert exit_.value.code == 0
    text = capsys.readouterr().out
    assert "(default: " in text
    examples = text.split("examples:", 1)[1].strip().splitlines()
    assert len([e for e in examples if e.strip().startswith(f"ragjudge {command}")]) == 2
    if command == "compile":
        assert "--group-by question" in text.replace("\n", " ") or "'question'" in text


# -- one library function builds a judge ------------------------------------------------------


def test_build_judge_is_what_the_cli_builds(tmp_path: Path) -> None:
    from ragjudge.cli import build_parser
    from ragjudge.cli.evaluate import build_judge as cli_build_judge

    args = build_parser().parse_args(
        "evaluate --gold x.jsonl --metric answer_relevancy --mode statement --threshold 0.7 "
        "--max-tokens 300".split()
    )
    from_cli = cli_build_judge(args)
    from_api = build_judge(
        metric="answer_relevancy", mode="statement", threshold=0.7, max_tokens=300
    )
    assert repr(from_cli) == repr(from_api) and from_api.get_params()["mode"] == "questions"
    assert judge_class("deterministic") is DeterministicJudge
    assert judge_class("faithfulness") is Faithfulness
    with pytest.raises(ConfigurationError) as info:
        build_judge(metric="faith")
    assert "--" not in str(info.value) and "`metric`" in str(info.value)
    with pytest.raises(ConfigurationError) as info:
        build_judge(api_base="http://127.0.0.1:1/v1")
    assert "--" not in str(info.value) and "`api_base`" in str(info.value)
    compiled = build_judge(judge=COMPILED, threshold=0.4)
    assert compiled.report_ is not None and compiled.get_params()["threshold"] == 0.4


def test_default_concurrency_is_one_rule() -> None:
    assert default_concurrency(Faithfulness(lm="local")) == 1
    assert default_concurrency(DeterministicJudge()) == 1
    assert default_concurrency(Faithfulness(lm="openai/gpt-4o-mini")) == 8
    assert default_concurrency(build_judge(lm=["local", "local"])) == 1


def test_cli_says_library_parameters_as_options(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gold = _jsonl(tmp_path / "rows.jsonl", ROWS)
    code, _, err = _cli(capsys, "evaluate", "--gold", str(gold), "--max-retries", "-1")
    assert code == 2
    _refused(err, "--max-retries must be >= 0")


def test_bad_input_never_prints_a_traceback_in_a_real_process(tmp_path: Path) -> None:
    gold = _jsonl(tmp_path / "rows.jsonl", [{"id": "a", "context": ["x"], "answer": "y"}])
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    done = subprocess.run(
        [sys.executable, "-m", "ragjudge", "evaluate", "--gold", str(gold), "--out", "r.csv"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip().count("\n") == 0 and "r.csv" in done.stderr
    assert not (tmp_path / "r.csv").exists()


def _unused(result: JudgeResult) -> None:  # keeps the JudgeResult import for type readers
    del result
