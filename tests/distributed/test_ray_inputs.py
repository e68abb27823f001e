"""The Ray path without a cluster: input blocks, output shards, and the errors that stop a run
before any row is judged (exit 2, one line). Nothing here starts Ray."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ragjudge.cli import main
from ragjudge.data._gold import load_gold
from ragjudge.distributed import ShardLayout, input_files, plan_blocks, read_block
from ragjudge.evaluation import ResumeError
from ragjudge.exceptions import ConfigurationError, GoldDataError

REPO = Path(__file__).resolve().parents[2]


def _split(sample_path: Path, folder: Path) -> list[dict[str, object]]:
    """The sample as two JSONL shards and one Parquet file (row groups of 5) in `folder`."""
    rows = [json.loads(line) for line in sample_path.read_text(encoding="utf-8").splitlines()]
    folder.mkdir()
    (folder / "a.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows[:15]))
    (folder / "b.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows[15:30]) + "\n")
    pq.write_table(pa.Table.from_pylist(rows[30:]), folder / "c.parquet", row_group_size=5)
    (folder / "_SUCCESS").write_text("")
    return rows


def test_blocks_cover_every_row_once_in_input_order(sample_path: Path, tmp_path: Path) -> None:
    _split(sample_path, tmp_path / "in")
    blocks = plan_blocks(str(tmp_path / "in"), block_rows=4)
    # a.jsonl: 15 rows -> 4 blocks; b.jsonl: 15 rows (+ a blank line) -> 4; c.parquet: 3 groups
    assert [b.name for b in blocks] == sorted(b.name for b in blocks)
    assert [b.name.split("-")[0] for b in blocks] == ["00000"] * 4 + ["00001"] * 4 + ["00002"] * 3
    rows = [row for block in blocks for row in read_block(block)]
    expected = load_gold(str(sample_path))
    assert [r.id for r in rows] == [r.id for r in expected]
    assert rows[:30] == expected[:30]  # Parquet rows carry Parquet's null-filled meta keys
    assert rows[30:] == load_gold(str(tmp_path / "in" / "c.parquet"))
    glob_blocks = plan_blocks(str(tmp_path / "in" / "*.jsonl"), block_rows=100)
    assert [b.rows for b in glob_blocks] == [15, 16]


def test_bad_row_names_file_and_row(sample_path: Path, tmp_path: Path) -> None:
    lines = sample_path.read_text(encoding="utf-8").splitlines()
    lines[6] = lines[6].replace('"answer"', '"answr"')
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(lines) + "\n")
    blocks = plan_blocks(str(bad), block_rows=5)
    read_block(blocks[0])
    with pytest.raises(GoldDataError, match=r"bad\.jsonl, row 7"):
        read_block(blocks[1])


def test_inputs_that_name_nothing(tmp_path: Path) -> None:
    with pytest.raises(GoldDataError, match="file not found"):
        input_files(str(tmp_path / "missing.jsonl"))
    with pytest.raises(GoldDataError, match=r"names no \.jsonl or \.parquet"):
        input_files(str(tmp_path / "*.jsonl"))
    (tmp_path / "rows.csv").write_text("id\n1\n")
    with pytest.raises(GoldDataError, match=r"reads \.jsonl or \.parquet"):
        input_files(str(tmp_path / "rows.csv"))


def test_resume_refuses_another_judge_or_input(tmp_path: Path) -> None:
    layout = ShardLayout.for_out(tmp_path / "out")
    manifest = {
        "judge": "abc",
        "input": [["a.jsonl", 10]],
        "blocks": ["00000-000000", "00000-000001"],
    }
    assert layout.prepare(manifest, resume=False) == set()
    layout.shard("00000-000000").write_text("")
    (layout.folder / ".part-00000-000001.123.tmp.parquet").write_text("")  # a killed write
    assert layout.prepare(manifest, resume=True) == {"00000-000000"}
    with pytest.raises(ResumeError, match="another judge"):
        layout.prepare({**manifest, "judge": "xyz"}, resume=True)
    with pytest.raises(ResumeError, match="another `block_rows`"):
        layout.prepare({**manifest, "blocks": ["00000-000000"]}, resume=True)
    with pytest.raises(ResumeError, match="another input"):
        layout.prepare({**manifest, "input": [["a.jsonl", 11]]}, resume=True)
    assert layout.prepare(manifest, resume=False) == set()  # without --resume: afresh
    assert not list(layout.folder.glob("*part-*"))
    joined = ShardLayout.for_out(tmp_path / "done.jsonl")
    (tmp_path / "done.jsonl").write_text("")  # a finished run: nothing left to judge
    assert joined.prepare(manifest, resume=True) == set(manifest["blocks"])
    assert not joined.folder.exists()
    with pytest.raises(ConfigurationError, match="name a folder"):
        ShardLayout.for_out(tmp_path / "out.parquet")


def _cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(argv)
    return code, capsys.readouterr().err.strip()


def test_errors_before_any_row_is_judged(
    sample_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Checks made before Ray is imported: they hold where the ray extra is absent too."""
    base = ["evaluate", "--gold", str(sample_path), "--out", str(tmp_path / "out")]
    blocker = tmp_path / "file"
    blocker.write_text("")
    code, err = _cli(
        ["evaluate", "--gold", str(sample_path), "--out", str(blocker / "out"), "--ray", "local"],
        capsys,
    )
    assert code == 2 and "cannot write there" in err and len(err.splitlines()) == 1
    code, err = _cli([*base, "--ray", "local", "--limit", "5"], capsys)
    assert code == 2 and "drop --limit" in err
    code, err = _cli([*base, "--ray", "local", "--fail-under", "pass_rate=0.9"], capsys)
    assert code == 2 and "--fail-under is not supported with --ray" in err  # never a silent pass
    code, err = _cli([*base, "--ray", "local", "--preset", "ragas"], capsys)
    assert code == 2 and "--preset is not supported with --ray" in err
    code, err = _cli(["evaluate", "--gold", str(sample_path), "--ray", "local"], capsys)
    assert code == 2 and "--ray needs --out" in err
    code, err = _cli(
        [*base, "--ray", "127.0.0.1:1", "--gold", str(tmp_path / "none.jsonl")], capsys
    )
    assert code == 2 and "none.jsonl: file not found" in err


def test_errors_from_the_cluster_address(
    sample_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An address that is no cluster: one line, exit 2 (needs the ray extra to get that far;
    without it the run stops at `test_missing_extra_is_one_line`'s hint instead)."""
    pytest.importorskip("ray", reason="needs the ray extra: pip install 'ragjudge[ray]'")
    base = ["evaluate", "--gold", str(sample_path), "--out", str(tmp_path / "out")]
    code, err = _cli([*base, "--ray", "127.0.0.1:1"], capsys)
    assert code == 2 and len(err.splitlines()) == 1
    assert "127.0.0.1:1: no Ray cluster reachable there" in err
    code, err = _cli([*base, "--ray", "nonsense"], capsys)
    assert code == 2 and "not an address" in err


def test_missing_extra_is_one_line(
    sample_path: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError
    argv = ["evaluate", "--gold", str(sample_path), "--out", str(tmp_path / "o"), "--ray", "local"]
    code, err = _cli(argv, capsys)
    assert code == 2
    assert err.endswith("--ray needs the ray extra: pip install 'ragjudge[ray]'")


def test_single_process_path_never_imports_ray(sample_path: Path, tmp_path: Path) -> None:
    code = (
        "import sys; from ragjudge.cli import main; "
        f"rc = main(['evaluate', '--gold', {str(sample_path)!r}, '--metric', 'deterministic', "
        f"'--out', {str(tmp_path / 'o.jsonl')!r}, '--format', 'json']); "
        "print('RAY' if 'ray' in sys.modules else 'NO-RAY', rc, file=sys.stderr)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        env={**__import__("os").environ, "PYTHONPATH": str(REPO)},
    )
    assert done.stderr.strip().splitlines()[-1] == "NO-RAY 0"
