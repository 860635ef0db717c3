"""One action's work, and the one way a game makes its next state.

A game plays an action on a :class:`Step`: it tells what happens (:meth:`Step.event`), moves chips
(:meth:`Step.pay`), changes the state's fields as the rules go (:meth:`Step.change`), and ends with
:meth:`Step.outcome`, which settles the chips and pot by the transfers and returns the new frozen state with
the events and transfers. States never change in place: each change is a new value, made when
:attr:`Step.state` is next read (or by :meth:`Step.outcome`), so that changes in a row make one new state.

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
_UNCHANGED = object()


@mypyc_attr(allow_interpreted_subclasses=True)  # compiled, games written in Python may still subclass it
class Step(Generic[S]):
    """One action on ``state``: the state as changed so far, the events told and the transfers made."""

    __slots__ = ("_changes", "_dealing", "_state", "events", "start", "transfers")

    def __init__(self, state: S) -> None:
        self.start = state
        """The state the action is played on."""
        self._state = state
        self._changes: dict[str, Any] | None = None
        """The fields changed since :attr:`state` was last made, by name."""
        self.events: list[Event] = []
        self.transfers: list[Transfer] = []
        self._dealing: Dealing | None = None

    @property
    def state(self) -> S:
        """The state with the changes made so far (its chips and pot are settled only by :meth:`outcome`)."""
        changes = self._changes
        if changes is not None:
            self._changes = None
            self._state = _replace(self._state, **changes)
        return self._state

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

    def latest(self, name: str) -> Any:
        """The field ``name`` as changed so far, read without making the changed state: for a step that reads a
        field between its changes (a seat's hand after another's), where reading :attr:`state` would make a new
        state each time."""
        changes = self._changes
        if changes is not None:
            value = changes.get(name, _UNCHANGED)
            if value is not _UNCHANGED:
                return value
        return getattr(self._state, name)

    def change(self, **fields: Any) -> None:
        """Change some fields of the state (by name; chips and pot move only by :meth:`pay`). The changed state
        is made when :attr:`state` is next read, or by :meth:`outcome`: once for all the changes in between."""
        if self._changes is None:
            self._changes = fields
        else:
            self._changes.update(fields)

    def outcome(self, **fields: Any) -> Outcome:
        """The new state (with these last changes, its chips and pot settled, its ``seq`` the next), the events
        and the transfers."""
        changes = self._changes
        if changes is not None:  # changes not yet made into a state: made with these, in one new state
            self._changes = None
            changes.update(fields)
            fields = changes
        if self.transfers:
            fields["chips"], fields["pot"] = settle(self.start.chips, self.start.pot, self.transfers)
        d = self._dealing
        if d is not None:
            fields["draws"], fields["entropy"], fields["packs"] = d.draws, d.entropy, d.packs
            fields["commitment"] = d.commitment
        fields["seq"] = self.start.seq + 1
        return Outcome(_replace(self._state, **fields), tuple(self.events), tuple(self.transfers))
