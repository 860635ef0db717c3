"""Canonical protobuf JSON in and out, the same bytes ``google.protobuf.json_format`` reads and writes.

Reading takes a fast path for the plain shapes every client sends (names, numbers, decimal strings for 64-bit
integers, base64 bytes, enum names, nested objects and lists): a reader planned once per message descriptor
fills the message from the parsed JSON. Anything else (an unknown or repeated field, ``null``, a number written as
a float, an enum by number, URL-safe base64, ...) goes to ``json_format.Parse`` itself, so its checks and error
messages stay the contract's, and whatever the fast path accepts it reads as ``json_format`` does. One check
comes before both: the body must be a JSON object (``json_format`` reads ``[]`` and ``""`` as the empty message).

Whatever the body, :func:`parse` returns a message or raises :class:`JsonError`, whose message is bounded and
always encodable as UTF-8 (it may quote the caller's text, lone surrogates included).

Writing uses a printer planned once per message descriptor: it walks ``ListFields()`` as
``json_format.MessageToDict`` does (camelCase names, defaults omitted, 64-bit integers as strings, enums by name,
bytes in base64) and hands well-known types (``google.protobuf.Value``, ``Struct``, ``Any``, ...) to
``json_format`` itself; msgspec writes the JSON text. It is several times faster than ``json_format``; the tests
compare the two, byte for byte, on every answer of whole games. It prints the messages a handler builds (ListGames,
Advise, the host's) and those a channel parsed; the answers that carry the table, written from the engine's values
(:class:`~mazziere.services.wire.answers.Written`), come with their own JSON (:mod:`services.wire.jsondata`: one pass,
no message), which :func:`to_json` takes as it is.
"""

from __future__ import annotations

import base64
import json
import math
import re
from collections.abc import Callable
from functools import cache
from typing import Any, TypeVar

import msgspec
from google.protobuf import json_format
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.internal import type_checkers
from google.protobuf.message import Message

from mazziere.services.wire.answers import Written

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


MAX_ERROR = 1000
"""The longest error message, in characters: json_format's messages quote the caller's values."""


class JsonError(ValueError):
    """A body that is not the canonical JSON of the expected message."""

    def __init__(self, message: str) -> None:
        # A lone surrogate (the JSON escape \ud800) written as an escape, so the message encodes as UTF-8.
        message = message.encode("utf-8", "backslashreplace").decode("utf-8")
        super().__init__(message if len(message) <= MAX_ERROR else message[: MAX_ERROR - 1] + "…")


_KINDS = {list: "an array", str: "a string", int: "a number", float: "a number", bool: "a boolean"}


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
        data = json.loads(text, object_pairs_hook=_unique_keys)
    except (ValueError, RecursionError):
        pass  # json_format says what is wrong, in its own words
    else:
        if type(data) is not dict:
            kind = _KINDS.get(type(data), "null")
            raise JsonError(f"the body must be a JSON object (a {cls.DESCRIPTOR.full_name}), not {kind}")
        try:
            if _reader(cls.DESCRIPTOR)(data, msg, 0):
                return msg
        except ValueError:  # a value the message refuses (a lone surrogate in a string): json_format names it
            pass
    msg = cls()
    try:
        json_format.Parse(text, msg, ignore_unknown_fields=False, max_recursion_depth=32)
    except json_format.ParseError as exc:
        raise JsonError(str(exc)) from None
    except Exception as exc:  # defensive: json_format wraps what it raises, but a hostile body must never escape
        raise JsonError(f"invalid {cls.DESCRIPTOR.full_name}: {exc}") from None
    return msg


# -- the fast reader --------------------------------------------------------------------------------------------

Reader = Callable[[dict[str, Any], Any, int], bool]
"""Fills a message from a JSON object; False (the message then half-filled: thrown away) for any other shape."""

_MAX_DEPTH = 32
_INT_RANGES = {
    FieldDescriptor.TYPE_INT32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_INT64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_UINT32: (0, 2**32 - 1),
    FieldDescriptor.TYPE_UINT64: (0, 2**64 - 1),
}
_NOT_PLAIN = object()
_DECIMAL = re.compile(r"-?[0-9]{1,20}")
"""A 64-bit integer as a plain decimal string (20 digits hold 2**64 - 1); any other string goes to json_format."""


class _DuplicateKey(ValueError):
    pass


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        raise _DuplicateKey("a key appears twice")  # json_format refuses it, with its own message
    return out


@cache
def _reader(desc: Any) -> Reader:
    fields: dict[str, Any] = {}
    for fd in desc.fields:
        fields[fd.json_name] = fields[fd.name] = fd
    plain = not desc.full_name.startswith(_WELL_KNOWN_PREFIX) and not any(
        fd.message_type is not None and fd.message_type.GetOptions().map_entry for fd in desc.fields
    )

    def read(data: dict[str, Any], msg: Any, depth: int) -> bool:
        if not plain or depth > _MAX_DEPTH:
            return False
        seen: set[Any] = set()
        for key, value in data.items():
            fd = fields.get(key)
            if fd is None or fd in seen or value is None:
                return False
            seen.add(fd)
            if fd.containing_oneof is not None and msg.WhichOneof(fd.containing_oneof.name) is not None:
                return False
            if fd.is_repeated:
                if type(value) is not list:
                    return False
                target = getattr(msg, fd.name)
                for item in value:
                    if fd.message_type is not None:
                        if type(item) is not dict or not _reader(fd.message_type)(item, target.add(), depth + 1):
                            return False
                    else:
                        scalar = _plain_scalar(fd, item)
                        if scalar is _NOT_PLAIN:
                            return False
                        target.append(scalar)
            elif fd.message_type is not None:
                if type(value) is not dict:
                    return False
                sub = getattr(msg, fd.name)
                sub.SetInParent()
                if not _reader(fd.message_type)(value, sub, depth + 1):
                    return False
            else:
                scalar = _plain_scalar(fd, value)
                if scalar is _NOT_PLAIN:
                    return False
                setattr(msg, fd.name, scalar)
        return True

    return read


def _plain_scalar(fd: Any, value: Any) -> Any:
    """The field's value for a JSON value in one of the plain shapes, else ``_NOT_PLAIN``."""
    kind = fd.type
    if kind in _INT_RANGES:
        return _plain_int(kind, value)
    if kind == FieldDescriptor.TYPE_STRING:
        return value if type(value) is str else _NOT_PLAIN
    if kind == FieldDescriptor.TYPE_BOOL:
        return value if type(value) is bool else _NOT_PLAIN
    if kind == FieldDescriptor.TYPE_BYTES:
        return _plain_bytes(value)
    if kind == FieldDescriptor.TYPE_ENUM and type(value) is str:
        number = fd.enum_type.values_by_name.get(value)
        return _NOT_PLAIN if number is None else number.number
    return _NOT_PLAIN


def _plain_int(kind: int, value: Any) -> Any:
    """An integer in range: a JSON number, or a decimal string (as 64-bit integers are written)."""
    if type(value) is str and _DECIMAL.fullmatch(value):
        value = int(value)
    elif type(value) is not int:
        return _NOT_PLAIN
    low, high = _INT_RANGES[kind]
    return value if low <= value <= high else _NOT_PLAIN


def _plain_bytes(value: Any) -> Any:
    """Standard padded base64 (anything else goes to ``json_format``, which reads the other spellings)."""
    if type(value) is not str or len(value) % 4:
        return _NOT_PLAIN
    try:
        return base64.b64decode(value, validate=True)
    except ValueError:
        return _NOT_PLAIN


# -- the printer --------------------------------------------------------------------------------------------------


def to_dict(msg: Message) -> dict[str, Any]:
    """What ``json_format.MessageToDict(msg)`` returns, with default options."""
    return _printer(msg.DESCRIPTOR)(msg)  # type: ignore[no-any-return]


def to_json(msg: Message | Written[Any]) -> bytes:
    """The compact UTF-8 JSON of ``msg``: a message, or an answer written from the engine's values, whose JSON is
    written in one pass (:meth:`~mazziere.services.wire.answers.Written.json`: the same bytes).

    msgspec writes it (in C, the same bytes as ``json.dumps(..., ensure_ascii=False)`` for strings, integers and
    booleans); a message that may hold floats (well-known types such as ``google.protobuf.Value``) goes through
    ``json.dumps``, whose float spelling (``1e+300``) is the one ``json_format`` gives.
    """
    if isinstance(msg, Written):
        return msg.json()
    data = _printer(msg.DESCRIPTOR)(msg)
    if _holds_well_known(msg.DESCRIPTOR):
        return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode()
    return msgspec.json.encode(data)


@cache
def _holds_well_known(desc: Any, seen: frozenset[str] = frozenset()) -> bool:
    """True if a message of ``desc`` may hold a well-known type (or a float) anywhere inside."""
    if desc.full_name.startswith(_WELL_KNOWN_PREFIX):
        return True
    for fd in desc.fields:
        if fd.type in (FieldDescriptor.TYPE_FLOAT, FieldDescriptor.TYPE_DOUBLE):
            return True
        inner = fd.message_type
        if inner is not None and inner.full_name not in seen and _holds_well_known(inner, seen | {desc.full_name}):
            return True
    return False


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
