"""The state check refuses Sette e mezzo states no legal play makes; the seat walk never spins."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from mazziere import engine
from mazziere.engine.cards import parse_cards
from mazziere.engine.errors import Reason, Rejected
from mazziere.engine.games.sette_e_mezzo.state import Phase, Result, SeatResult, SetteEMezzoState, Status
from mazziere.engine.registry import check_state
from mazziere.engine.table import Action, Seat
from mazziere.engine.visibility import PUBLIC, TableCard, only
from tests.helpers import refused_at, replace, within

N = 4


def start(**options: Any) -> SetteEMezzoState:
    opts = {"first_bank": "SEAT", **options}
    seats = [Seat(f"p{i}", 50) for i in range(N)]
    state: SetteEMezzoState = engine.new_table("sette_e_mezzo", seats, seed=b"v", options=opts).state
    return state


def dealt() -> SetteEMezzoState:
    """Seat 0 banks; the hand is dealt and seat 1 is to stake."""
    state = start()
    state = engine.apply(state, Action(0, "DEAL")).state
    assert state.phase is Phase.STAKE and state.turn == 1
    return state


def deciding() -> SetteEMezzoState:
    state = engine.apply(dealt(), Action(1, "STAKE", 2)).state
    assert state.phase is Phase.DECIDE
    return state


def hand(state: SetteEMezzoState, seat: int, **changes: Any) -> tuple[Any, ...]:
    hands = list(state.hands)
    hands[seat] = replace(hands[seat], **changes)
    return tuple(hands)


def seats(state: SetteEMezzoState, n: int) -> dict[str, Any]:
    """Every per-seat field resized to ``n`` seats."""
    grow = n - state.seat_count
    return {
        "names": (*state.names, *(f"x{i}" for i in range(grow)))[:n],
        "chips": (*state.chips, *(50,) * grow)[:n],
        "hands": (*state.hands, *(state.hands[-1],) * grow)[:n],
    }


Case = Callable[[], SetteEMezzoState]

CASES: dict[str, tuple[Case, str]] = {
    "one seat": (lambda: replace(start(), **seats(start(), 1)), "state.names"),
    "13 seats": (lambda: replace(start(), **seats(start(), 13)), "state.names"),
    "fewer seats than the rules' minimum": (
        lambda: replace(start(min_seats=3), **seats(start(min_seats=3), 2)),
        "state.names",
    ),
    "chips for fewer seats": (lambda: replace(dealt(), chips=dealt().chips[:-1]), "state.chips"),
    "hands for more seats": (lambda: replace(dealt(), hands=(*dealt().hands, dealt().hands[0])), "state.hands"),
    "bank out of range": (lambda: replace(dealt(), bank=N), "state.bank"),
    "bank negative": (lambda: replace(dealt(), bank=-1), "state.bank"),
    "turn out of range": (lambda: replace(dealt(), turn=N + 3), "state.turn"),
    "turn -1 before the game is over": (lambda: replace(dealt(), turn=-1), "state.turn"),
    "a turn when the game is over": (lambda: replace(dealt(), phase=Phase.OVER), "state.turn"),
    "the bank stakes": (lambda: replace(dealt(), turn=0), "state.turn"),
    "a player's turn between hands": (lambda: replace(start(), turn=2), "state.turn"),
    "a player's turn in the bank's phase": (lambda: replace(deciding(), phase=Phase.BANK), "state.turn"),
    "deciding before staking": (lambda: replace(dealt(), phase=Phase.DECIDE), "state.hands[1].status"),
    "staking after staking": (lambda: replace(deciding(), phase=Phase.STAKE), "state.hands[1].status"),
    "negative seq": (lambda: replace(dealt(), seq=-1), "state.seq"),
    "negative draws": (lambda: replace(dealt(), draws=-2), "state.draws"),
    "negative hand number": (lambda: replace(start(), hand_number=-1), "state.hand_number"),
    "chips in the pot": (lambda: replace(dealt(), pot=5), "state.pot"),
    "negative stake": (lambda: replace(deciding(), hands=hand(deciding(), 1, stake=-1)), "state.hands[1].stake"),
    "stake over max_stake": (lambda: replace(deciding(), hands=hand(deciding(), 1, stake=11)), "state.hands[1].stake"),
    "an OUT seat holding cards": (
        lambda: replace(dealt(), hands=hand(dealt(), 2, status=Status.OUT)),
        "state.hands[2]",
    ),
    "a WAITING seat without a card": (
        lambda: replace(dealt(), hands=hand(dealt(), 2, cards=(), points=0)),
        "state.hands[2]",
    ),
    "a result for no seat": (
        lambda: replace(start(), results=(SeatResult(9, Result.WON, 1, 4, False),)),
        "state.results[0].seat",
    ),
    "an invalid profile": (lambda: replace(dealt(), rules=replace(dealt().rules, min_stake=0)), "state.rules"),
    "a duplicated card": (lambda: replace(dealt(), stock=(dealt().stock[1], *dealt().stock[1:])), "state.stock[1]"),
    "a card in a hand also in the stock": (
        lambda: replace(dealt(), stock=(dealt().hands[1].cards[0].card, *dealt().stock[1:])),
        "state.hands[1].cards[0]",
    ),
    "a missing card": (lambda: replace(dealt(), stock=dealt().stock[1:]), "state: card(s)"),
    "a card of the other pack": (
        lambda: replace(dealt(), stock=(*dealt().stock[:-1], *parse_cards("KD"))),
        "state.stock",
    ),
    "a hidden card": (
        lambda: replace(dealt(), hands=hand(dealt(), 2, cards=(TableCard(None, only(2)),))),
        "state.hands[2].cards[0]",
    ),
    "cards before the first deal": (lambda: replace(start(), stock=parse_cards("Ad 2d")), "state"),
    "a burned card of a seat not dealt in": (
        lambda: replace(start(), hands=hand(start(), 1, burned=(TableCard(parse_cards("3d")[0], PUBLIC),))),
        "state.hands[1].burned",
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_an_inconsistent_state_is_refused(name: str) -> None:
    make, path = CASES[name]
    refused_at(make(), path)


@pytest.mark.parametrize("make", [start, dealt, deciding], ids=lambda f: f.__name__)
def test_states_of_play_pass(make: Case) -> None:
    check_state(make())


def test_a_bank_below_zero_is_a_state_of_play() -> None:
    """SM-8: the bank pays even below zero chips, and keeps the debt when the bank passes."""
    state = dealt()
    check_state(replace(state, chips=(-30, *state.chips[1:])))
    check_state(replace(state, chips=(*state.chips[:3], -7)))


def test_the_next_player_walk_ends_on_a_bank_out_of_range() -> None:
    """The seat walk after a stand goes once round the table at most; a bank that is no seat is refused."""
    state = deciding()
    hands = tuple(replace(h, status=Status.STOOD) if s != 1 else h for s, h in enumerate(state.hands))
    bad = replace(state, bank=N + 5, hands=hands)
    with within(2.0), pytest.raises(Rejected) as caught:
        engine.apply(bad, Action(1, "STAND"))
    assert caught.value.reason is Reason.INVALID_STATE
    assert caught.value.message.startswith("state.bank")
