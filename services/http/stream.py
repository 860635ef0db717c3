"""A streaming HTTP answer written by the call as it goes, ended on a refusal, a stalled reader or a disconnect.

The call writes each chunk through ``write`` (awaited: it waits while the reader's socket is full, and the core
gives it a time limit). A refusal before the first chunk may still be answered with its own HTTP status; after it,
the protocol's last chunk carries the error. A reader that stops reading has its connection dropped, and one that
disconnects cancels the call, so neither holds a worker or a place.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Iterable

from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from mazziere.services.core.dispatch import Stalled
from mazziere.services.errors import ServiceError

Chunks = Callable[[bytes], Awaitable[None]]
TRANSPORT = "mazziere.transport"
"""The scope key under which the HTTP server puts the connection's transport (to drop a stalled reader's)."""


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

        async def start() -> None:
            nonlocal started
            if not started:
                started = True
                more = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in self.headers_at_start()]
                headers = [*self.raw_headers, *more]
                await send({"type": "http.response.start", "status": self.status_code, "headers": headers})

        async def write(chunk: bytes) -> None:
            await start()
            await send({"type": "http.response.body", "body": chunk, "more_body": True})

        error: ServiceError | None = None
        try:
            await _until_disconnect(self.produce(write), receive)
        except ServiceError as exc:
            error = exc
        except Stalled:
            transport = scope.get(TRANSPORT)
            if transport is not None:
                transport.abort()
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
