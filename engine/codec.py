"""One lossless codec for every engine value: dataclasses, tuples, enums and cards to plain data and back.

``to_data`` gives JSON-ready values (cards in notation, enums by value, bytes in hex); ``from_data`` reads
them back against the type hints; :func:`state_to_bytes` is the canonical byte form of a table state, so
"same seed and same actions give the same bytes" is checkable with ``==``.
"""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from enum import Enum
from functools import cache
from typing import Any

from engine.cards import Card
from engine.errors import Reason, Rejected


def to_data(value: Any) -> Any:
    """Plain data (dicts, lists, str, int, bool, None) for any engine value."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, Card):
        return str(value)
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, tuple):
        return [to_data(v) for v in value]
    if isinstance(value, frozenset):
        return sorted(to_data(v) for v in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_data(getattr(value, f.name)) for f in dataclasses.fields(value)}
    raise TypeError(f"cannot encode {type(value).__name__}")


def from_data(kind: Any, data: Any, where: str = "value") -> Any:
    """Read ``data`` as a value of type ``kind``; raise :class:`Rejected` (INVALID_STATE) if it does not fit."""
    try:
        return _read(kind, data, where)
    except Rejected:
        raise
    except (TypeError, ValueError, KeyError, AttributeError) as exc:
        raise Rejected(Reason.INVALID_STATE, f"{where}: {exc}") from None


def _read(kind: Any, data: Any, where: str) -> Any:
    origin = typing.get_origin(kind)
    if kind is Any:
        return data
    if origin in (types.UnionType, typing.Union):
        options = typing.get_args(kind)
        if data is None and type(None) in options:
            return None
        (inner,) = [o for o in options if o is not type(None)]
        return _read(inner, data, where)
    if origin is tuple:
        args = typing.get_args(kind)
        _expect(data, list, where)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_read(args[0], v, f"{where}[{i}]") for i, v in enumerate(data))
        if len(args) != len(data):
            raise ValueError(f"expected {len(args)} items, got {len(data)}")
        return tuple(_read(a, v, f"{where}[{i}]") for i, (a, v) in enumerate(zip(args, data, strict=True)))
    if origin is frozenset:
        _expect(data, list, where)
        return frozenset(_read(typing.get_args(kind)[0], v, where) for v in data)
    if kind is bool:
        return _expect(data, bool, where)
    if kind is int:
        if isinstance(data, bool):
            raise TypeError("expected an integer, got a boolean")
        return _expect(data, int, where)
    if kind is str:
        return _expect(data, str, where)
    if kind is bytes:
        return bytes.fromhex(_expect(data, str, where))
    if kind is Card:
        return Card.parse(_expect(data, str, where))
    if isinstance(kind, type) and issubclass(kind, Enum):
        return kind(data)
    if isinstance(kind, type) and dataclasses.is_dataclass(kind):
        _expect(data, dict, where)
        hints = _hints(kind)
        unknown = set(data) - set(hints)
        if unknown:
            raise ValueError(f"unknown field(s) {sorted(unknown)}")
        return kind(**{name: _read(hints[name], data[name], f"{where}.{name}") for name in hints if name in data})
    raise TypeError(f"unsupported type {kind!r}")


def _expect(data: Any, kind: type, where: str) -> Any:
    if not isinstance(data, kind):
        raise TypeError(f"expected {kind.__name__}, got {type(data).__name__}")
    return data


@cache
def _hints(cls: type) -> dict[str, Any]:
    names = {f.name for f in dataclasses.fields(cls)}
    return {k: v for k, v in typing.get_type_hints(cls).items() if k in names}


def to_json(value: Any) -> bytes:
    """Canonical JSON bytes: sorted keys, no spaces."""
    return json.dumps(to_data(value), sort_keys=True, separators=(",", ":")).encode()


def from_json(kind: Any, raw: bytes, where: str = "value") -> Any:
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise Rejected(Reason.INVALID_STATE, f"{where} is not JSON: {exc}") from None
    return from_data(kind, data, where)
