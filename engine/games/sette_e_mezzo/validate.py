"""Sette e mezzo's state check (:meth:`SetteEMezzo.check_state`): what legal play keeps true.

* Seats: ``min_seats..max_seats`` of the profile; ``hands`` has one entry per seat. Chips may be negative (the
  bank pays even below zero, SM-8, and keeps its debt after the bank passes); the pot is never used, so 0.
* ``bank`` is a seat; ``turn`` is -1 exactly when the game is over, else a seat: the bank between hands
  (WAIT_DEAL) and in BANK, otherwise a player other than the bank, WAITING in STAKE and PLAYING in DECIDE.
  In CASINO the bank is the house, which gives no entropy (docs/fairness.md): none of its is kept.
  While a hand is played the bank holds a card.
* A seat holds cards exactly when it was dealt in (status not OUT); stakes are 0..max_stake.
* Cards: before the first deal none; from it on, every card of the 40-card pack exactly once across the stock,
  the discards, and every seat's cards and burned cards.
* Counters (``hand_number``) are not negative; results name seats.
* Seats sitting out (option ``sit_out``): ascending, never the bank, none dealt into the hand being played.
"""

from __future__ import annotations

from mazziere.engine.cards import FRENCH_40, ITALIAN_40
from mazziere.engine.dealing import contributions
from mazziere.engine.games.sette_e_mezzo.rules import Pack as PackName
from mazziere.engine.games.sette_e_mezzo.rules import SetteEMezzoRules
from mazziere.engine.games.sette_e_mezzo.state import Phase, SeatHand, SetteEMezzoState, Status
from mazziere.engine.validate import (
    Pack,
    Piles,
    card_key,
    check_cards,
    check_header,
    check_length,
    check_seat,
    check_sitting_out,
    invalid,
    table_card_key,
)

_PACKS = {PackName.ITALIAN: Pack("ITALIAN 40-card", ITALIAN_40), PackName.FRENCH: Pack("FRENCH 40-card", FRENCH_40)}
# Enum members as module constants: ``Phase.X`` costs a metaclass lookup on every use.
_OVER, _WAIT_DEAL, _BANK, _STAKE, _DECIDE = Phase.OVER, Phase.WAIT_DEAL, Phase.BANK, Phase.STAKE, Phase.DECIDE
_OUT, _WAITING, _PLAYING = Status.OUT, Status.WAITING, Status.PLAYING
_IN_HAND = (_STAKE, _DECIDE, _BANK)


def _contributors(entropy: bytes) -> list[int]:
    """The seats whose entropy ``entropy`` holds (a malformed run is the shared check's to refuse)."""
    try:
        return [seat for seat, _ in contributions(entropy)]
    except ValueError:
        return []


def check_state(state: SetteEMezzoState) -> None:
    rules: SetteEMezzoRules = state.rules
    n = check_header(state, SetteEMezzoRules, 2, 12)
    _check_table(state, rules, n)
    _check_hands(state.hands, rules.max_stake)
    _check_turn(state, n)
    _check_sitting_out(state, n)
    for i, r in enumerate(state.results):
        check_seat(f"state.results[{i}].seat", r.seat, n)
    _check_cards(state, rules)


def _check_table(state: SetteEMezzoState, rules: SetteEMezzoRules, n: int) -> None:
    """The seats the profile allows, one hand each, the bank a seat, the pot never used, the hands counted."""
    if not rules.min_seats <= n <= rules.max_seats:
        raise invalid("state.names", f"{n} seats; these rules seat {rules.min_seats}..{rules.max_seats}")
    if state.pot:
        raise invalid("state.pot", f"{state.pot}; sette e mezzo never puts chips in the pot")
    check_length("state.hands", state.hands, n)
    check_seat("state.bank", state.bank, n)
    if rules.house_bank and state.entropy and state.bank in _contributors(state.entropy):
        raise invalid("state.entropy", f"a contribution from the house (seat {state.bank}), which gives none")
    if state.hand_number < 0:
        raise invalid("state.hand_number", f"{state.hand_number} is negative")


def _check_hands(hands: tuple[SeatHand, ...], max_stake: int) -> None:
    """A seat holds cards exactly when it was dealt in, burned cards only then, and a stake within the limit."""
    for s, h in enumerate(hands):
        if (h.status is _OUT) is bool(h.cards):
            what = "holds cards but is OUT" if h.cards else f"is {h.status.value} without a card"
            raise invalid(f"state.hands[{s}]", f"seat {s} {what}")
        if h.burned and not h.cards:
            raise invalid(f"state.hands[{s}].burned", "burned cards of a seat not dealt in")
        if not 0 <= h.stake <= max_stake:
            raise invalid(f"state.hands[{s}].stake", f"{h.stake} is outside 0..{max_stake}")


def _check_turn(state: SetteEMezzoState, n: int) -> None:
    """-1 once the game is over; else the bank between hands and in its turn, otherwise a player whose status
    fits the phase; while a hand is played the bank holds a card."""
    turn, phase, bank, hands = state.turn, state.phase, state.bank, state.hands
    if phase is _OVER:
        if turn != -1:
            raise invalid("state.turn", f"{turn}; the game is over, so -1")
        return
    check_seat("state.turn", turn, n)
    if phase is _WAIT_DEAL or phase is _BANK:
        if turn != bank:
            raise invalid("state.turn", f"{turn}; in {phase.value} the bank ({bank}) acts")
    else:
        _check_players_turn(state, turn)
    if phase in _IN_HAND and not hands[bank].cards:
        raise invalid(f"state.hands[{bank}]", "the bank holds no card while a hand is played")


def _check_sitting_out(state: SetteEMezzoState, n: int) -> None:
    """Option ``sit_out``: players (never the bank) sit out; while a hand is played none of them holds a card."""
    check_sitting_out("state.sitting_out", state.sitting_out, n, state.rules.sit_out, state.bank)
    if state.phase in _IN_HAND:
        for s in state.sitting_out:
            if state.hands[s].cards:
                raise invalid(f"state.hands[{s}]", f"seat {s} sits out but was dealt in")


def _check_players_turn(state: SetteEMezzoState, turn: int) -> None:
    """STAKE and DECIDE: a player other than the bank acts, WAITING to stake, PLAYING to decide."""
    phase, status = state.phase, state.hands[turn].status
    if turn == state.bank:
        raise invalid("state.turn", f"{turn} is the bank; in {phase.value} a player acts")
    need = _WAITING if phase is _STAKE else _PLAYING
    if status is not need:
        raise invalid(f"state.hands[{turn}].status", f"{status.value}; in {phase.value} it is {need.value}")


def _check_cards(state: SetteEMezzoState, rules: SetteEMezzoRules) -> None:
    """None before the first deal; from it on, every card of the pack exactly once."""
    if state.hand_number == 0:
        if state.stock or state.discards or any(h.cards for h in state.hands):
            raise invalid("state", "cards on the table before the first deal (hand_number 0)")
        return
    check_cards(state, _PACKS[rules.pack], True, _keys, _piles)


def _keys(state: SetteEMezzoState) -> list[int]:
    keys = list(map(card_key, state.stock))
    keys += map(table_card_key, state.discards)
    for hand in state.hands:
        keys += map(table_card_key, hand.cards)
        if hand.burned:
            keys += map(table_card_key, hand.burned)
    return keys


def _piles(state: SetteEMezzoState) -> Piles:
    yield "state.stock", state.stock
    yield "state.discards", state.discards
    for s, h in enumerate(state.hands):
        yield f"state.hands[{s}].cards", h.cards
        yield f"state.hands[{s}].burned", h.burned
