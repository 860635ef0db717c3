"""Who is at a hosted table, and what follows from it: the waiting room, the pause when no person is there, and
the seats the table plays for people who are not.

Only a table opened with ``waiting_room`` or ``follow_presence`` (its :class:`Settings`) minds presence; any other
plays on its clock as before, at no cost here. A person is present while a replica holds a Watch stream of theirs
(each replica writes its watchers' seats to the store every third of the grace) or within
``presence_grace_seconds`` of their last call: the store's presence rows, so every replica counts the same people
and a deploy's reconnects pause nothing. A change of state (the waiting room ends, the table pauses or resumes) is
written with the table's timer, conditional on its ``seq``, and told to every replica by a store notification
(``!state``), whose watchers then send the new :class:`Status` with the presence.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from mazziere.services.core.logs import get_logger
from mazziere.services.gen.mazziere.v1 import host_pb2 as hpb
from mazziere.services.host.hub import Hub
from mazziere.services.host.settings import HostSettings, Settings
from mazziere.services.host.store import SIGNAL, Store, StoreError, TableRecord

STATE_SIGNAL = SIGNAL + "state"
"""The notification that a table's hosted state changed."""
ToAct = Callable[[TableRecord], Awaitable[tuple[Sequence[int], bool]]]
"""The seats to act at a table and whether its game is over (the engine's view of its token)."""
Due = Callable[[Settings, Sequence[int], bool, frozenset[int]], int]
"""When the host plays next at a playing table, given the person seats it plays for (``away``)."""


@dataclass(frozen=True, slots=True)
class Hosting:
    """A table's hosted state beside its game (the record's ``hosting``): in its waiting room, or paused."""

    waiting: bool = False
    paused: bool = False

    def encode(self) -> str:
        return json.dumps({"waiting": self.waiting, "paused": self.paused}) if self.waiting or self.paused else ""

    @classmethod
    def decode(cls, text: str) -> Hosting:
        """What :meth:`encode` wrote (one of three texts: each read once, then kept)."""
        return _hosting(text)

    @property
    def held(self) -> bool:
        """Whether no timer runs (waiting or paused)."""
        return self.waiting or self.paused

    @property
    def state(self) -> hpb.TableState:
        if self.waiting:
            return hpb.TABLE_STATE_WAITING
        return hpb.TABLE_STATE_PAUSED if self.paused else hpb.TABLE_STATE_PLAYING


@lru_cache(maxsize=16)
def _hosting(text: str) -> Hosting:
    raw = json.loads(text) if text else {}
    return Hosting(bool(raw.get("waiting")), bool(raw.get("paused")))


@dataclass(frozen=True, slots=True)
class Seen:
    """When each seat's person was last at the table (``last``, Unix ms), read at ``now_ms``."""

    last: Mapping[int, int]
    now_ms: int
    grace_ms: int

    def joined(self, seat: int) -> bool:
        return seat in self.last

    def present(self, seat: int) -> bool:
        return self.last.get(seat, -self.grace_ms - 1) >= self.now_ms - self.grace_ms


NOBODY = Seen({}, 0, 0)


def away(settings: Settings, hosting: Hosting, seen: Seen) -> frozenset[int]:
    """The person seats the table plays now: none in the waiting room; else those whose person never came, and (at
    a table that follows presence) those whose person is away past the grace."""
    if hosting.waiting or not settings.minds_presence:
        return frozenset()
    return frozenset(
        seat
        for seat in settings.people()
        if not seen.joined(seat) or (settings.follow_presence and not seen.present(seat))
    )


def gone(settings: Settings, hosting: Hosting, seen: Seen) -> frozenset[int]:
    """The person seats whose person came and is away past the grace, at a table that follows presence and is
    playing: the seats the host sits out where the game allows it (services/host/sitting.py)."""
    if hosting.held or not settings.follow_presence:
        return frozenset()
    return frozenset(seat for seat in settings.people() if seen.joined(seat) and not seen.present(seat))


@dataclass(frozen=True, slots=True)
class Status:
    """What every watcher is told of the table beside its steps: its state, its clock, the person seats taken
    (``joined``) and those the table plays (``played``)."""

    state: hpb.TableState
    turn_ends_ms: int
    joined: frozenset[int]
    played: frozenset[int]

    @classmethod
    def of(cls, record: TableRecord, settings: Settings, seen: Seen) -> Status:
        hosting = Hosting.decode(record.hosting)
        joined = frozenset(seat for seat in settings.people() if seen.joined(seat))
        return cls(hosting.state, record.due_ms, joined, away(settings, hosting, seen))

    def message(self) -> hpb.HostedStatus:
        return hpb.HostedStatus(state=self.state, turn_ends_unix_ms=self.turn_ends_ms)


class Attendance:
    """Presence and the hosted state of the tables of one host (``to_act`` and ``due`` are the host's)."""

    def __init__(
        self, store: Store, hub: Hub, settings: HostSettings, now_ms: Callable[[], int], to_act: ToAct, due: Due
    ) -> None:
        self.store = store
        self.hub = hub
        self.grace_ms = int(settings.presence_grace_seconds * 1000)
        self.now_ms = now_ms
        self.to_act = to_act
        self.due = due
        self.minded: set[str] = set()
        """The tables minding presence that this replica has had watchers of (its refreshes touch only these)."""
        self.log = get_logger("mazziere.host.attendance")

    async def seen(self, record: TableRecord, settings: Settings) -> Seen:
        if not settings.minds_presence:
            return NOBODY
        return Seen(await self.store.presence(record.table_id), self.now_ms(), self.grace_ms)

    async def away(self, record: TableRecord, settings: Settings) -> frozenset[int]:
        """The person seats the table plays now (no store read at a table that does not mind presence)."""
        if not settings.minds_presence:
            return frozenset()
        return away(settings, Hosting.decode(record.hosting), await self.seen(record, settings))

    async def gone(self, record: TableRecord, settings: Settings) -> frozenset[int]:
        """The person seats away past the grace that the host may sit out (none at a table not following presence,
        with no store read)."""
        if not settings.follow_presence:
            return frozenset()
        return gone(settings, Hosting.decode(record.hosting), await self.seen(record, settings))

    async def arrived(self, record: TableRecord, seat: int) -> TableRecord:
        """A seat's person is at the table (a Watch opened, a call): counted present; the waiting room ends when
        every person's seat is taken, a paused table resumes, and a seat the table was playing gets its clock."""
        settings = Settings.decode(record.settings)
        if not settings.minds_presence or record.closed:
            return record
        before = await self.seen(record, settings)
        await self.store.touch(record.table_id, [seat], self.now_ms())
        seen = Seen({**before.last, seat: self.now_ms()}, self.now_ms(), self.grace_ms)
        hosting = Hosting.decode(record.hosting)
        if hosting.waiting and all(seen.joined(s) for s in settings.people()):
            return await self.change(record, Hosting(), seen)
        if hosting.paused or (not hosting.waiting and seat in away(settings, hosting, before)):
            return await self.change(record, Hosting(), seen)
        return record

    async def start(self, record: TableRecord) -> TableRecord:
        """The owner ends the waiting room: the clock starts; the seats not taken are played by the table."""
        if not Hosting.decode(record.hosting).waiting:
            return record
        return await self.change(record, Hosting(), await self.seen(record, Settings.decode(record.settings)))

    async def pause_if_empty(self, record: TableRecord) -> bool:
        """At a due turn of a table that follows presence with no person present: pause it (no timer) instead."""
        settings = Settings.decode(record.settings)
        if not settings.follow_presence:
            return False
        seen = await self.seen(record, settings)
        if any(seen.present(seat) for seat in settings.people()):
            return False
        await self.change(record, Hosting(paused=True), seen)
        return True

    async def change(self, record: TableRecord, hosting: Hosting, seen: Seen) -> TableRecord:
        """Write ``hosting`` with the timer it implies, at the table's ``seq``, and tell every replica (nothing
        happens if the table moved on meanwhile: its move set the timer)."""
        due = 0
        if not hosting.held:
            settings = Settings.decode(record.settings)
            to_act, is_over = await self.to_act(record)
            due = self.due(settings, to_act, is_over, away(settings, hosting, seen))
        if not await self.store.set_hosting(record.table_id, record.seq, hosting.encode(), due):
            return record
        await self.store.notify(record.table_id, record.seq, revoked=STATE_SIGNAL)
        return replace(record, hosting=hosting.encode(), due_ms=due)

    # -- what watchers are told -------------------------------------------------------------------------

    async def watched(self, record: TableRecord) -> None:
        """A Watch opens on this replica: the table's status, for its watchers' presence answers."""
        settings = Settings.decode(record.settings)
        if settings.minds_presence:
            self.minded.add(record.table_id)
        self.hub.set_status(record.table_id, Status.of(record, settings, await self.seen(record, settings)))

    async def heard(self, table_id: str) -> None:
        """Another replica (or this one) changed the table's state: its watchers here are told."""
        if self.hub.watchers(table_id) == 0:
            return
        record = await self.store.get(table_id)
        if record is not None:
            await self.told(record)

    async def told(self, record: TableRecord) -> None:
        """Read the table's status again; if it changed, every watcher here sends it with the presence."""
        settings = Settings.decode(record.settings)
        status = Status.of(record, settings, await self.seen(record, settings))
        if self.hub.set_status(record.table_id, status):
            self.hub.publish(record.table_id, 0)

    async def refresh(self) -> None:
        """Every third of the grace: this replica's watchers written present, and their tables' status read again
        (a person away past the grace is then shown played by the table)."""
        while True:
            await asyncio.sleep(self.grace_ms / 3000)
            for table_id in [t for t in self.hub.watched() if t in self.minded]:
                try:
                    await self.store.touch(table_id, sorted(self.hub.connected(table_id)), self.now_ms())
                    await self.heard(table_id)
                except StoreError as exc:
                    self.log.warning("presence_store_error", error=str(exc))
            self.minded &= set(self.hub.watched())
