"""Fan-out inside one host process: each Watch stream waits here for its table's next step, presence change or
reissued capability.

A step applied in this process reaches the hub with what each audience is told of it, which its watchers hand on
as it is; a step another replica applied reaches it from the store's listener, and the watchers then read what
their audience saw from the store. Presence (who has the table open) is counted here, per process; the table's
status (:class:`~mazziere.services.host.attendance.Status`, counted across replicas) is kept here for its watchers,
and a seat's quick reaction passes through to them, kept nowhere.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any

from mazziere.services.host.updates import Heard, Told


@dataclass(frozen=True, slots=True)
class News:
    """A table reached ``seq`` at ``at`` (monotonic seconds), or (``seq`` = 0) its presence changed, or (``revoked``)
    the capability of that audience was reissued. ``told``: what each audience is told of that step, when this
    process applied it (else the watchers read it from the store)."""

    seq: int
    at: float
    told: Told | Heard | None = None
    latest: int = 0
    """The table's latest seq this process knew when the news was published (for a presence change)."""
    revoked: str = ""
    reaction: tuple[int, str] | None = None
    """A seat's quick reaction: its seat and kind."""


HEARTBEAT = News(0, 0.0)
"""Put in an idle watcher's queue by its :class:`Heartbeat` (told from other news by identity)."""


class Heartbeat:
    """One watcher's heartbeat: a single timer for the stream's life, moved on lazily. :meth:`taken` (the watcher
    took news) only notes the time; when the timer comes due it puts :data:`HEARTBEAT` in the queue if the watcher
    has taken nothing for ``seconds``, else sets itself ``seconds`` after the last news. A move costs each watcher
    one clock read, where a timer set and cancelled around each wait cost two of the loop's look-ups and a heap
    entry. It also keeps the stream's ``lifetime`` (0: none): :meth:`lived`, which reads no clock of its own."""

    __slots__ = ("_ends", "_handle", "_last", "_loop", "_queue", "_seconds")

    def __init__(self, queue: asyncio.Queue[News], seconds: float, lifetime: float = 0.0) -> None:
        self._loop = asyncio.get_running_loop()
        self._queue, self._seconds = queue, seconds
        self._last = self._loop.time()
        self._ends = self._last + lifetime if lifetime > 0 else math.inf
        self._handle = self._loop.call_at(self._last + seconds, self._due)

    def taken(self) -> None:
        self._last = self._loop.time()

    def lived(self) -> bool:
        """Whether the stream's lifetime was over when it last took news or was given a heartbeat, and no news
        waits: the moment for it to end (a heartbeat comes within ``seconds`` of the end, so an idle stream ends
        too)."""
        return self._last >= self._ends and self._queue.empty()

    def _due(self) -> None:
        now = self._loop.time()
        if now - self._last >= self._seconds:
            if self._queue.empty():
                self._queue.put_nowait(HEARTBEAT)
            self._last = now
        self._handle = self._loop.call_at(self._last + self._seconds, self._due)

    def stop(self) -> None:
        self._handle.cancel()


class Hub:
    def __init__(self) -> None:
        self._queues: defaultdict[str, set[asyncio.Queue[News]]] = defaultdict(set)
        self._present: defaultdict[str, Counter[int]] = defaultdict(Counter)
        self._latest: dict[str, int] = {}
        self._told: dict[str, int] = {}
        """The latest step each watcher of a table now subscribed has had news of (forgotten when one subscribes):
        news of it again (this process's own step, heard back from the store) would change nothing."""
        self._status: dict[str, Any] = {}
        self.revocations = 0
        """Capabilities reissued so far, of any table: a watcher that read its table before a reissue it could not
        hear yet (it was not listening) sees this change, and checks its capability again."""

    def subscribe(self, table_id: str, seq: int) -> asyncio.Queue[News]:
        """A queue of ``table_id``'s news, for a watcher who read it at ``seq``."""
        queue: asyncio.Queue[News] = asyncio.Queue(maxsize=256)
        self._queues[table_id].add(queue)
        self._told.pop(table_id, None)
        self._latest[table_id] = max(seq, self._latest.get(table_id, 0))
        return queue

    def unsubscribe(self, table_id: str, queue: asyncio.Queue[News]) -> None:
        queues = self._queues.get(table_id)
        if queues is not None:
            queues.discard(queue)
            if not queues:
                del self._queues[table_id]
                self._latest.pop(table_id, None)
                self._told.pop(table_id, None)
                self._status.pop(table_id, None)

    def watched(self) -> list[str]:
        """The tables this process has watchers of."""
        return list(self._queues)

    def latest(self, table_id: str) -> int:
        """The latest seq of a watched table this process has heard of."""
        return self._latest.get(table_id, 0)

    def watchers(self, table_id: str) -> int:
        """The Watch streams of ``table_id`` on this process."""
        return len(self._queues.get(table_id, ()))

    def publish(self, table_id: str, seq: int, told: Told | Heard | None = None, revoked: str = "") -> None:
        if revoked:
            self.revocations += 1
        elif seq and table_id in self._latest:
            if told is None and seq <= self._told.get(table_id, 0):
                return  # every watcher here has had news of this step, or a later one
            self._latest[table_id] = max(seq, self._latest[table_id])
            self._told[table_id] = max(seq, self._told.get(table_id, 0))
        news = News(seq, time.monotonic(), told, self._latest.get(table_id, 0), revoked)
        for queue in self._queues.get(table_id, ()):
            if queue.full():  # a watcher this far behind reads the store anyway: keep the newest
                queue.get_nowait()
            queue.put_nowait(news)

    def set_status(self, table_id: str, status: object) -> bool:
        """Keep the table's status for its watchers here; whether it changed."""
        changed = self._status.get(table_id) != status
        self._status[table_id] = status
        return changed

    def status(self, table_id: str) -> Any:
        """The table's status as last kept here (None: not known)."""
        return self._status.get(table_id)

    def react(self, table_id: str, seat: int, kind: str) -> None:
        """A seat's quick reaction, to every watcher of the table here."""
        news = News(0, time.monotonic(), reaction=(seat, kind))
        for queue in self._queues.get(table_id, ()):
            if not queue.full():
                queue.put_nowait(news)

    def arrive(self, table_id: str, seat: int) -> None:
        self._present[table_id][seat] += 1
        self.publish(table_id, 0)

    def leave(self, table_id: str, seat: int) -> None:
        present = self._present[table_id]
        present[seat] -= 1
        if present[seat] <= 0:
            del present[seat]
        if not present:
            del self._present[table_id]
        self.publish(table_id, 0)

    def connected(self, table_id: str) -> set[int]:
        return set(self._present.get(table_id, ()))
