"""Engine values straight to protobuf wire bytes: one generated writer per (value class, message) pair.

The answer to every ``Act`` carries the actor's update: the redacted view, the events and the legal actions.
Building them as protobuf message objects field by field costs about a hundred microseconds; writing their
bytes with straight-line code, with the bytes of every table card and audience made once and kept, costs a
fraction of that. The mapping is the one of :mod:`services.codec` (field by name, enums by name, cards in
notation, ``None`` leaves a field out, the ``value`` and ``values`` wrapper messages), which stays the
reference: tests parse what this module writes and compare it with what :func:`services.codec.to_proto` builds.
"""

from __future__ import annotations

import typing
from collections.abc import Callable
from enum import Enum
from functools import cache
from typing import Any

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message_factory import GetMessageClass

from mazziere.engine.cards import Card
from mazziere.engine.visibility import Audience, TableCard
from mazziere.services.wire.codec import enum_prefix

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

    Each field gets the straight-line code its proto type and engine type call for: constant bytes for enums
    and booleans, small varints and lengths from a table, nested values by their own writers. ``true`` names
    boolean fields of ``desc`` that ``kind`` does not hold, written set in their place (an event's ``auto``).
    """
    names = (*kind.__match_args__, *true)
    hints = field_hints(kind)
    fields = sorted((desc.fields_by_name[name] for name in names), key=lambda fd: fd.number)
    env: dict[str, Any] = {"varint": varint, "join": b"".join, "S": _SMALL, "len": len}
    lines = ["def write(v):", "    out = []", "    add = out.append"]
    for i, fd in enumerate(fields):
        t = tag(fd.number, _LEN if _is_length_delimited(fd) else _VARINT)
        env[f"t{i}"] = t
        if fd.name in true:
            if fd.type != FieldDescriptor.TYPE_BOOL:
                raise TypeError(f"{desc.full_name}.{fd.name} is not a boolean")
            env[f"t{i}"] = t + b"\x01"
            lines.append(f"    add(t{i})")
            continue
        env[f"w{i}"] = _item_writer(fd, item_type(hints.get(fd.name), fd))
        size = "(S[n] if n < 128 else varint(n))"
        lines.append(f"    x = v.{fd.name}")
        if fd.is_repeated and fd.type in _PACKABLE:  # packed: one length-delimited run of varints
            item = f"(S[y] if 0 <= y < 128 else w{i}(y))" if fd.type != FieldDescriptor.TYPE_ENUM else f"w{i}(y)"
            lines.append(f"    if x: b = join([{item} for y in x]); n = len(b); add(t{i} + {size} + b)")
        elif fd.is_repeated and fd.type == FieldDescriptor.TYPE_MESSAGE:
            lines.append(f"    for y in x: b = w{i}(y); n = len(b); add(t{i} + {size} + b)")
        elif fd.is_repeated:  # strings: the item writer gives the length and the text
            lines.append(f"    for y in x: add(t{i} + w{i}(y))")
        elif fd.type == FieldDescriptor.TYPE_MESSAGE:
            lines.append(f"    if x is not None: b = w{i}(x); n = len(b); add(t{i} + {size} + b)")
        elif fd.type == FieldDescriptor.TYPE_BOOL:
            env[f"t{i}"] = t + b"\x01"
            lines.append(
                f"    if x: add(t{i})" if not fd.has_presence else f"    if x is not None: add(t{i}[:-1] + S[x])"
            )
        elif fd.has_presence:
            lines.append(f"    if x is not None: add(t{i} + w{i}(x))")
        else:  # proto3: a scalar at its default value is left out
            lines.append(f"    if x: add(t{i} + w{i}(x))")
    lines.append("    return join(out)")
    exec("\n".join(lines), env)
    return env["write"]  # type: ignore[no-any-return]


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


_PACKABLE = frozenset(
    {FieldDescriptor.TYPE_INT32, FieldDescriptor.TYPE_INT64, FieldDescriptor.TYPE_BOOL, FieldDescriptor.TYPE_ENUM}
)


def _is_length_delimited(fd: Any) -> bool:
    return bool(
        fd.type in (FieldDescriptor.TYPE_STRING, FieldDescriptor.TYPE_BYTES, FieldDescriptor.TYPE_MESSAGE)
        or (fd.is_repeated and fd.type in _PACKABLE)
    )


def _item_writer(fd: Any, kind: Any = None) -> Writer:
    """The bytes of one item of field ``fd``: a varint, a string's length and text, or a message's body.

    ``kind`` is the engine class of a message item when the type hints tell it (else found per value)."""
    if fd.type == FieldDescriptor.TYPE_MESSAGE:
        desc = fd.message_type
        if desc.full_name == "mazziere.v1.TableCard":
            return table_card_bytes
        if desc.full_name == "mazziere.v1.Audience":
            return audience_bytes
        inner = desc.fields[0] if len(desc.fields) == 1 else None
        if inner is not None and inner.name == "value" and not inner.is_repeated:  # a slot: may hold nothing
            item = _item_writer(inner)
            inner_tag = tag(inner.number, _LEN)
            return lambda x: b"" if x is None else length_delimited(inner_tag, item(x))
        if inner is not None and inner.name == "values" and inner.is_repeated:  # a whole list as one message
            item = _item_writer(inner)
            inner_tag = tag(inner.number, _LEN)
            return lambda x: b"".join(
                length_delimited(inner_tag, item(y)) for y in (sorted(x) if type(x) is frozenset else x)
            )
        if kind is not None and kind not in (TableCard, Audience):
            return writer(kind, desc)
        return lambda x: write(x, GetMessageClass(desc))
    if fd.type == FieldDescriptor.TYPE_ENUM:
        return _enum_writer(fd.enum_type)
    if fd.type == FieldDescriptor.TYPE_STRING:
        return _text_bytes
    return varint


def _enum_writer(desc: Any) -> Writer:
    prefix = enum_prefix(desc.name)
    numbers = {v.name.removeprefix(prefix): varint(v.number) for v in desc.values}
    by_member: dict[Any, bytes] = {}

    def write_enum(item: Any) -> bytes:
        known = by_member.get(item)
        if known is None:
            known = by_member[item] = numbers[str(item.value) if isinstance(item, Enum) else str(item)]
        return known

    return write_enum


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


_KEPT = 1 << 14
_AUDIENCES: dict[int, bytes] = {}
_TABLE_CARDS: dict[int, bytes] = {}
