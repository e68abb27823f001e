"""The judge's score of every traffic row, computed once and kept in a sidecar file next to the
gold file (`<gold>.scores.json`), keyed by the rows file's checksum and the judge."""

from __future__ import annotations

import hashlib
import json
import logging
import os
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from ragjudge.data._gold import GoldRecord
from ragjudge.data._paths import check_not_inputs
from ragjudge.programs._base import Judge

__all__ = ["ScoreCache", "file_sha256", "load_or_score", "scores_path"]

logger = logging.getLogger(__name__)

SCORES_VERSION = 1


def file_sha256(path: str | os.PathLike[str]) -> str:
    """The sha256 of a file's bytes."""
    digest = hashlib.sha256()
    with Path(path).open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def scores_path(gold: str | os.PathLike[str]) -> Path:
    """Where the scores of the rows labeled into `gold` are kept: `<gold>.scores.json`."""
    path = Path(gold)
    return path.with_name(path.name + ".scores.json")


class ScoreCache:
    """The judge's score and verdict of every row, in row order.

    Attributes:
        ids: The row ids.
        scores: The judge's scores (NaN: unscored).
        passed: Whether the judge passed each row.
        rows_sha256: The checksum of the rows file they were computed on.
        judge: The judge's fingerprint.
    """

    def __init__(
        self,
        *,
        ids: Sequence[str],
        scores: np.ndarray,
        passed: np.ndarray,
        rows_sha256: str,
        judge: str,
    ) -> None:
        self.ids = list(ids)
        self.scores = scores
        self.passed = passed
        self.rows_sha256 = rows_sha256
        self.judge = judge

    def save(self, path: Path) -> None:
        """Write the cache (atomically: a temporary file, then renamed)."""
        data = {
            "version": SCORES_VERSION,
            "rows_sha256": self.rows_sha256,
            "judge": self.judge,
            "ids": self.ids,
            "scores": [None if np.isnan(s) else round(float(s), 6) for s in self.scores],
            "passed": [bool(p) for p in self.passed],
        }
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")  # two processes may both write
        tmp.write_text(json.dumps(data))
        os.replace(tmp, path)

    @classmethod
    def read(cls, path: Path) -> ScoreCache | None:
        """The cache at `path`, or None when there is none or it cannot be read."""
        try:
            data = json.loads(path.read_text())
            scores = np.array(
                [np.nan if s is None else float(s) for s in data["scores"]], dtype=float
            )
            return cls(
                ids=[str(i) for i in data["ids"]],
                scores=scores,
                passed=np.array(data["passed"], dtype=bool),
                rows_sha256=str(data["rows_sha256"]),
                judge=str(data["judge"]),
            )
        except (OSError, ValueError, KeyError, TypeError):
            return None


def judge_key(judge: Judge) -> str:
    """What identifies a judge's scores: its class and state (parameters, demos, weights)."""
    state = judge.dump_state()
    text = json.dumps({"class": type(judge).__name__, "state": state}, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def load_or_score(
    *,
    rows: Sequence[GoldRecord],
    rows_sha256: str,
    judge: Judge,
    path: Path,
    inputs: Sequence[Path],
    on_progress: Callable[[int], None] | None = None,
) -> ScoreCache:
    """The judge's scores of `rows`: read from `path` when it holds them for these rows and
    this judge, else computed (once) and written there.

    Raises:
        ConfigurationError: When `path` is one of the `inputs` (a command never writes over
            them).
    """
    check_not_inputs({"the scores file": path}, {f"input {i + 1}": p for i, p in enumerate(inputs)})
    key = judge_key(judge)
    cached = ScoreCache.read(path)
    ids = [r.id for r in rows]
    if (
        cached is not None
        and cached.rows_sha256 == rows_sha256
        and cached.judge == key
        and cached.ids == ids
    ):
        return cached
    logger.info("judging %d rows once (kept in %s)", len(rows), path)
    scores = np.full(len(rows), np.nan)
    passed = np.zeros(len(rows), dtype=bool)
    step = 512
    for start in range(0, len(rows), step):
        chunk = rows[start : start + step]
        for offset, result in enumerate(judge.batch(chunk)):
            score = result.score
            scores[start + offset] = np.nan if score is None else float(score)
            passed[start + offset] = bool(result.passed)
        if on_progress is not None:
            on_progress(len(chunk))
    cache = ScoreCache(ids=ids, scores=scores, passed=passed, rows_sha256=rows_sha256, judge=key)
    cache.save(path)
    return cache
