"""The ``cautious`` policy: a simple rule a careful human plays by, one per game.

* Sette e mezzo: stake the least; draw below 5, stand on 5 or more (the house's own rule); never burn. The bank
  plays the same way.
* Saltacavallo: keep a card of 6 or more, otherwise swap when a swap is possible; the dealer keeps a card of 7 or
  more and draws otherwise (S000's dealer habit). A dead seat names the first giver it may.
* Trentuno: stop (or pass) holding 25 or more; otherwise make the exchange, or take the widow, that gives the best
  hand, and stop when nothing improves it.

Between hands the bank (the dealer) deals; it never sits a seat out (option ``sit_out``), and sits the first one
in when every player sits out.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mazziere.engine import legal_actions
from mazziere.engine.games.sette_e_mezzo.state import SetteEMezzoState
from mazziere.engine.games.trentuno.hands import card_bit, hand_bits, hand_points, key_table
from mazziere.engine.table import Action, LegalAction, TableState

SM_STAND = 10
"""Sette e mezzo: stand on 5 (in halves) or more."""
SC_KEEP = 6
SC_DEALER_KEEPS = 7
TR_STOP = 50
"""Trentuno: stop on 25 or more (in halves)."""


def _first(entries: tuple[LegalAction, ...], kind: str) -> LegalAction | None:
    return next((e for e in entries if e.kind == kind), None)


def _pick(seat: int, entries: tuple[LegalAction, ...], *kinds: str) -> Action:
    """The first of ``kinds`` that is legal (smallest amount), else the first legal entry."""
    for kind in kinds:
        entry = _first(entries, kind)
        if entry is not None:
            return entry.example(seat)
    return entries[0].example(seat)


def sette_e_mezzo(state: Any, seat: int, entries: tuple[LegalAction, ...]) -> Action:
    s: SetteEMezzoState = state
    points = s.hands[seat].points
    if points < SM_STAND:
        return _pick(seat, entries, "DEAL", "STAKE", "HIT", "STAND", "SIT_IN")
    return _pick(seat, entries, "DEAL", "STAKE", "STAND", "HIT", "SIT_IN")


def saltacavallo(state: Any, seat: int, entries: tuple[LegalAction, ...]) -> Action:
    held = state.hand[seat]
    rank = held.card.rank if held is not None and held.card is not None else 0
    if state.phase.value == "DEALER":
        return _pick(seat, entries, "KEEP" if rank >= SC_DEALER_KEEPS else "DRAW", "KEEP")
    if rank >= SC_KEEP:
        return _pick(seat, entries, "DEAL", "KEEP", "SIT_IN")
    return _pick(seat, entries, "DEAL", "SWAP", "KEEP", "SIT_IN")


def trentuno(state: Any, seat: int, entries: tuple[LegalAction, ...]) -> Action:
    if _first(entries, "DEAL"):
        return _pick(seat, entries, "DEAL")
    keys = key_table(state.rules.tris_by_points)
    mask = hand_bits([tc.card for tc in state.hands[seat]])
    stop = _pick(seat, entries, "STOP", "PASS")
    best = keys[mask]
    if hand_points(best) >= TR_STOP:
        return stop
    choice = stop
    for entry in entries:
        if entry.kind == "EXCHANGE":
            given, taken = entry.cards
            key = keys[mask ^ card_bit(given) | card_bit(taken)]
        elif entry.kind == "TAKE_ALL":
            key = keys[hand_bits([tc.card for tc in state.widow])]
        else:
            continue
        if key > best:
            best, choice = key, entry.example(seat)
    return choice


RULES: dict[str, Callable[[Any, int, tuple[LegalAction, ...]], Action]] = {
    "sette_e_mezzo": sette_e_mezzo,
    "saltacavallo": saltacavallo,
    "trentuno": trentuno,
}


def cautious(state: TableState, seat: int) -> Action:
    """The cautious action of ``seat`` (which must have a legal action)."""
    return RULES[state.game](state, seat, legal_actions(state, seat))
