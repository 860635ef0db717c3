"""Rule profiles are data: frozen dataclasses whose fields are the options of RULES.md.

A game's profile class declares each option with :func:`option` (default and a one-line doc), carries a
``rules_version`` and validates itself. :func:`with_options` applies caller overrides with clear errors, and
:func:`describe` lists the options so a front end can build a settings screen.
"""

from __future__ import annotations

import dataclasses
import threading
import typing
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any, Protocol, TypeVar

from mazziere.engine import codec
from mazziere.engine.errors import Reason, Rejected


class RuleProfile(Protocol):
    """What every game's profile offers."""

    @property
    def rules_version(self) -> int:
        """Bumped whenever the meaning of a profile changes; a state of another version is refused."""

    def validate(self) -> None:
        """Raise :class:`Rejected` (INVALID_OPTION) if the options contradict each other."""


P = TypeVar("P", bound=RuleProfile)

MAX_OPTION = 10**9
"""No number in a rule profile is larger: amounts derived from it stay far inside 64 bits."""


def option(default: Any, doc: str) -> Any:
    """A profile field with its default and a one-line doc (shown by ListGames)."""
    return dataclasses.field(default=default, metadata={"doc": doc})


@dataclass(frozen=True, slots=True)
class OptionInfo:
    """One option of a profile, for a settings screen."""

    name: str
    type: str
    default: Any
    doc: str
    choices: tuple[str, ...] = ()


def describe(profile_type: type) -> tuple[OptionInfo, ...]:
    """Every option of a profile class with its type, default (as plain data), doc and enum choices."""
    hints = typing.get_type_hints(profile_type)
    out = []
    for f in dataclasses.fields(profile_type):
        if f.name == "rules_version":
            continue
        kind = hints[f.name]
        out.append(
            OptionInfo(
                name=f.name,
                type=_type_name(kind),
                default=codec.to_data(f.default),
                doc=f.metadata.get("doc", ""),
                choices=_choices(kind),
            )
        )
    return tuple(out)


def with_options(profile: P, overrides: Mapping[str, Any]) -> P:
    """``profile`` with ``overrides`` (plain data, as :func:`describe` shows it) applied and validated."""
    hints = typing.get_type_hints(type(profile))
    known = {f.name for f in dataclasses.fields(profile)} - {"rules_version"}  # type: ignore[arg-type]
    changes = {}
    for name, value in overrides.items():
        if name not in known:
            raise Rejected(Reason.UNKNOWN_OPTION, f"unknown option {name!r}; options are: {', '.join(sorted(known))}")
        try:
            changes[name] = codec.from_data(hints[name], value, name)
        except Rejected as exc:
            raise Rejected(Reason.INVALID_OPTION, exc.message) from None
        if isinstance(changes[name], int) and not -MAX_OPTION <= changes[name] <= MAX_OPTION:
            raise Rejected(Reason.INVALID_OPTION, f"{name} must lie within ±{MAX_OPTION:,}")
    result: P = dataclasses.replace(profile, **changes)  # type: ignore[type-var]
    result.validate()
    return _interned(result)


INTERNED_PROFILES = 256
"""Profiles :func:`with_options` keeps (the oldest let go first): every table of the same rules then shares one object,
which the codec knows by identity (a state's rules are written by reference, ``engine.wire``)."""

_INTERNED: OrderedDict[Any, Any] = OrderedDict()
_INTERNING = threading.Lock()


def _interned(profile: P) -> P:
    """The one profile kept equal to ``profile`` (which becomes it if none is)."""
    with _INTERNING:
        known: P = _INTERNED.setdefault(profile, profile)
        if len(_INTERNED) > INTERNED_PROFILES:
            _INTERNED.popitem(last=False)
    return known


def _type_name(kind: Any) -> str:
    origin = typing.get_origin(kind)
    if origin is not None:
        args = [a for a in typing.get_args(kind) if a is not type(None) and a is not Ellipsis]
        inner = ", ".join(_type_name(a) for a in args)
        if origin is frozenset or origin is tuple:
            return f"list[{inner}]"
        return f"{inner} | null"
    if isinstance(kind, type) and issubclass(kind, Enum):
        return "enum"
    return getattr(kind, "__name__", str(kind)).replace("Card", "card")


def _choices(kind: Any) -> tuple[str, ...]:
    for k in (kind, *typing.get_args(kind)):
        if isinstance(k, type) and issubclass(k, Enum):
            return tuple(str(m.value) for m in k)
    return ()
