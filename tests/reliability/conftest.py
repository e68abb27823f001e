"""Fixtures for the reliability tests: a local OpenAI-compatible server, a disk cache."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import dspy
import pytest

from ragjudge.lm._retry import uninstall_jitter
from ragjudge.testing._server import TestServer


@pytest.fixture
def server() -> Iterator[TestServer]:
    """A test server answering instantly."""
    with TestServer(delay=0.0, max_seconds=120) as srv:
        yield srv


@pytest.fixture
def disk_cache(tmp_path: Path) -> Iterator[Path]:
    """DSPy's response cache on, in a temporary folder."""
    folder = tmp_path / "dspy-cache"
    dspy.configure_cache(
        enable_disk_cache=True,
        enable_memory_cache=True,
        disk_cache_dir=str(folder),
        restrict_pickle=True,
    )
    yield folder
    dspy.configure_cache(enable_disk_cache=False, enable_memory_cache=False)


@pytest.fixture(autouse=True)
def _restore_backoff() -> Iterator[None]:
    yield
    uninstall_jitter()
