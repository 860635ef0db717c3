"""Who may see what: one mechanism for cards on the table and for events.

Every :class:`TableCard` and every :class:`~engine.table.Event` carries an :class:`Audience`.
:func:`redact` turns any view or event stream into what one seat (or a spectator) may know:
cards it may not see become face-down (``card is None``) and events it may not see disappear.

>>> from mazziere.engine.cards import Card
>>> hidden = face_down(Card.parse("7d"), 0)
>>> redact((hidden,), 0), redact((hidden,), None)
((TableCard(Card.parse('7d'), Audience(seats={0})),), (TableCard(None, Audience(seats={0})),))
"""

from __future__ import annotations

import types
import typing
from collections.abc import Callable
from functools import lru_cache
from typing import Any, Final, TypeVar

from mypy_extensions import mypyc_attr

from mazziere.engine.cards import ALL_CARDS, Card
from mazziere.engine.values import field_names, is_value, replace

T = TypeVar("T")

Viewer = int | None
"""A seat number, or ``None`` for a spectator."""


MAX_SEAT: Final = 30
"""The highest seat number an audience can name (every game seats far fewer)."""
_INTERNED = 1 << 12
"""At most this many audiences and table cards are kept for reuse, each (at most about 6.5 MiB with each audience's
row of table cards; real tables use a few hundred: the cards times the audiences of one or two seats, everyone and
nobody)."""


@mypyc_attr(native_class=False)  # compiled, a Python class: interned, made by __new__
class Audience:
    """Everyone, nobody, or a set of seats. Immutable; equal audiences are usually the same object.

    ``code`` numbers it: bit 0 for everyone, bit ``s + 1`` for seat ``s``.
    """

    __slots__ = ("code", "everyone", "seats", "table_cards")
    __match_args__ = ("everyone", "seats")
    everyone: bool
    seats: frozenset[int]
    code: int
    table_cards: list[TableCard | None]
    """Each card as this audience's table card, by ``Card.index``, made when first asked for (:func:`table_card`)."""

    def __new__(cls, everyone: bool = False, seats: frozenset[int] = frozenset()) -> Audience:
        code = 1 if everyone else sum(2 << _seat(s) for s in seats)
        known = _AUDIENCES.get(code)
        return known if known is not None else Audience.from_code(code)

    @staticmethod
    def from_code(code: int) -> Audience:
        """The audience numbered ``code``; raise ValueError if no audience has that number."""
        known = _AUDIENCES.get(code)
        if known is not None:
            return known
        if type(code) is not int or not 0 <= code < 2 << (MAX_SEAT + 1) or (code & 1 and code != 1):
            raise ValueError(f"{code!r} is not an audience")
        audience = object.__new__(Audience)
        seats = frozenset(s for s in range(MAX_SEAT + 1) if code & (2 << s))
        row: list[TableCard | None] = [None] * len(ALL_CARDS)
        for name, value in (("everyone", code == 1), ("seats", seats), ("code", code), ("table_cards", row)):
            object.__setattr__(audience, name, value)
        if len(_AUDIENCES) < _INTERNED:
            _AUDIENCES[code] = audience
        return audience

    def admits(self, viewer: Viewer) -> bool:
        return self.everyone or (viewer is not None and viewer in self.seats)

    def with_seat(self, seat: int) -> Audience:
        return self if self.everyone else Audience.from_code(self.code | 2 << _seat(seat))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("audiences are immutable")

    def __eq__(self, other: object) -> bool:
        return self is other or (type(other) is Audience and self.code == other.code)

    def __hash__(self) -> int:
        return self.code

    def __reduce__(self) -> tuple[object, tuple[int]]:
        return Audience.from_code, (self.code,)

    def __repr__(self) -> str:
        return "PUBLIC" if self.everyone else f"Audience(seats={set(self.seats) or '{}'})"


def _seat(seat: int) -> int:
    if type(seat) is not int or not 0 <= seat <= MAX_SEAT:
        raise ValueError(f"{seat!r} is not a seat of an audience (0..{MAX_SEAT})")
    return seat


_AUDIENCES: dict[int, Audience] = {}
PUBLIC: Final = Audience(everyone=True)
NOBODY: Final = Audience()


def only(*seats: int) -> Audience:
    """The audience of exactly these seats."""
    if len(seats) == 1:  # the usual case: a card dealt face down to one seat
        return Audience.from_code(2 << _seat(seats[0]))
    return Audience(seats=frozenset(seats))


@mypyc_attr(native_class=False)  # compiled, a Python class: interned, made by __new__
class TableCard:
    """A card where it lies, with who may see its face. ``card`` is ``None`` once redacted.

    Immutable, and usually shared: equal table cards are the same object. ``code`` numbers it (the card's
    index + 1, or 0 when redacted, above the audience's code): its form in the state's bytes.
    """

    __slots__ = ("card", "code", "seen_by")
    __match_args__ = ("card", "seen_by")
    card: Card | None
    seen_by: Audience
    code: int

    def __new__(cls, card: Card | None, seen_by: Audience) -> TableCard:
        code = (0 if card is None else card.index + 1) << _CARD_SHIFT | seen_by.code
        known = _TABLE_CARDS.get(code)
        return known if known is not None else TableCard.from_code(code)

    @staticmethod
    def from_code(code: int) -> TableCard:
        """The table card numbered ``code``; raise ValueError if no table card has that number."""
        known = _TABLE_CARDS.get(code)
        if known is not None:
            return known
        if type(code) is not int or not 0 <= code >> _CARD_SHIFT <= len(ALL_CARDS):
            raise ValueError(f"{code!r} is not a table card")
        card_number = code >> _CARD_SHIFT
        table_card = object.__new__(TableCard)
        for name, value in (
            ("card", ALL_CARDS[card_number - 1] if card_number else None),
            ("seen_by", Audience.from_code(code & _AUDIENCE_BITS)),
            ("code", code),
        ):
            object.__setattr__(table_card, name, value)
        if len(_TABLE_CARDS) < _INTERNED:
            _TABLE_CARDS[code] = table_card
        return table_card

    @property
    def is_face_up(self) -> bool:
        return self.seen_by.everyone

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("table cards are immutable")

    def __eq__(self, other: object) -> bool:
        return self is other or (type(other) is TableCard and self.code == other.code)

    def __hash__(self) -> int:
        return self.code

    def __reduce__(self) -> tuple[object, tuple[int]]:
        return TableCard.from_code, (self.code,)

    def __repr__(self) -> str:
        return f"TableCard({self.card!r}, {self.seen_by!r})"


_CARD_SHIFT: Final = MAX_SEAT + 2
_AUDIENCE_BITS: Final = (1 << _CARD_SHIFT) - 1
_TABLE_CARDS: Final[dict[int, TableCard]] = {}


def table_card(card: Card, seen_by: Audience) -> TableCard:
    """``TableCard(card, seen_by)`` for the hot paths: a plain call and two reads (the class's own call goes through
    its type's ``__call__`` and ``__new__``, and a number past the small integers)."""
    row, index = seen_by.table_cards, card.index
    known = row[index]
    if known is None:
        known = row[index] = TableCard(card, seen_by)
    return known


def face_up(card: Card) -> TableCard:
    return table_card(card, PUBLIC)


def face_down(card: Card, *owners: int) -> TableCard:
    """A card only ``owners`` may see."""
    return table_card(card, only(*owners))


def redact(value: T, viewer: Viewer) -> T:
    """``value`` as ``viewer`` may know it: hidden cards face down, unseen events dropped.

    Works on any tree of engine values and tuples (views, events, event streams).
    """
    return _redact(value, viewer)  # type: ignore[no-any-return]


def compile_redactor(kind: Any) -> Redactor:
    """The redactor of values of type ``kind`` (for instance ``tuple[Event, ...]``), compiled from its hints."""
    return _redactor(kind) or _unchanged


def _unchanged(value: Any, viewer: Viewer) -> Any:
    return value


def _redact(value: Any, viewer: Viewer) -> Any:
    """Redaction by looking at the values themselves (for anything the type hints do not describe)."""
    if isinstance(value, TableCard):
        return _redact_card(value, viewer)
    if isinstance(value, tuple):
        return tuple(_redact(v, viewer) for v in value if _visible(v, viewer))
    kind: Any = type(value)
    if is_value(kind):
        redactor = _redactor(kind)
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

    Views are redacted on every call of the service, so each value class gets one generated function that
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
    if is_value(kind):
        return _value_redactor(kind)
    return None


def _tuple_redactor(item_kind: Any) -> Redactor | None:
    if item_kind is TableCard:  # the bulk of every view: checked inline, no call per card
        return lambda v, w: tuple(
            [x if x.seen_by.everyone or w in x.seen_by.seats else TableCard(None, x.seen_by) for x in v]
        )
    item = _redactor(item_kind)
    if not _has_audience(item_kind):
        return None if item is None else lambda v, w: tuple([item(x, w) for x in v])
    if item is None:
        return lambda v, w: tuple([x for x in v if x.seen_by.admits(w)])
    return lambda v, w: tuple([item(x, w) for x in v if x.seen_by.admits(w)])


def _value_redactor(cls: type) -> Redactor | None:
    try:
        hints = typing.get_type_hints(cls)
    except (NameError, TypeError):
        return _redact_fields
    plans = {name: _redactor(hints[name]) for name in field_names(cls)}
    if all(p is None for p in plans.values()):
        return None
    env: dict[str, Any] = {"cls": cls}
    parts = []
    for i, (name, plan) in enumerate(plans.items()):
        if plan is None:
            parts.append(f"v.{name}")
        else:
            env[f"r{i}"] = plan
            parts.append(f"r{i}(v.{name}, w)")
    exec(f"def redact(v, w):\n    return cls({', '.join(parts)})", env)
    return env["redact"]  # type: ignore[no-any-return]


def _redact_fields(value: Any, viewer: Viewer) -> Any:
    changes = {
        name: _redact(v, viewer)
        for name in field_names(type(value))
        if isinstance(v := getattr(value, name), tuple | TableCard) or is_value(type(v))
    }
    return replace(value, **changes) if changes else value


def _has_audience(kind: Any) -> bool:
    """Events and the like: values with their own ``seen_by``."""
    return is_value(kind) and "seen_by" in field_names(kind)


def _visible(value: Any, viewer: Viewer) -> bool:
    """Items of a tuple that carry an audience (events) are dropped for viewers outside it."""
    if isinstance(value, TableCard):
        return True
    seen_by = getattr(value, "seen_by", None)
    return not isinstance(seen_by, Audience) or seen_by.admits(viewer)
