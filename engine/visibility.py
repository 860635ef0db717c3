"""Who may see what: one mechanism for cards on the table and for events.

Every :class:`TableCard` and every :class:`~engine.table.Event` carries an :class:`Audience`.
:func:`redact` turns any view or event stream into what one seat (or a spectator) may know:
cards it may not see become face-down (``card is None``) and events it may not see disappear.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
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
    """Redaction by looking at the values themselves (for anything the type hints do not describe)."""
    if isinstance(value, TableCard):
        return _redact_card(value, viewer)
    if isinstance(value, tuple):
        return tuple(_redact(v, viewer) for v in value if _visible(v, viewer))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        redactor = _redactor(type(value))
        return value if redactor is None else redactor(value, viewer)
    return value


def _redact_card(card: TableCard, viewer: Viewer) -> TableCard:
    if card.card is None or card.seen_by.admits(viewer):
        return card
    return TableCard(None, card.seen_by)


Redactor = Callable[[Any, Viewer], Any]


@lru_cache(maxsize=256)  # keyed by type: the engine's view, event and card types are a few dozen
def _redactor(kind: Any) -> Redactor | None:
    """A redactor compiled from the type hints of ``kind``, or ``None`` if its values hold no cards or events.

    Views are redacted on every call of the service, so each dataclass gets one generated function that
    rebuilds only the fields that can hold cards.
    """
    if kind is TableCard:
        return _redact_card
    if kind is Any or kind is object:
        return _redact
    origin = typing.get_origin(kind)
    args = typing.get_args(kind)
    if origin in (types.UnionType, typing.Union):
        inner = [a for a in args if a is not type(None)]
        if all(_redactor(a) is None for a in inner):
            return None
        if len(inner) == 1:
            item = _redactor(inner[0])
            return lambda v, w: None if v is None else item(v, w)  # type: ignore[misc]
        return _redact
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return _tuple_redactor(args[0])
        return _redact if any(_redactor(a) is not None for a in args) else None
    if isinstance(kind, type) and dataclasses.is_dataclass(kind):
        return _dataclass_redactor(kind)
    return None


def _tuple_redactor(item_kind: Any) -> Redactor | None:
    item = _redactor(item_kind)
    if not _has_audience(item_kind):
        return None if item is None else lambda v, w: tuple([item(x, w) for x in v])
    if item is None:
        return lambda v, w: tuple([x for x in v if x.seen_by.admits(w)])
    return lambda v, w: tuple([item(x, w) for x in v if x.seen_by.admits(w)])


def _dataclass_redactor(cls: type) -> Redactor | None:
    try:
        hints = typing.get_type_hints(cls)
    except (NameError, TypeError):
        return _redact_fields
    fields = dataclasses.fields(cls)
    plans = {f.name: _redactor(hints[f.name]) for f in fields}
    if all(p is None for p in plans.values()):
        return None
    if not all(f.init for f in fields):
        return _redact_fields
    env: dict[str, Any] = {"cls": cls}
    parts = []
    for i, f in enumerate(fields):
        if plans[f.name] is None:
            parts.append(f"v.{f.name}")
        else:
            env[f"r{i}"] = plans[f.name]
            parts.append(f"r{i}(v.{f.name}, w)")
    exec(f"def redact(v, w):\n    return cls({', '.join(parts)})", env)
    return env["redact"]  # type: ignore[no-any-return]


def _redact_fields(value: Any, viewer: Viewer) -> Any:
    changes = {
        f.name: _redact(v, viewer)
        for f in dataclasses.fields(value)
        if isinstance(v := getattr(value, f.name), tuple) or dataclasses.is_dataclass(v)
    }
    return dataclasses.replace(value, **changes) if changes else value


def _has_audience(kind: Any) -> bool:
    """Events and the like: dataclasses (other than table cards) with their own ``seen_by``."""
    return (
        isinstance(kind, type)
        and kind is not TableCard
        and dataclasses.is_dataclass(kind)
        and any(f.name == "seen_by" for f in dataclasses.fields(kind))
    )


def _visible(value: Any, viewer: Viewer) -> bool:
    """Items of a tuple that carry an audience (events) are dropped for viewers outside it."""
    if isinstance(value, TableCard):
        return True
    seen_by = getattr(value, "seen_by", None)
    return not isinstance(seen_by, Audience) or seen_by.admits(viewer)
