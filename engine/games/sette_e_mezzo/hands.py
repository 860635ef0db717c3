"""The seats' hands on a step: a card drawn from the stock (SM-18: refilled from the discards), given face down
or up, turned up (SM-11, SM-12), and a seat's status and stake."""

from __future__ import annotations

from mazziere.engine.cards import Card
from mazziere.engine.games.sette_e_mezzo import events
from mazziere.engine.games.sette_e_mezzo.points import scoring
from mazziere.engine.games.sette_e_mezzo.rules import MAX_SEATS
from mazziere.engine.games.sette_e_mezzo.state import SeatHand, SetteEMezzoState, Status
from mazziere.engine.step import Step
from mazziere.engine.visibility import PUBLIC, TableCard, only

_ONLY = tuple(only(s) for s in range(MAX_SEATS))
"""One audience object per seat, built once (the hot path deals many face-down cards)."""


def can_draw(state: SetteEMezzoState) -> bool:
    """A card can be drawn: from the stock, or the discards shuffled (SM-18)."""
    return bool(state.stock or state.discards)


def draw(step: Step[SetteEMezzoState]) -> Card:
    """The top card of the stock; SM-18: an empty stock is refilled from the shuffled discards."""
    stock = step.state.stock
    if stock:
        step.dealing.took(stock)
        step.change(stock=stock[1:])
        return stock[0]
    stock = step.dealing.shuffle(tc.card for tc in step.state.discards if tc.card)
    step.event(events.SHUFFLED, amount=len(stock))
    step.dealing.took(stock)
    step.change(stock=stock[1:], discards=(), exhausted=True)
    return stock[0]


def dealt_card(card: Card, seat: int, hidden: bool) -> TableCard:
    """``card`` on the table: face down for ``seat`` alone, or face up."""
    return TableCard(card, _ONLY[seat] if hidden else PUBLIC)


def give(step: Step[SetteEMezzoState], seat: int, card: Card, hidden: bool, replace: bool = False) -> TableCard:
    """Put ``card`` in ``seat``'s hand (face down for him alone, or face up), or in place of his last card."""
    sc = scoring(step.state.rules)
    tc = dealt_card(card, seat, hidden)
    if not hidden and card == sc.matta:
        step.change(matta_shown=True)
    h = step.state.hands[seat]
    cards = (*h.cards[:-1], tc) if replace else (*h.cards, tc)
    set_hand(step, seat, SeatHand(cards, h.stake, h.status, sc.points(cards_of(cards)), h.burned))
    return tc


def reveal(step: Step[SetteEMezzoState], seat: int) -> None:
    """Turn ``seat``'s face-down card up (SM-11, SM-12, the showdown)."""
    h = step.state.hands[seat]
    for i, tc in enumerate(h.cards):
        if not tc.seen_by.everyone:
            shown = TableCard(tc.card, PUBLIC)
            if tc.card == scoring(step.state.rules).matta:
                step.change(matta_shown=True)
            hand = SeatHand((*h.cards[:i], shown, *h.cards[i + 1 :]), h.stake, h.status, h.points, h.burned)
            set_hand(step, seat, hand)
            step.event(events.REVEALED, seat=seat, cards=(shown,), points=public_points(hand))
            return


def set_status(step: Step[SetteEMezzoState], seat: int, status: Status, stake: int | None = None) -> None:
    h = step.state.hands[seat]
    set_hand(step, seat, SeatHand(h.cards, h.stake if stake is None else stake, status, h.points, h.burned))


def set_hand(step: Step[SetteEMezzoState], seat: int, hand: SeatHand) -> None:
    hands = step.state.hands
    step.change(hands=(*hands[:seat], hand, *hands[seat + 1 :]))


def public_points(hand: SeatHand) -> int:
    """The hand's total if every card of it is face up, else 0 (events never carry a hidden total)."""
    return hand.points if all(tc.seen_by.everyone for tc in hand.cards) else 0


def cards_of(cards: tuple[TableCard, ...]) -> tuple[Card, ...]:
    """The cards themselves (a state holds every card's face)."""
    return tuple(tc.card for tc in cards)  # type: ignore[misc]
