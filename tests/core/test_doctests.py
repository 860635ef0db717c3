"""The examples in the engine's docstrings run as written."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

from mazziere import engine

SUBMODULES = pkgutil.walk_packages(engine.__path__, "mazziere.engine.")
MODULES = ["mazziere.engine", *sorted(info.name for info in SUBMODULES if not info.ispkg)]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"
