"""Engine values as plain data and back, for option overrides, listings, goldens and tests.

``to_data`` gives JSON-ready values (records as objects in field order, cards in notation, enums by value,
bytes in hex); ``from_data`` reads them back against a type hint with msgspec, naming the path of a misfit.
Neither is on the service's hot path: views and events go to protobuf by the generated writers
(:mod:`services.protowire`) and states to bytes by :mod:`engine.wire`.

>>> from mazziere.engine.table import Action
>>> to_data(Action(1, "STAKE", 5))
{'seat': 1, 'kind': 'STAKE', 'amount': 5, 'target': None, 'cards': []}
>>> from_data(Action, {"seat": 1, "kind": "EXCHANGE", "cards": ["7d", "Rc"]})
Action(seat=1, kind='EXCHANGE', amount=0, target=None, cards=(Card.parse('7d'), Card.parse('Rc')))
>>> from_data(tuple[int, ...], [1, "2"], "where")
Traceback (most recent call last):
...
mazziere.engine.errors.Rejected: INVALID_STATE: where[1]: Expected `int`, got `str`
"""

from __future__ import annotations

import dataclasses
import typing
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
    if value is None or (isinstance(value, bool | int | str) and not isinstance(value, Enum)):
        return _scalar(value)
    if is_record(type(value)):
        return {name: to_data(getattr(value, name)) for name in record_fields(type(value))}
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, Card):
        return str(value)
    if isinstance(value, TableCard):
        return f"{value.card or '?'}@{_audience_text(value.seen_by)}"
    if isinstance(value, Audience):
        return _audience_text(value)
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, tuple):
        return [to_data(v) for v in value]
    if isinstance(value, frozenset):
        return sorted(to_data(v) for v in value)
    raise TypeError(f"cannot encode {type(value).__name__}")


def _scalar(value: bool | int | str | None) -> Any:
    """The value itself; a str of a class of its own (an event kind), its text."""
    return str(value) if isinstance(value, str) and type(value) is not str else value


def from_data(kind: Any, data: Any, where: str = "value") -> Any:
    """Read ``data`` as a value of type ``kind``; raise :class:`Rejected` (INVALID_STATE, or the reason of a
    refusal met inside, such as INVALID_CARD) naming where it does not fit."""
    if is_record(kind):  # by field name, every field checked, no unknown one
        return _record(kind, data, where)
    if isinstance(kind, type) and issubclass(kind, Enum):
        try:
            return kind(data)
        except ValueError:
            choices = ", ".join(str(m.value) for m in kind)
            raise Rejected(Reason.INVALID_STATE, f"{where}: {data!r} is not one of {choices}") from None
    try:
        return msgspec.convert(data, type=kind, strict=True, dec_hook=_read_custom)
    except msgspec.ValidationError as exc:
        problem, _, path = str(exc).partition(" - at `$")
        cause = exc.__cause__ if isinstance(exc.__cause__, Rejected) else None
        reason = cause.reason if cause else Reason.INVALID_STATE
        raise Rejected(reason, f"{where}{path.rstrip('`')}: {cause.message if cause else problem}") from None


def _record(kind: type, data: Any, where: str) -> Any:
    if type(data) is not dict:
        raise Rejected(Reason.INVALID_STATE, f"{where}: expected an object, got {type(data).__name__}")
    hints = _hints(kind)
    if unknown := data.keys() - hints.keys():
        raise Rejected(Reason.INVALID_STATE, f"{where}: unknown field(s) {sorted(unknown)}")
    return kind(**{name: from_data(hints[name], value, f"{where}.{name}") for name, value in data.items()})


def _read_custom(kind: type, data: Any) -> Any:
    if type(data) is not str:
        raise TypeError(f"Expected `str`, got `{type(data).__name__}`")
    if kind is Card:
        return Card.parse(data)
    if kind is Audience:
        return _read_audience(data)
    if kind is TableCard:
        card, at, audience = data.partition("@")
        if not at:
            raise ValueError(f"{data!r} is not a table card")
        return TableCard(None if card == "?" else Card.parse(card), _read_audience(audience))
    raise NotImplementedError(kind)


# As plain data a table card is a short string, ``"3c@0"`` (seen by seat 0), ``"4b@*"`` (everyone), ``"Rd@"``
# (nobody), ``"?@1,2"`` (redacted, seen by seats 1 and 2).


def _audience_text(audience: Audience) -> str:
    return "*" if audience.everyone else ",".join(map(str, sorted(audience.seats)))


def _read_audience(text: str) -> Audience:
    if text == "*":
        return PUBLIC
    return Audience(seats=frozenset(int(s) for s in text.split(",")) if text else frozenset())


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
