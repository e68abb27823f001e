"""`--cascade` on the command line: the offline judge on every row, an LM on the rows it finds
unclear. `evaluate --cascade` sends only some rows to the LM, `compile --cascade` writes a judge
file that `evaluate --judge` (and a Ray worker) loads, `--max-lm-calls-per-row` caps what the
shipped judge costs, and bad options are one line each.

The LM is the in-repo OpenAI-compatible test server on 127.0.0.1 (it answers with the offline
model), so every request is counted; each test takes seconds."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _cli_helpers import refused as _refused
from _cli_helpers import run_cli as _cli

from ragjudge.cli import build_parser, main
from ragjudge.cli.evaluate import build_judge as cli_build_judge
from ragjudge.exceptions import ConfigurationError
from ragjudge.programs import Cascade, Faithfulness, build_judge, default_concurrency, load
from ragjudge.testing import TestServer

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "faithfulness"
TEST_ROWS = EXAMPLES / "test.jsonl"
TRAIN_ROWS = EXAMPLES / "train.jsonl"


@pytest.fixture
def server() -> Iterator[TestServer]:
    with TestServer(delay=0.0) as running:
        yield running


def _lm(server: TestServer) -> list[str]:
    return ["--lm", "openai/fake", "--api-base", server.api_base, "--no-cache"]


def _compile(
    capsys: pytest.CaptureFixture[str], server: TestServer, out: Path, *extra: str
) -> dict[str, Any]:
    code, printed, err = _cli(
        capsys,
        "compile", "--gold", str(TRAIN_ROWS), "--limit", "80", *_lm(server), "--cascade",
        "--trials", "10", "--modes", "whole", "--max-demos", "0", "--out", str(out), *extra,
    )  # fmt: skip
    assert code == 0, err
    return {"printed": printed, "document": json.loads(out.read_text(encoding="utf-8"))}


# -- evaluate --------------------------------------------------------------------------------


def test_evaluate_cascade_sends_only_the_unclear_rows_to_the_lm(
    server: TestServer, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _cli(
        capsys, "evaluate", "--gold", str(TEST_ROWS), "--limit", "30", *_lm(server), "--cascade",
        "--format", "json",
    )  # fmt: skip
    assert code == 0, err
    summary = json.loads(out)
    requests = server.stats()["requests"]
    assert summary["rows"] == 30 and summary["errors"] == 0
    assert 0 < summary["lm_rows"] < 30  # some rows, not all: the band [0.3, 0.7] decides
    assert requests == summary["lm_calls"] == summary["lm_rows"]  # whole mode: one call a row
    assert summary["lm_calls_per_row"] == pytest.approx(requests / 30, abs=1e-4)

    code, out, err = _cli(
        capsys, "evaluate", "--gold", str(TEST_ROWS), "--limit", "30", *_lm(server), "--cascade",
        "--mode", "statement",
    )  # fmt: skip
    assert code == 0, err
    routed = server.stats()["requests"] - requests
    assert routed == 2 * summary["lm_rows"]  # statement mode: two calls a routed row
    line = next(x for x in out.splitlines() if x.startswith("cascade: "))
    assert f"{summary['lm_rows']} of 30 rows went to the LM" in line


def test_a_plain_lm_run_has_no_cascade_line(
    server: TestServer, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _cli(
        capsys, "evaluate", "--gold", str(TEST_ROWS), "--limit", "4", *_lm(server),
        "--mode", "whole", "--format", "json",
    )  # fmt: skip
    assert code == 0, err
    assert "lm_rows" not in json.loads(out) and server.stats()["requests"] == 4


# -- compile, then evaluate --judge ------------------------------------------------------------


def test_compile_cascade_writes_a_judge_that_evaluate_loads(
    server: TestServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "cascade.json"
    made = _compile(capsys, server, path, "--timeout", "30", "--max-lm-calls-per-row", "0.2")
    document, printed = made["document"], made["printed"]
    assert document["judge"] == "Cascade"
    assert document["params"]["lm"] == "openai/fake"
    assert document["params"]["lm_params"] == {"timeout": 30.0}  # the bounds reach its LM judge
    report = document["compile"]
    assert {"route", "low", "high", "weight", "threshold"} <= set(report["params"])
    names = [f["name"] for f in report["selection"]["finalists"]]
    assert names[0] == "start" and any(n.startswith(("cascade:", "combined:")) for n in names)
    assert "finalists" in printed and "starting judge (offline, its policies tuned)" in printed

    # The cap: the trial that ships costs at most 0.2 LM calls a row on the tuning rows.
    trials = {t["number"]: t for t in report["study"]["trials"]}
    shipped = trials[report["params"]["best_trial"]]
    assert shipped["lm_calls_per_row"] is not None and shipped["lm_calls_per_row"] <= 0.2
    assert report["lm_calls"]["max_per_row"] == 0.2

    judge = load(path)
    assert isinstance(judge, Cascade) and judge.route == report["params"]["route"]
    before = server.stats()["requests"]
    code, out, err = _cli(
        capsys, "evaluate", "--judge", str(path), "--gold", str(TEST_ROWS), "--limit", "30",
        "--api-base", server.api_base, "--no-cache", "--format", "json",
    )  # fmt: skip
    assert code == 0, err
    summary = json.loads(out)
    assert summary["rows"] == 30 and summary["errors"] == 0
    assert server.stats()["requests"] - before == summary["lm_calls"] == summary["lm_rows"]
    if judge.route == "offline":
        assert summary["lm_rows"] == 0


def test_max_lm_calls_per_row_zero_ships_a_judge_that_asks_no_tuning_row(
    server: TestServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "cheap.json"
    made = _compile(capsys, server, path, "--max-lm-calls-per-row", "0", "--select", "best")
    report = made["document"]["compile"]
    trials = {t["number"]: t for t in report["study"]["trials"]}
    assert any((t["lm_calls_per_row"] or 0) > 0 for t in trials.values())  # the LM was tried
    assert trials[report["params"]["best_trial"]]["lm_calls_per_row"] == 0.0
    code, out, err = _cli(
        capsys, "evaluate", "--judge", str(path), "--gold", str(TEST_ROWS), "--limit", "10",
        "--api-base", server.api_base, "--no-cache", "--format", "json",
    )  # fmt: skip
    assert code == 0, err
    assert json.loads(out)["rows"] == 10


# -- one way to build a cascade ----------------------------------------------------------------


def test_build_judge_makes_the_cascade_the_cli_makes() -> None:
    args = build_parser().parse_args(
        "evaluate --gold x.jsonl --lm openai/gpt-4o-mini --cascade --mode statement "
        "--max-tokens 300 --temperature 0.2 --threshold 0.6 --no-cache".split()
    )
    from_cli = cli_build_judge(args)
    from_api = build_judge(
        lm="openai/gpt-4o-mini",
        cascade=True,
        mode="statement",
        max_tokens=300,
        temperature=0.2,
        threshold=0.6,
        cache=False,
    )
    assert isinstance(from_api, Cascade) and repr(from_cli) == repr(from_api)
    assert from_api.lm_params == {"max_tokens": 300, "temperature": 0.2}
    assert from_api.lm_judge.max_tokens == 300 and from_api.offline_judge.runs_offline()
    assert default_concurrency(from_api) == 8  # as its LM: it waits on a server
    assert default_concurrency(Cascade(lm="gguf/smollm2")) == 1  # an LM run in this process
    with pytest.raises(ConfigurationError) as info:
        build_judge(cascade=True)
    assert "`cascade`" in str(info.value) and "`lm`" in str(info.value)
    with pytest.raises(ConfigurationError, match="faithfulness"):
        build_judge(metric="answer_relevancy", lm="openai/x", cascade=True)
    with pytest.raises(ConfigurationError, match="one `lm`"):
        build_judge(lm="openai/x", cascade=True, repeat=3)
    with pytest.raises(ConfigurationError, match="statement, whole"):
        build_judge(lm="openai/x", cascade=True, mode="rubric")
    with pytest.raises(ConfigurationError, match="Faithfulness"):
        build_judge(judge=Faithfulness(lm="local"), lm="openai/x", cascade=True)


def test_ray_workers_rebuild_a_cascade_from_its_document(server: TestServer) -> None:
    """What a Ray task does with the judge it is sent (`_judge_for`): the same judge, the same
    results and the same LM calls as one process."""
    from ragjudge.data import load_gold
    from ragjudge.distributed._run import RaySpec, _judge_for
    from ragjudge.programs._serialization import judge_document

    judge = build_judge(
        lm="openai/fake", cascade=True, api_base=server.api_base, cache=False, timeout=30
    )
    rows = load_gold(str(TEST_ROWS), limit=20)
    here = judge.batch(rows)
    calls = server.stats()["requests"]
    spec = RaySpec(
        judge=judge_document(judge),
        lm={"api_base": server.api_base, "cache": False, "timeout": 30.0},
        cache=False,
    )
    worker = _judge_for(spec)
    assert isinstance(worker, Cascade) and worker.lm_params == {"timeout": 30}
    there = worker.batch(rows)
    assert [r.model_dump(exclude={"raw"}) for r in there] == [
        r.model_dump(exclude={"raw"}) for r in here
    ]
    assert server.stats()["requests"] - calls == calls == sum(r.lm_calls for r in here) > 0


# -- bad input: one line, exit 2 ---------------------------------------------------------------


@pytest.mark.parametrize("command", ["evaluate", "compile"])
@pytest.mark.parametrize("lm", [[], ["--lm", "local"]])
def test_cascade_without_a_model_is_refused(
    command: str, lm: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = ["--out", str(tmp_path / "judge.json")] if command == "compile" else []
    code, _, err = _cli(capsys, command, "--gold", str(TEST_ROWS), *lm, "--cascade", *out)
    assert code == 2
    _refused(err, f"ragjudge {command}: error:", "--cascade", "--lm")
    assert not (tmp_path / "judge.json").exists()


@pytest.mark.parametrize("value", ["-0.5", "nan"])
def test_negative_max_lm_calls_per_row_is_refused(
    value: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = _cli(
        capsys, "compile", "--gold", str(TRAIN_ROWS), "--lm", "openai/fake", "--cascade",
        "--max-lm-calls-per-row", value, "--out", str(tmp_path / "judge.json"),
    )  # fmt: skip
    assert code == 2
    _refused(err, "--max-lm-calls-per-row must be 0 or more")


def test_cascade_options_the_other_options_contradict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gold = str(TEST_ROWS)
    code, _, err = _cli(
        capsys, "evaluate", "--gold", gold, "--lm", "openai/x", "--cascade", "--metric",
        "answer_relevancy",
    )  # fmt: skip
    assert code == 2
    _refused(err, "--cascade", "faithfulness")
    code, _, err = _cli(
        capsys, "evaluate", "--gold", gold, "--lm", "openai/x", "--lm", "openai/y", "--cascade"
    )
    assert code == 2
    _refused(err, "--cascade", "--lm", "--repeat")
    code, _, err = _cli(
        capsys, "evaluate", "--gold", gold, "--lm", "openai/x", "--cascade", "--mode", "rubric"
    )
    assert code == 2
    _refused(err, "--mode", "statement, whole")
    offline = tmp_path / "offline.json"
    Faithfulness(lm="local").save(offline)
    code, _, err = _cli(
        capsys, "evaluate", "--gold", gold, "--judge", str(offline), "--lm", "openai/x",
        "--cascade",
    )  # fmt: skip
    assert code == 2
    _refused(err, "--cascade", "Faithfulness")
    saved = tmp_path / "cascade.json"
    Cascade(lm="openai/x").save(saved)
    for lms in (["--lm", "local"], ["--lm", "openai/x", "--lm", "openai/y"]):
        code, _, err = _cli(capsys, "evaluate", "--gold", gold, "--judge", str(saved), *lms)
        assert code == 2
        _refused(err, "A cascade (--cascade)", "--lm")


def test_help_names_the_cascade_options(capsys: pytest.CaptureFixture[str]) -> None:
    for command in ("evaluate", "compile"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        text = " ".join(capsys.readouterr().out.split())
        assert "--cascade" in text and "band (default [0.3, 0.7])" in text
    assert "--max-lm-calls-per-row CALLS" in text and "agreement,cost" in text
