"""What a table's readers are served: its snapshot per audience, made once per step by the engine's GetView and
shared by every reader of that audience (GetHostedTable, a Watch's first answer), so a crowd reading a table costs
the players one engine call per audience and step, not one per reader.

The snapshots of the :data:`TABLES` tables read last are kept, each table's at its latest ``seq`` only; readers
who come while one is being made wait for that one.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Awaitable, Callable

from mazziere.services.host.store import TableRecord
from mazziere.services.host.updates import Update

TABLES = 1024
"""Tables whose snapshots are kept (the least recently read forgotten first)."""

Make = Callable[[TableRecord, str], Awaitable[Update]]
"""Makes ``audience``'s snapshot of a table (the engine's GetView)."""


class _Kept:
    __slots__ = ("closed", "made", "seq")

    def __init__(self, seq: int, closed: bool) -> None:
        self.seq = seq
        self.closed = closed
        self.made: dict[str, asyncio.Future[Update]] = {}


class Snapshots:
    """Each kept table's snapshots at its latest step, by audience."""

    def __init__(self, make: Make, *, tables: int = TABLES) -> None:
        self._make = make
        self._most = tables
        self._kept: OrderedDict[str, _Kept] = OrderedDict()
        self.made = 0
        """Snapshots made (engine calls), for tests and benchmarks."""

    async def of(self, record: TableRecord, audience: str) -> Update:
        """``audience``'s snapshot of ``record``'s table at its ``seq``."""
        loop = asyncio.get_running_loop()
        kept = self._kept.get(record.table_id)
        if kept is None or (kept.seq, kept.closed) < (record.seq, record.closed):
            kept = self._kept[record.table_id] = _Kept(record.seq, record.closed)
        elif (kept.seq, kept.closed) != (record.seq, record.closed):  # a reader of an older record: not kept
            return await self._made(record, audience)
        self._kept.move_to_end(record.table_id)
        if len(self._kept) > self._most:
            self._kept.popitem(last=False)
        made = kept.made.get(audience)
        if made is None or made.get_loop() is not loop:
            made = kept.made[audience] = loop.create_task(self._made(record, audience))
            made.add_done_callback(lambda done: self._forget(kept, audience, done))
        return await asyncio.shield(made)  # one reader leaving does not stop the others' snapshot

    def forget(self, table_id: str) -> None:
        self._kept.pop(table_id, None)

    async def _made(self, record: TableRecord, audience: str) -> Update:
        self.made += 1
        return await self._make(record, audience)

    @staticmethod
    def _forget(kept: _Kept, audience: str, done: asyncio.Future[Update]) -> None:
        """A snapshot that failed is not kept: the next reader asks again."""
        if (done.cancelled() or done.exception() is not None) and kept.made.get(audience) is done:
            del kept.made[audience]
