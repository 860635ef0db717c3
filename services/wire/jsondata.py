"""Engine values straight to protobuf JSON: the writer family beside :mod:`services.protowire`'s.

A REST (or Connect JSON) answer used to be written as protobuf bytes, parsed into a message, and walked field by
field to print its JSON. The writers here make the JSON data of an engine value in one pass instead, from the same
descriptors and by the same mapping as :func:`services.protowire.writer` (fields by name, enums by name, cards in
notation, ``None`` leaves a field out, the ``value`` and ``values`` wrapper messages), printed as
``json_format.MessageToDict`` prints the message those bytes parse to: camelCase names in field-number order,
proto3 defaults left out, 64-bit integers as decimal strings, enums by their full names. msgspec writes the text.
The tests compare the two, byte for byte, on every update of whole games of every game and preset.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum
from functools import cache
from typing import Any

import msgspec
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message_factory import GetMessageClass

from mazziere.engine.cards import Card
from mazziere.engine.visibility import Audience, TableCard
from mazziere.services.wire.codec import enum_prefix
from mazziere.services.wire.proto import field_hints, item_type

Writer = Callable[[Any], Any]
"""An engine value to its JSON data (a dict for a message; a string, number or list for a field's item)."""

encode = msgspec.json.Encoder().encode
"""JSON data to compact UTF-8 text: the bytes ``json.dumps(data, ensure_ascii=False, separators=(",", ":"))``
gives for strings, integers, booleans, lists and objects (the data these writers make)."""

_INT32 = frozenset({FieldDescriptor.TYPE_INT32})
_INT64 = frozenset({FieldDescriptor.TYPE_INT64})
_SUPPORTED = frozenset(
    {
        FieldDescriptor.TYPE_INT32,
        FieldDescriptor.TYPE_INT64,
        FieldDescriptor.TYPE_BOOL,
        FieldDescriptor.TYPE_ENUM,
        FieldDescriptor.TYPE_STRING,
        FieldDescriptor.TYPE_MESSAGE,
    }
)
"""The field types protowire writes, so the ones written here."""


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

    Each field gets the code its proto type and presence call for, as :func:`services.protowire.writer` writes it
    and the parsed message prints: a scalar without presence only when it is not the default, one with presence
    whenever it is not ``None``, a message field whenever it is not ``None`` (``{}`` if empty), a list when it has
    items. ``true`` names boolean fields of ``desc`` that ``kind`` does not hold, written set in their place.
    """
    names = (*kind.__match_args__, *true)
    hints = field_hints(kind)
    fields = sorted((desc.fields_by_name[name] for name in names), key=lambda fd: fd.number)
    env: dict[str, Any] = {"str": str, "bool": bool}
    lines = ["def write(v):", "    out = {}"]
    for i, fd in enumerate(fields):
        if fd.type not in _SUPPORTED:
            raise TypeError(f"{desc.full_name}.{fd.name}: no JSON writer for field type {fd.type}")
        key = f"k{i}"
        env[key] = fd.json_name
        if fd.name in true:
            if fd.type != FieldDescriptor.TYPE_BOOL:
                raise TypeError(f"{desc.full_name}.{fd.name} is not a boolean")
            lines.append(f"    out[{key}] = True")
            continue
        env[f"w{i}"] = _item_writer(fd, item_type(hints.get(fd.name), fd))
        lines.append(f"    x = v.{fd.name}")
        if fd.is_repeated:
            if fd.type in _INT32:
                lines.append(f"    if x: out[{key}] = list(x)")
            elif fd.type in _INT64:
                lines.append(f"    if x: out[{key}] = [str(y) for y in x]")
            elif fd.type == FieldDescriptor.TYPE_BOOL:
                lines.append(f"    if x: out[{key}] = [bool(y) for y in x]")
            else:
                lines.append(f"    if x: out[{key}] = [w{i}(y) for y in x]")
        elif fd.type == FieldDescriptor.TYPE_MESSAGE:
            lines.append(f"    if x is not None: out[{key}] = w{i}(x)")
        elif fd.type == FieldDescriptor.TYPE_BOOL:
            lines.append(
                f"    if x is not None: out[{key}] = bool(x)" if fd.has_presence else f"    if x: out[{key}] = True"
            )
        elif fd.has_presence:
            lines.append(f"    if x is not None: out[{key}] = w{i}(x)")
        elif fd.type == FieldDescriptor.TYPE_ENUM:  # proto3: the enum's zero is its default, left out
            env[f"w{i}"] = _enum_writer(fd.enum_type, zero=None)
            lines.append(f"    if x:\n        x = w{i}(x)\n        if x is not None: out[{key}] = x")
        elif fd.type in _INT32:
            lines.append(f"    if x: out[{key}] = x")
        else:  # proto3: a scalar at its default value is left out
            lines.append(f"    if x:\n        x = w{i}(x)\n        if x: out[{key}] = x")
    lines.append("    return out")
    exec("\n".join(lines), env)
    return env["write"]  # type: ignore[no-any-return]


def _item_writer(fd: Any, kind: Any = None) -> Writer:
    """The JSON of one item of field ``fd``: a number, a string, an enum's name, or a message's object.

    ``kind`` is the engine class of a message item when the type hints tell it (else found per value)."""
    if fd.type == FieldDescriptor.TYPE_MESSAGE:
        desc = fd.message_type
        if desc.full_name == "mazziere.v1.TableCard":
            return table_card_json
        if desc.full_name == "mazziere.v1.Audience":
            return audience_json
        inner = desc.fields[0] if len(desc.fields) == 1 else None
        if inner is not None and inner.name == "value" and not inner.is_repeated:  # a slot: may hold nothing
            item = _item_writer(inner)
            name = inner.json_name
            return lambda x: {} if x is None else {name: item(x)}
        if inner is not None and inner.name == "values" and inner.is_repeated:  # a whole list as one message
            item = _item_writer(inner)
            name = inner.json_name
            return lambda x: {name: [item(y) for y in (sorted(x) if type(x) is frozenset else x)]} if x else {}
        if kind is not None and kind not in (TableCard, Audience):
            return writer(kind, desc)
        return lambda x: write(x, GetMessageClass(desc))
    if fd.type == FieldDescriptor.TYPE_ENUM:
        return _enum_writer(fd.enum_type)
    if fd.type == FieldDescriptor.TYPE_STRING:
        return text
    if fd.type in _INT64:
        return str
    if fd.type == FieldDescriptor.TYPE_BOOL:
        return bool
    return int


def _enum_writer(desc: Any, *, zero: Any = ...) -> Writer:
    """An engine value's enum name; the enum's zero value gives ``zero`` if one is given (its name otherwise)."""
    prefix = enum_prefix(desc.name)
    names = {v.name.removeprefix(prefix): v.name if v.number or zero is ... else zero for v in desc.values}
    by_member: dict[Any, Any] = {}

    def write_enum(item: Any) -> Any:
        try:
            return by_member[item]
        except KeyError:
            known = by_member[item] = names[str(item.value) if isinstance(item, Enum) else str(item)]
            return known

    return write_enum


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


_KEPT = 1 << 14
_AUDIENCES: dict[int, dict[str, Any]] = {}
_TABLE_CARDS: dict[int, dict[str, Any]] = {}
