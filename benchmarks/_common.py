"""Helpers shared by the benchmarks (not part of the library)."""

from __future__ import annotations

import argparse
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SOURCES = ("begin", "faithbench", "halueval", "lfqa_verification", "summedits", "wice")
# From ../shared/PEERS.md section 4 (ROC AUC / balanced accuracy at 0.5 on the same dev rows).
PEER_RAGAS_ROUGE_L = {
    "begin": (0.943, 0.824),
    "faithbench": (0.581, 0.544),
    "halueval": (0.925, 0.657),
    "lfqa_verification": (0.898, 0.823),
    "summedits": (0.517, 0.504),
    "wice": (0.675, 0.580),
    "pooled": (0.789, 0.662),
}


def gold_args(description: str) -> argparse.ArgumentParser:
    """A parser with `--gold-dir` and `--sources`."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--gold-dir", type=Path, default=REPO.parent / "shared" / "gold")
    parser.add_argument("--sources", nargs="*", default=list(SOURCES))
    return parser
