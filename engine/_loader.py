"""Which engine runs: the modules compiled by mypyc, or the pure-Python ones they were compiled from.

A compiled build (``MAZZIERE_COMPILE=1`` for setup.py: docs/development.md) puts an extension module beside each
compiled ``.py`` and one shared library, ``_compiled_<digest>__mypyc``, whose name carries the digest of the
engine's sources it was built from (:func:`source_digest`, :func:`group_name`). The compiled modules load when
that library is there for the sources as they are now and ``MAZZIERE_PURE`` is unset (or ``0``). Otherwise every
module of the engine loads from its ``.py``: an edit since the build never runs stale compiled code, and the
engine is compiled or pure as a whole, never a mix of the two.

mypyc keeps no docstrings: a compiled module gets its source's back as ``__test__`` (read when first asked for),
so that :mod:`doctest` runs the same examples on the compiled engine.

:mod:`mazziere.engine` imports this module before any other module of its own.
"""

from __future__ import annotations

import ast
import hashlib
import os
import sys
from collections.abc import Callable, Sequence
from importlib.abc import Loader, MetaPathFinder
from importlib.machinery import (
    EXTENSION_SUFFIXES,
    SOURCE_SUFFIXES,
    ExtensionFileLoader,
    FileFinder,
    ModuleSpec,
    PathFinder,
    SourceFileLoader,
)
from pathlib import Path
from types import ModuleType

__all__ = ["FOLDER", "PACKAGE", "UNRELATED", "WHY_PURE", "docstrings", "group_name", "source_digest"]

PACKAGE = "mazziere.engine"
FOLDER = Path(__file__).resolve().parent
"""The engine's folder: engine/ in a checkout, ``mazziere/engine`` where it is installed."""


UNRELATED = ("rl",)
"""Subpackages no compiled module imports (the learning environments, an optional extra): an edit there leaves the
compiled build current (tests/core/test_compiled.py checks that no compiled module imports them)."""


def source_digest(folder: Path) -> str:
    """The digest of the engine's sources under ``folder``: every ``.py`` file but :data:`UNRELATED`'s, its path
    and its bytes."""
    digest = hashlib.sha256()
    for name in sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*.py")):
        if name.split("/")[0] not in UNRELATED:
            digest.update(b"%s\0%s\0" % (name.encode(), (folder / name).read_bytes()))
    return digest.hexdigest()[:16]


def group_name(digest: str) -> str:
    """mypyc's name (in :data:`PACKAGE`) for the modules compiled from the sources of ``digest``: their shared
    library is this name and ``__mypyc``."""
    return f"_compiled_{digest}"


def _why_pure() -> str:
    """Why the pure engine runs, or ``""`` if the compiled one does."""
    if os.environ.get("MAZZIERE_PURE", "") not in ("", "0"):
        return "MAZZIERE_PURE is set"
    if not any(FOLDER.glob(group_name("*") + "__mypyc.*")):
        return f"no compiled build in {FOLDER}"
    wanted = group_name(source_digest(FOLDER)) + "__mypyc"
    if not any((FOLDER / (wanted + suffix)).is_file() for suffix in EXTENSION_SUFFIXES):
        return f"the compiled build in {FOLDER} is of other sources (edited since): build it again (make setup)"
    return ""


class _PureFinder(MetaPathFinder):
    """Finds the engine's modules in their ``.py`` files only, never in a compiled extension beside them."""

    def find_spec(self, name: str, path: Sequence[str] | None, target: ModuleType | None = None) -> ModuleSpec | None:
        if path is None or not name.startswith(PACKAGE + "."):
            return None
        for entry in path:
            spec = FileFinder(entry, (SourceFileLoader, SOURCE_SUFFIXES)).find_spec(name, target)
            if spec is not None and spec.loader is not None:
                return spec
        return None


class _CompiledFinder(MetaPathFinder):
    """Finds the engine's modules as Python does; a compiled one is loaded by :class:`_Documented`."""

    def find_spec(self, name: str, path: Sequence[str] | None, target: ModuleType | None = None) -> ModuleSpec | None:
        if path is None or not name.startswith(PACKAGE + "."):
            return None
        spec = PathFinder.find_spec(name, path, target)
        if spec is not None and isinstance(spec.loader, ExtensionFileLoader):
            spec.loader = _Documented(spec.loader)
        return spec


class _Documented(Loader):
    """Loads a compiled module; then every compiled module of the engine loaded so far (the ones compiled code
    imports are loaded by mypyc itself, not by Python's import system) gets its source's examples, as ``__test__``
    read when first asked for, and the path of its extension module as ``__file__`` (mypyc derives one as if its
    shared library were at the top of the tree)."""

    def __init__(self, compiled: ExtensionFileLoader) -> None:
        self.compiled = compiled

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        return self.compiled.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self.compiled.exec_module(module)
        for name in [n for n in sys.modules if n.startswith(PACKAGE + ".")]:
            loaded = sys.modules[name]
            source = FOLDER.joinpath(*name.split(".")[2:]).with_suffix(".py")
            if not str(getattr(loaded, "__file__", "")).endswith(SUFFIXES) or "__getattr__" in vars(loaded):
                continue
            vars(loaded)["__getattr__"] = _examples(loaded, source)
            for where in (source.with_suffix(suffix) for suffix in SUFFIXES):
                if where.is_file():
                    loaded.__file__ = str(where)
                    if loaded.__spec__ is not None:
                        loaded.__spec__.origin = str(where)
                    break


SUFFIXES = tuple(EXTENSION_SUFFIXES)


def _examples(module: ModuleType, source: Path) -> Callable[[str], object]:
    """The module's ``__getattr__``: ``__test__`` is every docstring of ``source`` by its qualified name."""

    def __getattr__(name: str) -> object:
        if name != "__test__" or not source.is_file():
            raise AttributeError(f"module {module.__name__!r} has no attribute {name!r}")
        tests = docstrings(source)
        module.__test__ = tests  # type: ignore[attr-defined]
        return tests

    return __getattr__


def docstrings(source: Path) -> dict[str, str]:
    """Every docstring of a module's source (the module's, as ``__doc__``), as Python keeps them."""
    tree = ast.parse(source.read_bytes(), str(source))
    found = {"__doc__": ast.get_docstring(tree, clean=False) or ""}
    todo: list[tuple[str, ast.AST]] = [("", tree)]
    while todo:
        prefix, node = todo.pop()
        for child in getattr(node, "body", ()):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                found[prefix + child.name] = ast.get_docstring(child, clean=False) or ""
                if isinstance(child, ast.ClassDef):
                    todo.append((f"{prefix}{child.name}.", child))
    return {name: text for name, text in found.items() if text}


WHY_PURE = _why_pure()
"""Why this process runs the pure engine (``""``: it runs the compiled one)."""
sys.meta_path.insert(0, _PureFinder() if WHY_PURE else _CompiledFinder())
