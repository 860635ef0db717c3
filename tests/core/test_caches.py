"""Every cache in the engine has a bound, and filling it past the bound keeps it there."""

from __future__ import annotations

import functools
import importlib
import pkgutil
from typing import Any

import pytest

from bench.caches import Cache, caches
from mazziere import engine

TYPE_KEYED = {
    "mazziere.engine.codec._hints",
    "mazziere.engine.wire._body_types",
    "mazziere.engine.wire._body_decoder",
    "mazziere.engine.wire._piles",
}
"""Unbounded but keyed by the engine's own types (a fixed few dozen): the codecs' compiled readers and writers."""


def engine_caches() -> dict[str, Any]:
    """Every functools cache defined at module level anywhere in ``engine``."""
    found = {}
    for info in pkgutil.walk_packages(engine.__path__, "mazziere.engine."):
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if isinstance(value, functools._lru_cache_wrapper) and value.__module__ == module.__name__:
                found[f"{info.name}.{name}"] = value
    return found


def test_every_functools_cache_is_bounded() -> None:
    found = engine_caches()
    assert len(found) >= 9, sorted(found)
    unbounded = {name for name, fn in found.items() if fn.cache_info().maxsize is None}
    assert unbounded <= TYPE_KEYED, f"unbounded caches: {sorted(unbounded - TYPE_KEYED)}"


def test_every_bounded_cache_is_measured() -> None:
    """bench.caches (the Caches table of docs/performance.md) covers each bounded functools cache."""
    measured = {c.name.rsplit(".", 1)[-1] for c in caches()}
    for name, fn in engine_caches().items():
        if fn.cache_info().maxsize is not None:
            assert name.rsplit(".", 1)[-1] in measured, name


@pytest.mark.parametrize("cache", caches(), ids=lambda c: c.name)
def test_filling_past_the_bound_stays_within_it(cache: Cache) -> None:
    cache.clear()
    try:
        cache.fill(cache.bound + 100)
        assert 0 < cache.size() <= cache.bound
    finally:
        cache.clear()
