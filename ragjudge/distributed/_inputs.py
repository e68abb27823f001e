"""Input blocks: JSONL and Parquet files, folders of shards and globs, cut into stable blocks.

A block is a run of consecutive rows of one input file: `rows` lines of a JSONL file starting
at a byte offset, or one row group of a Parquet file. Its name (`<file number>-<block number>`)
depends only on the sorted input files and the block size, so a re-run with `--resume` finds the
same blocks and skips those whose output shard exists. Workers read only their own block.

Example:
    >>> blocks = plan_blocks("traffic/*.jsonl", block_rows=1000)  # doctest: +SKIP
    >>> rows = read_block(blocks[0])  # doctest: +SKIP
"""

from __future__ import annotations

import glob
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pydantic

from ragjudge.data._gold import GoldRecord, _decode_json_columns, _validate, jsonl_object
from ragjudge.exceptions import GoldDataError

__all__ = ["Block", "input_files", "plan_blocks", "read_block"]

SUFFIXES = (".jsonl", ".parquet")


class Block(pydantic.BaseModel):
    """One input block: what a worker reads and the name its output shard carries.

    Attributes:
        name: `<file number>-<block number>`, zero-padded so names sort in input order.
        path: The input file.
        kind: `jsonl` or `parquet`.
        first_row: The 1-based row number (line, or Parquet row) of the block's first row.
        rows: Rows in the block.
        offset: Byte offset of the first line (JSONL) or the row group index (Parquet).
        length: Bytes the block spans (JSONL; 0 for Parquet).
    """

    name: str
    path: str
    kind: str
    first_row: int
    rows: int
    offset: int
    length: int = 0


def input_files(source: str) -> list[Path]:
    """The input files a `--gold` source names: a file, a folder of shards or a glob.

    Raises:
        GoldDataError: If it names no `.jsonl` / `.parquet` file.
    """
    path = Path(source)
    if path.is_dir():
        found = [p for p in sorted(path.rglob("*")) if p.suffix in SUFFIXES and p.is_file()]
        found = [p for p in found if not p.name.startswith(("_", "."))]
    elif any(ch in source for ch in "*?["):
        found = [Path(p) for p in sorted(glob.glob(source, recursive=True))]
        found = [p for p in found if p.is_file() and p.suffix in SUFFIXES]
    elif path.is_file():
        if path.suffix not in SUFFIXES:
            raise GoldDataError("a Ray run reads .jsonl or .parquet files", file=source)
        found = [path]
    else:
        raise GoldDataError("file not found", file=source)
    if not found:
        raise GoldDataError("names no .jsonl or .parquet file", file=source)
    return found


def plan_blocks(source: str, *, block_rows: int = 1000) -> list[Block]:
    """Cut the input into blocks of at most `block_rows` rows (Parquet: one row group each).

    Reads JSONL files once, counting lines (no parsing); reads only Parquet footers.
    """
    if block_rows < 1:
        raise ValueError(f"block_rows must be at least 1, got {block_rows}")
    blocks: list[Block] = []
    for number, path in enumerate(p.resolve() for p in input_files(source)):
        if path.suffix == ".parquet":
            blocks.extend(_parquet_blocks(number, path))
        else:
            blocks.extend(_jsonl_blocks(number, path, block_rows))
    if not blocks:
        raise GoldDataError("holds no rows", file=source)
    return blocks


def _jsonl_blocks(number: int, path: Path, block_rows: int) -> list[Block]:
    blocks: list[Block] = []
    start = offset = 0
    line = rows = 0
    first_row = 1
    with path.open("rb") as handle:
        for raw in handle:
            line += 1
            if rows == 0:
                start, first_row = offset, line
            offset += len(raw)
            rows += 1
            if rows == block_rows:
                blocks.append(
                    _jsonl_block(number, len(blocks), path, first_row, rows, start, offset)
                )
                rows = 0
    if rows:
        blocks.append(_jsonl_block(number, len(blocks), path, first_row, rows, start, offset))
    return blocks


def _jsonl_block(
    number: int, index: int, path: Path, first_row: int, rows: int, start: int, end: int
) -> Block:
    return Block(
        name=f"{number:05d}-{index:06d}",
        path=str(path),
        kind="jsonl",
        first_row=first_row,
        rows=rows,
        offset=start,
        length=end - start,
    )


def _parquet_blocks(number: int, path: Path) -> list[Block]:
    import pyarrow.parquet as pq

    try:
        meta = pq.ParquetFile(path).metadata
    except Exception as exc:  # pyarrow raises several types for damaged files
        raise GoldDataError(f"cannot be read as Parquet ({exc})", file=str(path)) from None
    blocks: list[Block] = []
    first = 1
    for group in range(meta.num_row_groups):
        rows = meta.row_group(group).num_rows
        if rows:
            blocks.append(
                Block(
                    name=f"{number:05d}-{group:06d}",
                    path=str(path),
                    kind="parquet",
                    first_row=first,
                    rows=rows,
                    offset=group,
                )
            )
        first += rows
    return blocks


def read_block(block: Block, *, mapping: Mapping[str, str] | None = None) -> list[GoldRecord]:
    """The validated rows of one block, in file order.

    Raises:
        GoldDataError: Naming the file, row and field of the first bad row.
    """
    mapping = mapping or {}
    if block.kind == "parquet":
        import pyarrow.parquet as pq

        table = pq.ParquetFile(block.path).read_row_group(block.offset)
        objects: list[tuple[int, Any]] = [
            (block.first_row + i, _decode_json_columns(obj))
            for i, obj in enumerate(table.to_pylist())
        ]
    else:
        with open(block.path, "rb") as handle:
            handle.seek(block.offset)
            data = handle.read(block.length)
        objects = [
            (block.first_row + i, jsonl_object(raw, file=block.path, row=block.first_row + i))
            for i, raw in enumerate(data.split(b"\n")[: block.rows])
            if raw.strip()
        ]
    rows: list[GoldRecord] = []
    for number, obj in objects:
        rows.append(_validate(obj, mapping, file=block.path, row=number))
    return rows
