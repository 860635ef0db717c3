"""Engine values as plain data and back: values, rule profiles, tuples, enums and cards.

``to_data`` gives JSON-ready values (cards in notation, enums by value, bytes in hex), for option overrides,
listings and tests; ``from_data`` reads them back against the type hints, naming the path of a misfit. The
state's byte form is :mod:`engine.wire`.
"""

from __future__ import annotations

import dataclasses
import functools
import operator
import types
import typing
from collections.abc import Callable
from enum import Enum
from functools import cache
from typing import Any

import msgspec

from mazziere.engine.cards import Card
from mazziere.engine.errors import Reason, Rejected
from mazziere.engine.values import field_names, is_value
from mazziere.engine.visibility import PUBLIC, Audience, TableCard


def to_data(value: Any) -> Any:
    """Plain data (dicts, lists, str, int, bool, None) for any engine value."""
    kind: Any = type(value)
    if is_record(kind):
        return _encoder(kind)(value)
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
    except _MISFITS as exc:
        bad = _Misfit.at("", exc)
        raise Rejected(bad.reason, f"{where}{bad.path}: {bad.problem}") from None


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
    if is_record(kind):
        env: dict[str, Any] = {}
        parts = []
        for i, (name, hint) in enumerate(_hints(kind).items()):
            enc = env[f"e{i}"] = _encoder(hint)
            parts.append(f"{name!r}: v.{name}" if enc is _identity else f"{name!r}: e{i}(v.{name})")
        return _compile(f"def fn(v):\n    return {{{', '.join(parts)}}}", env)
    raise TypeError(f"unsupported type {kind!r}")


def _compile(source: str, env: dict[str, Any]) -> Codec:
    """The function ``fn`` of generated source: one straight-line expression per class, no loop over fields."""
    exec(source, env)
    return env.pop("fn")  # type: ignore[no-any-return]


@cache
def _decoder(kind: Any) -> Codec:
    """A reader compiled for ``kind``. It checks every value; on a misfit it raises :class:`_Misfit` (or a
    plain exception that :meth:`_Misfit.at` describes), saying where. ``try`` costs nothing until it raises."""
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
        return functools.partial(_read_enum, {m.value: m for m in kind})
    if origin in (types.UnionType, typing.Union):
        inner = _decoder(_optional_inner(kind))
        return lambda d: None if d is None else inner(d)
    if origin is tuple:
        args = typing.get_args(kind)
        if len(args) == 2 and args[1] is Ellipsis:
            return functools.partial(_read_items, tuple, _decoder(args[0]))
        return functools.partial(_read_fixed, tuple(_decoder(a) for a in args))
    if origin is frozenset:
        return functools.partial(_read_items, frozenset, _decoder(typing.get_args(kind)[0]))
    if is_record(kind):
        hints = _hints(kind)
        defaults = _defaults(kind)
        decoders = {name: _decoder(hint) for name, hint in hints.items()}
        env: dict[str, Any] = {"cls": kind, "dict": dict, "known": frozenset(hints), "misfit": _Misfit.in_object}
        env["fields"] = [(name, name not in defaults, decoders[name]) for name in hints]
        reads = []
        for i, name in enumerate(hints):
            env[f"d{i}"] = decoders[name]
            read = f"d{i}(d[{name!r}])"
            if name in defaults:  # absent fields take their defaults
                env[f"v{i}"] = defaults[name]
                read = f"({read} if {name!r} in d else v{i}())"
            reads.append(read)
        return _compile(
            "def fn(d):\n"
            "    if type(d) is not dict or not d.keys() <= known:\n"
            "        raise misfit(d, known, fields)\n"
            "    try:\n"
            f"        return cls({', '.join(reads)})\n"
            "    except MISFITS:\n"
            "        raise misfit(d, known, fields) from None",
            {**env, "MISFITS": _MISFITS},
        )
    raise TypeError(f"unsupported type {kind!r}")


# As plain data a table card is a short string, ``"3c@0"`` (seen by seat 0), ``"4b@*"`` (everyone), ``"Rd@"``
# (nobody), ``"?@1,2"`` (redacted, seen by seats 1 and 2).


def _audience_text(audience: Audience) -> str:
    return "*" if audience.everyone else ",".join(map(str, sorted(audience.seats)))


def _table_card_text(tc: TableCard) -> str:
    return f"{tc.card or '?'}@{_audience_text(tc.seen_by)}"


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
        raise _Misfit("", f"expected {kind.__name__}, got {type(data).__name__}")
    return data


def _optional_inner(kind: Any) -> Any:
    (inner,) = [o for o in typing.get_args(kind) if o is not type(None)]
    return inner


class _Misfit(ValueError):
    """Data that does not fit its type, with the path to it (``.hands[2].cards[0]``)."""

    def __init__(self, path: str, problem: str, reason: Reason = Reason.INVALID_STATE) -> None:
        super().__init__(f"{path}: {problem}")
        self.path = path
        self.problem = problem
        self.reason = reason
        """INVALID_STATE, or the reason of a refusal met inside (e.g. INVALID_CARD)."""

    @staticmethod
    def at(step: str, exc: Exception) -> _Misfit:
        if isinstance(exc, _Misfit):
            return _Misfit(step + exc.path, exc.problem, exc.reason)
        if isinstance(exc, Rejected):
            return _Misfit(step, exc.message, exc.reason)
        return _Misfit(step, str(exc))

    @staticmethod
    def in_object(d: Any, known: frozenset[str], fields: list[tuple[str, bool, Codec]]) -> _Misfit:
        """Which field of ``d`` is wrong (run only once decoding has failed)."""
        if type(d) is not dict:
            return _Misfit("", f"expected an object, got {type(d).__name__}")
        if unknown := d.keys() - known:
            return _Misfit("", f"unknown field(s) {sorted(unknown)}")
        for name, required, decode in fields:
            if name not in d:
                if required:
                    return _Misfit(f".{name}", "missing")
                continue
            try:
                decode(d[name])
            except _MISFITS as exc:
                return _Misfit.at(f".{name}", exc)
        return _Misfit("", "does not fit")


_MISFITS = (_Misfit, Rejected, TypeError, ValueError, KeyError, AttributeError)


def _read_items(container: type, item: Codec, data: Any) -> Any:
    items = _exact(list, data)
    try:
        return container(map(item, items))
    except _MISFITS:
        for i, value in enumerate(items):
            try:
                item(value)
            except _MISFITS as exc:
                raise _Misfit.at(f"[{i}]", exc) from None
        raise


def _read_fixed(items: tuple[Codec, ...], data: Any) -> tuple[Any, ...]:
    values = _exact(list, data)
    if len(values) != len(items):
        raise _Misfit("", f"expected {len(items)} items, got {len(values)}")
    out = []
    for i, (read, value) in enumerate(zip(items, values, strict=True)):
        try:
            out.append(read(value))
        except _MISFITS as exc:
            raise _Misfit.at(f"[{i}]", exc) from None
    return tuple(out)


def _read_enum(members: dict[Any, Enum], value: Any) -> Enum:
    try:
        return members[value]
    except (KeyError, TypeError):
        raise _Misfit("", f"{value!r} is not one of {', '.join(map(str, members))}") from None


def is_record(kind: Any) -> bool:
    """Engine values (msgspec structs) and rule profiles (dataclasses): classes of named, typed fields."""
    return is_value(kind) or (isinstance(kind, type) and dataclasses.is_dataclass(kind))


def record_fields(kind: type) -> tuple[str, ...]:
    """The field names of an engine value or a rule profile, in declaration order."""
    return tuple(_hints(kind))


@cache
def _hints(cls: type) -> dict[str, Any]:
    """The fields' types, in declaration order (the order of the encoded keys and of the constructor)."""
    hints = typing.get_type_hints(cls)
    if is_value(cls):
        return {name: hints[name] for name in field_names(cls)}
    return {f.name: hints[f.name] for f in dataclasses.fields(cls) if f.init}


def _defaults(cls: type) -> dict[str, Callable[[], Any]]:
    """A maker of the default of every field that has one."""
    out: dict[str, Callable[[], Any]] = {}
    if is_value(cls):
        for f in msgspec.structs.fields(cls):
            if f.default is not msgspec.NODEFAULT:
                out[f.name] = functools.partial(_identity, f.default)
            elif f.default_factory is not msgspec.NODEFAULT:
                out[f.name] = f.default_factory
        return out
    for g in dataclasses.fields(cls):
        if g.default is not dataclasses.MISSING:
            out[g.name] = functools.partial(_identity, g.default)
        elif g.default_factory is not dataclasses.MISSING:
            out[g.name] = g.default_factory
    return out
