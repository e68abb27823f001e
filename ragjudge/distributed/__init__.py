"""Evaluate on a Ray cluster (`ragjudge evaluate --ray ADDRESS`), with the results of one process.

Needs the `ray` extra (`pip install 'ragjudge[ray]'`); nothing else in ragjudge imports Ray.
"""

from ragjudge.distributed._cluster import connect, resolve_address
from ragjudge.distributed._inputs import Block, input_files, plan_blocks, read_block
from ragjudge.distributed._run import RaySpec, evaluate_on_ray, judge_block
from ragjudge.distributed._shards import ShardLayout

__all__ = [
    "Block",
    "RaySpec",
    "ShardLayout",
    "connect",
    "evaluate_on_ray",
    "input_files",
    "judge_block",
    "plan_blocks",
    "read_block",
    "resolve_address",
]
