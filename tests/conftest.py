"""Suite-wide setup: tests and the servers they start see the documented defaults, whatever the machine sets (but for
the few variables that set up the suite, :data:`SUITE_SETTINGS`).

The folders engine/ and services/ are the packages ``mazziere.engine`` and ``mazziere.services``. Imported by
their folder names (the repository root is on ``sys.path`` in tests) they would load a second, separate copy,
so such an import fails at once; except under ``make mutate``, whose mutated copy of engine/ in mutants/ is
known by its folder name: there ``mazziere.engine.*`` is that copy, under both names.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import os
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import ModuleType

import pytest

pytest_plugins = ("tests.browser",)
"""Fixtures every folder shares: one browser for the run."""

MUTATING = Path(__file__).resolve().parents[1].name == "mutants"


class _NamespacedOnly(importlib.abc.MetaPathFinder):
    def find_spec(self, name: str, path: Sequence[str] | None, target: ModuleType | None = None) -> None:
        if name in ("engine", "services"):
            raise ImportError(f"import mazziere.{name}, not {name}: the folder {name}/ installs as mazziere.{name}")


class _MutatedEngine(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """``mazziere.engine.x`` is the module ``engine.x`` of mutants/, the one mutmut mutated."""

    def find_spec(self, name: str, path: Sequence[str] | None, target: ModuleType | None = None) -> ModuleSpec | None:
        if name != "mazziere.engine" and not name.startswith("mazziere.engine."):
            return None
        module = importlib.import_module(name.removeprefix("mazziere."))
        return importlib.util.spec_from_loader(name, self, is_package=hasattr(module, "__path__"))

    def create_module(self, spec: ModuleSpec) -> ModuleType:
        return sys.modules[spec.name.removeprefix("mazziere.")]

    def exec_module(self, module: ModuleType) -> None:
        """Already run under its folder name."""


sys.meta_path.insert(0, _MutatedEngine() if MUTATING else _NamespacedOnly())

SUITE_SETTINGS = ("MAZZIERE_CONTAINER_TEST", "MAZZIERE_REQUIRE_POSTGRES", "MAZZIERE_PACKAGE_NEWEST")
"""Variables that set up the suite itself (`make test` sets them), not a server: kept."""

for name in [n for n in os.environ if n.startswith("MAZZIERE_") and n not in SUITE_SETTINGS]:
    del os.environ[name]


# -- lines for the run's summary -----------------------------------------------------------------------------------

SUMMARY = "summary"
"""The report section of what a test says for the run's summary (:func:`summary`)."""

_summaries: list[str] = []


@pytest.fixture
def summary(request: pytest.FixtureRequest) -> Callable[[str], None]:
    """Say what a test measured: printed at the end of the run, whichever process ran the test (the suite runs on
    several, pytest-xdist's workers, whose own output is not shown)."""
    return lambda text: request.node.add_report_section("call", SUMMARY, text)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.when == "call":
        _summaries.extend(text for name, text in report.sections if name == f"Captured {SUMMARY} call")


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    for text in _summaries:
        terminalreporter.write_line(text)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The long tests first: their files are handed to the processes first (a file to a process), so the longest
    work does not start last. And every test its own id: schemathesis names the test of each API operation
    ``test[GET /v1/games]``, but pytest 9 builds the id of all of them from the function's name alone, and the
    processes are handed tests by id (one id: one of the operations tested, the others dropped)."""
    items.sort(key=lambda item: item.get_closest_marker("long") is None)
    ids = Counter(item.nodeid for item in items)
    for item in items:
        if ids[item.nodeid] > 1 and item.parent is not None:
            item._id = item.parent.id.child(item.name)
    twice = sorted(id for id, count in Counter(item.nodeid for item in items).items() if count > 1)
    if twice:
        raise pytest.UsageError(f"tests share an id (a parallel run would drop all but one): {twice}")
