"""The examples in the engine's docstrings run as written, and the modules that must carry examples do."""

from __future__ import annotations

import doctest
import importlib
import inspect

import pytest

from mazziere import engine

MODULES = [
    "mazziere.engine",
    "mazziere.engine.bots",
    "mazziere.engine.cards",
    "mazziere.engine.chance",
    "mazziere.engine.dealing",
    "mazziere.engine.events",
    "mazziere.engine.games.saltacavallo",
    "mazziere.engine.games.sette_e_mezzo",
    "mazziere.engine.games.sette_e_mezzo.points",
    "mazziere.engine.games.trentuno",
    "mazziere.engine.games.trentuno.hands",
    "mazziere.engine.ledger",
    "mazziere.engine.registry",
    "mazziere.engine.seats",
    "mazziere.engine.step",
    "mazziere.engine.table",
    "mazziere.engine.validate",
    "mazziere.engine.visibility",
]
"""The modules with examples: the public API, each game's entry point and the helpers a new game uses."""


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted, f"{name} is listed but has no example"
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"


def test_every_public_function_of_the_engine_has_an_example() -> None:
    functions = [getattr(engine, name) for name in engine.__all__ if inspect.isfunction(getattr(engine, name))]
    bare = [f.__qualname__ for f in functions if ">>>" not in (f.__doc__ or "")]
    assert len(functions) >= 10 and not bare, bare


def test_every_game_package_shows_a_game_played() -> None:
    for game in engine.all_games():
        package = importlib.import_module(type(game).__module__.rsplit(".", 1)[0])
        assert ">>>" in (package.__doc__ or ""), package.__name__
