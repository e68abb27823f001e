"""Shared fixtures: DSPy settings reset per test, no disk cache, the shared gold data."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from pathlib import Path

import dspy
import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

REPO = Path(__file__).resolve().parents[1]
GOLD = Path(os.environ.get("RAGJUDGE_GOLD", REPO.parent / "shared" / "gold"))


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
def sample_path(gold_dir: Path) -> Path:
    """`../shared/gold/sample.jsonl`."""
    return gold_dir / "sample.jsonl"
