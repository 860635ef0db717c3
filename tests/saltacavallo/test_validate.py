"""The state check refuses Saltacavallo states no legal play makes; no seat walk spins on one."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from mazziere import engine
from mazziere.engine.cards import Card, parse_cards
from mazziere.engine.errors import Reason, Rejected
from mazziere.engine.games.saltacavallo import Phase, SaltacavalloState
from mazziere.engine.games.saltacavallo.game import _next_turn, _round, swap_target
from mazziere.engine.registry import check_state
from mazziere.engine.table import Action
from mazziere.engine.visibility import PUBLIC, TableCard, only
from tests.helpers import refused_at, replace, within
from tests.saltacavallo.support import deal, table, with_lives

N = 4


def start() -> SaltacavalloState:
    """Four seats, seat 0 deals first, nothing dealt yet."""
    return table(N)


def playing() -> SaltacavalloState:
    """Seat 0 deals 2c 3c 4c to seats 1..3 and 5c to himself; seat 1 is to play."""
    state: SaltacavalloState = deal(start(), "2c 3c 4c 5c").state
    assert state.phase is Phase.PLAY and state.turn == 1
    return state


def dealers_turn() -> SaltacavalloState:
    state = playing()
    for seat in (1, 2, 3):
        state = engine.apply(state, Action(seat, "KEEP")).state
    assert state.phase is Phase.DEALER
    return state


def up(text: str) -> TableCard:
    return TableCard(Card.parse(text), PUBLIC)


def dead(state: SaltacavalloState, *seats: int) -> SaltacavalloState:
    """``state`` with ``seats`` dead (their lives paid into the pot) and, mid-hand, without a card."""
    lives = [0 if s in seats else left for s, left in enumerate(state.lives)]
    out = with_lives(state, lives)
    if state.phase in (Phase.PLAY, Phase.DEALER):
        out = replace(out, hand=tuple(None if s in seats else tc for s, tc in enumerate(state.hand)))
    return out


def resized(state: SaltacavalloState, n: int) -> SaltacavalloState:
    grow = n - state.seat_count
    return replace(
        state,
        names=(*state.names, *(f"x{i}" for i in range(grow)))[:n],
        chips=(*state.chips, *(state.chips[0],) * grow)[:n],
        lives=(*state.lives, *(state.lives[0],) * grow)[:n],
        hand=(*state.hand, *(None,) * grow)[:n],
    )


def moved(state: SaltacavalloState, **changes: Any) -> SaltacavalloState:
    return replace(state, **changes)


CASES: dict[str, tuple[Callable[[], SaltacavalloState], str]] = {
    "one seat": (lambda: resized(start(), 1), "state.names"),
    "21 seats": (lambda: resized(start(), 21), "state.names"),
    "two seats under min_seats 3": (lambda: resized(start(), 2), "state.names"),
    "lives for fewer seats": (lambda: moved(start(), lives=start().lives[:-1]), "state.lives"),
    "cards for more seats": (lambda: moved(playing(), hand=(*playing().hand, None)), "state.hand"),
    "chips for fewer seats": (lambda: moved(start(), chips=start().chips[:-1]), "state.chips"),
    "every seat dead": (lambda: dead(start(), 0, 1, 2, 3), "state.lives"),
    "every seat dead mid-hand": (lambda: dead(playing(), 0, 1, 2, 3), "state.lives"),
    "one seat alive and the game not over": (lambda: dead(start(), 0, 1, 2), "state.lives"),
    "a dead dealer": (lambda: dead(start(), 0), "state.dealer"),
    "dealer out of range": (lambda: moved(start(), dealer=N), "state.dealer"),
    "negative lives": (lambda: moved(start(), lives=(3, 3, 3, -1)), "state.lives[3]"),
    "more lives than were ever dealt": (
        lambda: moved(start(), lives=(4, 3, 3, 3), chips=(12, 10, 10, 10)),
        "state.lives",
    ),
    "chips that cannot cover the lives": (lambda: moved(start(), chips=(10, 10, 2, 10)), "state.chips[2]"),
    "a pot that does not match the lives lost": (lambda: moved(start(), pot=3), "state.pot"),
    "negative pot": (lambda: moved(start(), pot=-1), "state.pot"),
    "negative hands": (lambda: moved(start(), hands=-1), "state.hands"),
    "negative seq": (lambda: moved(playing(), seq=-5), "state.seq"),
    "negative draws": (lambda: moved(playing(), draws=-1), "state.draws"),
    "turn out of range": (lambda: moved(playing(), turn=N), "state.turn"),
    "turn -1 in PLAY": (lambda: moved(playing(), turn=-1), "state.turn"),
    "the dealer's turn in PLAY": (lambda: moved(playing(), turn=0), "state.turn"),
    "a turn between hands": (lambda: moved(start(), turn=2), "state.turn"),
    "a turn on a face-up card": (
        lambda: moved(playing(), hand=(playing().hand[0], up("2c"), *playing().hand[2:])),
        "state.turn",
    ),
    "a dead seat holding a card mid-hand": (lambda: replace(dead(playing(), 3), hand=playing().hand), "state.hand[3]"),
    "a living seat without a card mid-hand": (
        lambda: moved(playing(), hand=(*playing().hand[:3], None)),
        "state.hand[3]",
    ),
    "a face-down card in the dealer's phase": (
        lambda: moved(dealers_turn(), hand=(*dealers_turn().hand[:3], TableCard(Card.parse("4c"), only(3)))),
        "state.hand[3]",
    ),
    "a revival mid-hand": (lambda: moved(playing(), revived=(2,)), "state.revived"),
    "a loser who is no seat": (lambda: moved(start(), losers=(7,)), "state.losers[0]"),
    "winners while the game goes on": (lambda: moved(start(), winners=(1,)), "state.winners"),
    "over without a winner": (lambda: moved(dead(start(), 1, 2, 3), phase=Phase.OVER, pot=0), "state.winners"),
    "an invalid profile": (lambda: moved(start(), rules=replace(start().rules, lives=0)), "state.rules"),
    "a duplicated card": (lambda: moved(playing(), stock=(playing().stock[1], *playing().stock[1:])), "state.stock[1]"),
    "a card of the stock also in a hand": (
        lambda: moved(playing(), stock=(*parse_cards("2c"), *playing().stock[1:])),
        "state.hand[1]",
    ),
    "a missing card": (lambda: moved(playing(), stock=playing().stock[1:]), "state: card(s)"),
    "a French card": (lambda: moved(playing(), stock=(*playing().stock[:-1], *parse_cards("KD"))), "state.stock"),
    "a hidden card": (
        lambda: moved(playing(), hand=(*playing().hand[:3], TableCard(None, only(3)))),
        "state.hand[3]",
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_an_inconsistent_state_is_refused(name: str) -> None:
    make, path = CASES[name]
    refused_at(make(), path)


@pytest.mark.parametrize("make", [start, playing, dealers_turn], ids=lambda f: f.__name__)
def test_states_of_play_pass(make: Callable[[], SaltacavalloState]) -> None:
    check_state(make())


def test_continue_leaves_past_cards_off_the_table() -> None:
    """With CONTINUE the cards of past hands are gone: fewer than 40 cards is a state of play."""
    state = deal(table(N, reshuffle="CONTINUE"), "2c 3c 4c 5c").state
    check_state(replace(state, stock=state.stock[10:]))


# -- the seat walks end within one round of the table ---------------------------------------------------


def refused(call: Callable[[], Any]) -> Rejected:
    with within(2.0), pytest.raises(Rejected) as caught:
        call()
    assert caught.value.reason is Reason.INVALID_STATE
    return caught.value


def test_swap_target_with_every_seat_dead() -> None:
    state = replace(playing(), lives=(0,) * N)
    refused(lambda: swap_target(state, 1))
    refused(lambda: engine.legal_actions(state, 1))


def test_swap_target_round_a_table_of_cavalli_with_a_dead_dealer() -> None:
    """Every card a face-up cavallo and the dealer dead: the chain would jump round the table forever."""
    state = replace(playing(), lives=(0, 3, 3, 3), hand=(None, up("Cc"), up("Cs"), up("Cb")))
    refused(lambda: swap_target(state, 1))


def test_next_turn_with_every_seat_dead() -> None:
    hand = (up("2c"), up("3c"), up("4c"), up("5c"))
    refused(lambda: _next_turn((0,) * N, hand, 0, 1))


def test_next_turn_with_a_dead_dealer() -> None:
    hand = (None, up("2c"), up("3c"), up("4c"))
    refused(lambda: _next_turn((0, 1, 1, 1), hand, 0, 1))
    state = replace(playing(), lives=(0, 3, 3, 3), hand=(None, playing().hand[1], up("3c"), up("4c")))
    refused(lambda: engine.apply(state, Action(1, "KEEP")))


def test_the_deal_round_with_a_dead_dealer() -> None:
    """The order of the deal ends on the dealer: a dead one would make it grow without end."""
    refused(lambda: _round((0, 1, 1, 1), 0))
    refused(lambda: _round((1, 1, 1, 1), N + 2))
    refused(lambda: engine.apply(replace(start(), lives=(0, 3, 3, 3)), Action(0, "DEAL")))


def test_a_turn_with_a_dead_dealer_is_refused() -> None:
    """The last player's turn before the dealer's: a dead dealer never comes round, so the move is refused."""
    state = replace(playing(), lives=(0, 3, 3, 3), turn=3, hand=(None, up("2c"), up("3c"), playing().hand[3]))
    refused(lambda: engine.apply(state, Action(3, "KEEP")))
