"""A streaming HTTP answer written by the call as it goes, ended on a refusal, a stalled reader or a disconnect.

The call writes each chunk through ``write``, which returns once the chunk has left the process for the reader's
connection (:meth:`Connection.taken`); the core gives it a time limit (``MAZZIERE_STREAM_WRITE_SECONDS``), so a
chunk a reader does not take in time ends the stream, a heartbeat of an idle table as surely as a move. A refusal
before the first chunk may still be answered with its own HTTP status; after it, the protocol's last chunk carries
the error. A reader that stops reading has its connection dropped, and one that disconnects cancels the call, so
neither holds a worker or a place.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Awaitable, Callable, Iterable
from typing import Protocol

from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from mazziere.services.core.dispatch import Stalled
from mazziere.services.errors import ServiceError

Chunks = Callable[[bytes], Awaitable[None]]
CONNECTION = "mazziere.connection"
"""The scope key under which the HTTP server puts the request's :class:`Connection`."""
UNSENT_BYTES = 16 * 1024
"""What the system may hold of a stream's answers that the reader has not yet made room for (``TCP_NOTSENT_LOWAT``);
beyond, the rest waits in the process, where a stalled reader shows. Without it Linux lets a few megabytes queue
(its send buffer grows to ``tcp_wmem``'s largest, 4 MiB), whose writes all succeed: a reader that stopped reading
at an idle table would not be found for days of heartbeats. Bytes on their way (sent, not yet acknowledged) do not
count, so a fast reader far away is not slowed."""


class Drain(Protocol):
    """The HTTP server's flow control of a connection: ``drain`` returns once the transport may be written again."""

    async def drain(self) -> None: ...


class Connection:
    """The connection a streaming answer is written on: what it has not yet sent, and how to drop it."""

    def __init__(self, transport: asyncio.Transport, flow: Drain) -> None:
        self.transport = transport
        self.flow = flow

    def streaming(self) -> None:
        """From the first chunk on: the system holds little unsent (:data:`UNSENT_BYTES`), and any byte left in the
        process pauses the writer until the reader has made room for it."""
        sock = self.transport.get_extra_info("socket")
        option = getattr(socket, "TCP_NOTSENT_LOWAT", None)
        if sock is not None and option is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.IPPROTO_TCP, option, UNSENT_BYTES)
        self.transport.set_write_buffer_limits(high=0)

    async def taken(self) -> None:
        """Returns once what was written has left the process (the reader made room for it)."""
        if self.transport.get_write_buffer_size() and not self.transport.is_closing():
            await self.flow.drain()

    def drop(self) -> None:
        self.transport.abort()


class WrittenStream(Response):
    """``produce(write)`` writes the body; ``last(error, started)`` is the final chunk (or a whole error answer,
    when nothing was written yet and the protocol answers a refusal with its status)."""

    def __init__(
        self,
        produce: Callable[[Chunks], Awaitable[None]],
        last: Callable[[ServiceError | None, bool], bytes | Response],
        media_type: str,
        *,
        headers: Callable[[], Iterable[tuple[str, str]]] = tuple,
    ) -> None:
        """``headers``: more response headers, read when the answer starts (what the call set by then)."""
        super().__init__(media_type=media_type)
        self.raw_headers = [(k, v) for k, v in self.raw_headers if k != b"content-length"]  # the length is unknown
        self.produce = produce
        self.last = last
        self.headers_at_start = headers

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        started = False
        connection: Connection | None = scope.get(CONNECTION)

        async def start() -> None:
            nonlocal started
            if not started:
                started = True
                more = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in self.headers_at_start()]
                headers = [*self.raw_headers, *more]
                if connection is not None:
                    connection.streaming()
                await send({"type": "http.response.start", "status": self.status_code, "headers": headers})

        async def write(chunk: bytes) -> None:
            await start()
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
            if connection is not None:
                await connection.taken()

        error: ServiceError | None = None
        try:
            await _until_disconnect(self.produce(write), receive)
        except ServiceError as exc:
            error = exc
        except Stalled:
            if connection is not None:
                connection.drop()
                await asyncio.sleep(0)  # its connection_lost runs: the server knows the answer ends here
            return
        except _Disconnected:
            return
        last = self.last(error, started)
        if isinstance(last, Response):
            await last(scope, receive, send)
            return
        await start()
        await send({"type": "http.response.body", "body": last, "more_body": False})


class _Disconnected(Exception):
    pass


async def _until_disconnect(work: Awaitable[None], receive: Receive) -> None:
    """Run ``work``; cancel it (and raise _Disconnected) if the caller disconnects first."""
    task = asyncio.ensure_future(work)
    listener = asyncio.ensure_future(_disconnected(receive))
    try:
        await asyncio.wait({task, listener}, return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError:
        task.cancel()
        raise
    finally:
        listener.cancel()
    if not task.done():
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        raise _Disconnected
    task.result()


async def _disconnected(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass
