"""The state's byte form: compact, typed MessagePack, canonical (the same state always gives the same bytes).

A state is written as the MessagePack array ``[FORMAT, game, rules, body]``:

* ``rules`` names the profile by what defines it, ``[rules_version, preset, {option: value, ...}]`` (the
  preset that needs the fewest overrides, the overrides as :func:`engine.codec.to_data` writes them), not by
  every compiled field; the reader rebuilds the profile once and keeps it in a bounded cache;
* ``body`` is the state's other fields in declaration order (``table_id``, ``names``, ``chips``, ...), nested
  values as arrays, cards as their index in :data:`~engine.cards.ALL_CARDS`, table cards as their ``code``.

msgspec writes and reads it in C against the state class's type hints, so reading checks every type and names
the path of a misfit (``state.body[8][1][0]``). The first byte of a JSON state of the first format is ``{``;
it is refused with RULES_VERSION_UNSUPPORTED.
"""

from __future__ import annotations

import dataclasses
import re
import typing
from collections import OrderedDict
from functools import cache
from typing import Any

import msgspec

from engine import codec
from engine.cards import ALL_CARDS, Card
from engine.errors import Reason, Rejected
from engine.registry import get_game
from engine.rules import with_options
from engine.table import TableState
from engine.values import field_names, is_value
from engine.visibility import TableCard

FORMAT = 2
"""The byte form's version (1 was JSON text)."""
PROFILE_CACHE = 256
"""Rule profiles kept by their written form: presets and the few custom tables a process serves at once."""


def state_to_bytes(state: TableState) -> bytes:
    """The canonical bytes of a state."""
    fields = msgspec.structs.astuple(state)
    body = _ENCODER.encode((fields[1], *fields[3:]))  # all but game and rules, written apart
    return _ENCODER.encode((FORMAT, state.game, msgspec.Raw(_rules_bytes(state.game, state.rules)), msgspec.Raw(body)))


def state_from_bytes(raw: bytes) -> TableState:
    """Read bytes written by :func:`state_to_bytes`; raise :class:`Rejected` if they are not a state of this engine."""
    if raw[:1] == b"{":
        raise Rejected(
            Reason.RULES_VERSION_UNSUPPORTED,
            "this table was written by an earlier version of the engine (a JSON state); start a new table",
        )
    try:
        version, game_id, rules, body = _OUTER.decode(raw)
    except msgspec.DecodeError as exc:
        raise Rejected(Reason.INVALID_STATE, f"not a Mazziere table state ({_what(exc)})") from None
    if version != FORMAT:
        raise Rejected(
            Reason.RULES_VERSION_UNSUPPORTED, f"the state is in byte format {version}; this engine reads {FORMAT}"
        )
    game = get_game(game_id)
    profile = _profile(game_id, bytes(rules))
    try:
        fields = _body_decoder(game.state_type).decode(body)
    except msgspec.DecodeError as exc:
        raise Rejected(Reason.INVALID_STATE, f"state{_what(exc, _body_types(game.state_type))}") from None
    state: TableState = game.state_type(game_id, fields[0], profile, *fields[1:])
    return state


def is_plain_state(raw: bytes) -> bool:
    """True for bytes that claim to be a state (of this format or the first), not a sealed token."""
    return raw[:1] in (b"\x94", b"{")  # a four-item MessagePack array, or JSON


# -- rules by reference ----------------------------------------------------------------------------------------


def _rules_bytes(game_id: str, profile: Any) -> bytes:
    """The written form of a profile; kept by identity (decoded states share their cached profile)."""
    known = _WRITTEN.get(id(profile))
    if known is not None and known[0] is profile:
        return known[1]
    game = get_game(game_id)
    best: tuple[str, dict[str, Any]] | None = None
    for name, preset in game.presets.items():
        overrides = {
            f.name: codec.to_data(getattr(profile, f.name))
            for f in dataclasses.fields(profile)
            if getattr(profile, f.name) != getattr(preset, f.name)
        }
        if best is None or len(overrides) < len(best[1]):
            best = name, overrides
    assert best is not None
    written = _ENCODER.encode((profile.rules_version, best[0], dict(sorted(best[1].items()))))
    _remember(_WRITTEN, id(profile), (profile, written))
    return written


def _profile(game_id: str, written: bytes) -> Any:
    """The profile a state names: rebuilt from its preset and overrides, then kept by its written form."""
    key = (game_id, written)
    known = _PROFILES.get(key)
    if known is not None:
        return known
    game = get_game(game_id)
    current = game.presets[game.default_preset].rules_version
    try:
        version, preset, overrides = _RULES.decode(written)
    except msgspec.DecodeError as exc:
        raise Rejected(Reason.INVALID_STATE, f"state.rules{_what(exc)}") from None
    if version != current:
        raise Rejected(
            Reason.RULES_VERSION_UNSUPPORTED,
            f"this table was made under {game_id} rules version {version}; this engine plays version {current}",
        )
    if preset not in game.presets:
        raise Rejected(Reason.INVALID_STATE, f"state.rules: {game_id} has no preset {preset!r}")
    try:
        profile = with_options(game.presets[preset], overrides)
    except Rejected as exc:
        raise Rejected(Reason.INVALID_STATE, f"state.rules: {exc.message}") from None
    _remember(_PROFILES, key, profile)
    return profile


def _remember(cache: OrderedDict[Any, Any], key: Any, value: Any) -> None:
    cache[key] = value
    if len(cache) > PROFILE_CACHE:
        cache.popitem(last=False)


_WRITTEN: OrderedDict[int, tuple[Any, bytes]] = OrderedDict()
_PROFILES: OrderedDict[tuple[str, bytes], Any] = OrderedDict()


# -- the codec -------------------------------------------------------------------------------------------------


def _encode_hook(value: Any) -> Any:
    if type(value) is TableCard:
        return value.code
    if type(value) is Card:
        return value.index
    raise NotImplementedError(f"cannot write {type(value).__name__}")


def _decode_hook(kind: Any, value: Any) -> Any:
    if kind is TableCard:
        return TableCard.from_code(value)
    if kind is Card:
        if type(value) is not int or not 0 <= value < len(ALL_CARDS):
            raise ValueError(f"{value!r} is not a card")
        return ALL_CARDS[value]
    raise NotImplementedError(f"cannot read {kind!r}")


@cache
def _body_types(state_type: type) -> dict[str, Any]:
    """The body's fields and their types: every field of ``state_type`` but ``game`` and ``rules``."""
    hints = typing.get_type_hints(state_type)
    return {n: hints[n] for n in field_names(state_type) if n not in ("game", "rules")}


@cache
def _body_decoder(state_type: type) -> msgspec.msgpack.Decoder[Any]:
    body: Any = tuple.__class_getitem__(tuple(_body_types(state_type).values()))
    return msgspec.msgpack.Decoder(body, dec_hook=_decode_hook)


def _what(exc: Exception, fields: dict[str, Any] | None = None) -> str:
    """msgspec's message with its path named after the fields: ``$[6][1][0]`` → ``.hands[1].cards[0]``."""
    text = str(exc)
    problem, sep, path = text.rpartition(" - at `$")
    if not sep:
        return f": {text}"
    hints: dict[str, Any] | None = fields  # the fields at this step, while it is a value (or the body)
    kind: Any = None
    named = ""
    for i in map(int, re.findall(r"\[(\d+)\]", path)):
        if hints is not None and i < len(hints):
            name = list(hints)[i]
            named += f".{name}"
            kind = _inner(hints[name])
        else:
            named += f"[{i}]"
            args = typing.get_args(kind)
            kind = _inner(args[0] if args[1:] == (Ellipsis,) else args[i] if i < len(args) else None)
        hints = {n: typing.get_type_hints(kind)[n] for n in field_names(kind)} if is_value(kind) else None
    return f"{named}: {problem}"


def _inner(kind: Any) -> Any:
    """``X`` for ``X | None``; any other type as it is."""
    args = [a for a in typing.get_args(kind) if a is not type(None)]
    return args[0] if typing.get_origin(kind) is not tuple and len(args) == 1 else kind


_ENCODER = msgspec.msgpack.Encoder(enc_hook=_encode_hook, order="deterministic")
_OUTER = msgspec.msgpack.Decoder(tuple[int, str, msgspec.Raw, msgspec.Raw])
_RULES = msgspec.msgpack.Decoder(tuple[int, str, dict[str, Any]])
