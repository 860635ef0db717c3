"""The import graph of ``engine/`` and ``services/``, read from the sources (no module is run): each module's
imports of the project's own modules, wherever they stand (at the top, under ``TYPE_CHECKING``, or inside a
function), and the imports made inside functions."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = {"engine": "mazziere.engine", "services": "mazziere.services"}
SKIPPED = ("services/gen/",)
"""Generated code (the protobuf modules), not the project's own."""


@dataclass(frozen=True)
class Import:
    module: str
    """The importing module."""
    target: str
    """The module imported (for ``from package import name``, the submodule ``package.name`` if there is one)."""
    line: int
    in_function: bool


def module_files() -> dict[str, Path]:
    """Every module of ``engine/`` and ``services/`` by its installed name (a package by its own)."""
    modules: dict[str, Path] = {}
    for folder, package in FOLDERS.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            if relative.startswith(SKIPPED):
                continue
            parts = path.relative_to(ROOT / folder).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            modules[".".join((package, *parts))] = path
    return modules


def imports(modules: dict[str, Path]) -> Iterator[Import]:
    """Every import of a project module by a project module."""
    for module, path in modules.items():
        tree = ast.parse(path.read_text(), str(path))
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for node, in_function in _walk(tree, False):
            for target in _targets(node, package, modules):
                if target in modules or target.startswith(tuple(FOLDERS.values())):
                    yield Import(module, target, node.lineno, in_function)


def function_imports(modules: dict[str, Path]) -> Iterator[tuple[str, int, str]]:
    """(module, line, module name imported) of every import inside a function, of any package."""
    for module, path in modules.items():
        tree = ast.parse(path.read_text(), str(path))
        for node, in_function in _walk(tree, False):
            if not in_function:
                continue
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                names = [node.module or ""] if not node.level else ["(relative)"]
            for name in names:
                yield module, node.lineno, name


def _walk(node: ast.AST, in_function: bool) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.Import | ast.ImportFrom):
            yield child, in_function
        inside = in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
        yield from _walk(child, inside)


def _targets(node: ast.Import | ast.ImportFrom, package: str, modules: dict[str, Path]) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:
        anchor = package.split(".")
        anchor = anchor[: len(anchor) - node.level + 1]
        base = ".".join([*anchor, *([base] if base else [])])
    return [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names]


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (or a module importing itself)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def visit(node: str) -> None:
        nonlocal counter
        index[node] = low[node] = counter
        counter += 1
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1 or node in graph.get(node, ()):
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found
