"""The compiled engine and the pure one: this process runs the compiled modules, and the pure engine passes a
reduced conformance set of its own in a subprocess (``MAZZIERE_PURE=1``), so that ``make test`` runs both.

``make setup`` compiles the engine in place (docs/development.md); every module of engine/ but those the
interpreted patterns of ``[tool.mazziere.compiled]`` in pyproject.toml name must load compiled here.
"""

from __future__ import annotations

import ast
import fnmatch
import importlib
import os
import subprocess
import sys
import textwrap
import tomllib
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path
from types import ModuleType

import pytest

from mazziere.engine import _loader
from tests.conformance.harness import check_random_play

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "engine"
if ROOT.name == "mutants":
    pytest.skip("make mutate: the engine is mutmut's mutated copy, pure", allow_module_level=True)
INTERPRETED: dict[str, str] = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mazziere"]["compiled"][
    "interpreted"
]
"""The patterns (paths under engine/) of the modules that stay interpreted, each with its reason."""
SOURCES = sorted(p.relative_to(ENGINE).as_posix() for p in ENGINE.rglob("*.py"))


def kept_interpreted(path: str) -> bool:
    return any(fnmatch.fnmatchcase(path, pattern) for pattern in INTERPRETED)


def module_name(path: str) -> str:
    return ".".join(["mazziere", "engine", *path.removesuffix(".py").split("/")]).removesuffix(".__init__")


def is_compiled(module: ModuleType) -> bool:
    return str(getattr(module, "__file__", "")).endswith(tuple(EXTENSION_SUFFIXES))


COMPILED = [module_name(p) for p in SOURCES if not kept_interpreted(p)]
"""The engine's modules that must be compiled: all but the named exceptions."""


def test_the_exceptions_name_modules_of_the_engine_and_say_why() -> None:
    assert all(reason.strip() for reason in INTERPRETED.values())
    assert [p for p in INTERPRETED if not any(fnmatch.fnmatchcase(s, p) for s in SOURCES)] == []
    assert len(COMPILED) >= 25 and "mazziere.engine.game" in COMPILED and "mazziere.engine.step" in COMPILED


def test_no_compiled_module_imports_a_package_left_out_of_the_digest() -> None:
    """The build's digest leaves out :data:`_loader.UNRELATED` (an edit there keeps the build current): no compiled
    module may import one."""
    for path in [p for p in SOURCES if not kept_interpreted(p)]:
        tree = ast.parse((ENGINE / path).read_text())
        named = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
        named += [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
        named += [f"{n.module}.{a.name}" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names]
        for package in _loader.UNRELATED:
            assert not [m for m in named if m.startswith(f"mazziere.engine.{package}")], (path, package)


def test_this_process_runs_the_compiled_engine() -> None:
    """Every module that must be compiled loaded compiled (unless the process was asked for the pure engine)."""
    if _loader.WHY_PURE == "MAZZIERE_PURE is set":
        pytest.skip("MAZZIERE_PURE is set: this process runs the pure engine")
    assert not _loader.WHY_PURE, f"the pure engine runs: {_loader.WHY_PURE}"
    pure = [name for name in COMPILED if not is_compiled(importlib.import_module(name))]
    assert pure == [], f"loaded from their .py, not compiled: {pure} (make setup compiles the engine)"
    loaded = [sys.modules[name] for p in SOURCES if kept_interpreted(p) and (name := module_name(p)) in sys.modules]
    assert [m.__name__ for m in loaded if is_compiled(m)] == [], "kept interpreted, but loaded compiled"


def test_a_compiled_module_keeps_its_examples() -> None:
    """mypyc keeps no docstrings; a compiled module has its source's as ``__test__``, for doctest."""
    from mazziere.engine import step

    examples = getattr(step, "__test__", {}) if is_compiled(step) else {"__doc__": step.__doc__ or ""}
    assert ">>> step = Step(state)" in examples["__doc__"]


@pytest.mark.parametrize(("game", "seats"), [("sette_e_mezzo", 4), ("saltacavallo", 4), ("trentuno", 4)])
def test_a_random_game_of_each_game(game: str, seats: int) -> None:
    """The conformance harness on one table of each game (the pure engine's share of the conformance suite)."""
    check_random_play(game, seats, seed=seats * 7 + len(game), max_actions=400)


PURE_SET = [
    "tests/core/test_compiled.py::test_a_random_game_of_each_game",
    "tests/core/test_compiled.py::test_a_compiled_module_keeps_its_examples",
    "tests/core/test_chance_vectors.py",
    "tests/core/test_doctests.py",
    "tests/golden",
    "tests/new_game",
]
"""What the pure engine plays: a random game of each game, the chance vectors, the examples, the goldens and the
fourth game of the tests (a game in Python over the pure interface)."""

DRIVER = textwrap.dedent(
    """
    import sys
    import pytest
    from mazziere.engine import _loader  # before the suite's conftest clears MAZZIERE_*: the engine is chosen

    assert _loader.WHY_PURE == "MAZZIERE_PURE is set", _loader.WHY_PURE
    code = pytest.main(["-p", "no:cacheprovider", "-m", "not long", *sys.argv[1:]])
    compiled = sorted(
        name for name, m in sys.modules.items()
        if name.startswith("mazziere.engine") and str(getattr(m, "__file__", "")).endswith((".so", ".pyd"))
    )
    assert not compiled, f"the pure run loaded compiled modules: {compiled}"
    sys.exit(code)
    """
)


def test_the_pure_engine_passes_its_conformance_set() -> None:
    env = {**os.environ, "MAZZIERE_PURE": "1"}
    done = subprocess.run(
        [sys.executable, "-c", DRIVER, *PURE_SET], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, f"{done.stdout[-6000:]}\n{done.stderr[-3000:]}"
    assert " passed" in done.stdout and " failed" not in done.stdout, done.stdout[-2000:]
