"""Random-play conformance for Trentuno: every seat count, both scorings and a grid of options."""

from __future__ import annotations

from typing import Any

import pytest

from mazziere import engine
from mazziere.engine.table import Seat
from tests.conformance.harness import check_random_play


def _replay(seats: int, chips: int, seed: int, preset: str, options: dict[str, Any], actions: list[Any]) -> Any:
    players = [Seat(f"p{i}", chips) for i in range(seats)]
    state = engine.new_table(
        "trentuno", players, seed=seed.to_bytes(8, "big"), preset=preset, options=options, table_id="t"
    ).state
    for action in actions:
        state = engine.apply(state, action).state
    return state


@pytest.mark.parametrize("seats", range(3, 10))
@pytest.mark.parametrize("preset", ["CLASSICO", "VITE"])
def test_presets_every_seat_count(preset: str, seats: int) -> None:
    check_random_play("trentuno", seats, preset=preset, seed=seats, max_actions=120)


@pytest.mark.parametrize(
    ("seats", "preset", "options", "chips"),
    [
        (3, "CLASSICO", {"ante": 2}, 6),
        (4, "CLASSICO", {"ante": 3, "max_rounds": 1}, 9),
        (5, "LETTERALE", {"max_rounds": 2, "first_dealer": "SEAT", "first_dealer_seat": 4}, 4),
        (3, "VITE", {"lives": 1, "ante": 0}, 0),
        (4, "VITE", {"lives": 2, "tris_by_points": True, "max_rounds": 1}, 3),
        (6, "VITE", {"lives": 1, "ante": 5, "first_dealer": "SEAT", "first_dealer_seat": 5}, 12),
        (9, "CLASSICO", {"ante": 10, "tris_by_points": True}, 25),
    ],
)
def test_option_grid(seats: int, preset: str, options: dict[str, Any], chips: int) -> None:
    """Short stacks (or few lives): every table is played to GAME_OVER."""
    actions = check_random_play(
        "trentuno", seats, preset=preset, options=options, chips=chips, seed=seats, max_actions=2000
    )
    final = _replay(seats, chips, seats, preset, options, actions)
    assert engine.is_over(final)
    if final.lives:
        assert sum(1 for left in final.lives if left) == 1 and final.pot == 0
    else:
        assert sum(1 for c in final.chips if c >= final.rules.ante) < 3
