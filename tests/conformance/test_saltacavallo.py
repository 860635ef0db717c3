"""Random-play conformance for Saltacavallo: every preset, 2..20 seats, and a grid of options."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conformance.harness import check_random_play

GAME = "saltacavallo"
PRESETS = ("NAPOLETANO", "CUCU")


def _budget(n: int) -> int:
    """Whole games at small tables; the harness checks every seat's view after every action, so fewer
    actions at large ones (still several whole hands with every seat deciding)."""
    if n <= 6:
        return 10_000
    return 50 if n <= 12 else 32


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("n", range(2, 21))
def test_random_play_every_preset_and_seat_count(preset: str, n: int) -> None:
    options = {"min_seats": 2} if n == 2 else None
    actions = check_random_play(GAME, n, preset=preset, options=options, seed=1000 + n, max_actions=_budget(n))
    assert actions


GRID: list[dict[str, Any]] = [
    {"first_dealer": "DUE_DI_DENARI"},
    {"first_dealer": "RE_DI_DENARI", "reshuffle": "CONTINUE"},
    {"first_dealer": "RANDOM", "all_dead_hand": "SPLIT_POT"},
    {"first_dealer": "SEAT", "first_dealer_seat": 2, "lives": 1},
    {"reshuffle": "CONTINUE", "drawn_horse_draws_again": True, "drawn_king_keeps_own": True},
    {"drawn_king_keeps_own": True, "coin": 3},
    {"drawn_horse_draws_again": True, "reshuffle": "CONTINUE", "lives": 2},
    {"all_dead_hand": "SPLIT_POT", "lives": 1},
    {"revival_dealer_exempt": True, "lives": 2},
    {"revival": False, "end_at_two_split": True},
    {"end_at_two_split": True, "all_dead_hand": "SPLIT_POT", "coin": 5},
    {"revival_dealer_exempt": True, "end_at_two_split": True, "reshuffle": "CONTINUE"},
    {"sit_out": True},
    {"sit_out": True, "all_dead_hand": "SPLIT_POT", "lives": 1},
    {"sit_out": True, "revival_dealer_exempt": True, "reshuffle": "CONTINUE", "lives": 2},
    {"sit_out": True, "revival": False, "end_at_two_split": True},
]


@pytest.mark.parametrize("n", [3, 4, 6])
@pytest.mark.parametrize("options", GRID, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_random_play_option_grid(options: dict[str, Any], n: int) -> None:
    chips = 3 * options.get("coin", 1) * options.get("lives", 3)
    check_random_play(GAME, n, options=options, chips=chips, seed=n * 31 + len(options), max_actions=10_000)


@pytest.mark.parametrize("seed", range(6))
def test_random_play_heads_up_and_deep_stacks(seed: int) -> None:
    check_random_play(GAME, 2, options={"min_seats": 2, "lives": 5}, seed=seed, max_actions=10_000)
    check_random_play(GAME, 5, preset="CUCU", options={"lives": 4}, seed=seed, max_actions=10_000)
