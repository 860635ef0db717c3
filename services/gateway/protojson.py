"""Canonical protobuf JSON in and out, the same bytes ``google.protobuf.json_format`` reads and writes.

Reading is ``json_format.Parse`` itself (its checks and messages are the contract's). Writing uses a printer
planned once per message descriptor: it walks ``ListFields()`` as ``json_format.MessageToDict`` does (camelCase
names, defaults omitted, 64-bit integers as strings, enums by name, bytes in base64) and hands well-known types
(``google.protobuf.Value``, ``Struct``, ``Any``, ...) to ``json_format`` itself. It is several times faster than
``json_format`` on the engine's answers; the tests compare the two on every message of whole games.
"""

from __future__ import annotations

import base64
import json
import math
from collections.abc import Callable
from typing import Any, TypeVar

from google.protobuf import json_format
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.internal import type_checkers
from google.protobuf.message import Message

M = TypeVar("M", bound=Message)
Convert = Callable[[Any], Any]

_INT64 = frozenset(
    {
        FieldDescriptor.TYPE_INT64,
        FieldDescriptor.TYPE_UINT64,
        FieldDescriptor.TYPE_SINT64,
        FieldDescriptor.TYPE_FIXED64,
        FieldDescriptor.TYPE_SFIXED64,
    }
)
_WELL_KNOWN_PREFIX = "google.protobuf."


class JsonError(ValueError):
    """A body that is not the canonical JSON of the expected message."""


def parse(body: bytes, cls: type[M]) -> M:
    """The message ``cls`` read from ``body`` (an empty body is the empty message); unknown fields refused."""
    msg = cls()
    if not body.strip():
        return msg
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise JsonError(f"the body is not UTF-8: {exc.reason} at byte {exc.start}") from None
    try:
        json_format.Parse(text, msg, ignore_unknown_fields=False, max_recursion_depth=32)
    except json_format.ParseError as exc:
        raise JsonError(str(exc)) from None
    except (ValueError, TypeError, RecursionError) as exc:  # defensive: json_format lets a few slip through
        raise JsonError(f"invalid {cls.DESCRIPTOR.full_name}: {exc}") from None
    return msg


def to_dict(msg: Message) -> dict[str, Any]:
    """What ``json_format.MessageToDict(msg)`` returns, with default options."""
    return _printer(msg.DESCRIPTOR)(msg)  # type: ignore[no-any-return]


def to_json(msg: Message) -> bytes:
    """The compact UTF-8 JSON of ``msg``."""
    return json.dumps(_printer(msg.DESCRIPTOR)(msg), ensure_ascii=False, separators=(",", ":")).encode()


_PRINTERS: dict[str, Convert] = {}


def _printer(desc: Any) -> Convert:
    printer = _PRINTERS.get(desc.full_name)
    if printer is None:
        printer = _PRINTERS[desc.full_name] = _plan_message(desc)
    return printer


def _plan_message(desc: Any) -> Convert:
    if desc.full_name.startswith(_WELL_KNOWN_PREFIX):
        return lambda msg: json_format.MessageToDict(msg)
    plan: dict[Any, tuple[str, Convert | None]] = {}  # planned on first sight, so recursive types are fine

    def print_message(msg: Any) -> dict[str, Any]:
        out = {}
        for fd, value in msg.ListFields():
            entry = plan.get(fd)
            if entry is None:
                entry = plan[fd] = (fd.json_name, _plan_field(fd))
            name, convert = entry
            out[name] = value if convert is None else convert(value)
        return out

    return print_message


def _plan_field(fd: Any) -> Convert | None:
    if fd.message_type is not None and fd.message_type.GetOptions().map_entry:
        key_fd = fd.message_type.fields_by_name["key"]
        value = _plan_scalar(fd.message_type.fields_by_name["value"]) or _identity
        if key_fd.type == FieldDescriptor.TYPE_BOOL:
            return lambda m: {("true" if k else "false"): value(v) for k, v in m.items()}
        return lambda m: {str(k): value(v) for k, v in m.items()}
    item = _plan_scalar(fd)
    if fd.is_repeated:
        return list if item is None else lambda values: [item(v) for v in values]
    return item


def _plan_scalar(fd: Any) -> Convert | None:
    """How one (non-repeated) value of ``fd`` prints; None when it prints as it is."""
    if fd.type == FieldDescriptor.TYPE_MESSAGE:
        return _printer(fd.message_type)
    if fd.type == FieldDescriptor.TYPE_ENUM:
        if fd.enum_type.full_name == "google.protobuf.NullValue":
            return lambda v: None
        names = {v.number: v.name for v in fd.enum_type.values}
        return lambda v: names.get(v, v)
    if fd.type in _INT64:
        return str
    if fd.type == FieldDescriptor.TYPE_BYTES:
        return lambda v: base64.b64encode(v).decode("ascii")
    if fd.type == FieldDescriptor.TYPE_FLOAT:
        return _float32
    if fd.type == FieldDescriptor.TYPE_DOUBLE:
        return _double
    return None


def _identity(v: Any) -> Any:
    return v


def _double(v: float) -> Any:
    """json_format's rule: NaN and the infinities as strings."""
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "Infinity" if v > 0 else "-Infinity"
    return v


def _float32(v: float) -> Any:
    """json_format's rule for float32: the shortest decimal that reads back as the same float."""
    special = _double(v)
    return special if isinstance(special, str) else type_checkers.ToShortestFloat(v)
