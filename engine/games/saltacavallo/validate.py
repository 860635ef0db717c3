"""Saltacavallo's state check (:meth:`Saltacavallo.check_state`): what legal play keeps true.

* Seats: ``min_seats..20``; ``lives`` and ``hand`` have one entry per seat. Lives are 0 or more and only move
  or vanish (at most ``lives`` per seat in all); each seat's chips cover its lives (``chips >= lives * coin``),
  and the pot holds one coin per life lost until the game ends, then nothing.
* Until the game is over at least two seats live (three with ``end_at_two_split``), and the dealer lives.
* ``turn`` is a living seat other than the dealer holding a face-down card in PLAY, else -1. In PLAY and
  DEALER exactly the living seats hold a card, but those sitting out (option ``sit_out``: living seats, never
  the dealer); in DEALER every one is face up. Winners exactly when over.
* ``losers``, ``revived`` and ``winners`` name seats; revivals only between hands; ``hands`` is not negative.
* Cards: distinct cards of the Italian pack across the hand, the stock and the discards; with ``EVERY_HAND``
  reshuffles, from the first deal on, all 40 of them (``CONTINUE`` leaves the cards of past hands off the table).
"""

from __future__ import annotations

from mazziere.engine.cards import ITALIAN_40
from mazziere.engine.games.saltacavallo.rules import MAX_SEATS, Reshuffle, SaltacavalloRules
from mazziere.engine.games.saltacavallo.state import Phase, SaltacavalloState, in_hand
from mazziere.engine.validate import (
    Pack,
    Piles,
    card_key,
    check_cards,
    check_header,
    check_length,
    check_seat,
    check_seats,
    check_sitting_out,
    invalid,
    table_card_key,
)

_PACK = Pack("ITALIAN 40-card", ITALIAN_40)
# Enum members as module constants: ``Phase.X`` costs a metaclass lookup on every use.
_OVER, _PLAY, _DEALER, _EVERY_HAND = Phase.OVER, Phase.PLAY, Phase.DEALER, Reshuffle.EVERY_HAND


def check_state(state: SaltacavalloState) -> None:
    rules: SaltacavalloRules = state.rules
    n = check_header(state, SaltacavalloRules, 2, MAX_SEATS)
    if n < rules.min_seats:
        raise invalid("state.names", f"{n} seats; these rules seat {rules.min_seats}..{MAX_SEATS}")
    check_length("state.lives", state.lives, n)
    check_length("state.hand", state.hand, n)
    _check_lives_and_pot(state, rules, n)
    check_seat("state.dealer", state.dealer, n)
    _check_counters(state, n)
    if state.phase is _OVER:
        if not state.winners:
            raise invalid("state.winners", "the game is over but nobody won")
    else:
        _check_game_on(state, rules, n)
    _check_turn(state, n)
    _check_sitting_out(state, n)
    if state.phase is _PLAY or state.phase is _DEALER:
        _check_hand_in_play(state, n)
    check_cards(state, _PACK, rules.reshuffle is _EVERY_HAND and state.hands > 0, _keys, _piles)


def _check_lives_and_pot(state: SaltacavalloState, rules: SaltacavalloRules, n: int) -> None:
    """Lives are never negative and only move or vanish; each seat's chips cover its lives; the pot holds one
    coin per life lost, and nothing once the game is over."""
    lives, chips, coin = state.lives, state.chips, rules.coin
    for s in range(n):
        left = lives[s]
        if left < 0:
            raise invalid(f"state.lives[{s}]", f"{left} is negative")
        if chips[s] < left * coin:
            raise invalid(f"state.chips[{s}]", f"{chips[s]} chips cannot cover {left} lives of {coin}")
    lost = n * rules.lives - sum(lives)
    if lost < 0:
        raise invalid("state.lives", f"{sum(lives)} lives in all; {n} seats started with {n * rules.lives}")
    over = state.phase is _OVER
    if state.pot != (0 if over else lost * coin):
        should = "nothing once the game is over" if over else f"{lost} lost lives of {coin}"
        raise invalid("state.pot", f"{state.pot}; it holds {should}")


def _check_counters(state: SaltacavalloState, n: int) -> None:
    """``hands`` is not negative; the losers, the revived and the winners are seats."""
    if state.hands < 0:
        raise invalid("state.hands", f"{state.hands} is negative")
    if state.losers:
        check_seats("state.losers", state.losers, n)
    if state.revived:
        check_seats("state.revived", state.revived, n)
    if state.winners:
        check_seats("state.winners", state.winners, n)


def _check_game_on(state: SaltacavalloState, rules: SaltacavalloRules, n: int) -> None:
    """Until the game is over: enough seats alive, the dealer among them, and no winners."""
    lives = state.lives
    alive = n - lives.count(0)
    least = 3 if rules.end_at_two_split else 2
    if alive < least:
        raise invalid("state.lives", f"{alive} seat(s) alive; the game goes on only with {least} or more")
    if not lives[state.dealer]:
        raise invalid("state.dealer", f"seat {state.dealer} deals but has no life")
    if state.winners:
        raise invalid("state.winners", "winners before the game is over")


def _check_turn(state: SaltacavalloState, n: int) -> None:
    """In PLAY a living seat other than the dealer, holding a face-down card; else -1."""
    turn = state.turn
    if state.phase is not _PLAY:
        if turn != -1:
            raise invalid("state.turn", f"{turn}; only PLAY has a seat to act, so -1")
        return
    check_seat("state.turn", turn, n)
    held = state.hand[turn]
    if turn == state.dealer or not state.lives[turn] or held is None or held.seen_by.everyone:
        raise invalid("state.turn", f"seat {turn} is not a living player holding a face-down card")


def _check_sitting_out(state: SaltacavalloState, n: int) -> None:
    """Option ``sit_out``: living seats other than the dealer sit out."""
    check_sitting_out("state.sitting_out", state.sitting_out, n, state.rules.sit_out, state.dealer)
    for s in state.sitting_out:
        if not state.lives[s]:
            raise invalid("state.sitting_out", f"seat {s} is dead; only a living seat sits out")


def _check_hand_in_play(state: SaltacavalloState, n: int) -> None:
    """PLAY and DEALER: no revivals; exactly the living seats hold a card, every one face up in DEALER."""
    if state.revived:
        raise invalid("state.revived", "revivals happen only between hands")
    lives, hand, dealer_plays = in_hand(state), state.hand, state.phase is _DEALER
    for s in range(n):
        held = hand[s]
        if (held is None) is bool(lives[s]):
            what = "is alive without a card" if held is None else "is dead but holds a card"
            raise invalid(f"state.hand[{s}]", f"seat {s} {what}")
        if dealer_plays and held is not None and not held.seen_by.everyone:
            raise invalid(f"state.hand[{s}]", "a face-down card when the dealer plays (every card is up)")


def _keys(state: SaltacavalloState) -> list[int]:
    keys = list(map(card_key, state.stock))
    keys += map(table_card_key, state.discards)
    keys += map(table_card_key, [held for held in state.hand if held is not None])
    return keys


def _piles(state: SaltacavalloState) -> Piles:
    yield "state.stock", state.stock
    yield "state.discards", state.discards
    yield "state.hand", state.hand
