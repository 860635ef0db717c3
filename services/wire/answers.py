"""The answers that carry a table, written from the engine's values once, in the form each transport sends.

A :class:`Written` answer is made by a handler and written on demand: gRPC and Connect's proto codec take its
protobuf bytes (:meth:`Written.SerializeToString`) as they are, REST and Connect's JSON codec its JSON
(:meth:`Written.json`, in one pass); no message is built, parsed or serialized again on the way. A
:class:`TableAnswer` (CreateTable's, Act's, GetView's, a replay step's) writes each viewer's ``SeatUpdate`` once
and keeps it (:meth:`TableAnswer.update`), so the host's updates are made of the very bytes the answer holds.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, nullcontext
from functools import cache
from typing import Any, Generic, NamedTuple, TypeVar

from google.protobuf.message import Message

from mazziere import engine
from mazziere.engine.events import redact_events
from mazziere.engine.game import Game
from mazziere.engine.ledger import Transfer
from mazziere.engine.table import Outcome, TableState
from mazziere.engine.visibility import Viewer, redact
from mazziere.services.gen.mazziere.v1 import table_pb2 as pb
from mazziere.services.wire import jsondata, proto

VIEW_FIELDS = pb.TableView.DESCRIPTOR.fields_by_name
"""The ``TableView`` field of each game (its id), whose message type is the game's view."""
_VIEW_TAGS = {name: proto.tag(fd.number, 2) for name, fd in VIEW_FIELDS.items()}
_VIEW_KEYS = {name: fd.json_name for name, fd in VIEW_FIELDS.items()}
_EVENT = proto.writer(engine.Event, pb.Event.DESCRIPTOR)
_AUTO_EVENT = proto.writer(engine.Event, pb.Event.DESCRIPTOR, ("auto",))
"""An auto-played move's event: ``auto = true`` in its field-number place."""
_LEGAL = proto.writer(engine.LegalAction, pb.LegalAction.DESCRIPTOR)
TRANSFER = proto.writer(Transfer, pb.Transfer.DESCRIPTOR)
_EVENT_JSON = jsondata.writer(engine.Event, pb.Event.DESCRIPTOR)
_AUTO_EVENT_JSON = jsondata.writer(engine.Event, pb.Event.DESCRIPTOR, ("auto",))
_LEGAL_JSON = jsondata.writer(engine.LegalAction, pb.LegalAction.DESCRIPTOR)
TRANSFER_JSON = jsondata.writer(Transfer, pb.Transfer.DESCRIPTOR)

Span = Callable[[], AbstractContextManager[Any]]
"""A tracing step around the writing (or nothing)."""


def seat_update(
    state: TableState,
    viewer: Viewer,
    events: tuple[engine.Event, ...],
    *,
    auto: bool = False,
    game: Game[Any, Any] | None = None,
) -> bytes:
    """What ``viewer`` may see after ``events``: a ``SeatUpdate``'s protobuf bytes. ``auto``: the events are
    those of an auto-played move (each gets ``auto = true``); ``game``: the state's, when the caller has it."""
    game = game or engine.get_game(state.game)
    view = redact(game.view(state, viewer), viewer)
    kind: Any = type(view)
    view_bytes = proto.writer(kind, VIEW_FIELDS[state.game].message_type)(view)
    parts = [] if viewer is None else [b"\x08" + proto.varint(viewer)]  # seat = 1
    parts.append(proto.length_delimited(b"\x12", proto.length_delimited(_VIEW_TAGS[state.game], view_bytes)))
    write_event = _AUTO_EVENT if auto else _EVENT
    for event in redact_events(events, viewer):  # events = 3
        parts.append(proto.length_delimited(b"\x1a", write_event(event)))
    if viewer is not None:
        for entry in game.legal_actions(state, viewer):  # legal_actions = 4
            parts.append(proto.length_delimited(b"\x22", _LEGAL(entry)))
    parts.append(b"\x28" + proto.varint(state.draws))  # next_draw = 5
    parts.append(b"\x32\x40" + state.commitment.hex().encode())  # commitment = 6: 64 hex digits
    return b"".join(parts)


def seat_update_json(
    state: TableState,
    viewer: Viewer,
    events: tuple[engine.Event, ...],
    *,
    auto: bool = False,
    game: Game[Any, Any] | None = None,
) -> dict[str, Any]:
    """:func:`seat_update`'s ``SeatUpdate`` as its JSON object, in one pass."""
    game = game or engine.get_game(state.game)
    view = redact(game.view(state, viewer), viewer)
    kind: Any = type(view)
    data: dict[str, Any] = {} if viewer is None else {"seat": viewer}
    data["view"] = {_VIEW_KEYS[state.game]: jsondata.writer(kind, VIEW_FIELDS[state.game].message_type)(view)}
    write_event = _AUTO_EVENT_JSON if auto else _EVENT_JSON
    if seen := [write_event(event) for event in redact_events(events, viewer)]:
        data["events"] = seen
    if viewer is not None and (legal := [_LEGAL_JSON(entry) for entry in game.legal_actions(state, viewer)]):
        data["legalActions"] = legal
    data["nextDraw"], data["commitment"] = state.draws, state.commitment.hex()
    return data


M = TypeVar("M", bound=Message)


class Written(Generic[M]):
    """An answer written from the engine's values, once and in the form its transport asks for.

    :meth:`SerializeToString` (and :meth:`ByteSize`) are the message's protobuf bytes (and their length), which
    grpcio and Connect's proto codec send as they are; :meth:`json` is its protobuf JSON, as ``json_format``
    prints the message (REST, Connect's JSON codec); :meth:`message` is the message itself, the bytes parsed once,
    for a caller that reads its fields (tests, tools: never the server's own path).
    """

    __slots__ = ("_text", "_wire", "response")

    def __init__(self, response: type[M]) -> None:
        self.response = response
        self._wire: bytes | None = None
        self._text: bytes | None = None

    def SerializeToString(self) -> bytes:
        """The protobuf bytes (written on first use, then kept)."""
        if self._wire is None:
            self._wire = self.write()
        return self._wire

    def ByteSize(self) -> int:
        return len(self.SerializeToString())

    def json(self) -> bytes:
        """The compact UTF-8 protobuf JSON (as ``json_format.MessageToDict`` of the message prints; written on
        first use, then kept)."""
        if self._text is None:
            self._text = jsondata.encode(self.data())
        return self._text

    def message(self) -> M:
        return self.response.FromString(self.SerializeToString())

    def data(self) -> dict[str, Any]:
        """The JSON object (``json_format.MessageToDict`` of the message)."""
        raise NotImplementedError

    def write(self) -> bytes:
        """The protobuf bytes, written anew."""
        raise NotImplementedError


class SeatKey(NamedTuple):
    """A ``SeatKey`` of a CreateTable answer, written as engine values are."""

    seat: int
    key: str


class Sent(NamedTuple):
    """The request's action sent back in the answer: its own bytes for protobuf, as the engine read it for JSON
    (the same JSON: a card's notation reads back as itself, and JSON carries no unknown fields)."""

    action: engine.Action
    message: pb.Action


class TableAnswer(Written[M]):
    """An answer that carries the table (CreateTable's, Act's, GetView's, a replay's step): its own fields in
    ``head`` (the table's id, the token, the seat keys, the action played: by field name) and the table's after
    ``out``: ``seq``, ``settlement``, each viewer's update (``updates``, or GetView's ``update``), ``to_act``,
    ``is_over``; every field in number order. ``auto``: the change is an auto-played move (each event gets
    ``auto = true``); ``span``: the tracing step the writing is."""

    __slots__ = ("_json_updates", "_updates", "auto", "game", "head", "out", "span", "viewers")

    def __init__(
        self,
        response: type[M],
        head: dict[str, Any],
        out: Outcome,
        viewers: Sequence[Viewer],
        game: Game[Any, Any],
        *,
        auto: bool = False,
        span: Span = nullcontext,
    ) -> None:
        super().__init__(response)
        self.head = head
        self.out = out
        self.viewers = viewers
        self.game = game
        self.auto = auto
        self.span = span
        self._updates: dict[Viewer, bytes] = {}
        self._json_updates: dict[Viewer, dict[str, Any]] = {}

    @property
    def state(self) -> TableState:
        return self.out.state  # type: ignore[no-any-return]

    def to_act(self) -> tuple[int, ...]:
        return tuple(self.game.to_act(self.state))

    def is_over(self) -> bool:
        return bool(self.game.is_over(self.state))

    def update(self, viewer: Viewer) -> bytes:
        """What ``viewer`` sees, a ``SeatUpdate``'s bytes (written once, then kept)."""
        known = self._updates.get(viewer)
        if known is None:
            known = self._updates[viewer] = seat_update(
                self.state, viewer, self.out.events, auto=self.auto, game=self.game
            )
        return known

    def update_json(self, viewer: Viewer) -> dict[str, Any]:
        """What ``viewer`` sees, a ``SeatUpdate``'s JSON object (written once, then kept; never changed)."""
        known = self._json_updates.get(viewer)
        if known is None:
            known = self._json_updates[viewer] = seat_update_json(
                self.state, viewer, self.out.events, auto=self.auto, game=self.game
            )
        return known

    def write(self) -> bytes:
        with self.span():
            parts: list[bytes] = []
            for name, _key, tag, fd in fields_of(self.response.DESCRIPTOR):
                parts += self._field_bytes(name, tag, fd)
            return b"".join(parts)

    def data(self) -> dict[str, Any]:
        with self.span():
            data: dict[str, Any] = {}
            for name, key, _tag, fd in fields_of(self.response.DESCRIPTOR):
                value = self._field_json(name, fd)
                if value is not None:
                    data[key] = value
            return data

    def _field_bytes(self, name: str, tag: bytes, fd: Any) -> list[bytes]:
        if name in self.head:
            return head_bytes(tag, fd, self.head[name])
        state = self.state
        if name == "seq":
            return [tag + proto.varint(state.seq)] if state.seq else []
        if name == "settlement":
            return [proto.length_delimited(tag, TRANSFER(t)) for t in self.out.settlement]
        if name in ("updates", "update"):
            return [proto.length_delimited(tag, self.update(v)) for v in self.viewers]
        if name == "to_act":
            to_act = self.to_act()
            return [proto.length_delimited(tag, b"".join(map(proto.varint, to_act)))] if to_act else []
        if name == "is_over":
            return [tag + b"\x01"] if self.is_over() else []
        return []

    def _field_json(self, name: str, fd: Any) -> Any:
        """The JSON of one field (None: left out)."""
        if name in self.head:
            return head_json(fd, self.head[name])
        if name == "seq":
            return str(self.state.seq) if self.state.seq else None
        if name == "settlement":
            return [TRANSFER_JSON(t) for t in self.out.settlement] or None
        if name == "updates":
            return [self.update_json(v) for v in self.viewers] or None
        if name == "update":
            return self.update_json(self.viewers[0])
        if name == "to_act":
            return list(self.to_act()) or None
        if name == "is_over":
            return True if self.is_over() else None
        return None


class Holding(Written[M]):
    """An answer whose one field holds other written answers: Replay's ``steps``, StreamReplay's ``step``.
    ``before_each`` runs before each is written (a long replay checks its deadline there)."""

    __slots__ = ("before_each", "field", "items")

    def __init__(
        self,
        response: type[M],
        field: str,
        items: Sequence[Written[Any]],
        before_each: Callable[[], None] | None = None,
    ) -> None:
        super().__init__(response)
        self.field = field
        self.items = items
        self.before_each = before_each

    def _each(self) -> Iterator[Written[Any]]:
        for item in self.items:
            if self.before_each is not None:
                self.before_each()
            yield item

    def write(self) -> bytes:
        tag = field_of(self.response.DESCRIPTOR, self.field)[2]
        return b"".join([proto.length_delimited(tag, item.write()) for item in self._each()])

    def data(self) -> dict[str, Any]:
        _name, key, _tag, fd = field_of(self.response.DESCRIPTOR, self.field)
        items = [item.data() for item in self._each()]
        if not items:
            return {}
        return {key: items if fd.is_repeated else items[0]}


Field = tuple[str, str, bytes, Any]
"""A message field: its name, its JSON name, its tag and its descriptor."""


@cache
def fields_of(desc: Any) -> tuple[Field, ...]:
    """Every field of a message, in number order."""
    return tuple(field_of(desc, fd.name) for fd in sorted(desc.fields, key=lambda fd: fd.number))


@cache
def field_of(desc: Any, name: str) -> Field:
    fd = desc.fields_by_name[name]
    scalar = fd.type in (fd.TYPE_INT64, fd.TYPE_INT32, fd.TYPE_BOOL, fd.TYPE_ENUM) and not fd.is_repeated
    return name, fd.json_name, proto.tag(fd.number, 0 if scalar else 2), fd


def head_bytes(tag: bytes, fd: Any, value: Any) -> list[bytes]:
    """The protobuf bytes of one field of an answer's ``head``: a token, a text, the action sent back, or engine
    values (one, or a tuple for a repeated field)."""
    if type(value) is bytes:
        return [proto.length_delimited(tag, value)] if value else []
    if type(value) is str:
        return [proto.length_delimited(tag, value.encode())] if value else []
    if type(value) is Sent:
        return [proto.length_delimited(tag, value.message.SerializeToString())]
    items = value if type(value) is tuple else (value,)
    return [proto.length_delimited(tag, proto.write_as(item, fd.message_type)) for item in items]


def head_json(fd: Any, value: Any) -> Any:
    """The JSON of one field of an answer's ``head`` (None: left out), as :func:`head_bytes` writes it."""
    if type(value) is bytes:
        return base64.b64encode(value).decode("ascii") if value else None
    if type(value) is str:
        return value or None
    if type(value) is Sent:
        value = value.action
    if type(value) is tuple:
        return [jsondata.write_as(item, fd.message_type) for item in value] or None
    return jsondata.write_as(value, fd.message_type)
