"""Installs the folders engine/ and services/ as the packages mazziere.engine and mazziere.services, and with
``MAZZIERE_COMPILE=1`` compiles the engine with mypyc.

The folders keep their short names in the repository; installed, they live under the ``mazziere`` namespace, so
nothing as generic as ``engine`` or ``services`` lands in site-packages. Everything else is in pyproject.toml.

Compiled (docs/development.md): every module of engine/ but those ``[tool.mazziere.compiled]`` in pyproject.toml
names, with the reason each stays interpreted, becomes an extension module beside its ``.py`` (which stays, the
pure engine: ``MAZZIERE_PURE=1``), all in one shared library named by the digest of the sources
(engine/_loader.py). mypyc, from the compile lock (requirements/compile.lock), must be importable: ``make setup``
and the image build with ``--no-build-isolation``. Without ``MAZZIERE_COMPILE=1`` the build is pure Python (a
``py3-none-any`` wheel), as a PEP 517 build from the sdist is.
"""

from __future__ import annotations

import fnmatch
import importlib.util
import os
import tomllib
from pathlib import Path
from typing import Any

from setuptools import find_namespace_packages, setup

ROOTS = ("engine", "services")
HERE = Path(__file__).resolve().parent
MYPYC_SOURCES = Path("build/mypyc/src")
"""Where mypyc reads the engine as ``mazziere/engine`` (a link to engine/), so its modules get their installed names."""


def interpreted() -> dict[str, str]:
    """The patterns of the engine's modules that stay interpreted (paths under engine/), each with the reason."""
    config = tomllib.loads((HERE / "pyproject.toml").read_text())["tool"]["mazziere"]["compiled"]
    return dict(config["interpreted"])


def compiled_engine() -> list[Any]:
    """The engine's extension modules, made by mypyc from the sources as they are (type-checked as `make lint`)."""
    from mypyc.build import mypycify

    spec = importlib.util.spec_from_file_location("_engine_loader", HERE / "engine" / "_loader.py")
    assert spec is not None and spec.loader is not None
    loader = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loader)
    os.chdir(HERE)
    link = MYPYC_SOURCES / "mazziere" / "engine"
    link.parent.mkdir(parents=True, exist_ok=True)
    if not link.is_symlink():
        link.symlink_to(Path("../../../../engine"), target_is_directory=True)
    skipped = interpreted()
    sources = sorted(p.relative_to("engine").as_posix() for p in Path("engine").rglob("*.py"))
    compiled = [s for s in sources if not any(fnmatch.fnmatchcase(s, pattern) for pattern in skipped)]
    os.environ["MYPYPATH"] = str(MYPYC_SOURCES)
    # The interpreted modules the compiled ones import are type-checked too (mypy follows the imports).
    return mypycify(
        ["--config-file", "pyproject.toml", "--explicit-package-bases", *(str(link / s) for s in compiled)],
        target_dir="build/mypyc",
        group_name=f"mazziere.engine.{loader.group_name(loader.source_digest(HERE / 'engine'))}",
    )


packages = find_namespace_packages(
    include=[f"{root}{tail}" for root in ROOTS for tail in ("", ".*")], exclude=["*.__pycache__"]
)
setup(
    packages=[f"mazziere.{name}" for name in packages],
    package_dir={f"mazziere.{root}": root for root in ROOTS},
    ext_modules=compiled_engine() if os.environ.get("MAZZIERE_COMPILE") == "1" else [],
)
