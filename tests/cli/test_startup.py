"""Start-up cost: `import ragjudge` loads nothing heavy; the CLI skips DSPy's IPython import."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

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
        "import ragjudge.cli, sys; ragjudge.cli.load_command('evaluate');"
        "print('dspy' in sys.modules, 'IPython' in sys.modules);"
        "import importlib.util; print(importlib.util.find_spec('IPython') is not None)"
    )
    assert out.splitlines()[0] == "True False"
    if out.splitlines()[1] == "True":  # installed: still importable afterwards
        _run("import ragjudge.cli; import IPython")


def test_help_imports_no_subcommand_and_a_command_only_its_own() -> None:
    out = _run(
        "import sys; from ragjudge.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "print('dspy' in sys.modules, 'optuna' in sys.modules)"
    )
    assert out.splitlines()[-1] == "False False"
    assert "evaluate" in out and "compile" in out and "report" in out
    out = _run(
        "import sys; from ragjudge.cli import main\n"
        "try:\n    main(['evaluate', '--help'])\nexcept SystemExit:\n    pass\n"
        "print('ragjudge.cli.compile' in sys.modules, 'ragjudge.optimize' in sys.modules)"
    )
    assert "--retry-errors" in out and out.splitlines()[-1] == "False False"


def test_a_cli_run_keeps_no_dspy_call_history(tmp_path: Path, gold_dir: Path) -> None:
    from dspy.clients import base_lm

    from ragjudge.cli import main

    rows = gold_dir / "halueval" / "dev.jsonl"
    # DSPy caps its history at 10,000 entries: earlier tests in this worker may have filled it,
    # and a full history cannot grow
    base_lm.GLOBAL_HISTORY.clear()
    before = len(base_lm.GLOBAL_HISTORY)
    out = tmp_path / "o.jsonl"
    code = main(["evaluate", "--gold", str(rows), "--limit", "5", "--out", str(out)])
    assert code == 0 and len(out.read_text().splitlines()) == 5
    assert len(base_lm.GLOBAL_HISTORY) == before  # 2,000 calls would otherwise stay in memory
    # the same judge in code keeps DSPy's history as usual
    judge = ragjudge.Faithfulness()
    judge(question="q", contexts=["The cat sat."], answer="The cat sat.")
    assert len(base_lm.GLOBAL_HISTORY) > before
