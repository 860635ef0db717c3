"""The bots and the advice with sitting out (option ``sit_out``): advice leaves SIT_OUT and SIT_IN out, the
cautious and best policies never sit a seat out by themselves, and sit one in when nobody else is left to deal to."""

from __future__ import annotations

import pytest

from mazziere import engine
from mazziere.engine.bots import advise, choose
from mazziere.engine.table import Action, Seat

TABLES = [
    ("sette_e_mezzo", {"first_bank": "SEAT", "sit_out": True}, 20),
    ("saltacavallo", {"first_dealer": "SEAT", "sit_out": True}, 3),
]


def start(game: str, options: dict[str, object], chips: int) -> engine.TableState:
    return engine.new_table(game, [Seat(f"p{i}", chips) for i in range(3)], seed=b"bots", options=options).state


@pytest.mark.parametrize(("game", "options", "chips"), TABLES, ids=lambda v: str(v)[:14])
@pytest.mark.parametrize("policy", ["cautious", "best"])
def test_cautious_and_best_deal_instead_of_sitting_a_seat_out(
    game: str, options: dict[str, object], chips: int, policy: str
) -> None:
    state = start(game, options, chips)
    assert {e.kind for e in engine.legal_actions(state, 0)} == {"DEAL", "SIT_OUT"}
    assert choose(policy, state, 0).kind == "DEAL"


@pytest.mark.parametrize(("game", "options", "chips"), TABLES, ids=lambda v: str(v)[:14])
@pytest.mark.parametrize("policy", ["cautious", "best"])
def test_with_every_player_sitting_out_the_bots_sit_the_first_one_in(
    game: str, options: dict[str, object], chips: int, policy: str
) -> None:
    state = start(game, options, chips)
    for seat in (1, 2):
        state = engine.apply(state, Action(0, "SIT_OUT", target=seat)).state
    assert choose(policy, state, 0) == Action(0, "SIT_IN", target=1)


@pytest.mark.parametrize(("game", "options", "chips"), TABLES, ids=lambda v: str(v)[:14])
def test_advice_leaves_sitting_out_and_in_out(game: str, options: dict[str, object], chips: int) -> None:
    state = start(game, options, chips)
    assert {a.action.kind for a in advise(state, 0, samples=4).actions} == {"DEAL"}
    for seat in (1, 2):
        state = engine.apply(state, Action(0, "SIT_OUT", target=seat)).state
    assert advise(state, 0).actions == ()
