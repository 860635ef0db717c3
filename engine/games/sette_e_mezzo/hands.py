"""The seats' hands on a step: a card drawn from the stock (SM-18: refilled from the discards), given face down
or up, turned up (SM-11, SM-12), and a seat's status and stake.

A turn changes the hands card by card; they are read as changed so far with :meth:`Step.latest
<engine.step.Step.latest>`, so the new state is made once, by the step's outcome.
"""

from __future__ import annotations

from mazziere.engine.cards import Card
from mazziere.engine.games.sette_e_mezzo import events
from mazziere.engine.games.sette_e_mezzo.points import scoring
from mazziere.engine.games.sette_e_mezzo.rules import MAX_SEATS, SetteEMezzoRules
from mazziere.engine.games.sette_e_mezzo.state import SeatHand, SetteEMezzoState, Status
from mazziere.engine.step import Step
from mazziere.engine.visibility import PUBLIC, TableCard, only

_ONLY = tuple(only(s) for s in range(MAX_SEATS))
"""One audience object per seat, built once (the hot path deals many face-down cards)."""


def hands_now(step: Step[SetteEMezzoState]) -> tuple[SeatHand, ...]:
    """The seats' hands as changed so far."""
    hands: tuple[SeatHand, ...] = step.latest("hands")
    return hands


def can_draw(step: Step[SetteEMezzoState]) -> bool:
    """A card can be drawn: from the stock, or the discards shuffled (SM-18)."""
    return bool(step.latest("stock") or step.latest("discards"))


def draw(step: Step[SetteEMezzoState]) -> Card:
    """The top card of the stock; SM-18: an empty stock is refilled from the shuffled discards."""
    stock: tuple[Card, ...] = step.latest("stock")
    if not stock:
        discards: tuple[TableCard, ...] = step.latest("discards")
        stock = step.dealing.shuffle(tc.card for tc in discards if tc.card)
        step.change(discards=(), exhausted=True)
        step.event(events.SHUFFLED, amount=len(stock))
    step.dealing.took(stock)
    step.change(stock=stock[1:])
    return stock[0]


def dealt_card(card: Card, seat: int, hidden: bool) -> TableCard:
    """``card`` on the table: face down for ``seat`` alone, or face up."""
    return TableCard(card, _ONLY[seat] if hidden else PUBLIC)


def give(step: Step[SetteEMezzoState], seat: int, card: Card, hidden: bool, replace: bool = False) -> TableCard:
    """Put ``card`` in ``seat``'s hand (face down for him alone, or face up), or in place of his last card."""
    rules: SetteEMezzoRules = step.start.rules
    sc = scoring(rules)
    tc = dealt_card(card, seat, hidden)
    if not hidden and card == sc.matta:
        step.change(matta_shown=True)
    hands = hands_now(step)
    h = hands[seat]
    cards = (*h.cards[:-1], tc) if replace else (*h.cards, tc)
    step.change(hands=with_seat(hands, seat, SeatHand(cards, h.stake, h.status, sc.points(cards_of(cards)), h.burned)))
    return tc


def reveal(step: Step[SetteEMezzoState], seat: int, status: Status | None = None) -> SeatHand:
    """Turn ``seat``'s face-down card up (SM-11, SM-12, the showdown), with ``status`` its status too; its hand."""
    hands = hands_now(step)
    hand, shown = turned_up(step, seat, hands[seat])
    if status is not None:
        hand = SeatHand(hand.cards, hand.stake, status, hand.points, hand.burned)
    elif shown is None:
        return hand
    if shown is not None and shown.card == scoring(step.start.rules).matta:
        step.change(matta_shown=True)
    step.change(hands=with_seat(hands, seat, hand))
    return hand


def turned_up(step: Step[SetteEMezzoState], seat: int, hand: SeatHand) -> tuple[SeatHand, TableCard | None]:
    """``seat``'s ``hand`` with its face-down card turned up (told), and that card; ``None`` if all were up. The
    hands on the step are left as they are: the caller puts the hand there."""
    for i, tc in enumerate(hand.cards):
        if not tc.seen_by.everyone:
            shown = TableCard(tc.card, PUBLIC)
            cards = (*hand.cards[:i], shown, *hand.cards[i + 1 :])
            hand = SeatHand(cards, hand.stake, hand.status, hand.points, hand.burned)
            step.event(events.REVEALED, seat=seat, cards=(shown,), points=public_points(hand))
            return hand, shown
    return hand, None


def set_status(step: Step[SetteEMezzoState], seat: int, status: Status, stake: int | None = None) -> SeatHand:
    """``seat``'s status (and stake); its hand."""
    hands = hands_now(step)
    h = hands[seat]
    hand = SeatHand(h.cards, h.stake if stake is None else stake, status, h.points, h.burned)
    step.change(hands=with_seat(hands, seat, hand))
    return hand


def set_hand(step: Step[SetteEMezzoState], seat: int, hand: SeatHand) -> None:
    step.change(hands=with_seat(hands_now(step), seat, hand))


def with_seat(hands: tuple[SeatHand, ...], seat: int, hand: SeatHand) -> tuple[SeatHand, ...]:
    """``hands`` with ``seat``'s replaced by ``hand``."""
    changed = list(hands)
    changed[seat] = hand
    return tuple(changed)


def public_points(hand: SeatHand) -> int:
    """The hand's total if every card of it is face up, else 0 (events never carry a hidden total)."""
    for tc in hand.cards:
        if not tc.seen_by.everyone:
            return 0
    return hand.points


def cards_of(cards: tuple[TableCard, ...]) -> tuple[Card, ...]:
    """The cards themselves (a state holds every card's face)."""
    return tuple([tc.card for tc in cards])  # type: ignore[misc]
