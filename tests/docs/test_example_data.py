"""The shipped example rows: valid input, whole groups per file, no labels in `new.jsonl`,
small, and exactly what `examples/make_faithfulness.py` draws from the gold sets."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

from ragjudge.data import load_gold

REPO = Path(__file__).resolve().parents[2]
FOLDER = REPO / "examples" / "faithfulness"
FILES = ("train", "test", "new")


def _rows(name: str) -> list[dict[str, object]]:
    text = (FOLDER / f"{name}.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


def test_rows_load_and_groups_stay_in_one_file() -> None:
    owner: dict[str, str] = {}
    for name in FILES:
        records = load_gold(str(FOLDER / f"{name}.jsonl"))
        assert records and len(records) == len(_rows(name))
        for row in _rows(name):
            group = row["meta"]["group_id"]  # type: ignore[index]
            assert owner.setdefault(group, name) == name, f"group {group} in two files"
    labels = {name: [r.get("faithful") for r in _rows(name)] for name in FILES}
    assert set(labels["train"]) == {0, 1} and set(labels["test"]) == {0, 1}
    assert set(labels["new"]) == {None}
    assert not any("hallucinated_spans" in r for r in _rows("new"))


def test_only_redistributable_sources() -> None:
    for name in FILES:
        for row in _rows(name):
            meta = row["meta"]
            assert row["source"] in {"halueval", "begin", "summedits", "wice"}
            if row["source"] == "begin":
                assert meta["data_source"] in {"wow", "cmu"}  # type: ignore[index]
            if row["source"] == "summedits":
                assert meta["domain"] in {"sales_call", "sales_email"}  # type: ignore[index]
    size = sum((FOLDER / f"{name}.jsonl").stat().st_size for name in FILES)
    assert size < 1_000_000


def test_the_script_draws_these_rows(gold_dir: Path, tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location(
        "make_faithfulness", REPO / "examples" / "make_faithfulness.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up
    spec.loader.exec_module(module)
    assert module.main(["--gold-dir", str(gold_dir), "--out", str(tmp_path)]) == 0
    for name in FILES:
        assert (tmp_path / f"{name}.jsonl").read_bytes() == (FOLDER / f"{name}.jsonl").read_bytes()


def test_readme_counts_match() -> None:
    readme = (FOLDER / "README.md").read_text(encoding="utf-8")
    for name in FILES:
        assert f"| `{name}.jsonl` | {len(_rows(name))} |" in readme
