"""Trentuno's state check (:meth:`Trentuno.check_state`): what legal play keeps true.

* Seats: 3..9; ``hands`` has one entry per seat, ``lives`` one per seat in LIVES scoring (0..``lives``) and
  none in POT scoring. Chips and the pot are never negative.
* ``dealer`` is a seat; ``deals`` and ``rounds`` are not negative. ``in_deal`` lists seats in ascending order.
* WAITING: nobody's turn and no last round pending; the dealer is among the seats the next deal takes in, and
  there are enough of them to deal. PLAYING: enough seats dealt in (3 in POT, 2 in LIVES), the dealer and the
  seat to act among them, ``rounds`` at most ``max_rounds`` (and then the last round is on); once a seat
  stopped, the seats still owed a turn are dealt-in seats and the first of them acts. OVER: nobody's turn.
* A deal's result exactly after a deal has ended (WAITING after the first deal, or OVER), with one entry per
  seat.
* Cards: before the first deal none; from it on three per seat dealt in (none for the others), three in the
  widow, and every card of the 32-card pack exactly once across the hands, the widow and the stock.
"""

from __future__ import annotations

from mazziere.engine.cards import FRENCH_32
from mazziere.engine.games.trentuno.rules import MAX_SEATS, MIN_SEATS, Scoring, TrentunoRules
from mazziere.engine.games.trentuno.state import DealResult, Phase, TrentunoState
from mazziere.engine.validate import (
    Pack,
    Piles,
    card_key,
    check_cards,
    check_chips_not_negative,
    check_header,
    check_length,
    check_seat,
    check_seats,
    invalid,
    table_card_key,
)

_PACK = Pack("FRENCH 32-card", FRENCH_32)
# Enum members as module constants: ``Phase.X`` costs a metaclass lookup on every use.
_PLAYING, _WAITING, _LIVES = Phase.PLAYING, Phase.WAITING, Scoring.LIVES


def check_state(state: TrentunoState) -> None:
    rules: TrentunoRules = state.rules
    n = check_header(state, TrentunoRules, MIN_SEATS, MAX_SEATS)
    check_chips_not_negative(state.chips)
    check_length("state.hands", state.hands, n)
    by_lives = rules.scoring is _LIVES
    _check_lives(state.lives, rules, by_lives, n)
    _check_counters(state, n)
    if state.phase is _PLAYING:
        _check_playing(state, rules, by_lives, n)
    else:
        _check_between_deals(state, rules, by_lives)
    if state.result is not None:
        _check_result(state.result, n)
    _check_cards(state, n)


def _check_lives(lives: tuple[int, ...], rules: TrentunoRules, by_lives: bool, n: int) -> None:
    """LIVES scoring: one entry per seat, each within 0..``lives``; POT scoring: none."""
    if by_lives:
        check_length("state.lives", lives, n)
        if not 0 <= min(lives) <= max(lives) <= rules.lives:
            s = next(s for s, left in enumerate(lives) if not 0 <= left <= rules.lives)
            raise invalid(f"state.lives[{s}]", f"{lives[s]} is outside 0..{rules.lives}")
    elif lives:
        raise invalid("state.lives", "lives in POT scoring")


def _check_counters(state: TrentunoState, n: int) -> None:
    """The dealer is a seat; ``deals`` and ``rounds`` are not negative; ``in_deal`` lists seats in ascending order."""
    in_deal = state.in_deal
    check_seat("state.dealer", state.dealer, n)
    if state.deals < 0:
        raise invalid("state.deals", f"{state.deals} is negative")
    if state.rounds < 0:
        raise invalid("state.rounds", f"{state.rounds} is negative")
    if in_deal:
        check_seats("state.in_deal", in_deal, n)
        if len(set(in_deal)) != len(in_deal) or list(in_deal) != sorted(in_deal):
            raise invalid("state.in_deal", f"{list(in_deal)} is not in ascending order without repeats")


def _check_playing(state: TrentunoState, rules: TrentunoRules, by_lives: bool, n: int) -> None:
    """PLAYING: after a deal, enough seats dealt in with the dealer and the seat to act among them, the rounds
    within the limit, the last round as it was opened, and no result yet."""
    in_deal, turn = state.in_deal, state.turn
    if state.deals <= 0:
        raise invalid("state.phase", "PLAYING before the first deal")
    if len(in_deal) < (2 if by_lives else MIN_SEATS):
        raise invalid("state.in_deal", f"{len(in_deal)} seat(s) dealt in; too few to play")
    if state.dealer not in in_deal:
        raise invalid("state.dealer", f"seat {state.dealer} deals but is not dealt in")
    if turn is None or turn not in in_deal:
        raise invalid("state.turn", f"{turn} is not a seat dealt in")
    _check_rounds(state, rules.max_rounds)
    _check_last_round(state, n)
    if state.result is not None:
        raise invalid("state.result", "a deal's result while the deal is played")


def _check_rounds(state: TrentunoState, max_rounds: int) -> None:
    """TR-14: at most ``max_rounds`` rounds, and once they are played the last round is on."""
    if not 0 <= state.rounds <= max_rounds:
        raise invalid("state.rounds", f"{state.rounds} is outside 0..{max_rounds}")
    if state.rounds == max_rounds and state.stopper is None:
        raise invalid("state.rounds", f"{state.rounds} rounds played and no last round (TR-14)")


def _check_last_round(state: TrentunoState, n: int) -> None:
    """The seat that opened the last round and how, set together; the seats owed a turn, the one to act first."""
    last_left, turn = state.last_left, state.turn
    if (state.stopper is None) is not (state.closing is None):
        raise invalid("state.closing", "a last round needs both the seat that opened it and how")
    if state.stopper is not None:
        check_seat("state.stopper", state.stopper, n)
        if not last_left or last_left[0] != turn:
            raise invalid("state.last_left", f"{list(last_left)}: the seat to act ({turn}) is not first")
        if not set(last_left) <= set(state.in_deal):
            raise invalid("state.last_left", f"{list(last_left)} names seats not dealt in")
    elif last_left:
        raise invalid("state.last_left", "seats owed a last turn, but nobody opened the last round")


def _check_between_deals(state: TrentunoState, rules: TrentunoRules, by_lives: bool) -> None:
    """WAITING and OVER: nobody's turn, no last turn owed, a result exactly after a deal; WAITING, a next deal
    that can be dealt; OVER, only after a deal."""
    phase, dealt = state.phase, state.deals > 0
    if state.turn is not None:
        raise invalid("state.turn", f"{state.turn}; nobody acts in {phase.value}, so null")
    if state.last_left:
        raise invalid("state.last_left", f"seats owed a last turn in {phase.value}")
    if (state.result is None) is dealt:
        what = "no result after a deal" if dealt else "a result before the first deal"
        raise invalid("state.result", what)
    if phase is _WAITING:
        _check_next_deal(state, rules, by_lives)
    elif not dealt:
        raise invalid("state.phase", "OVER before the first deal")


def _check_result(result: DealResult, n: int) -> None:
    """A deal's result has one entry per seat and names seats, with a winner."""
    check_length("state.result.kinds", result.kinds, n)
    check_length("state.result.points", result.points, n)
    check_seats("state.result.winners", result.winners, n)
    check_seats("state.result.losers", result.losers, n)
    if not result.winners:
        raise invalid("state.result.winners", "a deal without a winner")


def _check_cards(state: TrentunoState, n: int) -> None:
    """None before the first deal; from it on three cards per seat dealt in and in the widow, and every card of
    the pack exactly once."""
    if state.deals <= 0:
        if state.stock or state.widow or any(state.hands):
            raise invalid("state", "cards on the table before the first deal (deals 0)")
        return
    _check_dealt_hands(state, n)
    check_cards(state, _PACK, True, _keys, _piles)


def _check_dealt_hands(state: TrentunoState, n: int) -> None:
    """Three cards in the widow and in the hand of each seat dealt in; none for the others."""
    hands, in_deal = state.hands, state.in_deal
    if len(state.widow) != 3:
        raise invalid("state.widow", f"{len(state.widow)} cards; the widow holds 3")
    if sum(map(len, hands)) != 3 * len(in_deal) or any(len(hands[s]) != 3 for s in in_deal):
        s = next(s for s in range(n) if len(hands[s]) != (3 if s in in_deal else 0))
        what = "dealt in" if s in in_deal else "not dealt in"
        raise invalid(f"state.hands[{s}]", f"{len(hands[s])} cards for a seat {what}")


def _check_next_deal(state: TrentunoState, rules: TrentunoRules, by_lives: bool) -> None:
    """WAITING: the next deal takes in the dealer and enough seats (what :func:`.deal.deal` relies on)."""
    if by_lives:
        players = [s for s, left in enumerate(state.lives) if left > 0]
    else:
        players = [s for s, c in enumerate(state.chips) if c >= rules.ante]
    if len(players) < (2 if by_lives else MIN_SEATS):
        raise invalid("state.phase", f"WAITING, but only {len(players)} seat(s) can be dealt in")
    if state.dealer not in players:
        raise invalid("state.dealer", f"seat {state.dealer} deals next but cannot be dealt in")


def _keys(state: TrentunoState) -> list[int]:
    keys = list(map(card_key, state.stock))
    keys += map(table_card_key, state.widow)
    for hand in state.hands:
        keys += map(table_card_key, hand)
    return keys


def _piles(state: TrentunoState) -> Piles:
    yield "state.stock", state.stock
    yield "state.widow", state.widow
    for s, hand in enumerate(state.hands):
        yield f"state.hands[{s}]", hand
