"""How an engine class maps onto a protobuf message, field by field: the one plan both writer families follow.

The mapping is the one of :mod:`services.wire.codec` (fields by name, enums by name, cards in notation, ``None``
leaves a field out, the ``value`` and ``values`` wrapper messages). :func:`plan` walks a message's descriptor once
per (engine class, message, ``true`` fields) and says, for every field, how it is written (its :class:`Shape`)
and what one item of it is (its :class:`Item`); :func:`generate` turns a plan into one straight-line function,
each line the code a sink (:mod:`~services.wire.proto` for protobuf bytes, :mod:`~services.wire.jsondata` for
protobuf JSON data) gives for that field. The sinks know their format; nothing here does.
"""

from __future__ import annotations

import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum
from functools import cache
from typing import Any, NamedTuple

from google.protobuf.descriptor import FieldDescriptor

from mazziere.engine.visibility import Audience, TableCard
from mazziere.services.wire.codec import enum_prefix


class Shape(Enum):
    """How a field is written, whatever the format."""

    SET = "a boolean the engine class does not hold, always set (an auto-played event's auto)"
    PACKED = "a repeated int32, int64, bool or enum"
    MESSAGES = "a repeated message"
    TEXTS = "a repeated string"
    MESSAGE = "a message, left out when None"
    FLAG = "a boolean without presence, written when true"
    OPTIONAL_FLAG = "a boolean with presence, written when not None"
    OPTIONAL = "another scalar with presence, written when not None"
    SCALAR = "another scalar without presence, left out at its default (proto3)"


class Kind(Enum):
    """What one item of a field is."""

    TABLE_CARD = "a TableCard (its message kept per table card)"
    AUDIENCE = "an Audience (its message kept per audience)"
    SLOT = "a message whose one field is `value`: one item, or None for nothing"
    LIST = "a message whose one field is a repeated `values`: a whole list (a frozenset sorted)"
    VALUE = "a nested value of a known engine class"
    MESSAGE = "a nested value whose class is found per value"
    ENUM = "an enum by name"
    TEXT = "a string, a card in notation, bytes in hex or an enum by value"
    INT64 = "a 64-bit integer"
    INT32 = "a 32-bit integer"
    BOOL = "a boolean"


@dataclass(frozen=True)
class Item:
    """One item of a field: its kind and what a writer of it needs."""

    kind: Kind
    desc: Any = None
    """The message descriptor of a message item, the enum descriptor of an enum."""
    engine_class: Any = None
    """The engine class of a ``VALUE`` item."""
    inner: Field | None = None
    """The one field of a ``SLOT`` or ``LIST`` wrapper message."""


@dataclass(frozen=True)
class Field:
    """One field of a message as an engine class fills it."""

    name: str
    number: int
    json_name: str
    shape: Shape
    item: Item


@cache
def plan(kind: Any, desc: Any, true: tuple[str, ...] = ()) -> tuple[Field, ...]:
    """The fields of message ``desc`` that values of ``kind`` fill (and the ``true`` ones), in number order."""
    hints = field_hints(kind)
    fields = []
    for name in (*kind.__match_args__, *true):
        fd = desc.fields_by_name.get(name)
        if fd is None:
            raise TypeError(f"{desc.full_name} has no field {name!r} for {kind!r}")
        fields.append(_field(fd, hints.get(name), always_set=name in true))
    return tuple(sorted(fields, key=lambda field: field.number))


def _field(fd: Any, hint: Any = None, *, always_set: bool = False) -> Field:
    item = Item(Kind.BOOL) if always_set else _item(fd, item_type(hint, fd))
    return Field(fd.name, fd.number, fd.json_name, _shape(fd, item.kind, always_set=always_set), item)


def _shape(fd: Any, kind: Kind, *, always_set: bool) -> Shape:
    if always_set:
        if fd.type != FieldDescriptor.TYPE_BOOL:
            raise TypeError(f"{fd.full_name} is not a boolean")
        return Shape.SET
    if fd.is_repeated:
        if fd.type == FieldDescriptor.TYPE_MESSAGE:
            return Shape.MESSAGES
        return Shape.TEXTS if kind is Kind.TEXT else Shape.PACKED
    if fd.type == FieldDescriptor.TYPE_MESSAGE:
        return Shape.MESSAGE
    if kind is Kind.BOOL:
        return Shape.OPTIONAL_FLAG if fd.has_presence else Shape.FLAG
    return Shape.OPTIONAL if fd.has_presence else Shape.SCALAR


_SCALARS = {
    FieldDescriptor.TYPE_ENUM: Kind.ENUM,
    FieldDescriptor.TYPE_STRING: Kind.TEXT,
    FieldDescriptor.TYPE_INT64: Kind.INT64,
    FieldDescriptor.TYPE_INT32: Kind.INT32,
    FieldDescriptor.TYPE_BOOL: Kind.BOOL,
}
_SPECIAL = {"mazziere.v1.TableCard": Kind.TABLE_CARD, "mazziere.v1.Audience": Kind.AUDIENCE}


def _item(fd: Any, engine_class: Any = None) -> Item:
    """One item of field ``fd``; ``engine_class``: a message item's class when the type hints tell it."""
    if fd.type == FieldDescriptor.TYPE_MESSAGE:
        return _message_item(fd.message_type, engine_class)
    kind = _SCALARS.get(fd.type)
    if kind is None:
        raise TypeError(f"{fd.full_name}: no writer for field type {fd.type}")
    return Item(kind, fd.enum_type if kind is Kind.ENUM else None)


def _message_item(desc: Any, engine_class: Any) -> Item:
    special = _SPECIAL.get(desc.full_name)
    if special is not None:
        return Item(special, desc)
    wrapper = _wrapper(desc)
    if wrapper is not None:
        return Item(wrapper, desc, inner=_field(desc.fields[0]))
    if engine_class is not None and engine_class not in (TableCard, Audience):
        return Item(Kind.VALUE, desc, engine_class)
    return Item(Kind.MESSAGE, desc)


def _wrapper(desc: Any) -> Kind | None:
    """``SLOT`` for a message whose one field is ``value``, ``LIST`` for one whose one field is a repeated
    ``values``; None for any other message."""
    if len(desc.fields) != 1:
        return None
    inner = desc.fields[0]
    return _WRAPPERS.get((inner.name, bool(inner.is_repeated)))


_WRAPPERS = {("value", False): Kind.SLOT, ("values", True): Kind.LIST}


def enum_writer(desc: Any, write_value: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """An engine enum member (or its text) to what ``write_value`` makes of the value of enum ``desc`` that has its
    name (the value's name without the enum's prefix): each member looked up once, then kept."""
    prefix = enum_prefix(desc.name)
    written = {v.name.removeprefix(prefix): write_value(v) for v in desc.values}
    by_member: dict[Any, Any] = {}

    def write_enum(item: Any) -> Any:
        try:
            return by_member[item]
        except KeyError:
            known = by_member[item] = written[str(item.value) if isinstance(item, Enum) else str(item)]
            return known

    return write_enum


def field_hints(kind: Any) -> dict[str, Any]:
    """The type hints of an engine class (empty where they cannot be read): what the writers follow."""
    try:
        return typing.get_type_hints(kind)
    except (NameError, TypeError):
        return {}


def item_type(hint: Any, fd: Any) -> Any:
    """The engine class of one item of a message field (``SeatView`` for ``tuple[SeatView, ...]``), if known."""
    if fd.type != FieldDescriptor.TYPE_MESSAGE or hint is None:
        return None
    while typing.get_args(hint):
        inner = [a for a in typing.get_args(hint) if a is not type(None) and a is not Ellipsis]
        if len(inner) != 1:
            return None
        hint = inner[0]
    return hint if hasattr(hint, "__match_args__") else None


# -- the generated code --------------------------------------------------------------------------------------------


class Sink(NamedTuple):
    """What a writer family writes: the generated function's first and last lines, the names its code uses, the
    code of each field (by shape, or by shape and item kind where that kind needs its own) with ``$i`` standing for
    the field's place, and the constants each field's code reads (its tag or key, its item writer)."""

    head: tuple[str, ...]
    tail: str
    env: Mapping[str, Any]
    code: Mapping[Shape | tuple[Shape, Kind], str]
    constants: Callable[[Field, int], dict[str, Any]]


def generate(fields: tuple[Field, ...], sink: Sink) -> Callable[[Any], Any]:
    """One function writing a value field after field as ``sink`` writes each: straight-line code, no loop."""
    env = dict(sink.env)
    lines = ["def write(v):", *(f"    {line}" for line in sink.head)]
    for i, field in enumerate(fields):
        env.update(sink.constants(field, i))
        if field.shape is not Shape.SET:
            lines.append(f"    x = v.{field.name}")
        code = sink.code.get((field.shape, field.item.kind)) or sink.code[field.shape]
        lines.append("    " + code.replace("$i", str(i)))
    lines.append(f"    {sink.tail}")
    exec("\n".join(lines), env)
    return env["write"]  # type: ignore[no-any-return]
