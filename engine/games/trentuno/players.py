"""The players of a deal: who is dealt in (TR-3; LIVES: who has a life), who plays after whom, and the cards
each holds."""

from __future__ import annotations

from mazziere.engine.cards import Card
from mazziere.engine.errors import Reason, Rejected
from mazziere.engine.games.trentuno.rules import MIN_SEATS, Scoring, TrentunoRules
from mazziere.engine.seats import mask, others_after
from mazziere.engine.visibility import PUBLIC, TableCard, table_card


def participants(rules: TrentunoRules, chips: tuple[int, ...], lives: tuple[int, ...]) -> tuple[int, ...]:
    """Who is dealt in: POT, the seats that can pay the ante; LIVES, the seats with a life left."""
    if rules.scoring is Scoring.LIVES:
        return tuple([s for s, left in enumerate(lives) if left > 0])
    return tuple([s for s, c in enumerate(chips) if c >= rules.ante])


def can_deal(rules: TrentunoRules, players: tuple[int, ...]) -> bool:
    """Enough players for a deal: 3 in POT scoring, 2 in LIVES."""
    return len(players) >= (2 if rules.scoring is Scoring.LIVES else MIN_SEATS)


def after(in_deal: tuple[int, ...], seat: int, seat_count: int) -> tuple[int, ...]:
    """The other seats of the deal in play order from the one after ``seat``.

    A deal always has another seat; a state without one (which :meth:`Trentuno.check_state` refuses) is
    refused here too rather than failing on an index."""
    out = others_after(mask(seat_count, in_deal), seat)
    if not out:
        raise Rejected(Reason.INVALID_STATE, f"state.in_deal: {list(in_deal)} has no seat to play after seat {seat}")
    return out


def next_after(in_deal: tuple[int, ...], seat: int, seat_count: int) -> int:
    """The seat of the deal that plays after ``seat``: ``after(...)[0]``, without building the whole order."""
    nearest, found = seat_count, -1
    for s in in_deal:
        distance = (s - seat) % seat_count
        if 0 < distance < nearest:
            nearest, found = distance, s
    if found < 0:
        after(in_deal, seat, seat_count)  # refused as after() refuses it
    return found


def face_up(hand: tuple[TableCard, ...]) -> tuple[TableCard, ...]:
    """The cards of a hand turned face up."""
    return tuple([table_card(card, PUBLIC) for card in held(hand)])


def held(hand: tuple[TableCard, ...]) -> tuple[Card, ...]:
    """The cards of a hand on the table (a state holds every card's face)."""
    return tuple([tc.card for tc in hand])  # type: ignore[misc]  # the state never holds redacted cards


def place(cards: tuple[TableCard, ...], card: Card) -> int:
    """Where ``card`` lies among ``cards`` (by identity: one object per card); ValueError if it is not there."""
    for i, tc in enumerate(cards):
        if tc.card is card:
            return i
    raise ValueError(f"{card} is not among these cards")
