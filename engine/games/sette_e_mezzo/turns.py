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
    hands_now,
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
    h = hands_now(step)[seat]
    old = h.cards[-1]
    new = draw(step)
    shown = TableCard(old.card, PUBLIC)
    set_hand(step, seat, SeatHand(h.cards, h.stake, h.status, h.points, (*h.burned, shown)))
    step.event(events.BURNED, seat=seat, cards=(shown,))
    tc = give(step, seat, new, hidden=not old.seen_by.everyone, replace=True)
    step.event(events.REPLACED, seat=seat, cards=(tc,))
    if step.start.phase is Phase.DECIDE:
        return _after_card(step, seat)
    return step.outcome()


def _raise(step: Step[SetteEMezzoState], seat: int, amount: int) -> None:
    """SM-8 ``raise_on_decision``: the amount of a hit or stand adds to the stake."""
    if amount:
        h = hands_now(step)[seat]
        set_hand(step, seat, SeatHand(h.cards, h.stake + amount, h.status, h.points, h.burned))


def _after_card(step: Step[SetteEMezzoState], seat: int) -> Outcome:
    """SM-10, SM-11, SM-22: a bust pays at once, 7½ or a triplé stops; either ends the turn."""
    rules, bank = step.start.rules, step.start.bank
    h = hands_now(step)[seat]
    if h.points == SETTE_E_MEZZO or scoring(rules).is_triple(cards_of(h.cards)):
        reveal(step, seat, Status.SETTE_E_MEZZO)
        step.event(events.SETTE_E_MEZZO, seat=seat, points=h.points)
        return _next_player(step, seat)
    if h.points > SETTE_E_MEZZO:
        shown = rules.reveal_hidden_on_bust
        h = reveal(step, seat, Status.BUST) if shown else set_status(step, seat, Status.BUST)
        step.pay(seat, bank, h.stake, "bust")
        step.event(events.BUST, seat=seat, target=bank, amount=h.stake, points=public_points(h))
        return _next_player(step, seat)
    return step.outcome()


def _next_player(step: Step[SetteEMezzoState], seat: int) -> Outcome:
    """The next seat dealt in after ``seat`` stakes, or the bank's turn comes."""
    bank, hands = step.start.bank, hands_now(step)
    waiting = [h.status is Status.WAITING for h in hands]
    if 0 <= bank < len(waiting):
        waiting[bank] = True  # the bank's turn comes after the last player's
    s = next_in_play(waiting, seat)
    if s is None:  # no bank among the seats: a state no legal play makes
        raise Rejected(Reason.INVALID_STATE, f"state.bank: {bank} is not a seat of this {len(hands)}-seat table")
    if s == bank:
        return _bank_turn(step)
    return step.outcome(phase=Phase.STAKE, turn=s)


# -- the bank's turn -------------------------------------------------------------------------------------------


def _bank_turn(step: Step[SetteEMezzoState]) -> Outcome:
    """SM-12: the bank turns his card up and plays, unless every player has busted."""
    bank = step.start.bank
    if not any(h.status in IN_SHOWDOWN for h in hands_now(step)):
        return end_hand(step, played=False)
    reveal(step, bank, Status.PLAYING)
    if step.start.rules.house_bank:
        return _house_plays(step)
    return step.outcome(phase=Phase.BANK, turn=bank)


def _house_plays(step: Step[SetteEMezzoState]) -> Outcome:
    """CASINO: the house plays by :func:`~.points.house_stands` while it can draw."""
    bank = step.start.bank
    lone_matta = hands_now(step)[bank].cards[0].card == scoring(step.start.rules).matta
    while True:
        h = hands_now(step)[bank]
        if not can_draw(step) or house_stands(h.points, len(h.cards), lone_matta):
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
    bank = step.start.bank
    h = set_status(step, bank, Status.STOOD)
    step.event(events.STOOD, seat=bank, points=h.points)
    return end_hand(step, played=True)


def _bank_takes_a_card(step: Step[SetteEMezzoState]) -> bool:
    """The bank's card, face up; True when it ends his turn (7½, a triplé, a bust)."""
    bank = step.start.bank
    tc = give(step, bank, draw(step), hidden=False)
    points = hands_now(step)[bank].points
    step.event(events.HIT, seat=bank, cards=(tc,), points=points)
    if points == SETTE_E_MEZZO or scoring(step.start.rules).is_triple(cards_of(hands_now(step)[bank].cards)):
        set_status(step, bank, Status.SETTE_E_MEZZO)
        step.event(events.SETTE_E_MEZZO, seat=bank, points=points)
        return True
    if points > SETTE_E_MEZZO:
        set_status(step, bank, Status.BUST)
        step.event(events.BUST, seat=bank, points=points)
        return True
    return False
