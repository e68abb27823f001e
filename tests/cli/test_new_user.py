"""What a new user met on a fresh clone (issue 41), each a test that failed before its fix."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pytest
from _cli_helpers import refused, run_cli

import ragjudge
from ragjudge.data import derive_gold, load_gold, rows_from
from ragjudge.exceptions import ConfigurationError, GoldDataError

REPO = Path(__file__).resolve().parents[2]
TEST_ROWS = REPO / "examples" / "faithfulness" / "test.jsonl"


@pytest.fixture
def labeled(tmp_path: Path) -> Path:
    """A copy of 20 labeled rows."""
    path = tmp_path / "my.jsonl"
    path.write_text("".join(TEST_ROWS.read_text().splitlines(keepends=True)[:20]))
    return path


# -- no output over an input ------------------------------------------------------------------


@pytest.mark.parametrize("spelling", ["same", "dotted", "symlink", "hardlink"])
def test_evaluate_refuses_to_write_results_over_its_rows(
    spelling: str, labeled: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = labeled.read_bytes()
    out = {
        "same": labeled,
        "dotted": labeled.parent / "." / ".." / labeled.parent.name / labeled.name,
        "symlink": labeled.parent / "link.jsonl",
        "hardlink": labeled.parent / "hard.jsonl",
    }[spelling]
    if spelling == "symlink":
        out.symlink_to(labeled)
    if spelling == "hardlink":
        os.link(labeled, out)
    code, stdout, err = run_cli(capsys, "evaluate", "--gold", str(labeled), "--out", str(out))
    assert code == 2 and not stdout
    refused(err, "--out", "is the --gold file", "name another file")
    assert labeled.read_bytes() == before


def test_every_command_refuses_an_output_over_an_input(
    labeled: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    judge = tmp_path / "judge.json"
    ragjudge.Faithfulness().save(judge)
    saved = judge.read_bytes()
    several = tmp_path / "res.jsonl"
    (tmp_path / "res.faithfulness.jsonl").write_text(labeled.read_text())
    cases = [
        (["compile", "--gold", str(labeled), "--init", str(judge), "--out", str(judge)], "--init"),
        (["drift", "--judge", str(judge), "--gold", str(labeled), "--out", str(labeled)], "--gold"),
        (
            [
                "evaluate",
                "--gold",
                str(tmp_path / "res.faithfulness.jsonl"),
                "--out",
                str(several),
                "--metric",
                "faithfulness,answer_relevancy",
            ],
            "--out (faithfulness)",
        ),
    ]
    for args, named in cases:
        code, _, err = run_cli(capsys, *args)
        assert code == 2, args
        refused(err, named, "name another file")
    assert judge.read_bytes() == saved


@pytest.mark.parametrize("form", ["journal", "sqlite", "other file"])
def test_compile_refuses_a_storage_that_is_an_input_before_any_work(
    form: str, labeled: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Optuna would die on it with `KeyError: 'op_code'` after the rows are judged (or write
    its log into the file): refused up front, the file untouched."""
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    storage, named, victim = {
        "journal": (str(labeled), "is the --gold file", labeled),
        "sqlite": (f"sqlite:///{labeled}", "is the --gold file", labeled),
        "other file": (str(notes), "is not an Optuna journal file", notes),
    }[form]
    before = victim.read_bytes()
    out = tmp_path / "judge.json"
    args = ["--gold", str(labeled), "--out", str(out), "--storage", storage, "--trials", "2"]
    code, stdout, err = run_cli(capsys, "compile", *args)
    assert code == 2 and not stdout
    refused(err, "--storage", named)
    assert "Traceback" not in err and victim.read_bytes() == before and not out.exists()


def test_library_compile_refuses_a_storage_that_is_its_gold(labeled: Path) -> None:
    with pytest.raises(ConfigurationError, match=r"`storage`.*is the `gold` file"):
        ragjudge.compile(ragjudge.Faithfulness(), gold=str(labeled), storage=str(labeled))


def test_library_evaluate_refuses_out_over_its_rows(labeled: Path) -> None:
    with pytest.raises(ConfigurationError, match=r"`out`.*is the `rows` file"):
        ragjudge.evaluate(ragjudge.Faithfulness(), str(labeled), out=str(labeled))


# -- a hand-edited judge: compile --init takes --trust-modified as evaluate does --------------


def test_compile_init_takes_trust_modified(
    labeled: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    judge = tmp_path / "judge.json"
    ragjudge.Faithfulness(threshold=0.5).save(judge)
    document = json.loads(judge.read_text())
    document["params"]["threshold"] = 0.6  # edited by hand: the checksum no longer matches
    judge.write_text(json.dumps(document))
    args = ["compile", "--gold", str(labeled), "--init", str(judge), "--trials", "2"]
    code, _, err = run_cli(capsys, *args, "--out", str(tmp_path / "a.json"))
    assert code == 2
    refused(err, "--trust-modified")
    code, _, err = run_cli(
        capsys, *args, "--out", str(tmp_path / "b.json"), "--trust-modified", "--format", "json"
    )
    assert code == 0, err
    assert (tmp_path / "b.json").exists()


# -- a CSV without rows -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "why"),
    [("", "is empty"), ("question,contexts,answer\n", "only a header line"), ("\n\n", "is empty")],
    ids=["empty", "header-only", "blank-lines"],
)
def test_a_csv_without_rows_is_one_clear_error_naming_the_file(
    text: str, why: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "rows.csv"
    path.write_text(text)
    code, _, err = run_cli(capsys, "evaluate", "--gold", str(path))
    assert code == 2
    refused(err, str(path), why)
    assert "Instruction" not in err[0]


# -- load_gold takes what evaluate takes ------------------------------------------------------


def test_load_gold_takes_dataframes_and_dicts_as_evaluate_does() -> None:
    from_file = load_gold(TEST_ROWS, limit=5)
    dicts = [r.model_dump(mode="json") for r in from_file]
    frame = pd.DataFrame(dicts)
    assert load_gold(frame) == from_file
    assert load_gold(dicts) == from_file == rows_from(frame)
    assert load_gold(frame, limit=2) == from_file[:2]
    assert load_gold(from_file) == from_file
    with pytest.raises(GoldDataError, match=r"row 1.*answer"):
        load_gold(pd.DataFrame([{"question": "q", "contexts": ["c"]}]), require={"answer": "x"})
    with pytest.raises(GoldDataError, match="expected rows"):
        load_gold({"question": "q"})  # type: ignore[arg-type]
    _, report = ragjudge.evaluate(ragjudge.Faithfulness(), frame, n_boot=0)
    assert report.rows == 5


# -- a mistyped option ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "usage", "near"),
    [
        (["evaluate", "--gold", "x.jsonl", "--ot", "r.jsonl"], "ragjudge evaluate", "--out"),
        (["evaluate", "--gld", "x.jsonl"], "ragjudge evaluate", "--gold"),
        (
            ["compile", "--gold", "x", "--out", "j.json", "--trails", "3"],
            "ragjudge compile",
            "--trials",
        ),
        (["drift", "--judge", "j.json", "--gold", "x", "--alpah=0.1"], "ragjudge drift", "--alpha"),
    ],
)
def test_a_mistyped_option_names_the_subcommand_and_the_nearest_option(
    args: list[str], usage: str, near: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        run_cli(capsys, *args)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"usage: {usage} ")
    assert err.rstrip().endswith(f"did you mean {near}?")
    assert f"{usage}: error: unrecognized option" in err


# -- labels through data/_labels.py: the runner and the gate ----------------------------------


def test_results_file_records_each_rows_label_for_the_judged_metric(
    labeled: Path, tmp_path: Path
) -> None:
    rows = derive_gold(load_gold(labeled))["answer_relevancy"]
    out = tmp_path / "rel.jsonl"
    ragjudge.evaluate(ragjudge.AnswerRelevancy(lm="local"), rows, out=out, n_boot=0)
    golds = [json.loads(line)["gold"] for line in out.read_text().splitlines()]
    assert golds == [ragjudge.data.gold_label(r, "answer_relevancy") for r in rows]
    assert all(g in (0, 1) for g in golds)  # a derived row's `faithful` is None


def test_the_gate_asks_the_label_rule_before_any_work(
    labeled: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    derived = tmp_path / "derived.jsonl"  # relevancy labels only: none for faithfulness
    rows = derive_gold(load_gold(labeled))["answer_relevancy"]
    derived.write_text("".join(r.model_dump_json() + "\n" for r in rows))
    code, out, err = run_cli(
        capsys, "evaluate", "--gold", str(derived), "--fail-under", "balanced_accuracy=0.5"
    )
    assert code == 2 and not out
    refused(err, "--fail-under balanced_accuracy needs labeled rows", "label for faithfulness")
    code, out, err = run_cli(
        capsys,
        "evaluate",
        "--gold",
        str(derived),
        "--metric",
        "answer_relevancy",
        "--fail-under",
        "balanced_accuracy=0.0",
    )
    assert code == 0, err
