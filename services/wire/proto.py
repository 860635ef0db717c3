"""Engine values straight to protobuf wire bytes: the protobuf sink of the writer family of :mod:`~services.wire.plan`.

The answer to every ``Act`` carries the actor's update: the redacted view, the events and the legal actions.
Building them as protobuf message objects field by field costs about a hundred microseconds; writing their
bytes with straight-line code, with the bytes of every table card and audience made once and kept, costs a
fraction of that. One writer is generated per (value class, message) pair from its plan: here is the code each
field shape and item kind is written with. The mapping is the one of :mod:`services.wire.codec`, which stays the
reference: tests parse what this module writes and compare it with what :func:`services.wire.codec.to_proto`
builds.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum
from functools import cache
from typing import Any

from mazziere.engine.cards import Card
from mazziere.engine.visibility import Audience, TableCard
from mazziere.services.wire.plan import Field, Item, Kind, Shape, Sink, enum_writer, generate, plan

Writer = Callable[[Any], bytes]

_VARINT, _LEN = 0, 2
_SMALL = tuple(bytes([i]) for i in range(128))


def varint(n: int) -> bytes:
    """``n`` as a protobuf varint (negative numbers as their 64-bit two's complement, as int32/int64 are)."""
    if 0 <= n < 128:
        return _SMALL[n]
    if n < 0:
        n += 1 << 64
    out = bytearray()
    while n > 127:
        out.append(n & 127 | 128)
        n >>= 7
    out.append(n)
    return bytes(out)


def tag(number: int, wire_type: int) -> bytes:
    return varint(number << 3 | wire_type)


def length_delimited(field_tag: bytes, body: bytes) -> bytes:
    n = len(body)
    return field_tag + (_SMALL[n] if n < 128 else varint(n)) + body


def write(value: Any, message: Any) -> bytes:
    """The wire bytes of ``message`` (a generated message class) holding the engine value ``value``."""
    kind: Any = type(value)
    return writer(kind, message.DESCRIPTOR)(value)


def write_as(value: Any, desc: Any) -> bytes:
    """``value`` written as the message ``desc`` (a descriptor), by the writer of its class."""
    kind: Any = type(value)
    return writer(kind, desc)(value)


@cache
def writer(kind: Any, desc: Any, true: tuple[str, ...] = ()) -> Writer:
    """A generated function writing values of ``kind`` as the message ``desc``, fields in number order.

    Each field gets the straight-line code its :class:`~services.wire.plan.Shape` calls for: constant bytes for
    booleans, small varints and lengths from a table, nested values by their own writers. ``true`` names boolean
    fields of ``desc`` that ``kind`` does not hold, written set in their place (an event's ``auto``).
    """
    return generate(plan(kind, desc, true), _SINK)


_PUT = "n = len(b); add(t$i + (S[n] if n < 128 else varint(n)) + b)"
"""A length-delimited body ``b`` after the field's tag and its length."""
_CODE: dict[Shape | tuple[Shape, Kind], str] = {
    Shape.SET: "add(t$i)",
    Shape.PACKED: f"if x: b = join([(S[y] if 0 <= y < 128 else w$i(y)) for y in x]); {_PUT}",  # one run of varints
    (Shape.PACKED, Kind.ENUM): f"if x: b = join([w$i(y) for y in x]); {_PUT}",
    Shape.MESSAGES: f"for y in x: b = w$i(y); {_PUT}",
    Shape.TEXTS: "for y in x: add(t$i + w$i(y))",  # the item writer gives the length and the text
    Shape.MESSAGE: f"if x is not None: b = w$i(x); {_PUT}",
    Shape.FLAG: "if x: add(t$i)",
    Shape.OPTIONAL_FLAG: "if x is not None: add(t$i[:-1] + S[x])",
    Shape.OPTIONAL: "if x is not None: add(t$i + w$i(x))",
    Shape.SCALAR: "if x: add(t$i + w$i(x))",  # proto3: a scalar at its default value is left out
}
_LENGTH_DELIMITED = frozenset({Shape.PACKED, Shape.MESSAGES, Shape.TEXTS, Shape.MESSAGE})
_TRUE = frozenset({Shape.SET, Shape.FLAG, Shape.OPTIONAL_FLAG})
"""The shapes whose tag constant holds the value true after it."""


def _constants(field: Field, i: int) -> dict[str, Any]:
    """The field's tag (with the value true after it for booleans) and its item writer."""
    length_delimited = field.shape in _LENGTH_DELIMITED or field.item.kind is Kind.TEXT
    field_tag = tag(field.number, _LEN if length_delimited else _VARINT)
    if field.shape in _TRUE:
        return {f"t{i}": field_tag + b"\x01"}
    return {f"t{i}": field_tag, f"w{i}": _item_writer(field.item)}


def _item_writer(item: Item) -> Writer:
    """The bytes of one item: a varint, a string's length and text, or a message's body."""
    return _ITEM_WRITERS[item.kind](item)


def _slot_writer(item: Item) -> Writer:
    """A slot's body: its one item, or nothing for ``None``."""
    assert item.inner is not None
    inner, inner_tag = _item_writer(item.inner.item), tag(item.inner.number, _LEN)
    return lambda x: b"" if x is None else length_delimited(inner_tag, inner(x))


def _list_writer(item: Item) -> Writer:
    """A whole list as one message (a frozenset in order)."""
    assert item.inner is not None
    inner, inner_tag = _item_writer(item.inner.item), tag(item.inner.number, _LEN)
    return lambda x: b"".join(length_delimited(inner_tag, inner(y)) for y in (sorted(x) if type(x) is frozenset else x))


def _text_bytes(item: Any) -> bytes:
    """A string field's length and UTF-8 text; cards in notation, enums by value."""
    if type(item) is str:
        data = item.encode()
    elif type(item) is Card:
        return _card_bytes(item)
    elif type(item) is bytes:  # entropy: hex on the wire
        data = item.hex().encode()
    else:
        data = (str(item.value) if isinstance(item, Enum) else str(item)).encode()
    n = len(data)
    return (_SMALL[n] if n < 128 else varint(n)) + data


@cache
def _card_bytes(card: Card) -> bytes:
    text = str(card).encode()
    return varint(len(text)) + text


def audience_bytes(audience: Audience) -> bytes:
    """The body of an ``Audience`` message (kept per audience: tables use a few dozen)."""
    known = _AUDIENCES.get(audience.code)
    if known is None:
        seats = b"".join(varint(s) for s in sorted(audience.seats))
        known = (b"\x08\x01" if audience.everyone else b"") + (length_delimited(b"\x12", seats) if seats else b"")
        if len(_AUDIENCES) < _KEPT:
            _AUDIENCES[audience.code] = known
    return known


def table_card_bytes(tc: TableCard) -> bytes:
    """The body of a ``TableCard`` message (kept per table card)."""
    known = _TABLE_CARDS.get(tc.code)
    if known is None:
        card = b"" if tc.card is None else b"\x0a" + _card_bytes(tc.card)
        known = card + length_delimited(b"\x12", audience_bytes(tc.seen_by))
        if len(_TABLE_CARDS) < _KEPT:
            _TABLE_CARDS[tc.code] = known
    return known


_ITEM_WRITERS: dict[Kind, Callable[[Item], Writer]] = {
    Kind.TABLE_CARD: lambda item: table_card_bytes,
    Kind.AUDIENCE: lambda item: audience_bytes,
    Kind.SLOT: _slot_writer,
    Kind.LIST: _list_writer,
    Kind.VALUE: lambda item: writer(item.engine_class, item.desc),
    Kind.MESSAGE: lambda item: lambda x: write_as(x, item.desc),
    Kind.ENUM: lambda item: enum_writer(item.desc, lambda value: varint(value.number)),
    Kind.TEXT: lambda item: _text_bytes,
    Kind.INT64: lambda item: varint,
    Kind.INT32: lambda item: varint,
    Kind.BOOL: lambda item: varint,
}
_SINK = Sink(
    head=("out = []", "add = out.append"),
    tail="return join(out)",
    env={"varint": varint, "join": b"".join, "S": _SMALL, "len": len},
    code=_CODE,
    constants=_constants,
)

_KEPT = 1 << 14
_AUDIENCES: dict[int, bytes] = {}
_TABLE_CARDS: dict[int, bytes] = {}
