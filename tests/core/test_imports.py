"""The engine's modules import without a circle: each one alone, and no cycle in the graph of their imports."""

from __future__ import annotations

import ast
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

ENGINE = Path(__file__).resolve().parents[2] / "engine"
PACKAGE = "mazziere.engine"


def module_name(path: Path) -> str:
    parts = path.relative_to(ENGINE).with_suffix("").parts
    return ".".join((PACKAGE, *parts[:-1])) if parts[-1] == "__init__" else ".".join((PACKAGE, *parts))


MODULES = {module_name(path): path for path in sorted(ENGINE.rglob("*.py"))}


def _is_type_checking(node: ast.If) -> bool:
    return isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"


def module_imports(path: Path) -> set[str]:
    """The engine modules ``path`` imports when it runs (``if TYPE_CHECKING:`` blocks are for mypy alone)."""
    found: set[str] = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.If) and _is_type_checking(node):
            continue
        for inner in ast.walk(node):
            if isinstance(inner, ast.Import):
                found.update(alias.name for alias in inner.names)
            elif isinstance(inner, ast.ImportFrom) and inner.module:
                for alias in inner.names:  # a submodule by name, or a name of the module itself
                    sub = f"{inner.module}.{alias.name}"
                    found.add(sub if sub in MODULES else inner.module)
    return {name for name in found if name in MODULES}


def test_the_import_graph_has_no_cycle() -> None:
    graph = {name: module_imports(path) for name, path in MODULES.items()}
    state: dict[str, str] = {}

    def visit(name: str, trail: list[str]) -> None:
        state[name] = "open"
        for nxt in sorted(graph[name]):
            if state.get(nxt) == "open":
                cycle = [*trail[trail.index(nxt) :], nxt]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if nxt not in state:
                visit(nxt, [*trail, nxt])
        state[name] = "done"

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])


def test_no_engine_module_imports_inside_a_function() -> None:
    """An import inside a function is how a cycle hides; the engine has none."""
    late = []
    for name, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                late += [f"{name}:{n.lineno}" for n in ast.walk(node) if isinstance(n, ast.Import | ast.ImportFrom)]
    assert not late, late


def _imports_alone(name: str) -> tuple[str, str]:
    run = subprocess.run([sys.executable, "-c", f"import {name}"], capture_output=True, text=True, check=False)
    return name, run.stderr.strip().splitlines()[-1] if run.returncode else ""


def test_each_module_imports_alone() -> None:
    with ThreadPoolExecutor(4) as pool:
        failed = {name: error for name, error in pool.map(_imports_alone, sorted(MODULES)) if error}
    assert not failed, failed
