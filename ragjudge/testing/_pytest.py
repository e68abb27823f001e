"""ragjudge's pytest plugin (entry point `pytest11: ragjudge`): a session-wide judge.

* `--ragjudge-judge PATH` (or the ini option `ragjudge_judge`, or `$RAGJUDGE_JUDGE`) names a
  compiled judge file; without one the default offline faithfulness judge is used.
* The fixture `ragjudge_judge` is that judge, loaded once per session.
* `ragjudge.testing.assert_faithful(answer, contexts, ...)` judges with it and, on failure,
  lists the unsupported statements with the judge's reasons.

This module imports nothing heavy: DSPy loads only when a test asks for a judge.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from ragjudge.programs._base import Judge


def pytest_addoption(parser: pytest.Parser) -> None:
    """`--ragjudge-judge` and the `ragjudge_judge` ini option."""
    group = parser.getgroup("ragjudge")
    group.addoption(
        "--ragjudge-judge",
        default=None,
        metavar="PATH",
        help="compiled judge file for the ragjudge_judge fixture and assert_faithful",
    )
    parser.addini("ragjudge_judge", "compiled judge file (see --ragjudge-judge)", default="")


def pytest_configure(config: pytest.Config) -> None:
    """Remember which judge file the session uses (loaded on first use)."""
    path = config.getoption("--ragjudge-judge") or config.getini("ragjudge_judge") or None
    if path is None:
        return
    from pathlib import Path

    from ragjudge.testing._assertions import set_session_judge

    if not Path(path).is_absolute():
        path = str(config.rootpath / path)
    set_session_judge(path)


@pytest.fixture(scope="session")
def ragjudge_judge() -> Judge:
    """The session's judge (see the module docstring), loaded once."""
    from ragjudge.testing._assertions import session_judge

    return session_judge()
