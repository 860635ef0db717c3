"""Trentuno's table state, view and deal result: immutable values holding tuples."""

from __future__ import annotations

from enum import Enum
from typing import Final

from mazziere.engine.cards import Card
from mazziere.engine.games.trentuno.hands import HandKind
from mazziere.engine.games.trentuno.rules import Scoring, TrentunoRules
from mazziere.engine.table import TableState
from mazziere.engine.values import Value
from mazziere.engine.visibility import TableCard


class Phase(Enum):
    WAITING = "WAITING"
    """Between deals: the dealer sends DEAL."""
    PLAYING = "PLAYING"
    OVER = "OVER"


WAITING: Final = Phase.WAITING
PLAYING: Final = Phase.PLAYING
OVER: Final = Phase.OVER
"""The phases as constants for the hot paths: compiled code reads a final name at once, where ``Phase.OVER`` is
looked up through the Enum's metaclass on every read."""


class Closing(Enum):
    """What opened the last round (TR-11, TR-14)."""

    STOP = "STOP"
    TAKE_ALL = "TAKE_ALL"
    ROUND_LIMIT = "ROUND_LIMIT"
    """TR-14: ``max_rounds`` full rounds passed; the dealer is deemed to have stopped."""


class Ending(Enum):
    """How a deal ended."""

    WIDOW_TRENTUNO = "WIDOW_TRENTUNO"
    """TR-6: the widow was a Trentuno; the dealer took it."""
    DEALT_TRENTUNO = "DEALT_TRENTUNO"
    """TR-7: one or more seats were dealt a Trentuno."""
    TRENTUNO = "TRENTUNO"
    """TR-10: a seat reached Trentuno by an exchange or by taking the widow."""
    SHOWDOWN = "SHOWDOWN"
    """TR-12: the last round ended and the hands were compared."""


class DealResult(Value, frozen=True):
    """The end of a deal, shown until the next DEAL. Per-seat tuples are indexed by seat."""

    ending: Ending
    winners: tuple[int, ...]
    """The best hand(s) (TR-6: the dealer)."""
    share: int
    """Chips each winner took from the pot (POT scoring; 0 in LIVES scoring)."""
    carried: int
    """Chips left in the pot for the next deal (the remainder of a split, or the LIVES pot)."""
    losers: tuple[int, ...]
    """LIVES scoring: the seats that lost a life."""
    kinds: tuple[HandKind, ...]
    points: tuple[int, ...]
    """Hand values in half points (Trentuno 62, tris 61, suit sums doubled); 0 for seats not dealt in."""


class TrentunoState(TableState, frozen=True):
    """The whole table. ``hands[s]`` is seat ``s``'s three cards (empty if not dealt in)."""

    rules: TrentunoRules
    phase: Phase
    dealer: int
    deals: int
    """Deals dealt so far."""
    in_deal: tuple[int, ...]
    """Seats dealt in this deal, ascending (play order from any seat is a rotation of it)."""
    hands: tuple[tuple[TableCard, ...], ...]
    widow: tuple[TableCard, ...]
    stock: tuple[Card, ...]
    turn: int | None
    rounds: int
    """Full rounds completed in this deal (TR-14)."""
    stopper: int | None
    """The seat whose stop or take-all opened the last round (the dealer under TR-14)."""
    closing: Closing | None
    last_left: tuple[int, ...]
    """In the last round: the seats still owed their one turn, in order."""
    lives: tuple[int, ...]
    """LIVES scoring: lives per seat; empty in POT scoring."""
    result: DealResult | None


class TrentunoView(Value, frozen=True):
    """What one seat (or a spectator) may see. Redacted by :func:`engine.view`."""

    game: str
    table_id: str
    names: tuple[str, ...]
    chips: tuple[int, ...]
    pot: int
    scoring: Scoring
    lives: tuple[int, ...]
    phase: Phase
    dealer: int
    deals: int
    in_deal: tuple[int, ...]
    hands: tuple[tuple[TableCard, ...], ...]
    widow: tuple[TableCard, ...]
    stock_size: int
    to_act: int | None
    rounds: int
    stopper: int | None
    closing: Closing | None
    last_round: bool
    last_left: tuple[int, ...]
    result: DealResult | None
