"""Saltacavallo's table state and the view a seat gets of it."""

from __future__ import annotations

from enum import Enum

from mazziere.engine.cards import Card
from mazziere.engine.games.saltacavallo.rules import SaltacavalloRules
from mazziere.engine.table import TableState
from mazziere.engine.values import Value
from mazziere.engine.visibility import TableCard


class Phase(Enum):
    """Where the table is."""

    DEAL = "DEAL"
    """Between hands: the dealer sends DEAL; dead seats may REVIVE (SC-13)."""
    PLAY = "PLAY"
    """SC-7: the seat ``turn`` keeps or swaps."""
    DEALER = "DEALER"
    """SC-10: every card is face up; the dealer keeps or draws."""
    OVER = "OVER"
    """SC-15: the game has ended."""


class SaltacavalloState(TableState, frozen=True):
    """A Saltacavallo table. ``hand[s]`` is seat ``s``'s card this hand (``None``: no card)."""

    rules: SaltacavalloRules
    lives: tuple[int, ...]
    dealer: int
    """The seat dealing this hand, or (between hands) the next one."""
    phase: Phase
    turn: int
    """The seat to keep or swap in PLAY, else -1."""
    hand: tuple[TableCard | None, ...]
    stock: tuple[Card, ...]
    discards: tuple[TableCard, ...]
    """SC-10: the cards the dealer put aside this hand (his own, a void re, cavalli drawn again), face up."""
    losers: tuple[int, ...]
    """The seats that lost a life in the last hand, until the next DEAL."""
    revived: tuple[int, ...]
    """Seats given a life since the last hand; they cannot give one before the next hand."""
    winners: tuple[int, ...]
    """Who took the pot when the game ended."""
    hands: int
    """Hands dealt so far (a replayed hand counts)."""
    sitting_out: tuple[int, ...] = ()
    """Living seats sitting out (option ``sit_out``), ascending: not dealt in until they sit in again."""


def in_hand(state: SaltacavalloState) -> tuple[int, ...]:
    """The lives of the seats dealt into a hand: a seat sitting out counts as not living."""
    out = state.sitting_out
    return tuple(0 if s in out else left for s, left in enumerate(state.lives)) if out else state.lives


class SaltacavalloView(Value, frozen=True, repr_omit_defaults=True):
    """What one seat (or a spectator) may know. Cards come as TableCards, redacted by the engine. Its repr leaves
    out ``sitting_out`` while empty, so the bots' samples, seeded by the view (engine/bots/hidden.py), are those of
    the views before the field was added."""

    names: tuple[str, ...]
    """The seats' names, by seat number."""
    chips: tuple[int, ...]
    """The seats' chips (their coins included), by seat number."""
    pot: int
    """Chips in the pot: every life lost so far."""
    lives: tuple[int, ...]
    """Lives left, by seat number."""
    alive: tuple[bool, ...]
    """Whether each seat still has a life, by seat number."""
    dealer: int
    """The seat dealing this hand, or (between hands) the next one."""
    phase: Phase
    turn: int | None
    """The seat to keep or swap in PLAY; None otherwise."""
    cards: tuple[TableCard | None, ...]
    """Each seat's card this hand (None: no card); between hands, the last hand's cards, all face up."""
    stock_size: int
    """Cards left in the stock (its order is never shown)."""
    discards: tuple[TableCard, ...]
    """The cards the dealer put aside this hand (face up), until the next DEAL."""
    losers: tuple[int, ...]
    """The seats that lost a life in the last hand, until the next DEAL."""
    revived: tuple[int, ...]
    """Seats given a life since the last hand."""
    winners: tuple[int, ...]
    """Who took (or shared) the pot when the game ended."""
    hands: int
    """Hands dealt so far (a replayed hand counts)."""
    sitting_out: tuple[int, ...] = ()
    """Living seats sitting out (option ``sit_out``): not dealt in until the dealer sits them in again."""
