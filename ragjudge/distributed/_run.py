"""Evaluate on Ray: one Ray task per input block, results equal to the single-process run.

The driver cuts the input into blocks (`ragjudge.distributed._inputs`), ships each task the
block's address (file, byte range or row group) and the judge's JSON document, never a pickled
judge. A worker reads its block, rebuilds the judge with `ragjudge.load` (once per worker
process), judges the rows with the same code as `ragjudge evaluate` (`Judge.iter_batch`), and
writes the block's shard atomically. A worker that dies mid-block costs that block only: Ray
runs the task again (`max_retries`), and as a shard is renamed into place only when complete,
every row ends up in the output exactly once. `resume=True` skips blocks whose shard exists.

LM judges share one limit on rows in flight across all workers (`LmSlots`, a Ray actor):
a row's LM calls are made one after another, so that also bounds LM calls in flight. Workers
share the response cache when `cache_dir` names a folder every node sees.

Example:
    >>> results, report = evaluate_on_ray(
    ...     Faithfulness(lm="local"), "traffic/*.jsonl", out="results/", address="auto"
    ... )  # doctest: +SKIP
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pydantic

from ragjudge.data._gold import GoldRecord
from ragjudge.distributed._cluster import connect, import_ray
from ragjudge.distributed._inputs import Block, plan_blocks, read_block
from ragjudge.distributed._shards import ShardLayout
from ragjudge.evaluation._evaluate import EvaluationReport, evaluation_report
from ragjudge.exceptions import GoldDataError, RagJudgeError
from ragjudge.lm._cache import configure_cache
from ragjudge.lm._resolve import LOCAL
from ragjudge.programs._base import Judge
from ragjudge.programs._build import with_lm_options
from ragjudge.programs._results import JudgeResult
from ragjudge.programs._serialization import judge_document, load

__all__ = ["RaySpec", "evaluate_on_ray", "judge_block"]

logger = logging.getLogger(__name__)

#: Ray runs a block again this many times when its worker dies (process or node lost).
BLOCK_RETRIES = 3
#: A slot whose holder has not renewed it for this long (its worker died) is given back.
SLOT_LEASE_SECONDS = 10.0
#: How often a worker renews the slots it holds.
SLOT_RENEW_SECONDS = 2.0


class RaySpec(pydantic.BaseModel):
    """What every task needs besides its block: plain JSON data, no judge object.

    Attributes:
        judge: The judge's JSON document (`judge_document`), rebuilt with `ragjudge.load`.
        lm: Keyword arguments for `resolve_lm` of an LM judge (`api_base`, `cache`,
            `num_retries`, `timeout`); the API key comes from each worker's environment.
        cache_dir: The response cache folder (None: the default folder of each node).
        cache: False turns the response cache off.
        mapping: The `--map` column renames.
        concurrency: Rows in flight per worker.
        slots: The name of the `LmSlots` actor limiting rows in flight across workers.
    """

    judge: dict[str, Any]
    lm: dict[str, Any] = pydantic.Field(default_factory=dict)
    cache_dir: str | None = None
    cache: bool = True
    mapping: dict[str, str] = pydantic.Field(default_factory=dict)
    concurrency: int = 1
    slots: str | None = None


_JUDGES: dict[str, Judge] = {}


def _judge_for(spec: RaySpec) -> Judge:
    """The spec's judge, loaded once per worker process from its JSON document."""
    key = hashlib.sha256(
        json.dumps([spec.judge, spec.lm, spec.cache_dir, spec.cache], sort_keys=True).encode()
    ).hexdigest()
    judge = _JUDGES.get(key)
    if judge is not None:
        return judge
    configure_cache(cache_dir=spec.cache_dir, enabled=spec.cache)
    with tempfile.TemporaryDirectory(prefix="ragjudge-judge-") as folder:
        path = os.path.join(folder, "judge.json")
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(spec.judge, handle)
        judge = load(path)
    judge = with_lm_options(  # the same LM options as the driver and `ragjudge evaluate`
        judge,
        bounds={"timeout": spec.lm["timeout"]} if spec.lm.get("timeout") else None,
        api_base=spec.lm.get("api_base"),
        cache=spec.cache and spec.lm.get("cache", True),
        max_retries=spec.lm.get("num_retries"),
    )
    _JUDGES.clear()
    _JUDGES[key] = judge
    return judge


def _judge_rows(judge: Judge, rows: Sequence[GoldRecord], spec: RaySpec) -> list[JudgeResult]:
    """Judge the rows in input order; with `spec.slots`, each row holds a global slot."""
    if spec.slots is None:
        out: list[JudgeResult | None] = [None] * len(rows)
        for index, result in judge.iter_batch(rows, concurrency=spec.concurrency):
            out[index] = result
        return [r for r in out if r is not None]
    ray = import_ray()
    slots = ray.get_actor(spec.slots, namespace=_NAMESPACE)
    held: set[str] = set()
    lock = threading.Lock()
    stop = threading.Event()

    def renew() -> None:  # keeps this worker's leases alive; they lapse if it dies
        while not stop.wait(SLOT_RENEW_SECONDS):
            with lock:
                tokens = sorted(held)
            if tokens:
                slots.renew.remote(tokens)

    def one(row: GoldRecord) -> JudgeResult:
        token = ray.get(slots.acquire.remote())
        with lock:
            held.add(token)
        try:
            return next(judge.iter_batch([row], concurrency=1))[1]
        finally:
            with lock:
                held.discard(token)
            slots.release.remote(token)

    renewer = threading.Thread(target=renew, name="ragjudge-slot-renewer", daemon=True)
    renewer.start()
    try:
        with ThreadPoolExecutor(max_workers=spec.concurrency) as pool:
            return list(pool.map(one, rows))
    finally:
        stop.set()


def judge_block(block: Block, spec: RaySpec, layout: ShardLayout) -> dict[str, Any]:
    """Judge one block and write its shard (the body of a Ray task).

    Returns:
        `{"block", "rows", "errors", "seconds", "pid"}`, or `{"block", "bad_input": message}`
        when a row of the block is not valid input (nothing is written then).
    """
    start = time.perf_counter()
    try:
        rows = read_block(block, mapping=spec.mapping)
    except GoldDataError as exc:
        return {"block": block.name, "bad_input": str(exc)}
    results = _judge_rows(_judge_for(spec), rows, spec)
    layout.write(block.name, rows, results)
    return {
        "block": block.name,
        "rows": len(rows),
        "errors": sum(1 for r in results if r.error),
        "seconds": time.perf_counter() - start,
        "pid": os.getpid(),
    }


_NAMESPACE = "ragjudge"


class _Slots:
    """At most `limit` leases out at once, across every worker (a Ray async actor)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.leases: dict[str, float] = {}
        self.peak = 0

    async def acquire(self) -> str:
        while True:
            now = time.monotonic()
            for token, since in list(self.leases.items()):
                if now - since > SLOT_LEASE_SECONDS:
                    del self.leases[token]
            if len(self.leases) < self.limit:
                token = uuid.uuid4().hex
                self.leases[token] = now
                self.peak = max(self.peak, len(self.leases))
                return token
            await asyncio.sleep(0.005)

    async def release(self, token: str) -> None:
        self.leases.pop(token, None)

    async def renew(self, tokens: list[str]) -> None:
        now = time.monotonic()
        for token in tokens:
            if token in self.leases:
                self.leases[token] = now

    async def stats(self) -> dict[str, int]:
        return {"in_flight": len(self.leases), "peak": self.peak, "limit": self.limit}


def evaluate_on_ray(
    judge: Judge,
    source: str,
    *,
    out: str,
    address: str = "auto",
    mapping: dict[str, str] | None = None,
    block_rows: int = 1000,
    concurrency: int = 1,
    lm_limit: int | None = None,
    lm: dict[str, Any] | None = None,
    cache_dir: str | None = None,
    cache: bool = True,
    resume: bool = False,
    n_boot: int = 1000,
    on_block: Callable[[dict[str, Any]], None] | None = None,
) -> tuple[list[JudgeResult], EvaluationReport]:
    """Judge every row of `source` on a Ray cluster and report agreement with the labels.

    Args:
        judge: The judge (shipped to workers as its JSON document).
        source: A `.jsonl` / `.parquet` file, a folder of them, or a glob.
        out: A folder for Parquet shards, or a `.jsonl` file.
        address: `auto`, `local`, `host:port` or `ray://host:port`.
        mapping: Column renames (`--map`).
        block_rows: Rows per JSONL block (a Parquet block is one row group).
        concurrency: Rows in flight per worker (threads waiting on an LM).
        lm_limit: Rows in flight across all workers, for an LM judge (default: `concurrency`
            times the cluster's CPUs).
        lm: `resolve_lm` keyword arguments for an LM judge (see `RaySpec.lm`).
        cache_dir: The shared response cache folder.
        cache: False turns the response cache off.
        resume: Keep the finished shards in `out` and judge only the other blocks.
        n_boot: Bootstrap resamples for the report's intervals.
        on_block: Called with each finished block's summary.

    Returns:
        The results in input order and the report `evaluate` gives for the same rows.

    Raises:
        ConfigurationError: Ray missing, cluster unreachable, output unwritable (before any
            row is judged).
        GoldDataError: For bad input (finished shards are kept; fix the row and `resume`).
        ResumeError: If `out` was written for another judge or input.
    """
    started = time.perf_counter()
    layout = ShardLayout.for_out(out)
    blocks = plan_blocks(source, block_rows=block_rows)
    document = judge_document(judge)
    files = sorted({b.path for b in blocks})
    manifest = {
        "judge": document["checksum"],
        "input": [[path, os.path.getsize(path)] for path in files],
        "blocks": [b.name for b in blocks],
    }
    done = layout.prepare(manifest, resume=resume)
    resources = connect(address)
    ray = import_ray()
    uses_remote_lm = judge.lm not in (None, LOCAL)
    spec = RaySpec(
        judge=document,
        lm=dict(lm or {}),
        cache_dir=os.path.abspath(os.path.expanduser(cache_dir)) if cache_dir else None,
        cache=cache,
        mapping=dict(mapping or {}),
        concurrency=concurrency,
    )
    slots_actor = None
    if uses_remote_lm:
        cpus = max(1, int(resources.get("CPU", 1)))
        limit = lm_limit or concurrency * cpus
        spec.slots = f"ragjudge-lm-slots-{uuid.uuid4().hex[:12]}"
        actor_cls = ray.remote(num_cpus=0, max_restarts=-1)(_Slots)
        slots_actor = actor_cls.options(name=spec.slots, namespace=_NAMESPACE).remote(limit)
        logger.info("LM judge: at most %d rows in flight across the cluster", limit)
    todo = [b for b in blocks if b.name not in done]
    if done:
        logger.info("resuming %s: %d blocks done, %d to judge", out, len(done), len(todo))
    try:
        _run_blocks(ray, todo, spec, layout, resources, on_block)
        if slots_actor is not None:
            logger.info("LM slots: %s", ray.get(slots_actor.stats.remote()))
    finally:
        if slots_actor is not None:
            ray.kill(slots_actor)
    results_by_id = layout.read([b.name for b in blocks])
    rows = [row for block in blocks for row in read_block(block, mapping=mapping)]
    missing = [row.id for row in rows if row.id not in results_by_id]
    if missing:
        raise RagJudgeError(f"{len(missing)} rows have no result (first: {missing[0]!r})")
    results = [results_by_id[row.id] for row in rows]
    layout.finish([b.name for b in blocks])
    seconds = time.perf_counter() - started
    return results, evaluation_report(judge, rows, results, seconds=seconds, n_boot=n_boot)


def _run_blocks(
    ray: Any,
    blocks: Sequence[Block],
    spec: RaySpec,
    layout: ShardLayout,
    resources: dict[str, Any],
    on_block: Callable[[dict[str, Any]], None] | None,
) -> None:
    """Run one task per block, a bounded number queued at once; stop at the first bad input."""
    if not blocks:
        return
    task = ray.remote(num_cpus=1, max_retries=BLOCK_RETRIES)(judge_block)
    spec_ref = ray.put(spec)
    window = max(2, 2 * int(resources.get("CPU", 1)))
    queue = list(blocks)
    pending: dict[Any, Block] = {}
    bad: list[str] = []
    while queue or pending:
        while queue and len(pending) < window and not bad:
            block = queue.pop(0)
            pending[task.remote(block, spec_ref, layout)] = block
        if not pending:
            break
        ready, _ = ray.wait(list(pending), num_returns=1)
        for ref in ready:
            block = pending.pop(ref)
            try:
                summary = ray.get(ref)
            except ray.exceptions.RayError as exc:
                first = str(exc).strip().splitlines()
                raise RagJudgeError(
                    f"block {block.name} ({block.path}, rows {block.first_row}-"
                    f"{block.first_row + block.rows - 1}) failed: "
                    f"{first[-1] if first else type(exc).__name__}; the finished blocks are "
                    "kept: fix the cause and run again with `resume`"
                ) from None
            if "bad_input" in summary:
                bad.append(summary["bad_input"])
                continue
            logger.info(
                "block %s: %d rows in %.1f s", block.name, summary["rows"], summary["seconds"]
            )
            if on_block is not None:
                on_block(summary)
    if bad:
        raise GoldDataError(
            f"{bad[0]} (the finished blocks are kept: fix the row and run again with `resume`)"
        )
