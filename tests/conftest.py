"""Shared fixtures: DSPy settings reset per test, no disk cache, the shared gold data."""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Iterator
from pathlib import Path

import dspy
import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

REPO = Path(__file__).resolve().parents[1]
GOLD = Path(os.environ.get("RAGJUDGE_GOLD", REPO.parent / "shared" / "gold"))
EXAMPLES = REPO / "examples" / "faithfulness"


@pytest.fixture(autouse=True)
def _clean_dspy() -> Iterator[None]:
    """Reset DSPy's global settings and turn its caches off for every test."""
    dspy.configure_cache(enable_disk_cache=False, enable_memory_cache=False)
    with dspy.context(lm=None, adapter=None):
        yield


@pytest.fixture(autouse=True)
def _no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests never touch the network: refuse every non-loopback connection."""
    original = socket.socket.connect

    def guarded(self: socket.socket, address: object) -> object:
        host = address[0] if isinstance(address, tuple) else str(address)
        if isinstance(host, str) and not (
            host.startswith("127.") or host in ("localhost", "::1") or host.startswith("/")
        ):
            raise OSError(f"network access in a test: {address!r}")
        return original(self, address)  # type: ignore[arg-type]

    monkeypatch.setattr(socket.socket, "connect", guarded)


@pytest.fixture(scope="session")
def gold_dir() -> Path:
    """The shared gold data folder; tests that need it are skipped where it is absent."""
    if not (GOLD / "sample.jsonl").exists():
        pytest.skip(f"shared gold data not found at {GOLD}")
    return GOLD


@pytest.fixture(scope="session")
def sample_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """42 labeled rows of several sources: `../shared/gold/sample.jsonl` where the gold data is
    present, else 42 rows of the shipped `examples/faithfulness/test.jsonl` (four sources,
    both labels, taken from each source in turn), so the tests that need only some real rows
    run on a fresh clone."""
    if (GOLD / "sample.jsonl").exists():
        return GOLD / "sample.jsonl"
    lines = (EXAMPLES / "test.jsonl").read_text(encoding="utf-8").splitlines()
    by_source: dict[str, list[str]] = {}
    for line in lines:
        by_source.setdefault(json.loads(line)["source"], []).append(line)
    picked: list[str] = []
    queues = list(by_source.values())
    while len(picked) < 42:
        for queue in queues:
            if queue and len(picked) < 42:
                picked.append(queue.pop(0))
    path = tmp_path_factory.mktemp("sample") / "sample.jsonl"
    path.write_text("\n".join(picked) + "\n", encoding="utf-8")
    return path
