"""The values every game shares: seats, actions, legal actions, outcomes, the state header (and, from
:mod:`engine.events`, the events)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, Self

from mazziere.engine.cards import Card
from mazziere.engine.events import Event, EventKind
from mazziere.engine.ledger import Transfer
from mazziere.engine.values import Value

__all__ = ["Action", "Event", "EventKind", "LegalAction", "Outcome", "Pack", "Seat", "TableState"]


class Seat(Value, frozen=True):
    """A player at the table as the caller names it, with the chips it brings."""

    name: str
    chips: int


class Action(Value, frozen=True):
    """One move by one seat. ``kind`` is one of the game's action kinds.

    ``amount`` is a stake or raise, ``target`` another seat the move names, ``cards`` the cards it names
    (for instance the card given and the card taken in an exchange). ``entropy`` is the seat's own random
    bytes for the table's next draw (docs/fairness.md), or none.
    """

    seat: int
    kind: str
    amount: int = 0
    target: int | None = None
    cards: tuple[Card, ...] = ()
    entropy: bytes = b""


class LegalAction(Value, frozen=True):
    """A move a seat may make now. Where an amount matters it must lie in ``[min_amount, max_amount]``."""

    kind: str
    min_amount: int = 0
    max_amount: int = 0
    target: int | None = None
    cards: tuple[Card, ...] = ()

    def example(self, seat: int) -> Action:
        """The action this entry allows, with the smallest amount.

        >>> LegalAction("STAKE", 1, 10).example(2)
        Action(seat=2, kind='STAKE', amount=1, target=None, cards=(), entropy=b'')
        """
        return Action(seat, self.kind, self.min_amount, self.target, self.cards)


class Pack(Value, frozen=True):
    """A pack shuffled by the draw ``draw`` and not yet revealed: its cards (``Card.index``) in canonical order."""

    draw: int
    cards: bytes


class TableState(Value, frozen=True):
    """The header every game's state starts with. Game states subclass it and add their own fields.

    ``seed`` (the table's secret), ``draws`` (the next draw's number), ``entropy`` (the seats' contributions to
    it), ``packs`` (the packs not yet revealed, the one dealt from last) and ``commitment`` (the next draw's, kept so
    that no update derives it again) are the dealing's (:mod:`engine.dealing`); ``seq`` counts accepted actions;
    ``chips`` and ``pot`` hold all the money on the table.
    """

    game: str
    table_id: str
    rules: Any
    names: tuple[str, ...]
    chips: tuple[int, ...]
    pot: int
    seed: bytes
    draws: int
    seq: int
    entropy: bytes
    packs: tuple[Pack, ...]
    commitment: bytes

    @property
    def seat_count(self) -> int:
        return len(self.names)

    @classmethod
    def opening(
        cls, game: str, table_id: str, rules: Any, seats: Sequence[Seat], dealing: OpeningDraws, **fields: Any
    ) -> Self:
        """A new table's state: the header from the seats and the opening draws (:meth:`Dealing.opening
        <engine.dealing.Dealing.opening>`), the pot empty, no action yet; and the game's fields."""
        names, chips = tuple(s.name for s in seats), tuple(s.chips for s in seats)
        d = dealing
        return cls(
            game, table_id, rules, names, chips, 0, d.secret, d.draws, 0, d.entropy, d.packs, d.commitment, **fields
        )


class OpeningDraws(Protocol):
    """The dealing fields a new state starts from (:meth:`Dealing.opening <engine.dealing.Dealing.opening>`
    makes them; the dealing builds on this module's values, so it is named here by what it has)."""

    @property
    def secret(self) -> bytes: ...
    @property
    def draws(self) -> int: ...
    @property
    def entropy(self) -> bytes: ...
    @property
    def packs(self) -> tuple[Pack, ...]: ...
    @property
    def commitment(self) -> bytes: ...


class Outcome(Value, frozen=True):
    """What :func:`engine.apply` returns: the new state, what happened, and who paid whom."""

    state: Any
    events: tuple[Event, ...] = ()
    settlement: tuple[Transfer, ...] = ()
