"""The output of a distributed run: one shard per input block, written atomically.

`--out DIR` (no `.jsonl` suffix) is a folder of Parquet shards `part-<block>.parquet`;
`--out FILE.jsonl` collects JSONL shards in `FILE.jsonl.shards/` and joins them into FILE, in
input order, when every block is done. Each shard holds the records of today's `--out`
(`ragjudge.evaluation._runner.result_record`: the result plus the row's id, source and label).

A shard appears under its final name only once it is complete (write to a hidden temporary
name, then rename), so a shard that exists is a finished block: `--resume` skips it. A
manifest (`_ragjudge.json`) records the judge and the block plan; resuming with another judge
or other input is refused.

Example:
    >>> layout = ShardLayout.for_out("results/")  # doctest: +SKIP
    >>> layout.shard("00000-000003")  # doctest: +SKIP
    PosixPath('results/part-00000-000003.parquet')
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ragjudge.data._gold import GoldRecord
from ragjudge.evaluation._runner import ResumeError, read_results, write_results
from ragjudge.exceptions import ConfigurationError
from ragjudge.programs._results import JudgeResult

__all__ = ["ShardLayout"]

MANIFEST = "_ragjudge.json"


class ShardLayout:
    """Where the shards of one run go, and the final JSONL file if any.

    Args:
        folder: The shard folder.
        suffix: `.parquet` or `.jsonl`.
        joined: The JSONL file the shards are joined into at the end, or None.
    """

    def __init__(self, folder: Path, suffix: str, joined: Path | None = None) -> None:
        self.folder = folder
        self.suffix = suffix
        self.joined = joined

    @classmethod
    def for_out(cls, out: str | os.PathLike[str]) -> ShardLayout:
        """The layout `--out` names (see the module docstring)."""
        path = Path(out).expanduser().resolve()
        if path.suffix == ".jsonl":
            return cls(path.with_name(path.name + ".shards"), ".jsonl", joined=path)
        if path.suffix == ".parquet":
            raise ConfigurationError(
                f"`out` {out}: on Ray, name a folder (Parquet shards) or a .jsonl file"
            )
        return cls(path, ".parquet")

    def shard(self, name: str) -> Path:
        """The final path of block `name`'s shard."""
        return self.folder / f"part-{name}{self.suffix}"

    def prepare(self, manifest: dict[str, Any], *, resume: bool) -> set[str]:
        """Create the folder (probing that it is writable) and return the finished blocks.

        Without `resume`, earlier shards are removed (the run starts afresh).

        Raises:
            ConfigurationError: If the output cannot be written.
            ResumeError: If `resume` and the folder was written for another judge or input.
        """
        finished = (
            resume
            and self.joined is not None
            and self.joined.is_file()
            and not self.folder.exists()
        )
        try:
            if self.joined is not None and self.joined.is_dir():
                raise OSError(f"{self.joined} is a folder")
            where = self.joined.parent if finished and self.joined is not None else self.folder
            where.mkdir(parents=True, exist_ok=True)
            probe = where / f".write-probe-{os.getpid()}"
            probe.write_bytes(b"")
            probe.unlink()
        except OSError as exc:
            raise ConfigurationError(
                f"`out` {self.joined or self.folder}: cannot write there ({exc})"
            ) from None
        if finished:  # the JSONL file of a finished run: nothing left to judge
            return set(manifest["blocks"])
        path = self.folder / MANIFEST
        if resume and path.exists():
            previous = json.loads(path.read_text(encoding="utf-8"))
            for key, what in (("judge", "judge"), ("input", "input"), ("blocks", "`block_rows`")):
                if previous.get(key) != manifest.get(key):
                    raise ResumeError(
                        f"{self.folder}: was written for another {what}; resume with the same "
                        "`source`, judge and `block_rows`, or write to another `out`"
                    )
            return {name for name in manifest["blocks"] if self.shard(name).exists()}
        for old in self.folder.glob("part-*"):
            old.unlink()
        for old in self.folder.glob(".part-*"):
            old.unlink()
        tmp = path.with_name(".manifest.tmp")
        tmp.write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
        os.replace(tmp, path)
        return set()

    def write(self, name: str, rows: Sequence[GoldRecord], results: Sequence[JudgeResult]) -> None:
        """Write block `name`'s shard atomically (a temporary name, fsync, rename)."""
        final = self.shard(name)
        tmp = final.with_name(f".{final.stem}.{os.getpid()}.tmp{self.suffix}")
        write_results(tmp, rows, results)
        with open(tmp, "rb") as handle:
            os.fsync(handle.fileno())
        os.replace(tmp, final)

    def read(self, names: Sequence[str]) -> dict[str, JudgeResult]:
        """Every result, by row id, in block order.

        Raises:
            ResumeError: If a row id appears in two blocks.
        """
        if self.joined is not None and not self.folder.joinpath(MANIFEST).exists():
            return read_results(self.joined)
        out: dict[str, JudgeResult] = {}
        for name in names:
            for row_id, result in read_results(self.shard(name)).items():
                if row_id in out:
                    raise ResumeError(
                        f"{self.shard(name)}: row id {row_id!r} also appears in an earlier "
                        "block; row ids must be unique across the input"
                    )
                out[row_id] = result
        return out

    def finish(self, names: Sequence[str]) -> Path:
        """Join JSONL shards into the `--out` file (atomically) and drop the shard folder.

        Returns:
            The output: the JSONL file, or the shard folder.
        """
        if self.joined is None:
            return self.folder
        if not self.folder.joinpath(MANIFEST).exists():
            return self.joined
        tmp = self.joined.with_name(f".{self.joined.name}.tmp")
        with tmp.open("wb") as sink:
            for name in names:
                with self.shard(name).open("rb") as source:
                    shutil.copyfileobj(source, sink)
            sink.flush()
            os.fsync(sink.fileno())
        os.replace(tmp, self.joined)
        shutil.rmtree(self.folder)
        return self.joined
