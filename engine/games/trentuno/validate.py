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
from mazziere.engine.games.trentuno.state import Phase, TrentunoState
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
    hands, lives, in_deal = state.hands, state.lives, state.in_deal
    check_length("state.hands", hands, n)
    by_lives = rules.scoring is _LIVES
    if by_lives:
        check_length("state.lives", lives, n)
        if not 0 <= min(lives) <= max(lives) <= rules.lives:
            s = next(s for s, left in enumerate(lives) if not 0 <= left <= rules.lives)
            raise invalid(f"state.lives[{s}]", f"{lives[s]} is outside 0..{rules.lives}")
    elif lives:
        raise invalid("state.lives", "lives in POT scoring")
    dealer, phase, turn = state.dealer, state.phase, state.turn
    check_seat("state.dealer", dealer, n)
    if state.deals < 0:
        raise invalid("state.deals", f"{state.deals} is negative")
    if state.rounds < 0:
        raise invalid("state.rounds", f"{state.rounds} is negative")
    if in_deal:
        check_seats("state.in_deal", in_deal, n)
        if len(set(in_deal)) != len(in_deal) or list(in_deal) != sorted(in_deal):
            raise invalid("state.in_deal", f"{list(in_deal)} is not in ascending order without repeats")
    dealt = state.deals > 0
    if phase is _PLAYING:
        if not dealt:
            raise invalid("state.phase", "PLAYING before the first deal")
        if len(in_deal) < (2 if by_lives else MIN_SEATS):
            raise invalid("state.in_deal", f"{len(in_deal)} seat(s) dealt in; too few to play")
        if dealer not in in_deal:
            raise invalid("state.dealer", f"seat {dealer} deals but is not dealt in")
        if turn is None or turn not in in_deal:
            raise invalid("state.turn", f"{turn} is not a seat dealt in")
        if not 0 <= state.rounds <= rules.max_rounds:
            raise invalid("state.rounds", f"{state.rounds} is outside 0..{rules.max_rounds}")
        if state.rounds == rules.max_rounds and state.stopper is None:
            raise invalid("state.rounds", f"{state.rounds} rounds played and no last round (TR-14)")
        if (state.stopper is None) is not (state.closing is None):
            raise invalid("state.closing", "a last round needs both the seat that opened it and how")
        if state.stopper is not None:
            check_seat("state.stopper", state.stopper, n)
            if not state.last_left or state.last_left[0] != turn:
                raise invalid("state.last_left", f"{list(state.last_left)}: the seat to act ({turn}) is not first")
            if not set(state.last_left) <= set(in_deal):
                raise invalid("state.last_left", f"{list(state.last_left)} names seats not dealt in")
        elif state.last_left:
            raise invalid("state.last_left", "seats owed a last turn, but nobody opened the last round")
        if state.result is not None:
            raise invalid("state.result", "a deal's result while the deal is played")
    else:
        if turn is not None:
            raise invalid("state.turn", f"{turn}; nobody acts in {phase.value}, so null")
        if state.last_left:
            raise invalid("state.last_left", f"seats owed a last turn in {phase.value}")
        if (state.result is None) is dealt:
            what = "no result after a deal" if dealt else "a result before the first deal"
            raise invalid("state.result", what)
        if phase is _WAITING:
            _check_next_deal(state, rules, by_lives)
        elif not dealt:
            raise invalid("state.phase", "OVER before the first deal")
    result = state.result
    if result is not None:
        check_length("state.result.kinds", result.kinds, n)
        check_length("state.result.points", result.points, n)
        check_seats("state.result.winners", result.winners, n)
        check_seats("state.result.losers", result.losers, n)
        if not result.winners:
            raise invalid("state.result.winners", "a deal without a winner")
    if not dealt:
        if state.stock or state.widow or any(hands):
            raise invalid("state", "cards on the table before the first deal (deals 0)")
        return
    if len(state.widow) != 3:
        raise invalid("state.widow", f"{len(state.widow)} cards; the widow holds 3")
    if sum(map(len, hands)) != 3 * len(in_deal) or any(len(hands[s]) != 3 for s in in_deal):
        s = next(s for s in range(n) if len(hands[s]) != (3 if s in in_deal else 0))
        what = "dealt in" if s in in_deal else "not dealt in"
        raise invalid(f"state.hands[{s}]", f"{len(hands[s])} cards for a seat {what}")
    check_cards(state, _PACK, True, _keys, _piles)


def _check_next_deal(state: TrentunoState, rules: TrentunoRules, by_lives: bool) -> None:
    """WAITING: the next deal takes in the dealer and enough seats (what ``Trentuno._deal`` relies on)."""
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
