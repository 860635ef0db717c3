"""Who may see what: one mechanism for cards on the table and for events.

Every :class:`TableCard` and every :class:`~engine.table.Event` carries an :class:`Audience`.
:func:`redact` turns any view or event stream into what one seat (or a spectator) may know:
cards it may not see become face-down (``card is None``) and events it may not see disappear.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, TypeVar

from engine.cards import Card

T = TypeVar("T")

Viewer = int | None
"""A seat number, or ``None`` for a spectator."""


@dataclass(frozen=True, slots=True)
class Audience:
    """Everyone, nobody, or a set of seats."""

    everyone: bool = False
    seats: frozenset[int] = frozenset()

    def admits(self, viewer: Viewer) -> bool:
        return self.everyone or (viewer is not None and viewer in self.seats)

    def with_seat(self, seat: int) -> Audience:
        return self if self.everyone else Audience(seats=self.seats | {seat})


PUBLIC = Audience(everyone=True)
NOBODY = Audience()


def only(*seats: int) -> Audience:
    """The audience of exactly these seats."""
    return Audience(seats=frozenset(seats))


@dataclass(frozen=True, slots=True)
class TableCard:
    """A card where it lies, with who may see its face. ``card`` is ``None`` once redacted."""

    card: Card | None
    seen_by: Audience

    @property
    def is_face_up(self) -> bool:
        return self.seen_by.everyone


def face_up(card: Card) -> TableCard:
    return TableCard(card, PUBLIC)


def face_down(card: Card, *owners: int) -> TableCard:
    """A card only ``owners`` may see."""
    return TableCard(card, only(*owners))


def redact(value: T, viewer: Viewer) -> T:
    """``value`` as ``viewer`` may know it: hidden cards face down, unseen events dropped.

    Works on any tree of frozen dataclasses and tuples (views, events, event streams).
    """
    return _redact(value, viewer)  # type: ignore[no-any-return]


def _redact(value: Any, viewer: Viewer) -> Any:
    if isinstance(value, TableCard):
        if value.card is None or value.seen_by.admits(viewer):
            return value
        return TableCard(None, value.seen_by)
    if isinstance(value, tuple):
        return tuple(_redact(v, viewer) for v in value if _visible(v, viewer))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {
            f.name: _redact(v, viewer)
            for f in dataclasses.fields(value)
            if isinstance(v := getattr(value, f.name), tuple) or dataclasses.is_dataclass(v)
        }
        return dataclasses.replace(value, **changes) if changes else value
    return value


def _visible(value: Any, viewer: Viewer) -> bool:
    """Items of a tuple that carry an audience (events) are dropped for viewers outside it."""
    if isinstance(value, TableCard):
        return True
    seen_by = getattr(value, "seen_by", None)
    return not isinstance(seen_by, Audience) or seen_by.admits(viewer)
