"""The state check refuses Trentuno states no legal play makes; the seat walks end on a bad deal."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from mazziere import engine
from mazziere.engine.cards import Card, parse_cards
from mazziere.engine.errors import Reason, Rejected
from mazziere.engine.games.trentuno.state import Closing, Phase, TrentunoState
from mazziere.engine.registry import check_state
from mazziere.engine.table import Action
from mazziere.engine.visibility import PUBLIC, TableCard, only
from tests.helpers import refused_at, replace, within
from tests.trentuno.table import deal, new

N = 4
HANDS = {1: "7H 8H 9H", 2: "7D 8D 9D", 3: "7C 8C 9C", 0: "7S 8S 9S"}


def start(**options: Any) -> TrentunoState:
    """Four seats, seat 0 deals first, nothing dealt yet."""
    return new(N, **options)


def playing() -> TrentunoState:
    """Dealt from a stacked pack; seat 1 is to play."""
    state: TrentunoState = deal(start(), HANDS, "TH TD TC").state
    assert state.phase is Phase.PLAYING and state.turn == 1
    return state


def stopped() -> TrentunoState:
    state = engine.apply(playing(), Action(1, "STOP")).state
    assert state.stopper == 1 and state.turn == 2
    return state


def waiting() -> TrentunoState:
    """After the first deal: seat 1 stops, the others pass, the hands are compared."""
    state = stopped()
    for seat in (2, 3, 0):
        state = engine.apply(state, Action(seat, "PASS")).state
    assert state.phase is Phase.WAITING and state.result is not None
    return state


def resized(state: TrentunoState, n: int) -> TrentunoState:
    grow = n - state.seat_count
    return replace(
        state,
        names=(*state.names, *(f"x{i}" for i in range(grow)))[:n],
        chips=(*state.chips, *(100,) * grow)[:n],
        hands=(*state.hands, *((),) * grow)[:n],
    )


def moved(state: TrentunoState, **changes: Any) -> TrentunoState:
    return replace(state, **changes)


def hands(state: TrentunoState, seat: int, cards: tuple[TableCard, ...]) -> tuple[tuple[TableCard, ...], ...]:
    return (*state.hands[:seat], cards, *state.hands[seat + 1 :])


CASES: dict[str, tuple[Callable[[], TrentunoState], str]] = {
    "two seats": (lambda: resized(start(), 2), "state.names"),
    "ten seats": (lambda: resized(start(), 10), "state.names"),
    "chips for fewer seats": (lambda: moved(start(), chips=start().chips[:-1]), "state.chips"),
    "hands for more seats": (lambda: moved(start(), hands=((),) * (N + 1)), "state.hands"),
    "lives in POT scoring": (lambda: moved(start(), lives=(3,) * N), "state.lives"),
    "lives for fewer seats": (lambda: moved(start(scoring="LIVES"), lives=(3,) * (N - 1)), "state.lives"),
    "more lives than the rules give": (lambda: moved(start(scoring="LIVES"), lives=(3, 4, 3, 3)), "state.lives[1]"),
    "negative lives": (lambda: moved(start(scoring="LIVES"), lives=(3, -1, 3, 3)), "state.lives[1]"),
    "negative chips": (lambda: moved(start(), chips=(100, -1, 100, 100)), "state.chips[1]"),
    "negative pot": (lambda: moved(playing(), pot=-4), "state.pot"),
    "negative seq": (lambda: moved(playing(), seq=-1), "state.seq"),
    "negative draws": (lambda: moved(playing(), draws=-1), "state.draws"),
    "negative deals": (lambda: moved(start(), deals=-1), "state.deals"),
    "negative rounds": (lambda: moved(playing(), rounds=-1), "state.rounds"),
    "rounds past max_rounds": (lambda: moved(playing(), rounds=21), "state.rounds"),
    "max_rounds reached without a last round": (lambda: moved(playing(), rounds=20), "state.rounds"),
    "dealer out of range": (lambda: moved(start(), dealer=N), "state.dealer"),
    "a dealer who cannot pay the ante": (lambda: moved(start(), chips=(0, 100, 100, 100)), "state.dealer"),
    "too few seats to deal": (lambda: moved(start(), chips=(100, 100, 0, 0)), "state.phase"),
    "turn None in play": (lambda: moved(playing(), turn=None), "state.turn"),
    "turn out of range": (lambda: moved(playing(), turn=N + 1), "state.turn"),
    "turn of a seat not dealt in": (
        lambda: moved(playing(), in_deal=(0, 2, 3), hands=hands(playing(), 1, ())),
        "state.turn",
    ),
    "a turn between deals": (lambda: moved(waiting(), turn=2), "state.turn"),
    "a dealer not dealt in": (lambda: moved(playing(), in_deal=(1, 2, 3)), "state.dealer"),
    "too few seats dealt in": (lambda: moved(playing(), in_deal=(0, 1)), "state.in_deal"),
    "in_deal out of order": (lambda: moved(playing(), in_deal=(1, 0, 2, 3)), "state.in_deal"),
    "in_deal repeats a seat": (lambda: moved(playing(), in_deal=(0, 1, 1, 3)), "state.in_deal"),
    "in_deal names no seat": (lambda: moved(playing(), in_deal=(0, 1, 2, 9)), "state.in_deal[3]"),
    "a stopper without a closing": (lambda: moved(stopped(), closing=None), "state.closing"),
    "a closing without a stopper": (lambda: moved(playing(), closing=Closing.STOP), "state.closing"),
    "the seat to act is not first owed a turn": (lambda: moved(stopped(), turn=3), "state.last_left"),
    "a last turn owed to a seat not dealt in": (lambda: moved(stopped(), last_left=(2, 7)), "state.last_left"),
    "last turns owed with no last round": (lambda: moved(playing(), last_left=(2, 3)), "state.last_left"),
    "playing before the first deal": (lambda: moved(start(), phase=Phase.PLAYING, turn=1), "state.phase"),
    "over before the first deal": (lambda: moved(start(), phase=Phase.OVER), "state.phase"),
    "a result while playing": (lambda: moved(playing(), result=waiting().result), "state.result"),
    "no result after a deal": (lambda: moved(waiting(), result=None), "state.result"),
    "a result before the first deal": (lambda: moved(start(), result=waiting().result), "state.result"),
    "a result for fewer seats": (
        lambda: moved(waiting(), result=replace(waiting().result, points=(0, 0))),
        "state.result.points",
    ),
    "a result without a winner": (
        lambda: moved(waiting(), result=replace(waiting().result, winners=())),
        "state.result.winners",
    ),
    "an invalid profile": (lambda: moved(start(), rules=replace(start().rules, ante=0)), "state.rules"),
    "a widow of two cards": (
        lambda: moved(playing(), widow=playing().widow[:2], stock=(playing().widow[2].card, *playing().stock)),
        "state.widow",
    ),
    "a hand of two cards": (
        lambda: moved(
            playing(), hands=hands(playing(), 2, playing().hands[2][:2]), stock=(Card.parse("9D"), *playing().stock)
        ),
        "state.hands[2]",
    ),
    "a duplicated card": (lambda: moved(playing(), stock=(playing().stock[1], *playing().stock[1:])), "state.stock[1]"),
    "a card of the widow also in the stock": (
        lambda: moved(playing(), stock=(*parse_cards("TH"), *playing().stock[1:])),
        "state.widow[0]",
    ),
    "a missing card": (lambda: moved(playing(), stock=playing().stock[1:]), "state: card(s)"),
    "an Italian card": (lambda: moved(playing(), stock=(*playing().stock[:-1], *parse_cards("Rd"))), "state.stock"),
    "a hidden card": (
        lambda: moved(playing(), hands=hands(playing(), 3, (*playing().hands[3][:2], TableCard(None, only(3))))),
        "state.hands[3][2]",
    ),
    "cards before the first deal": (
        lambda: moved(start(), widow=(TableCard(Card.parse("AS"), PUBLIC),)),
        "state",
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_an_inconsistent_state_is_refused(name: str) -> None:
    make, path = CASES[name]
    refused_at(make(), path)


@pytest.mark.parametrize("make", [start, playing, stopped, waiting], ids=lambda f: f.__name__)
def test_states_of_play_pass(make: Callable[[], TrentunoState]) -> None:
    check_state(make())


def test_lives_scoring_states_pass() -> None:
    state = start(scoring="LIVES", ante=0)
    check_state(state)
    check_state(deal(state, HANDS, "TH TD TC").state)


# -- the seat walks have no loop to spin, and a deal with no other seat is refused, not an index error -------


def refused(call: Callable[[], Any]) -> None:
    with within(2.0), pytest.raises(Rejected) as caught:
        call()
    assert caught.value.reason is Reason.INVALID_STATE
    assert caught.value.message.startswith("state.in_deal")


def test_a_stop_with_nobody_after() -> None:
    alone = moved(playing(), in_deal=(1,))
    refused(lambda: engine.apply(alone, Action(1, "STOP")))


def test_an_exchange_round_the_table_with_nobody_after() -> None:
    alone = moved(playing(), in_deal=(1,))
    refused(lambda: engine.apply(alone, Action(1, "EXCHANGE", cards=parse_cards("7H TH"))))
