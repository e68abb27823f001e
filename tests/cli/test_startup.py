"""Start-up cost: `import ragjudge` loads nothing heavy; the CLI skips DSPy's IPython import."""

from __future__ import annotations

import subprocess
import sys

import pytest

import ragjudge


def _run(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_import_ragjudge_is_lazy_and_every_public_name_resolves() -> None:
    assert _run("import ragjudge, sys; print('dspy' in sys.modules)") == "False"
    for name in ragjudge.__all__:
        assert getattr(ragjudge, name) is not None
    assert "Faithfulness" in dir(ragjudge)
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        ragjudge.nope  # noqa: B018


def test_cli_imports_dspy_without_ipython_which_stays_importable() -> None:
    out = _run(
        "import ragjudge.cli, sys; print('dspy' in sys.modules, 'IPython' in sys.modules);"
        "import importlib.util; print(importlib.util.find_spec('IPython') is not None)"
    )
    assert out.splitlines()[0] == "True False"
    if out.splitlines()[1] == "True":  # installed: still importable afterwards
        _run("import ragjudge.cli; import IPython")
