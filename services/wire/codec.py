"""One generic codec between engine values and protobuf messages, by field name.

Engine to proto (:func:`to_proto`): every field of an engine value (or rule profile) goes to the proto field of
the same name.
The proto field's type says how: a message field takes a nested value; an enum field takes an engine enum
(proto value name = the enum's UPPER_SNAKE name + ``_`` + the engine value); a string field takes a string, a
card (in notation) or an enum (by value); ``None`` leaves an optional field absent; tuples and frozensets
(sorted) fill repeated fields. Two wrapper shapes give presence where proto3 has none:

* a message whose only field is ``value`` holds one item that may be ``None`` (e.g. ``TableCardSlot``);
* a message whose only field is a repeated ``values`` holds a whole list (an option that is a list).

Proto to engine (:func:`to_plain`): a message becomes the engine's plain data (as :func:`engine.codec.to_data`
writes it), which :func:`engine.codec.from_data` and :func:`engine.rules.with_options` read. So adding a game is
adding its messages; nothing here knows any game.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from enum import Enum
from functools import cache
from typing import Any, TypeVar

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass

M = TypeVar("M", bound=Message)
Converter = Callable[[Any], Any]


def to_proto(value: Any, cls: type[M]) -> M:
    """The message ``cls`` holding the engine value ``value``."""
    kind: Any = type(value)
    message: Any = cls
    return _compiled(kind, message)(value)  # type: ignore[no-any-return]


@cache
def _compiled(kind: Any, cls: Any) -> Converter:
    """One generated function per (value class, message) pair: straight-line code, no loop over fields."""
    env: dict[str, Any] = {"cls": cls, "frozenset": frozenset, "sorted": sorted}
    lines = ["def convert(v):", "    kw = {}"]
    for i, (name, convert, repeated) in enumerate(_plan(kind, cls.DESCRIPTOR)):
        env[f"c{i}"] = convert
        lines.append(f"    x = v.{name}")
        if repeated:
            lines.append(f"    if x: kw[{name!r}] = [c{i}(y) for y in (sorted(x) if type(x) is frozenset else x)]")
        else:
            lines.append(f"    if x is not None: kw[{name!r}] = {'x' if convert is _same else f'c{i}(x)'}")
    lines.append("    return cls(**kw)")
    exec("\n".join(lines), env)
    return env["convert"]  # type: ignore[no-any-return]


def to_plain(msg: Message, *, presence_only: bool = False) -> dict[str, Any]:
    """The engine's plain data for ``msg``.

    Fields with presence (messages, ``optional`` scalars) are included only when set; other fields always,
    unless ``presence_only`` (then only set fields appear: the shape of option overrides). An enum set to its
    ``_UNSPECIFIED`` value counts as absent.
    """
    out: dict[str, Any] = {}
    for fd in msg.DESCRIPTOR.fields:
        if _is_repeated(fd):
            values = getattr(msg, fd.name)
            if presence_only and not values:
                continue
            out[fd.name] = [_plain_value(fd, v) for v in values]
            continue
        if fd.has_presence:
            if not msg.HasField(fd.name):
                continue
        elif presence_only:
            continue
        value = _plain_value(fd, getattr(msg, fd.name))
        if value is _ABSENT:
            continue
        out[fd.name] = value
    return out


_ABSENT = object()


def _plain_value(fd: Any, value: Any) -> Any:
    if fd.type == FieldDescriptor.TYPE_ENUM:
        if value == 0:
            return _ABSENT
        # proto3 enums are open: an unknown number reaches the engine as is, which refuses it with a typed error
        return _enum_names(fd.enum_type).get(value, value)
    if fd.type == FieldDescriptor.TYPE_MESSAGE:
        desc = fd.message_type
        if _is_list_wrapper(desc):
            inner = desc.fields[0]
            return [_plain_value(inner, v) for v in value.values]
        if _is_slot(desc):
            return _plain_value(desc.fields[0], value.value) if value.HasField("value") else None
        return to_plain(value)
    return value


# -- plans ---------------------------------------------------------------------------------------------


@cache
def _plan(kind: Any, desc: Any) -> tuple[tuple[str, Converter, bool], ...]:
    names = getattr(kind, "__match_args__", None)  # the fields of values, rule profiles, table cards, audiences
    if names is None:
        raise TypeError(f"{kind!r} is not an engine value; {desc.full_name} needs one")
    plan = []
    for name in names:
        fd = desc.fields_by_name.get(name)
        if fd is None:
            raise TypeError(f"{desc.full_name} has no field {name!r} for {kind!r}.{name}")
        plan.append((name, _converter(fd), _is_repeated(fd)))
    return tuple(plan)


def _converter(fd: Any) -> Converter:
    if fd.type == FieldDescriptor.TYPE_MESSAGE:
        desc = fd.message_type
        cls = GetMessageClass(desc)
        if _is_slot(desc):
            inner = _converter(desc.fields[0])
            return lambda item: cls() if item is None else cls(value=inner(item))
        if _is_list_wrapper(desc):
            inner = _converter(desc.fields[0])
            return lambda item: cls(values=[inner(x) for x in (sorted(item) if isinstance(item, frozenset) else item)])
        message: Any = cls
        return lambda item: to_proto(item, message)
    if fd.type == FieldDescriptor.TYPE_ENUM:
        numbers = {name: number for number, name in _enum_names(fd.enum_type).items()}
        return lambda item: numbers[_text(item)]
    if fd.type == FieldDescriptor.TYPE_STRING:
        return _text
    return _same


def _same(item: Any) -> Any:
    return item


def _text(item: Any) -> str:
    if type(item) is bytes:  # entropy: hex on the wire
        return item.hex()
    if isinstance(item, Enum):
        return str(item.value)
    return str(item)


@cache
def _enum_names(desc: Any) -> dict[int, str]:
    """Proto enum numbers to the engine's names (the value name without the enum's prefix)."""
    prefix = enum_prefix(desc.name)
    return {v.number: v.name.removeprefix(prefix) for v in desc.values if v.number != 0}


def enum_prefix(enum_name: str) -> str:
    """``SaltacavalloPhase`` -> ``SALTACAVALLO_PHASE_`` (buf's ENUM_VALUE_PREFIX)."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", enum_name).upper() + "_"


def _is_repeated(fd: Any) -> bool:
    return bool(fd.is_repeated)


def _is_slot(desc: Any) -> bool:
    return len(desc.fields) == 1 and desc.fields[0].name == "value" and not _is_repeated(desc.fields[0])


def _is_list_wrapper(desc: Any) -> bool:
    return len(desc.fields) == 1 and desc.fields[0].name == "values" and _is_repeated(desc.fields[0])
