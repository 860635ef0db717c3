"""The turns of a hand: a player's stake and decisions (SM-8..SM-11, SM-20 burning, SM-22), the bank's turn
(SM-12, the CASINO house), each ending in the next turn or the showdown."""

from __future__ import annotations

from mazziere.engine.errors import Reason, Rejected
from mazziere.engine.games.sette_e_mezzo import events
from mazziere.engine.games.sette_e_mezzo.hands import (
    can_draw,
    cards_of,
    draw,
    give,
    public_points,
    reveal,
    set_hand,
    set_status,
)
from mazziere.engine.games.sette_e_mezzo.points import SETTE_E_MEZZO, house_stands, scoring
from mazziere.engine.games.sette_e_mezzo.showdown import IN_SHOWDOWN, end_hand
from mazziere.engine.games.sette_e_mezzo.state import Phase, SeatHand, SetteEMezzoState, Status
from mazziere.engine.seats import next_in_play
from mazziere.engine.step import Step
from mazziere.engine.table import Outcome
from mazziere.engine.visibility import PUBLIC, TableCard

# -- a player's turn -------------------------------------------------------------------------------------------


def stake(step: Step[SetteEMezzoState], seat: int, amount: int) -> Outcome:
    """SM-8: the player stakes; he decides next."""
    set_status(step, seat, Status.PLAYING, stake=amount)
    step.event(events.STAKED, seat=seat, amount=amount)
    return step.outcome(phase=Phase.DECIDE)


def hit(step: Step[SetteEMezzoState], seat: int, amount: int, hidden: bool) -> Outcome:
    """SM-9: a card face up; the option HIT_HIDDEN: the hidden card goes up and the new one down."""
    _raise(step, seat, amount)
    if hidden:
        reveal(step, seat)
    tc = give(step, seat, draw(step), hidden=hidden)
    step.event(events.HIT_HIDDEN if hidden else events.HIT, seat=seat, cards=(tc,), amount=amount)
    return _after_card(step, seat)


def stand(step: Step[SetteEMezzoState], seat: int, amount: int) -> Outcome:
    """SM-9: the player stands; the turn passes."""
    _raise(step, seat, amount)
    set_status(step, seat, Status.STOOD)
    step.event(events.STOOD, seat=seat, amount=amount)
    return _next_player(step, seat)


def burn(step: Step[SetteEMezzoState], seat: int) -> Outcome:
    """SM-20: the card is shown and discarded; a replacement comes with the same face."""
    h = step.state.hands[seat]
    old = h.cards[-1]
    new = draw(step)
    shown = TableCard(old.card, PUBLIC)
    set_hand(step, seat, SeatHand(h.cards, h.stake, h.status, h.points, (*h.burned, shown)))
    step.event(events.BURNED, seat=seat, cards=(shown,))
    tc = give(step, seat, new, hidden=not old.seen_by.everyone, replace=True)
    step.event(events.REPLACED, seat=seat, cards=(tc,))
    if step.state.phase is Phase.DECIDE:
        return _after_card(step, seat)
    return step.outcome()


def _raise(step: Step[SetteEMezzoState], seat: int, amount: int) -> None:
    """SM-8 ``raise_on_decision``: the amount of a hit or stand adds to the stake."""
    if amount:
        h = step.state.hands[seat]
        set_hand(step, seat, SeatHand(h.cards, h.stake + amount, h.status, h.points, h.burned))


def _after_card(step: Step[SetteEMezzoState], seat: int) -> Outcome:
    """SM-10, SM-11, SM-22: a bust pays at once, 7½ or a triplé stops; either ends the turn."""
    state = step.state
    h = state.hands[seat]
    if h.points == SETTE_E_MEZZO or scoring(state.rules).is_triple(cards_of(h.cards)):
        set_status(step, seat, Status.SETTE_E_MEZZO)
        reveal(step, seat)
        step.event(events.SETTE_E_MEZZO, seat=seat, points=h.points)
        return _next_player(step, seat)
    if h.points > SETTE_E_MEZZO:
        set_status(step, seat, Status.BUST)
        step.pay(seat, state.bank, h.stake, "bust")
        if state.rules.reveal_hidden_on_bust:
            reveal(step, seat)
        points = public_points(step.state.hands[seat])
        step.event(events.BUST, seat=seat, target=state.bank, amount=h.stake, points=points)
        return _next_player(step, seat)
    return step.outcome()


def _next_player(step: Step[SetteEMezzoState], seat: int) -> Outcome:
    """The next seat dealt in after ``seat`` stakes, or the bank's turn comes."""
    state = step.state
    bank = state.bank
    waiting = [h.status is Status.WAITING for h in state.hands]
    if 0 <= bank < len(waiting):
        waiting[bank] = True  # the bank's turn comes after the last player's
    s = next_in_play(waiting, seat)
    if s is None:  # no bank among the seats: a state no legal play makes
        raise Rejected(Reason.INVALID_STATE, f"state.bank: {bank} is not a seat of this {len(state.hands)}-seat table")
    if s == bank:
        return _bank_turn(step)
    return step.outcome(phase=Phase.STAKE, turn=s)


# -- the bank's turn -------------------------------------------------------------------------------------------


def _bank_turn(step: Step[SetteEMezzoState]) -> Outcome:
    """SM-12: the bank turns his card up and plays, unless every player has busted."""
    state = step.state
    bank = state.bank
    if not any(h.status in IN_SHOWDOWN for h in state.hands):
        return end_hand(step, played=False)
    reveal(step, bank)
    set_status(step, bank, Status.PLAYING)
    if state.rules.house_bank:
        return _house_plays(step)
    return step.outcome(phase=Phase.BANK, turn=bank)


def _house_plays(step: Step[SetteEMezzoState]) -> Outcome:
    """CASINO: the house plays by :func:`~.points.house_stands` while it can draw."""
    bank = step.state.bank
    lone_matta = step.state.hands[bank].cards[0].card == scoring(step.state.rules).matta
    while True:
        h = step.state.hands[bank]
        if not can_draw(step.state) or house_stands(h.points, len(h.cards), lone_matta):
            return bank_stands(step)
        if _bank_takes_a_card(step):
            return end_hand(step, played=True)


def bank_hit(step: Step[SetteEMezzoState]) -> Outcome:
    """SM-12: the bank takes a card face up; 7½, a triplé or a bust ends the hand."""
    if _bank_takes_a_card(step):
        return end_hand(step, played=True)
    return step.outcome()


def bank_stands(step: Step[SetteEMezzoState]) -> Outcome:
    """SM-12: the bank stands; the showdown."""
    bank = step.state.bank
    set_status(step, bank, Status.STOOD)
    step.event(events.STOOD, seat=bank, points=step.state.hands[bank].points)
    return end_hand(step, played=True)


def _bank_takes_a_card(step: Step[SetteEMezzoState]) -> bool:
    """The bank's card, face up; True when it ends his turn (7½, a triplé, a bust)."""
    bank = step.state.bank
    tc = give(step, bank, draw(step), hidden=False)
    h = step.state.hands[bank]
    step.event(events.HIT, seat=bank, cards=(tc,), points=h.points)
    if h.points == SETTE_E_MEZZO or scoring(step.state.rules).is_triple(cards_of(h.cards)):
        set_status(step, bank, Status.SETTE_E_MEZZO)
        step.event(events.SETTE_E_MEZZO, seat=bank, points=h.points)
        return True
    if h.points > SETTE_E_MEZZO:
        set_status(step, bank, Status.BUST)
        step.event(events.BUST, seat=bank, points=h.points)
        return True
    return False
