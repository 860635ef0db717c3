"""What the host tells each audience of a step: its ``HostedUpdate``, written once per audience and wire format
from TableService's reply (the engine's values in process), and handed as it is to every watcher of that audience.

A step's :class:`Told` makes, on first use and then keeps, each audience's update (:meth:`Told.update`) and the
``WatchResponse`` that carries it (:meth:`Told.watch_item`): its protobuf bytes for gRPC and Connect's proto codec,
its JSON for REST and Connect's JSON codec. Nothing is built as a message, parsed or serialized again on the way
from the engine to a watcher. A step read back from the store (another replica's, or a watcher resuming) comes as
its stored bytes (:class:`StoredUpdate`), which are parsed only to read them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any, NamedTuple

from google.protobuf.message import Message

from mazziere.engine.visibility import Viewer
from mazziere.services.gen.mazziere.v1 import host_pb2 as hpb
from mazziere.services.host.store import SPECTATORS
from mazziere.services.table.client import Reply
from mazziere.services.wire import protojson
from mazziere.services.wire.answers import Written
from mazziere.services.wire.proto import length_delimited, tag, varint

# HostedUpdate's fields: seq = 1, update = 2, to_act = 3, is_over = 4, settlement = 5, turn_ends_unix_ms = 6,
# closed = 7, snapshot = 8, game = 9.
_SEQ, _UPDATE, _TO_ACT, _IS_OVER, _SETTLEMENT = b"\x08", b"\x12", b"\x1a", b"\x20\x01", b"\x2a"
_TURN_ENDS, _CLOSED, _SNAPSHOT, _GAME = b"\x30", b"\x38\x01", b"\x40\x01", b"\x4a"


def viewer_of(audience: str) -> Viewer:
    """The engine's viewer for an audience: a seat's number, or None for the spectators (and the owner)."""
    return int(audience) if audience.isdigit() else None


class Update(Written[Any]):
    """One audience's ``HostedUpdate`` of a step (its ``seq`` and whether it closes the table at hand)."""

    __slots__ = ("_data", "_make_data", "_make_wire", "closed", "seq")

    def __init__(self, seq: int, closed: bool, wire: Callable[[], bytes], data: Callable[[], dict[str, Any]]) -> None:
        super().__init__(hpb.HostedUpdate)
        self.seq = seq
        self.closed = closed
        self._make_wire = wire
        self._make_data = data
        self._data: dict[str, Any] | None = None

    def write(self) -> bytes:
        return self._make_wire()

    def data(self) -> dict[str, Any]:
        if self._data is None:
            self._data = self._make_data()
        return self._data


class Carrying(Written[Any]):
    """A ``response`` that carries an update in its field ``update`` (PlayResponse's, WatchResponse's,
    GetHostedTableResponse's, OpenTableResponse's), its other fields, if any, in ``rest``. The update's field is
    the message's first or last by number, so its bytes go before or after the rest's and the whole is in field
    order."""

    __slots__ = ("_first", "_key", "_tag", "rest", "update")

    def __init__(self, response: type[Message], update: Written[Any], rest: Message | None = None) -> None:
        super().__init__(response)
        self.update = update
        self.rest = rest
        self._first, self._tag, self._key = _update_field(response)

    def write(self) -> bytes:
        update = length_delimited(self._tag, self.update.SerializeToString())
        if self.rest is None:
            return update
        rest = self.rest.SerializeToString()
        return update + rest if self._first else rest + update

    def data(self) -> dict[str, Any]:
        if self.rest is None:
            return {self._key: self.update.data()}
        rest = protojson.to_dict(self.rest)
        if not self._first:
            return {**rest, self._key: self.update.data()}
        return {self._key: self.update.data(), **rest}


_UPDATE_FIELDS: dict[type[Message], tuple[bool, bytes, str]] = {}


def _update_field(response: type[Message]) -> tuple[bool, bytes, str]:
    """Where ``response`` carries its update: whether first (else last), its tag, its JSON name (read once)."""
    known = _UPDATE_FIELDS.get(response)
    if known is not None:
        return known
    fd = response.DESCRIPTOR.fields_by_name["update"]
    numbers = [f.number for f in response.DESCRIPTOR.fields]
    if fd.number not in (min(numbers), max(numbers)):
        raise TypeError(f"{response.DESCRIPTOR.full_name}.update is neither its first field nor its last")
    known = _UPDATE_FIELDS[response] = (fd.number == min(numbers), tag(fd.number, 2), fd.json_name)
    return known


class Told:
    """A step as the host tells it: TableService's ``reply``, the table's ``game``, and when the next turn ends
    (``due_ms``; 0: no timer). ``snapshot``: the table as it is, not a change; ``closed``: the table is closed (a
    closed table's snapshot is at its closing ``seq``, one past its state's).

    Its updates write themselves from a :class:`Writing` of the step, not from the ``Told`` that keeps them, so
    no cycle ties a step's objects together: they are freed the moment the last watcher has its bytes, never left
    to the collector."""

    __slots__ = ("_items", "_updates", "_writing", "closed", "due_ms", "game", "reply", "seq", "snapshot")

    def __init__(
        self,
        reply: Reply,
        game: str,
        due_ms: int,
        *,
        snapshot: bool = False,
        closed: bool = False,
        seq: int | None = None,
    ) -> None:
        self.reply = reply
        self.game = game
        self.due_ms = due_ms
        self.snapshot = snapshot
        self.closed = closed
        self.seq = reply.seq if seq is None else seq
        self._writing = Writing(reply, game, due_ms, snapshot, closed, self.seq)
        self._updates: dict[str, Update] = {}
        self._items: dict[str, Carrying] = {}

    def update(self, audience: str) -> Update:
        """``audience``'s HostedUpdate (the owner sees what the spectators see)."""
        audience = audience if audience.isdigit() else SPECTATORS
        known = self._updates.get(audience)
        if known is None:
            viewer = viewer_of(audience)
            writing = self._writing
            known = self._updates[audience] = Update(
                self.seq, self.closed, partial(writing.wire, viewer), partial(writing.data, viewer)
            )
        return known

    def watch_item(self, audience: str) -> Carrying:
        """The ``WatchResponse`` that carries ``audience``'s update: one for all its watchers."""
        known = self._items.get(audience)
        if known is None:
            known = self._items[audience] = Carrying(hpb.WatchResponse, self.update(audience))
        return known

    def stored(self, audiences: Sequence[str]) -> dict[str, bytes]:
        """What the store keeps of the step: each audience's update, by audience."""
        return {audience: self.update(audience).SerializeToString() for audience in audiences}


class Writing(NamedTuple):
    """What a step's updates are written from."""

    reply: Reply
    game: str
    due_ms: int
    snapshot: bool
    closed: bool
    seq: int

    def wire(self, viewer: Viewer) -> bytes:
        reply = self.reply
        parts = [_SEQ + varint(self.seq)] if self.seq else []
        parts.append(length_delimited(_UPDATE, reply.update(viewer)))
        if reply.to_act:
            parts.append(length_delimited(_TO_ACT, b"".join(map(varint, reply.to_act))))
        if reply.is_over:
            parts.append(_IS_OVER)
        parts += [length_delimited(_SETTLEMENT, t) for t in reply.transfers()]
        if self.due_ms:
            parts.append(_TURN_ENDS + varint(self.due_ms))
        if self.closed:
            parts.append(_CLOSED)
        if self.snapshot:
            parts.append(_SNAPSHOT)
        if self.game:
            parts.append(length_delimited(_GAME, self.game.encode()))
        return b"".join(parts)

    def data(self, viewer: Viewer) -> dict[str, Any]:
        reply = self.reply
        data: dict[str, Any] = {"seq": str(self.seq)} if self.seq else {}
        data["update"] = reply.update_json(viewer)
        if reply.to_act:
            data["toAct"] = list(reply.to_act)
        if reply.is_over:
            data["isOver"] = True
        if transfers := reply.transfers_json():
            data["settlement"] = transfers
        if self.due_ms:
            data["turnEndsUnixMs"] = str(self.due_ms)
        if self.closed:
            data["closed"] = True
        if self.snapshot:
            data["snapshot"] = True
        if self.game:
            data["game"] = self.game
        return data


class Heard:
    """A move another process of this host applied, as the store keeps it (each audience's update, by audience),
    handed to this process's watchers as it is: each audience's update read once, for all its watchers."""

    __slots__ = ("_items", "_seen", "seq")
    closed = False
    """A move: never the closing step (whose news brings nothing, so its watchers read it from the store)."""

    def __init__(self, seq: int, seen: Mapping[str, bytes]) -> None:
        self.seq = seq
        self._seen = seen
        self._items: dict[str, Carrying] = {}

    def watch_item(self, audience: str) -> Carrying | None:
        """The ``WatchResponse`` that carries ``audience``'s update (None: the news did not bring it)."""
        audience = audience if audience.isdigit() else SPECTATORS
        known = self._items.get(audience)
        if known is None:
            data = self._seen.get(audience)
            if data is None:
                return None
            known = self._items[audience] = Carrying(hpb.WatchResponse, StoredUpdate(data))
        return known


class StoredUpdate(Written[Any]):
    """An update the store kept: its bytes sent as they are; parsed to read its ``seq`` and ``closed``, and for its
    JSON."""

    __slots__ = ("closed", "parsed", "seq", "stored")

    def __init__(self, stored: bytes) -> None:
        super().__init__(hpb.HostedUpdate)
        self.stored = stored
        self.parsed = hpb.HostedUpdate.FromString(stored)
        self.seq = self.parsed.seq
        self.closed = self.parsed.closed

    def write(self) -> bytes:
        return self.stored

    def data(self) -> dict[str, Any]:
        return protojson.to_dict(self.parsed)
