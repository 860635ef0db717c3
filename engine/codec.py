"""One lossless codec for every engine value: dataclasses, tuples, enums and cards to plain data and back.

``to_data`` gives JSON-ready values (cards in notation, enums by value, bytes in hex); ``from_data`` reads
them back against the type hints; :func:`state_to_bytes` is the canonical byte form of a table state, so
"same seed and same actions give the same bytes" is checkable with ``==``.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import operator
import types
import typing
from collections.abc import Callable
from enum import Enum
from functools import cache, lru_cache
from typing import Any

from engine.cards import Card
from engine.errors import Reason, Rejected
from engine.visibility import PUBLIC, Audience, TableCard


def to_data(value: Any) -> Any:
    """Plain data (dicts, lists, str, int, bool, None) for any engine value."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _encoder(type(value))(value)
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
    raise TypeError(f"cannot encode {type(value).__name__}")


def from_data(kind: Any, data: Any, where: str = "value") -> Any:
    """Read ``data`` as a value of type ``kind``; raise :class:`Rejected` (INVALID_STATE) if it does not fit."""
    try:
        return _decoder(kind)(data)
    except Rejected:
        raise
    except (TypeError, ValueError, KeyError, AttributeError):
        pass
    try:  # the slow reader says where the data went wrong
        return _read(kind, data, where)
    except Rejected:
        raise
    except (TypeError, ValueError, KeyError, AttributeError) as exc:
        raise Rejected(Reason.INVALID_STATE, f"{where}: {exc}") from None


# -- compiled codecs: one closure per type, built once from the type hints (the service's hot path) --------

Codec = Callable[[Any], Any]


def _identity(value: Any) -> Any:
    return value


@cache
def _encoder(kind: Any) -> Codec:
    origin = typing.get_origin(kind)
    if kind is Any:
        return to_data
    if kind in (int, str, bool):
        return _identity
    if kind is bytes:
        return bytes.hex
    if kind is Card:
        return str
    if kind is Audience:
        return _audience_text
    if kind is TableCard:
        return _table_card_text
    if isinstance(kind, type) and issubclass(kind, Enum):
        return operator.attrgetter("value")
    if origin in (types.UnionType, typing.Union):
        inner = _encoder(_optional_inner(kind))
        return lambda v: None if v is None else inner(v)
    if origin is tuple:
        args = typing.get_args(kind)
        if len(args) == 2 and args[1] is Ellipsis:
            item = _encoder(args[0])
            return list if item is _identity else lambda v: list(map(item, v))
        items = [_encoder(a) for a in args]
        return lambda v: [e(x) for e, x in zip(items, v, strict=True)]
    if origin is frozenset:
        item = _encoder(typing.get_args(kind)[0])
        return lambda v: sorted(map(item, v))
    if isinstance(kind, type) and dataclasses.is_dataclass(kind):
        env: dict[str, Any] = {}
        parts = []
        for i, (name, hint) in enumerate(_hints(kind).items()):
            enc = env[f"e{i}"] = _encoder(hint)
            parts.append(f"{name!r}: v.{name}" if enc is _identity else f"{name!r}: e{i}(v.{name})")
        return _compile(f"def encode(v):\n    return {{{', '.join(parts)}}}", env)
    raise TypeError(f"unsupported type {kind!r}")


def _compile(source: str, env: dict[str, Any]) -> Codec:
    """A function from generated source: one straight-line expression per dataclass, no loops over fields."""
    exec(source, env)
    return env.pop("encode" if "def encode" in source else "decode")  # type: ignore[no-any-return]


@cache
def _decoder(kind: Any) -> Codec:
    """A fast reader that assumes well-formed data and raises plain exceptions otherwise."""
    origin = typing.get_origin(kind)
    if kind is Any:
        return _identity
    if kind in (int, str, bool):
        return functools.partial(_exact, kind)
    if kind is bytes:
        return bytes.fromhex
    if kind is Card:
        return Card.parse
    if kind is Audience:
        return _read_audience
    if kind is TableCard:
        return _read_table_card
    if isinstance(kind, type) and issubclass(kind, Enum):
        return {m.value: m for m in kind}.__getitem__
    if origin in (types.UnionType, typing.Union):
        inner = _decoder(_optional_inner(kind))
        return lambda d: None if d is None else inner(d)
    if origin is tuple:
        args = typing.get_args(kind)
        if len(args) == 2 and args[1] is Ellipsis:
            item = _decoder(args[0])
            return lambda d: tuple(map(item, _exact(list, d)))
        items = [_decoder(a) for a in args]
        return lambda d: tuple(e(x) for e, x in zip(items, _exact(list, d), strict=True))
    if origin is frozenset:
        item = _decoder(typing.get_args(kind)[0])
        return lambda d: frozenset(map(item, _exact(list, d)))
    if isinstance(kind, type) and dataclasses.is_dataclass(kind):
        hints = _hints(kind)
        env: dict[str, Any] = {"cls": kind, "dict": dict, "known": frozenset(hints)}
        reads = []
        for i, f in enumerate(f for f in dataclasses.fields(kind) if f.init):
            env[f"d{i}"] = _decoder(hints[f.name])
            read = f"d{i}(d[{f.name!r}])"
            if f.default is not dataclasses.MISSING:  # absent fields take their defaults
                env[f"v{i}"] = f.default
                read = f"({read} if {f.name!r} in d else v{i})"
            elif f.default_factory is not dataclasses.MISSING:
                env[f"v{i}"] = f.default_factory
                read = f"({read} if {f.name!r} in d else v{i}())"
            reads.append(read)
        return _compile(
            "def decode(d):\n"
            "    if type(d) is not dict or not d.keys() <= known:\n"
            "        raise ValueError('unknown fields')\n"
            f"    return cls({', '.join(reads)})",
            env,
        )
    raise TypeError(f"unsupported type {kind!r}")


# Cards on the table are the bulk of a state: they travel as short strings, ``"3c@0"`` (seen by seat 0),
# ``"4b@*"`` (everyone), ``"Rd@"`` (nobody), ``"?@1,2"`` (redacted, seen by seats 1 and 2).


@lru_cache(maxsize=4096)
def _audience_text(audience: Audience) -> str:
    return "*" if audience.everyone else ",".join(map(str, sorted(audience.seats)))


def _table_card_text(tc: TableCard) -> str:
    return f"{tc.card or '?'}@{_audience_text(tc.seen_by)}"


@lru_cache(maxsize=4096)
def _read_audience(text: str) -> Audience:
    if text == "*":
        return PUBLIC
    return Audience(seats=frozenset(int(s) for s in text.split(",")) if text else frozenset())


def _read_table_card(text: str) -> TableCard:
    card, at, audience = _exact(str, text).partition("@")
    if not at:
        raise ValueError(f"{text!r} is not a table card")
    return TableCard(None if card == "?" else Card.parse(card), _read_audience(audience))


def _exact(kind: type, data: Any) -> Any:
    if type(data) is not kind:
        raise TypeError(f"expected {kind.__name__}")
    return data


def _optional_inner(kind: Any) -> Any:
    (inner,) = [o for o in typing.get_args(kind) if o is not type(None)]
    return inner


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
    if kind is Audience or kind is TableCard:
        return _decoder(kind)(_expect(data, str, where))
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
    """The fields' types, in declaration order (the order of the encoded keys and of the constructor)."""
    hints = typing.get_type_hints(cls)
    return {f.name: hints[f.name] for f in dataclasses.fields(cls) if f.init}


def to_json(value: Any) -> bytes:
    """Canonical JSON bytes: fields in declaration order, no spaces."""
    return json.dumps(to_data(value), separators=(",", ":")).encode()


def from_json(kind: Any, raw: bytes, where: str = "value") -> Any:
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise Rejected(Reason.INVALID_STATE, f"{where} is not JSON: {exc}") from None
    return from_data(kind, data, where)
