"""Sette e mezzo's table state and view: immutable values holding tuples."""

from __future__ import annotations

from enum import Enum

from mazziere.engine.cards import Card
from mazziere.engine.games.sette_e_mezzo.rules import SetteEMezzoRules
from mazziere.engine.table import TableState
from mazziere.engine.values import Value
from mazziere.engine.visibility import TableCard


class Phase(Enum):
    WAIT_DEAL = "WAIT_DEAL"
    """Between hands: the bank sends DEAL."""
    STAKE = "STAKE"
    """The player whose turn it is has his first card and places his stake (or burns it)."""
    DECIDE = "DECIDE"
    """The player whose turn it is hits or stands."""
    BANK = "BANK"
    """The bank hits or stands."""
    OVER = "OVER"


class Status(Enum):
    """Where a seat stands in the current (or last) hand."""

    OUT = "OUT"
    """Not dealt in (fewer chips than min_stake)."""
    WAITING = "WAITING"
    """Dealt in, not yet played."""
    PLAYING = "PLAYING"
    STOOD = "STOOD"
    SETTE_E_MEZZO = "SETTE_E_MEZZO"
    """Reached 7½ (or a triplé): stopped with every card shown."""
    BUST = "BUST"


class Result(Enum):
    """A player's result against the bank."""

    WON = "WON"
    LOST = "LOST"
    PUSH = "PUSH"
    BUST = "BUST"


class SeatHand(Value, frozen=True):
    """One seat's cards in this hand, in the order received. ``points`` is the best total in halves."""

    cards: tuple[TableCard, ...] = ()
    stake: int = 0
    status: Status = Status.OUT
    points: int = 0
    burned: tuple[TableCard, ...] = ()
    """SM-20: cards this seat burned, face up beside it until the next deal."""


class SeatResult(Value, frozen=True):
    """A player's result in the last hand: ``amount`` is what the bank paid him (negative: he paid)."""

    seat: int
    result: Result
    amount: int
    points: int | None
    """His total when it was shown (None for a bust whose hidden card stayed hidden)."""
    reale: bool


class SetteEMezzoState(TableState, frozen=True):
    rules: SetteEMezzoRules
    phase: Phase
    bank: int
    turn: int
    """The seat to act (-1 once the game is over)."""
    hands: tuple[SeatHand, ...]
    stock: tuple[Card, ...]
    discards: tuple[TableCard, ...]
    """Cards out of play since the last shuffle; seen by nobody (their order is not kept public)."""
    fresh: bool
    """The next DEAL shuffles the whole pack."""
    exhausted: bool
    """The stock ran out during this hand (SM-17 DECK_EXHAUSTED)."""
    matta_shown: bool
    """The matta was shown in this hand (SM-18 ON_MATTA)."""
    hand_number: int
    results: tuple[SeatResult, ...]
    bank_points: int | None
    """The bank's shown total in the last hand (None: it did not play or bust unshown)."""
    sitting_out: tuple[int, ...] = ()
    """The players sitting out (option ``sit_out``), ascending: not dealt in until they sit in again."""


class SeatView(Value, frozen=True):
    name: str
    chips: int
    stake: int
    status: Status
    cards: tuple[TableCard, ...]
    points: int | None
    """The seat's total in halves, if the viewer may know it (his own seat, or every card face up)."""
    burned: tuple[TableCard, ...]


class SetteEMezzoView(Value, frozen=True, repr_omit_defaults=True):
    """What one seat (or a spectator) may know. Its repr leaves out ``sitting_out`` while empty, so the bots'
    samples, seeded by the view (engine/bots/hidden.py), are those of the views before the field was added."""

    phase: Phase
    bank: int
    turn: int | None
    hand_number: int
    seats: tuple[SeatView, ...]
    stock_size: int
    discard_size: int
    results: tuple[SeatResult, ...]
    """The last hand's results, until the next DEAL."""
    bank_points: int | None
    sitting_out: tuple[int, ...] = ()
    """The players sitting out (option ``sit_out``): not dealt in until the bank sits them in again."""
