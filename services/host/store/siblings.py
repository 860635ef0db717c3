"""News between the host processes of one machine on one SQLite store (``MAZZIERE_PROCESSES``): each process
hands every notification it makes (a table's new ``seq``, a reissued capability, a signal) to each sibling over the
stream socket the supervisor made before forking (:mod:`~mazziere.services.core.forking`), and tells its own
listeners what its siblings hand it, as PostgreSQL's LISTEN/NOTIFY does between replicas.

A notification is one JSON line; a move's carries what each audience saw of it (base64), so the watchers of the
other processes need not read it from the store. A stream loses nothing and keeps each sender's order; any other
notification only says where to look (a watcher reads the steps it has not had from the store), so news reaching
one process from two siblings in any order leaves no gap. A sibling whose stream ends has ended: the supervisor
stops the others.
"""

from __future__ import annotations

import asyncio
import base64
import json
import socket
from collections.abc import Mapping, Sequence

from mazziere.services.core.logs import get_logger
from mazziere.services.host.store.base import Listener

log = get_logger()


class Siblings:
    """This process's streams to its siblings: :meth:`start` begins listening, :meth:`send` hands news on."""

    def __init__(self, sockets: Sequence[socket.socket]) -> None:
        self._sockets = list(sockets)
        self._writers: list[asyncio.StreamWriter] = []
        self._readers: list[asyncio.Task[None]] = []

    def __len__(self) -> int:
        return len(self._sockets)

    async def start(self, deliver: Listener) -> None:
        """Read every sibling's news from now on, handing each to ``deliver``."""
        for sock in self._sockets:
            reader, writer = await asyncio.open_connection(sock=sock)
            self._writers.append(writer)
            self._readers.append(asyncio.create_task(self._read(reader, deliver)))
        self._sockets.clear()

    def send(self, table_id: str, seq: int, revoked: str, seen: Mapping[str, bytes] | None = None) -> None:
        """Hand one notification to every sibling (buffered by each stream: never waits)."""
        if not self._writers:
            return
        news: list[object] = [table_id, seq, revoked]
        if seen is not None:
            news.append({audience: base64.b64encode(data).decode() for audience, data in seen.items()})
        line = json.dumps(news, separators=(",", ":")).encode() + b"\n"
        for writer in self._writers:
            if not writer.is_closing():
                writer.write(line)

    async def aclose(self) -> None:
        for task in self._readers:
            task.cancel()
        await asyncio.gather(*self._readers, return_exceptions=True)
        for writer in self._writers:
            writer.close()
        for sock in self._sockets:
            sock.close()
        self._readers, self._writers, self._sockets = [], [], []

    @staticmethod
    async def _read(reader: asyncio.StreamReader, deliver: Listener) -> None:
        while line := await reader.readline():
            try:
                table_id, seq, revoked, *rest = json.loads(line)
                seen = {audience: base64.b64decode(data) for audience, data in rest[0].items()} if rest else None
            except (ValueError, TypeError, AttributeError):
                log.error("host_sibling_news_unreadable", line=line[:200].decode(errors="replace"))
                continue
            await deliver(table_id, int(seq), revoked, seen)
        log.info(
            "host_sibling_ended",
            message="a sibling server process ended (stopping; else the supervisor stops this one)",
        )
