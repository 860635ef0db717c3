"""The state's byte form: compact, typed MessagePack, canonical (the same state always gives the same bytes).

A state is written as the MessagePack array ``[FORMAT, game, rules, body]``:

* ``rules`` names the profile by what defines it, ``[rules_version, preset, {option: value, ...}]`` (the
  preset that needs the fewest overrides, the overrides as :func:`engine.codec.to_data` writes them), not by
  every compiled field; the reader rebuilds the profile once and keeps it in a bounded cache;
* ``body`` is the state's other fields in declaration order (``table_id``, ``names``, ``chips``, ...), nested
  values as arrays, cards as their index in :data:`~engine.cards.ALL_CARDS`, table cards as their ``code``;
  a field that is a whole pile (``tuple[Card, ...]`` such as the stock, ``tuple[TableCard, ...]`` such as the
  discards) as one binary string: a byte per card, or 8 bytes (big-endian) per table card.
  A field added later goes last with a default: a body written before it (one item shorter) reads with the
  default, so the tokens of an earlier build still decode.

msgspec writes and reads it in C against the state class's type hints, so reading checks every type and names
the path of a misfit (``state.body[8][1][0]``). The first byte of a JSON state of the first format is ``{``;
it is refused with RULES_VERSION_UNSUPPORTED.
"""

from __future__ import annotations

import dataclasses
import operator
import re
import struct
import typing
from collections import OrderedDict
from functools import cache
from typing import Any

import msgspec

from mazziere.engine import codec, visibility
from mazziere.engine.cards import ALL_CARDS, Card
from mazziere.engine.errors import Reason, Rejected
from mazziere.engine.registry import get_game
from mazziere.engine.rules import with_options
from mazziere.engine.table import TableState
from mazziere.engine.values import field_names, is_value
from mazziere.engine.visibility import TableCard

FORMAT = 3
"""The byte form's version (1 was JSON text; 2 dealt without commitments, docs/fairness.md)."""
PROFILE_CACHE = 256
"""Rule profiles kept by their written form: presets and the few custom tables a process serves at once."""
_KEPT_RULES_BYTES = 1024


def state_to_bytes(state: TableState) -> bytes:
    """The canonical bytes of a state."""
    fields = msgspec.structs.astuple(state)
    body = [fields[1], *fields[3:]]  # all but game and rules, written apart
    cards, table_cards = _piles(type(state))
    for i in cards:
        body[i] = bytes(map(_INDEX, body[i]))
    for i in table_cards:
        body[i] = struct.pack(f">{len(body[i])}Q", *map(_CODE, body[i]))
    written = (
        FORMAT,
        state.game,
        msgspec.Raw(_rules_bytes(state.game, state.rules)),
        msgspec.Raw(_ENCODER.encode(body)),
    )
    return _ENCODER.encode(written)


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
    if version == 2:
        raise Rejected(
            Reason.RULES_VERSION_UNSUPPORTED,
            "this table was dealt before committed dealing (byte format 2): its deck cannot be proved fair; "
            "start a new table",
        )
    if version != FORMAT:
        raise Rejected(
            Reason.RULES_VERSION_UNSUPPORTED, f"the state is in byte format {version}; this engine reads {FORMAT}"
        )
    game = get_game(game_id)
    profile = _profile(game_id, bytes(rules))
    kind = game.state_type
    try:
        fields = _body_decoder(kind).decode(body)
    except msgspec.DecodeError as exc:
        raise Rejected(Reason.INVALID_STATE, f"state{_what(exc, _body_types(kind))}") from None
    if type(fields) is not tuple:  # a body with defaults reads as a value of its fields
        fields = msgspec.structs.astuple(fields)
    cards, table_cards = _piles(kind)
    if cards or table_cards:
        fields = list(fields)
        for i in cards:
            fields[i] = _read_cards(fields[i], kind, i)
        for i in table_cards:
            fields[i] = _read_table_cards(fields[i], kind, i)
    state: TableState = kind(game_id, fields[0], profile, *fields[1:])
    return state


def _read_cards(data: bytes, kind: type, i: int) -> tuple[Card, ...]:
    try:
        return tuple(map(ALL_CARDS.__getitem__, data))
    except IndexError:
        bad = next(n for n, b in enumerate(data) if b >= len(ALL_CARDS))
        raise Rejected(Reason.INVALID_STATE, f"state.{list(_body_types(kind))[i]}[{bad}]: not a card") from None


def _read_table_cards(data: bytes, kind: type, i: int) -> tuple[TableCard, ...]:
    if len(data) % 8:
        raise Rejected(Reason.INVALID_STATE, f"state.{list(_body_types(kind))[i]}: not a list of table cards")
    codes = struct.unpack(f">{len(data) // 8}Q", data)
    known = tuple(map(_KNOWN_TABLE_CARDS.get, codes))
    if all(known):
        return known  # type: ignore[return-value]
    try:
        return tuple(map(TableCard.from_code, codes))
    except ValueError:
        bad = next(n for n, code in enumerate(codes) if _is_not_table_card(code))
        raise Rejected(Reason.INVALID_STATE, f"state.{list(_body_types(kind))[i]}[{bad}]: not a table card") from None


def _is_not_table_card(code: int) -> bool:
    try:
        TableCard.from_code(code)
    except ValueError:
        return True
    return False


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
    if len(written) <= _KEPT_RULES_BYTES:  # real profiles take a few dozen bytes; a forged one is not kept
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
def _piles(state_type: type) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The places in the body of the fields written as binary strings: whole piles of cards, of table cards."""
    types = list(_body_types(state_type).values())
    return (
        tuple(i for i, t in enumerate(types) if t == tuple[Card, ...]),
        tuple(i for i, t in enumerate(types) if t == tuple[TableCard, ...]),
    )


@cache
def _body_decoder(state_type: type) -> msgspec.msgpack.Decoder[Any]:
    """The body as an array of the state's fields; a body written before a field with a default was added (at
    the end) reads with that default, so the tokens of an earlier build still decode."""
    cards, table_cards = _piles(state_type)
    defaults = {f.name: f.default for f in msgspec.structs.fields(state_type) if f.default is not msgspec.NODEFAULT}
    fields: list[Any] = []
    for i, (name, kind) in enumerate(_body_types(state_type).items()):
        written = bytes if i in cards or i in table_cards else kind
        fields.append((name, written, defaults[name]) if name in defaults else (name, written))
    body: Any = (
        msgspec.defstruct(
            f"{state_type.__name__}Body", fields, array_like=True, frozen=True, gc=False, forbid_unknown_fields=True
        )
        if defaults
        else tuple.__class_getitem__(tuple(written for _, written, *_ in fields))
    )
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


_INDEX = operator.attrgetter("index")
_CODE = operator.attrgetter("code")
_KNOWN_TABLE_CARDS = visibility._TABLE_CARDS
_ENCODER = msgspec.msgpack.Encoder(enc_hook=_encode_hook, order="deterministic")
_OUTER = msgspec.msgpack.Decoder(tuple[int, str, msgspec.Raw, msgspec.Raw])
_RULES = msgspec.msgpack.Decoder(tuple[int, str, dict[str, Any]])
