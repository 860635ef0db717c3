"""The base of the engine's immutable values: states, views, events, actions.

They are :class:`msgspec.Struct` s, frozen: built in C (a 21-field state in ~0.3 µs, against ~3 µs for a frozen
dataclass), compared and hashed by value, and written to bytes by :mod:`engine.codec` without a generic walk.
"""

from __future__ import annotations

from typing import Any, TypeVar

import msgspec

V = TypeVar("V", bound="Value")


class Value(msgspec.Struct, frozen=True, gc=False, array_like=True):
    """An immutable engine value. ``gc=False``: values hold no cycles, so the collector never scans them.

    Subclasses inherit the settings; they repeat ``frozen=True`` for type checkers.
    """


def replace(value: V, **changes: Any) -> V:
    """A copy of ``value`` with some fields changed (the value itself never changes)."""
    return msgspec.structs.replace(value, **changes)


def is_value(kind: Any) -> bool:
    """True for an engine value class."""
    return isinstance(kind, type) and issubclass(kind, msgspec.Struct)


def field_names(kind: type[msgspec.Struct]) -> tuple[str, ...]:
    """The fields of a value class, in declaration order (the order of its constructor and its bytes)."""
    return kind.__struct_fields__
