"""The package layout: no import circles between modules or between subpackages (lazy imports
inside functions and imports for the type checker included), and the public API that the move into
subpackages kept."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

import ragjudge

PACKAGE = Path(ragjudge.__file__).parent


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in PACKAGE.rglob("*.py")}


def _imported(tree: ast.AST, name: str, is_package: bool, modules: set[str]) -> set[str]:
    """Every ragjudge module that `name` imports, at any depth of its code: at import time,
    inside a function (run later), or for the type checker only (`if TYPE_CHECKING:`), which
    ties the modules as tightly for whoever reads or changes them."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative (the project bans them, but resolve them anyway)
                anchor = name if is_package else name.rpartition(".")[0]
                for _ in range(node.level - 1):
                    anchor = anchor.rpartition(".")[0]
                base = f"{anchor}.{base}".strip(".")
            found.add(base)
            found.update(f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in modules)
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "import_module":
            if node.args and isinstance(node.args[0], ast.Constant):
                found.add(str(node.args[0].value))
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return {m for m in found if m in modules}


def import_graph() -> dict[str, set[str]]:
    """Module -> the modules its import runs, parent packages included.

    Importing `a.b.c` runs `a/__init__` and `a/b/__init__` first, except those the importer is
    itself inside (they are already being imported when its code runs)."""
    paths = _modules()
    graph: dict[str, set[str]] = {}
    for name, path in paths.items():
        targets = _imported(
            ast.parse(path.read_text()), name, path.name == "__init__.py", set(paths)
        )
        edges: set[str] = set()
        for target in targets:
            parts = target.split(".")
            for i in range(1, len(parts) + 1):
                prefix = ".".join(parts[:i])
                if prefix in paths and not (name == prefix or name.startswith(prefix + ".")):
                    edges.add(prefix)
        graph[name] = edges - {name}
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return found


def subpackage_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """Subpackage -> the subpackages its modules import (`ragjudge.x.y` counts as `x`; the
    modules at the package root as themselves)."""
    found: dict[str, set[str]] = {_part(m): set() for m in graph}
    for module, targets in graph.items():
        found[_part(module)].update(_part(t) for t in targets if _part(t) != _part(module))
    return found


def _part(module: str) -> str:
    return module.split(".")[1] if "." in module else module


def _shown(found: list[list[str]]) -> str:
    return "; ".join(" <-> ".join(c) for c in found)


def test_no_import_circles() -> None:
    found = circles(import_graph())
    assert not found, "import circles: " + _shown(found)


def test_no_circles_between_subpackages() -> None:
    """Imports go one way between subpackages (ARCHITECTURE.md: the layers), whichever modules
    carry them: a circle through two subpackages is a circle even when no module meets itself."""
    graph = import_graph()
    found = circles(subpackage_graph(graph))
    edges = [
        f"{m} -> {t}"
        for m, targets in sorted(graph.items())
        for t in sorted(targets)
        if _part(m) != _part(t) and any({_part(m), _part(t)} <= set(c) for c in found)
    ]
    assert not found, f"subpackage circles: {_shown(found)} (through {', '.join(edges)})"


def test_the_checker_sees_a_lazy_circle() -> None:
    graph = {"a": {"b"}, "b": set(), "c": set()}
    assert circles(graph) == []
    tree = ast.parse("def f():\n    from b import x\n")
    graph["a"] = _imported(tree, "a", False, {"a", "b"})
    graph["b"] = _imported(ast.parse("import a\n"), "b", False, {"a", "b"})
    assert circles(graph) == [["a", "b"]]
    typing_only = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import b\n"
    assert _imported(ast.parse(typing_only), "a", False, {"a", "b"}) == {"b"}


#: The subpackages bottom up (ARCHITECTURE.md): a module imports only from its own layer's
#: package or from layers below. `lm` sits above `offline`: `resolve_lm("local")` builds the
#: offline judge's engine, which knows nothing of `lm`.
LAYERS = (
    ("exceptions", "_version"),
    ("data", "stats", "signatures", "lexical"),
    ("offline",),
    ("lm",),
    ("programs",),
    ("evaluation",),
    ("optimize",),
    ("estimation",),
    ("probing",),
    ("label", "report", "testing", "distributed"),
    ("cli",),
    ("__main__",),
)


def test_subpackages_import_only_from_layers_below() -> None:
    rank = {package: i for i, layer in enumerate(LAYERS) for package in layer}
    graph = subpackage_graph(import_graph())
    assert set(graph) - {"ragjudge"} == set(rank), "a subpackage missing from LAYERS"
    upward = [
        f"{a} -> {b}"
        for a, targets in sorted(graph.items())
        if a != "ragjudge"  # the package's lazy re-exports
        for b in sorted(targets)
        if rank[b] >= rank[a]
    ]
    assert not upward, "imports against the layers: " + ", ".join(upward)


def test_the_checker_sees_a_circle_between_subpackages() -> None:
    """No module meets itself, but `p.x -> q.y -> p.z` ties p and q both ways."""
    graph = {
        "ragjudge.p.x": {"ragjudge.q.y"},
        "ragjudge.q.y": {"ragjudge.p.z"},
        "ragjudge.p.z": set(),
        "ragjudge.r": {"ragjudge.p.x"},
    }
    assert circles(graph) == []
    assert circles(subpackage_graph(graph)) == [["p", "q"]]


def test_no_loose_modules_at_the_package_root() -> None:
    loose = sorted(p.stem for p in PACKAGE.glob("*.py"))
    assert loose == ["__init__", "__main__", "_version", "exceptions"]


@pytest.mark.parametrize(
    "package", ["lm", "data", "evaluation", "stats", "testing", "programs", "estimation"]
)
def test_subpackages_reexport_with_all(package: str) -> None:
    module = importlib.import_module(f"ragjudge.{package}")
    assert len(set(module.__all__)) == len(module.__all__)
    for name in module.__all__:
        assert getattr(module, name) is not None


#: The subpackages whose functions are held to `MAX_FUNCTION_LINES`.
SHORT_FUNCTIONS = ("optimize", "estimation", "programs")
#: The most lines a function may take, from its `def` to its last line (docstring included).
MAX_FUNCTION_LINES = 80


def long_functions(tree: ast.AST, limit: int = MAX_FUNCTION_LINES) -> list[tuple[str, int]]:
    """Each function or method (nested ones too) longer than `limit` lines: (name, lines)."""
    return [
        (node.name, node.end_lineno - node.lineno + 1)
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and node.end_lineno is not None
        and node.end_lineno - node.lineno + 1 > limit
    ]


@pytest.mark.parametrize("package", SHORT_FUNCTIONS)
def test_no_function_over_80_lines(package: str) -> None:
    found = [
        f"{path.relative_to(PACKAGE.parent)}::{name} ({lines} lines)"
        for path in sorted((PACKAGE / package).rglob("*.py"))
        for name, lines in long_functions(ast.parse(path.read_text()))
    ]
    assert not found, f"functions over {MAX_FUNCTION_LINES} lines: " + ", ".join(found)


def test_the_length_check_counts_from_def_to_the_last_line() -> None:
    body = "\n".join(f"    x{i} = {i}" for i in range(79))
    short = f'def f():\n    """Doc."""\n{body}\n'  # 81 lines
    assert long_functions(ast.parse(short)) == [("f", 81)]
    nested = f"class C:\n    def g(self):\n        pass\n\n{short}"
    assert long_functions(ast.parse(nested), limit=2) == [("f", 81)]
