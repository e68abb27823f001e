"""Draw the shipped example rows (`examples/faithfulness/`) from the shared gold sets.

Reproducible: the same gold files and the same seed give byte-identical output (a test checks
this where `../shared/gold` is present). Only sources whose licences allow redistribution are
drawn from, and within them only the parts those licences cover (see `faithfulness/README.md`):

- `halueval` (MIT; knowledge text from HotpotQA / Wikipedia, CC BY-SA 4.0),
- `begin`, Wizard of Wikipedia and CMU-DoG responses only (CC BY 4.0; Topical-Chat, CDLA-Sharing,
  is left out),
- `summedits`, the sales-call and sales-email domains only (documents written for SummEdits,
  Apache-2.0; the other domains keep their source corpora's licences, SAMSum's NC-ND among them),
- `wice` (annotations ODC-BY 1.0), the rows with the shortest cited text.

Rows are drawn by group (`meta.group_id`): every row of a group lands in the same file, so a
right and a hallucinated answer to one question never straddle train and test. Each source's
groups are shuffled with the seed and dealt to `train.jsonl` (labeled), `test.jsonl` (labeled,
for `ragjudge evaluate`) and `new.jsonl` (labels removed: rows to judge). Large `meta` fields
are dropped; everything else is the gold row as it is.

Usage:
    python examples/make_faithfulness.py --gold-dir ../shared/gold --out examples/faithfulness
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

Row = dict[str, Any]

SEED = 13
# meta keys kept (the rest are large or internal to the conversion)
META_KEYS = ("group_id", "data_source", "domain", "wice_label", "answer_kind", "is_seed_summary")
FILES = ("train", "test", "new")


@dataclass(frozen=True)
class Draw:
    """How many groups of one source go to each file, which rows qualify, and a cap per group.

    Attributes:
        source: the gold folder name.
        groups: groups dealt to (train, test, new).
        keep: which rows of the source may be drawn (licence, size).
        per_group: at most this many rows of one group (balanced by label), or 0 for all.
    """

    source: str
    groups: tuple[int, int, int]
    keep: Callable[[Row], bool]
    per_group: int = 0


def _short_wice(row: Row) -> bool:
    return sum(len(c) for c in row["contexts"]) <= 2500


DRAWS: tuple[Draw, ...] = (
    Draw("halueval", (55, 15, 8), lambda r: True),
    Draw("begin", (28, 8, 4), lambda r: r["meta"].get("data_source") in ("wow", "cmu")),
    Draw(
        "summedits",
        (3, 1, 1),
        lambda r: r["meta"].get("domain") in ("sales_call", "sales_email"),
        per_group=8,
    ),
    Draw("wice", (16, 5, 3), _short_wice),
)


def _read(path: Path) -> list[Row]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _trim(row: Row, *, labeled: bool) -> Row:
    out = {k: v for k, v in row.items() if k != "meta"}
    out["meta"] = {k: row["meta"][k] for k in META_KEYS if k in row["meta"]}
    if not labeled:
        out.pop("faithful", None)
        out.pop("hallucinated_spans", None)
    return out


def _cap(rows: list[Row], n: int, rng: random.Random) -> list[Row]:
    """At most `n` rows of one group, as even between the labels as the group allows."""
    if not n or len(rows) <= n:
        return rows
    by_label: dict[int, list[Row]] = {}
    for row in rows:
        by_label.setdefault(int(row["faithful"]), []).append(row)
    picked: list[Row] = []
    pools = [rng.sample(v, len(v)) for _, v in sorted(by_label.items())]
    while len(picked) < n:
        for pool in pools:
            if pool and len(picked) < n:
                picked.append(pool.pop())
    order = {id(r): i for i, r in enumerate(rows)}
    return sorted(picked, key=lambda r: order[id(r)])


def draw(gold_dir: Path, *, seed: int = SEED) -> dict[str, list[Row]]:
    """The example rows per file name (`train`, `test`, `new`), in a fixed order.

    Args:
        gold_dir: the folder with `<source>/dev.jsonl`.
        seed: the shuffle seed.

    Returns:
        Rows per file; `new` rows carry no labels.
    """
    files: dict[str, list[Row]] = {name: [] for name in FILES}
    for spec in DRAWS:
        rng = random.Random(f"{seed}:{spec.source}")
        groups: dict[str, list[Row]] = {}
        for row in _read(gold_dir / spec.source / "dev.jsonl"):
            if spec.keep(row):
                groups.setdefault(row["meta"]["group_id"], []).append(row)
        keys = sorted(groups)
        rng.shuffle(keys)
        start = 0
        for name, count in zip(FILES, spec.groups, strict=True):
            for key in keys[start : start + count]:
                rows = _cap(groups[key], spec.per_group, rng)
                files[name].extend(_trim(r, labeled=name != "new") for r in rows)
            start += count
    return files


def write(files: dict[str, list[Row]], out: Path) -> None:
    """Write each file as JSONL (UTF-8, one row per line, keys in the gold's order)."""
    out.mkdir(parents=True, exist_ok=True)
    for name, rows in files.items():
        text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
        (out / f"{name}.jsonl").write_text(text, encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point: draw the rows and write them."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gold-dir", type=Path, default=Path("../shared/gold"))
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "faithfulness")
    parser.add_argument("--seed", type=int, default=SEED)
    args = parser.parse_args(argv)
    files = draw(args.gold_dir, seed=args.seed)
    write(files, args.out)
    for name, rows in files.items():
        labels = [r.get("faithful") for r in rows]
        print(
            f"{name}.jsonl: {len(rows)} rows, "
            f"{labels.count(1)} faithful / {labels.count(0)} not / {labels.count(None)} unlabeled"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
