"""Fixtures of the conformance suite: a few example rows, shared by every promise."""

from __future__ import annotations

import pytest
from _conformance_cases import example_rows

from ragjudge.data._gold import GoldRecord


@pytest.fixture(scope="session")
def rows() -> list[GoldRecord]:
    """Eight rows of the shipped examples: four sources, both labels, several passages each."""
    return example_rows(per_kind=1)
