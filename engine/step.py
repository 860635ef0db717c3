"""One action's work, and the one way a game makes its next state.

A game plays an action on a :class:`Step`: it tells what happens (:meth:`Step.event`), moves chips
(:meth:`Step.pay`), changes the state's fields as the rules go (:meth:`Step.change`), and ends with
:meth:`Step.outcome`, which settles the chips and pot by the transfers and returns the new frozen state with
the events and transfers. States never change in place: each change is a new value.

>>> from mazziere import engine
>>> from mazziere.engine.games.trentuno import events
>>> state = engine.new_table("trentuno", [engine.Seat(n, 10) for n in "abc"], seed=b"s").state
>>> step = Step(state)
>>> step.pay(0, POT, 2, "ante")
>>> step.event(events.DEAL, seat=0, amount=step.pot)
>>> out = step.outcome(deals=1)
>>> out.state.chips, out.state.pot, out.state.deals, [str(e.kind) for e in out.events]
((8, 10, 10), 2, 1, ['DEAL'])
>>> state.chips  # the state played on is as it was
(10, 10, 10)
"""

from __future__ import annotations

from typing import Any, Generic, TypeVar

import msgspec
from mypy_extensions import mypyc_attr

from mazziere.engine.dealing import Dealing
from mazziere.engine.events import Event, EventKind
from mazziere.engine.ledger import POT, Transfer, settle
from mazziere.engine.table import Outcome, TableState
from mazziere.engine.visibility import PUBLIC, Audience, TableCard

S = TypeVar("S", bound=TableState)

__all__ = ["POT", "Step"]

_replace = msgspec.structs.replace
"""msgspec's own (not :func:`engine.values.replace`, whose keywords would be gathered and spread once more)."""


@mypyc_attr(allow_interpreted_subclasses=True)  # compiled, games written in Python may still subclass it
class Step(Generic[S]):
    """One action on ``state``: the state as changed so far, the events told and the transfers made."""

    __slots__ = ("_dealing", "events", "start", "state", "transfers")

    def __init__(self, state: S) -> None:
        self.start = state
        """The state the action is played on."""
        self.state = state
        """The state with the changes made so far (its chips and pot are settled only by :meth:`outcome`)."""
        self.events: list[Event] = []
        self.transfers: list[Transfer] = []
        self._dealing: Dealing | None = None

    @property
    def dealing(self) -> Dealing:
        """This action's draws: shuffles, numbers, cards taken and reveals (:mod:`engine.dealing`)."""
        if self._dealing is None:
            self._dealing = Dealing.of(self.start, self.events)
        return self._dealing

    def event(
        self,
        kind: EventKind,
        *,
        seat: int | None = None,
        target: int | None = None,
        cards: tuple[TableCard, ...] = (),
        amount: int = 0,
        points: int = 0,
        seen_by: Audience = PUBLIC,
    ) -> None:
        """Tell what happened (the fields ``kind`` carries: :class:`~engine.events.EventKind`)."""
        dealing = self._dealing
        if dealing is not None and cards and dealing.origin:  # cards taken from a pack now: their draw and places
            draw, at = dealing.place(cards)
            self.events.append(Event(kind, seat, target, cards, amount, points, seen_by, draw, at))
        else:
            self.events.append(Event(kind, seat, target, cards, amount, points, seen_by))

    def pay(self, payer: int, payee: int, amount: int, reason: str) -> None:
        """Move ``amount`` chips between seats or the :data:`~engine.ledger.POT`."""
        self.transfers.append(Transfer(payer, payee, amount, reason))

    @property
    def chips(self) -> tuple[int, ...]:
        """Each seat's chips after the transfers so far."""
        return settle(self.start.chips, self.start.pot, self.transfers)[0] if self.transfers else self.start.chips

    @property
    def pot(self) -> int:
        """The pot after the transfers so far."""
        return settle(self.start.chips, self.start.pot, self.transfers)[1] if self.transfers else self.start.pot

    def change(self, **fields: Any) -> S:
        """Change some fields of the state (by name; chips and pot move only by :meth:`pay`); return it."""
        self.state = _replace(self.state, **fields)
        return self.state

    def outcome(self, **fields: Any) -> Outcome:
        """The new state (with these last changes, its chips and pot settled, its ``seq`` the next), the events
        and the transfers."""
        if self.transfers:
            fields["chips"], fields["pot"] = settle(self.start.chips, self.start.pot, self.transfers)
        d = self._dealing
        if d is not None:
            fields["draws"], fields["entropy"], fields["packs"] = d.draws, d.entropy, d.packs
            fields["commitment"] = d.commitment
        return self.finish(_replace(self.state, seq=self.start.seq + 1, **fields))

    def finish(self, state: S) -> Outcome:
        """The outcome of this step with ``state`` made by the game itself (numbered, its chips settled: as
        :meth:`outcome` makes it), for a game that keeps its working values apart (Sette e mezzo's ``Hand``)."""
        return Outcome(state, tuple(self.events), tuple(self.transfers))
