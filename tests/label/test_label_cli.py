"""`ragjudge label`'s bad input: one line, exit 2, nothing written over."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from ragjudge.cli import main

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(["label", *args, "--no-browser"])
    err = capsys.readouterr().err
    return code, err


def test_a_port_in_use(traffic: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    port = taken.getsockname()[1]
    try:
        code, err = _run(
            capsys, "--rows", str(traffic), "--gold", str(tmp_path / "g.jsonl"), "--port", str(port)
        )
    finally:
        taken.close()
    assert code == 2
    assert err.strip() == (
        f"ragjudge label: error: port {port} on 127.0.0.1 is in use; pass another --port "
        "(0 picks a free one)"
    )
    assert not (tmp_path / "g.jsonl").exists()


@pytest.mark.parametrize(
    ("lines", "says"),
    [
        (['{"id": "a", "answer": "x", "label": 1}'], "has a column 'label' but no 'faithful'"),
        (["not json"], "is not valid JSON"),
        (
            [
                '{"id": "a", "answer": "x", "faithful": 1}',
                '{"id": "a", "answer": "x", "faithful": 0}',
            ],
            "duplicate id 'a' (first seen in row 1)",
        ),
    ],
)
def test_a_gold_file_it_cannot_use(
    traffic: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    lines: list[str],
    says: str,
) -> None:
    gold = tmp_path / "gold.jsonl"
    gold.write_text("\n".join(lines) + "\n")
    before = gold.read_bytes()
    code, err = _run(capsys, "--rows", str(traffic), "--gold", str(gold), "--port", "0")
    assert code == 2
    assert err.count("\n") == 1 and "Traceback" not in err
    assert str(gold) in err and says in err
    assert gold.read_bytes() == before


@pytest.mark.parametrize("which", ["--gold", "--rows"])
def test_a_label_column_is_to_be_renamed(
    traffic: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], which: str
) -> None:
    """`label` has no --map (the gold file it appends to is read as it is by every command):
    a `label` column is to be renamed, and the error says so rather than name --map."""
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "answer": "x", "label": 1}\n')
    files = {"--rows": str(traffic), "--gold": str(tmp_path / "gold.jsonl"), which: str(bad)}
    code, err = _run(capsys, *[x for item in files.items() for x in item], "--port", "0")
    assert code == 2 and err.count("\n") == 1
    assert f"{bad}, row 1, field 'label': has a column 'label' but no 'faithful'" in err
    assert "rename the column 'label' to 'faithful'" in err
    assert "--map faithful" not in err and "has no --map" in err


def test_a_holds_file_it_cannot_use(
    traffic: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gold = tmp_path / "gold.jsonl"
    holds = tmp_path / "gold.jsonl.holds.sqlite"
    holds.write_text("not a database\n" * 100)
    code, err = _run(capsys, "--rows", str(traffic), "--gold", str(gold), "--port", "0")
    assert code == 2
    assert err.count("\n") == 1 and "Traceback" not in err
    assert f"{holds}: is not a holds file of `ragjudge label`" in err and "delete it" in err


def test_the_rows_as_the_gold_file(
    traffic: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, err = _run(capsys, "--rows", str(traffic), "--gold", str(traffic), "--port", "0")
    assert code == 2 and err.count("\n") == 1
    assert f"--gold {traffic} is the --rows file" in err


def test_page_answers_in_the_gold_file_read_as_one_row(tmp_path: Path) -> None:
    """The page's own re-answers and other reviewers' answers: the last one wins; a skip
    leaves the id out; the rule `compile` and `estimate` read through `load_gold`."""
    from ragjudge.data._gold import load_gold

    def line(row_id: str, faithful: int | None, reviewer: str = "ana") -> str:
        meta = {"group_id": "g", "reviewer": reviewer, "labeled_at": "2026-01-01T00:00:00Z"}
        return json.dumps({"id": row_id, "answer": "x", "faithful": faithful, "meta": meta})

    gold = tmp_path / "gold.jsonl"
    gold.write_text(
        "\n".join(
            [
                line("a", 1),
                line("b", None),
                line("c", 0),
                line("a", 0, "ben"),
                line("c", None),
                line("d", None),
                line("d", 1),
            ]
        )
        + "\n"
    )
    assert {r.id: r.faithful for r in load_gold(gold)} == {"a": 0, "d": 1}
