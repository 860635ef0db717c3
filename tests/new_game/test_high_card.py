"""The walk-through game of docs/engine.md passes the conformance harness that every built-in game passes."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

from mazziere import engine
from mazziere.engine import registry
from tests.conformance.harness import check_random_play
from tests.helpers import play_kinds
from tests.new_game.high_card import HighCard

DOCUMENTED = {
    "mazziere.engine",
    "mazziere.engine.cards",
    "mazziere.engine.chance",
    "mazziere.engine.dealing",
    "mazziere.engine.errors",
    "mazziere.engine.events",
    "mazziere.engine.game",
    "mazziere.engine.rules",
    "mazziere.engine.seats",
    "mazziere.engine.step",
    "mazziere.engine.table",
    "mazziere.engine.values",
    "mazziere.engine.visibility",
}
"""The helper modules docs/engine.md's walk-through names."""


@pytest.fixture(autouse=True)
def high_card_registered() -> Iterator[None]:
    registry.register(HighCard())
    yield
    registry.GAMES.pop("high_card")


@pytest.mark.parametrize("seats", range(2, 9))
@pytest.mark.parametrize("preset", ["PLAIN", "LONG"])
def test_high_card_passes_the_conformance_harness(preset: str, seats: int) -> None:
    check_random_play("high_card", seats, preset=preset, seed=seats, chips=6)


def test_a_hand_of_high_card() -> None:
    out = engine.new_table("high_card", [engine.Seat("Ada", 5), engine.Seat("Bruno", 5)], seed=b"demo")
    dealer = engine.to_act(out.state)[0]
    out = engine.apply(out.state, engine.Action(dealer, "DEAL"))
    assert out.state.pot == 2 and play_kinds(out.events) == ["DEALT", "DEALT"]
    first = engine.to_act(out.state)[0]
    assert first != dealer
    out = engine.apply(out.state, engine.Action(first, "KEEP"))
    out = engine.apply(out.state, engine.Action(dealer, "PASS"))
    assert play_kinds(out.events) == ["PASS", "SHOW", "WIN", "HAND_OVER", "DEALER"]
    assert out.state.chips[first] == 6 and out.state.pot == 0


def test_the_game_uses_only_the_documented_helpers() -> None:
    tree = ast.parse(Path(__file__).with_name("high_card.py").read_text())
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
    engine_modules = {name for name in imported if name.startswith("mazziere.")}
    assert engine_modules <= DOCUMENTED, engine_modules - DOCUMENTED
