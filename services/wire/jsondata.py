"""Engine values straight to protobuf JSON data: the JSON sink of the writer family of :mod:`~services.wire.plan`.

A REST (or Connect JSON) answer used to be written as protobuf bytes, parsed into a message, and walked field by
field to print its JSON. The writers here make the JSON data of an engine value in one pass instead, from the same
plans as :func:`services.wire.proto.writer` (so by the same mapping), printed as ``json_format.MessageToDict``
prints the message those bytes parse to: camelCase names in field-number order, proto3 defaults left out, 64-bit
integers as decimal strings, enums by their full names. msgspec writes the text. The tests compare the two, byte
for byte, on every update of whole games of every game and preset.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum
from functools import cache
from typing import Any

import msgspec

from mazziere.engine.cards import Card
from mazziere.engine.visibility import Audience, TableCard
from mazziere.services.wire.plan import Field, Item, Kind, Shape, Sink, enum_writer, generate, plan

Writer = Callable[[Any], Any]
"""An engine value to its JSON data (a dict for a message; a string, number or list for a field's item)."""

encode = msgspec.json.Encoder().encode
"""JSON data to compact UTF-8 text: the bytes ``json.dumps(data, ensure_ascii=False, separators=(",", ":"))``
gives for strings, integers, booleans, lists and objects (the data these writers make)."""


def write(value: Any, message: Any) -> Any:
    """The JSON data of ``message`` (a generated message class) holding the engine value ``value``."""
    kind: Any = type(value)
    return writer(kind, message.DESCRIPTOR)(value)


def write_as(value: Any, desc: Any) -> Any:
    """``value`` written as the message ``desc`` (a descriptor), by the writer of its class."""
    kind: Any = type(value)
    return writer(kind, desc)(value)


@cache
def writer(kind: Any, desc: Any, true: tuple[str, ...] = ()) -> Writer:
    """A generated function making the JSON object of a value of ``kind`` as the message ``desc``.

    Each field gets the code its :class:`~services.wire.plan.Shape` calls for, as :func:`services.wire.proto.writer`
    writes it and the parsed message prints: a scalar without presence only when it is not the default, one with
    presence whenever it is not ``None``, a message field whenever it is not ``None`` (``{}`` if empty), a list
    when it has items. ``true`` names boolean fields of ``desc`` that ``kind`` does not hold, written set in their
    place.
    """
    return generate(plan(kind, desc, true), _SINK)


_CODE: dict[Shape | tuple[Shape, Kind], str] = {
    Shape.SET: "out[k$i] = True",
    Shape.PACKED: "if x: out[k$i] = [w$i(y) for y in x]",
    (Shape.PACKED, Kind.INT32): "if x: out[k$i] = list(x)",
    Shape.MESSAGES: "if x: out[k$i] = [w$i(y) for y in x]",
    Shape.TEXTS: "if x: out[k$i] = [w$i(y) for y in x]",
    Shape.MESSAGE: "if x is not None: out[k$i] = w$i(x)",
    Shape.FLAG: "if x: out[k$i] = True",
    Shape.OPTIONAL_FLAG: "if x is not None: out[k$i] = bool(x)",
    Shape.OPTIONAL: "if x is not None: out[k$i] = w$i(x)",
    # proto3: a scalar at its default value is left out (an enum's zero, an empty text)
    Shape.SCALAR: "if x:\n        x = w$i(x)\n        if x: out[k$i] = x",
    (Shape.SCALAR, Kind.ENUM): "if x:\n        x = w$i(x)\n        if x is not None: out[k$i] = x",
    (Shape.SCALAR, Kind.INT32): "if x: out[k$i] = x",
}


def _constants(field: Field, i: int) -> dict[str, Any]:
    """The field's JSON name and its item writer."""
    if field.shape is Shape.SCALAR and field.item.kind is Kind.ENUM:  # the enum's zero is its default, left out
        return {f"k{i}": field.json_name, f"w{i}": _enum_name(field.item.desc, zero=None)}
    return {f"k{i}": field.json_name, f"w{i}": _item_writer(field.item)}


def _item_writer(item: Item) -> Writer:
    """The JSON of one item: a number, a string, an enum's name, or a message's object."""
    return _ITEM_WRITERS[item.kind](item)


def _slot_writer(item: Item) -> Writer:
    """A slot's object: its one item, or ``{}`` for ``None``."""
    assert item.inner is not None
    inner, name = _item_writer(item.inner.item), item.inner.json_name
    return lambda x: {} if x is None else {name: inner(x)}


def _list_writer(item: Item) -> Writer:
    """A whole list as one message (a frozenset in order); ``{}`` when empty."""
    assert item.inner is not None
    inner, name = _item_writer(item.inner.item), item.inner.json_name
    return lambda x: {name: [inner(y) for y in (sorted(x) if type(x) is frozenset else x)]} if x else {}


def _enum_name(desc: Any, *, zero: Any = ...) -> Writer:
    """An engine value's enum name; the enum's zero value gives ``zero`` if one is given (its name otherwise)."""
    return enum_writer(desc, lambda value: value.name if value.number or zero is ... else zero)


def text(item: Any) -> str:
    """A string field's text: cards in notation, enums by value."""
    if type(item) is str:
        return item
    if type(item) is Card:
        return str(item)
    if type(item) is bytes:  # entropy: hex on the wire
        return item.hex()
    return str(item.value) if isinstance(item, Enum) else str(item)


def audience_json(audience: Audience) -> dict[str, Any]:
    """The object of an ``Audience`` message (kept per audience: tables use a few dozen). Shared: never changed."""
    known = _AUDIENCES.get(audience.code)
    if known is None:
        known = {"everyone": True} if audience.everyone else {}
        if audience.seats:
            known["seats"] = sorted(audience.seats)
        if len(_AUDIENCES) < _KEPT:
            _AUDIENCES[audience.code] = known
    return known


def table_card_json(tc: TableCard) -> dict[str, Any]:
    """The object of a ``TableCard`` message (kept per table card). Shared: never changed."""
    known = _TABLE_CARDS.get(tc.code)
    if known is None:
        known = {} if tc.card is None else {"card": str(tc.card)}
        known["seenBy"] = audience_json(tc.seen_by)
        if len(_TABLE_CARDS) < _KEPT:
            _TABLE_CARDS[tc.code] = known
    return known


_ITEM_WRITERS: dict[Kind, Callable[[Item], Writer]] = {
    Kind.TABLE_CARD: lambda item: table_card_json,
    Kind.AUDIENCE: lambda item: audience_json,
    Kind.SLOT: _slot_writer,
    Kind.LIST: _list_writer,
    Kind.VALUE: lambda item: writer(item.engine_class, item.desc),
    Kind.MESSAGE: lambda item: lambda x: write_as(x, item.desc),
    Kind.ENUM: lambda item: _enum_name(item.desc),
    Kind.TEXT: lambda item: text,
    Kind.INT64: lambda item: str,
    Kind.INT32: lambda item: int,
    Kind.BOOL: lambda item: bool,
}
_SINK = Sink(head=("out = {}",), tail="return out", env={"bool": bool, "list": list}, code=_CODE, constants=_constants)

_KEPT = 1 << 14
_AUDIENCES: dict[int, dict[str, Any]] = {}
_TABLE_CARDS: dict[int, dict[str, Any]] = {}
