"""Random-play conformance for Sette e mezzo: every preset and seat count, and a grid of options."""

from __future__ import annotations

from typing import Any

import pytest

from mazziere.engine.games.sette_e_mezzo.rules import PRESETS
from tests.conformance.harness import check_random_play


def budget(seats: int) -> int:
    """Actions per table: the harness checks every viewer after every action, so big tables get fewer."""
    return 100 if seats <= 4 else 60 if seats <= 8 else 40


SEATS = {"CLASSICO": range(2, 13), "NAPOLETANO": range(2, 13), "DELLARTI": range(3, 13), "CASINO": range(2, 13)}


@pytest.mark.parametrize(("preset", "seats"), [(p, n) for p in PRESETS for n in SEATS[p]], ids=lambda v: str(v))
def test_presets_every_seat_count(preset: str, seats: int) -> None:
    check_random_play("sette_e_mezzo", seats, preset=preset, seed=seats, max_actions=budget(seats))


GRID: list[tuple[str, int, dict[str, Any], int]] = [
    ("CLASSICO", 3, {"burn_ranks": [3, 4], "burn_when": "ANY_CARD", "burn_limit": 0}, 100),
    ("CLASSICO", 4, {"burn_ranks": [4], "burn_when": "ANY_CARD", "burn_limit": 2, "hidden_card_choice": True}, 100),
    ("CLASSICO", 3, {"ace_half_first": True, "matta_values": "WHOLE_ONLY", "raise_on_decision": True}, 100),
    ("CLASSICO", 5, {"triple": True, "triple_two_sevens": True, "natural_rule": "S001"}, 100),
    ("CLASSICO", 4, {"natural_rule": "ENCYCLOPEDIA", "bank_passes_when": "EVERY_HAND"}, 100),
    ("CLASSICO", 4, {"natural_rule": "S000", "reshuffle": "EVERY_HAND", "reveal_hidden_on_bust": True}, 100),
    ("CLASSICO", 6, {"reshuffle": "ON_MATTA", "bank_passes_when": "NEVER", "bank_passes_on_reale": False}, 100),
    ("CLASSICO", 3, {"pack": "FRENCH", "matta_card": "KD", "first_bank": "HIGHEST_CARD"}, 100),
    ("CLASSICO", 3, {"pack": "FRENCH", "matta_card": None, "first_bank": "SEAT", "first_bank_seat": 2}, 100),
    ("CLASSICO", 12, {"hidden_card_choice": True, "raise_on_decision": True, "max_stake": 50}, 100),
    ("CLASSICO", 2, {"min_stake": 5, "max_stake": 20}, 30),  # chips run out: the game ends
    ("CLASSICO", 3, {"min_stake": 2, "max_stake": 4}, 5),
    ("CLASSICO", 12, {"bank_passes_when": "DECK_EXHAUSTED", "reshuffle": "CONTINUE"}, 100),
    ("CLASSICO", 8, {"ties_push": True, "five_tie_loses": True, "reale_pays_double": False}, 100),
    ("NAPOLETANO", 5, {"burn_limit": 0, "burn_when": "ANY_CARD", "reveal_hidden_on_bust": True}, 100),
    ("NAPOLETANO", 4, {"triple": True, "matta_card": "7d"}, 100),
    ("DELLARTI", 4, {"triple": True, "burn_ranks": [4], "burn_when": "ANY_CARD"}, 100),
    ("DELLARTI", 3, {"reshuffle": "CONTINUE", "raise_on_decision": True}, 10),
    ("CASINO", 4, {"reale_with_matta_pays": "THREE_TO_TWO", "five_tie_loses": True}, 100),
    ("CASINO", 7, {"ties_push": False, "raise_on_decision": True}, 100),
    ("CASINO", 2, {"forced_draws": False, "bank_first_card_up": False, "pack": "FRENCH"}, 20),
    ("CASINO", 3, {"hidden_card_choice": True, "burn_ranks": [3], "first_bank_seat": 2}, 100),
    ("CLASSICO", 4, {"sit_out": True}, 100),
    ("CLASSICO", 2, {"sit_out": True, "min_stake": 5, "max_stake": 20}, 30),
    ("NAPOLETANO", 5, {"sit_out": True, "bank_passes_when": "EVERY_HAND"}, 20),
    ("DELLARTI", 3, {"sit_out": True, "bank_passes_when": "DECK_EXHAUSTED", "reshuffle": "CONTINUE"}, 100),
    ("CASINO", 4, {"sit_out": True}, 100),
    ("CLASSICO", 12, {"sit_out": True, "bank_passes_when": "EVERY_HAND"}, 100),
]


@pytest.mark.parametrize(("preset", "seats", "options", "chips"), GRID, ids=lambda v: str(v))
def test_option_grid(preset: str, seats: int, options: dict[str, Any], chips: int) -> None:
    check_random_play(
        "sette_e_mezzo", seats, preset=preset, options=options, chips=chips, seed=seats, max_actions=budget(seats)
    )


@pytest.mark.parametrize("preset", list(PRESETS))
def test_long_game_to_the_end(preset: str) -> None:
    actions = check_random_play("sette_e_mezzo", 3, preset=preset, chips=4, seed=7, max_actions=600)
    assert len(actions) < 600  # the chips ran out and the game ended


@pytest.mark.parametrize("preset", list(PRESETS))
def test_long_game_with_players_sitting_out_to_the_end(preset: str) -> None:
    options = {"sit_out": True}
    actions = check_random_play("sette_e_mezzo", 4, preset=preset, options=options, chips=4, seed=11, max_actions=900)
    assert len(actions) < 900  # the chips ran out and the game ended
    assert {"SIT_OUT", "SIT_IN"} <= {a.kind for a in actions}


@pytest.mark.parametrize("preset", list(PRESETS))
def test_many_hands(preset: str) -> None:
    check_random_play("sette_e_mezzo", 3, preset=preset, chips=40, seed=3, max_actions=250)


@pytest.mark.parametrize("options", [{}, {"hidden_card_choice": True}, {"ace_half_first": True}], ids=str)
def test_no_view_or_event_tells_a_total_that_rests_on_a_hidden_card(options: dict[str, Any]) -> None:
    """The harness scrambles hidden cards but not totals computed from them, so check those directly: another
    seat's total, in a view or an event, appears only once every card of that seat is face up."""
    import random

    from mazziere import engine
    from mazziere.engine.table import Seat
    from mazziere.engine.visibility import redact
    from tests.helpers import random_step

    rng = random.Random(7)
    state = engine.new_table("sette_e_mezzo", [Seat(f"p{i}", 100) for i in range(5)], seed=b"t", options=options).state
    for _ in range(400):
        if engine.is_over(state):
            break
        out = engine.apply(state, random_step(state, rng))
        state = out.state
        for viewer in [None, *range(state.seat_count)]:
            view = engine.view(state, viewer)
            for s, seat in enumerate(view.seats):
                if s != viewer and any(c.card is None for c in seat.cards):
                    assert seat.points is None, (viewer, s, seat)
            for event in redact(out.events, viewer):
                if event.points and event.seat is not None and event.seat != viewer:
                    hand = state.hands[event.seat]
                    assert all(tc.seen_by.admits(viewer) for tc in event.cards) or all(
                        tc.seen_by.everyone for tc in hand.cards
                    ), (viewer, event)
