"""The probe generators know no judge: nothing in `ragjudge.probing` imports a judge's internals
(`ragjudge.offline`, `ragjudge.lm`) at any depth of its own code, and the generators import
nothing of ragjudge beyond the rows and the probe package itself."""

from __future__ import annotations

import ast
from pathlib import Path

import ragjudge.probing

PROBE = Path(ragjudge.probing.__file__).parent
JUDGE_INTERNALS = ("ragjudge.offline", "ragjudge.lm")
GENERATION = ("ragjudge.data", "ragjudge.probing", "ragjudge.exceptions")


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return {m for m in found if m.startswith("ragjudge")}


def test_the_probe_package_imports_no_judge_internals() -> None:
    bad = {
        str(p.relative_to(PROBE)): sorted(m for m in _imports(p) if m.startswith(JUDGE_INTERNALS))
        for p in PROBE.rglob("*.py")
    }
    assert not {k: v for k, v in bad.items() if v}


def test_generation_reads_only_rows_and_words() -> None:
    generation = [PROBE / "_text.py", PROBE / "_lexicon.py", PROBE / "_generate.py"]
    generation += [PROBE / "_probe.py", PROBE / "_registry.py", *PROBE.glob("generators/*.py")]
    bad = {
        p.name: sorted(m for m in _imports(p) if not m.startswith(GENERATION)) for p in generation
    }
    assert not {k: v for k, v in bad.items() if v}


def test_the_checker_sees_an_import(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from ragjudge.offline.numbers import number_values\n")
    assert _imports(module) == {"ragjudge.offline.numbers"}
