"""The HTTP server: uvicorn on a socket bound before anything starts, with a deadline and a bound on each
request's head, a cap on its connections (:mod:`.connections`), and signals left to the composition root (which
stops gRPC and HTTP together)."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Iterator
from typing import Any

import uvicorn
from fastapi import FastAPI
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from mazziere.services.http.connections import OVER_CAP, ConnectionGate, Verdict
from mazziere.services.http.stream import CONNECTION, Connection

MAX_HEAD_BYTES = 64 * 1024
"""The most a request line and its headers may take; beyond, 431 and the connection is closed."""


class GuardedHttpTools(HttpToolsProtocol):
    """uvicorn's httptools protocol with a deadline on each request's head, a bound on its size, and its
    connections counted against the ``gate``'s cap (when there is one).

    uvicorn times out idle keep-alive connections only: a caller that opens a connection and sends nothing, or
    half a request line, holds it forever. Here the head (request line and headers) must arrive within
    ``read_timeout`` of the connection or of the request's first byte; the body's deadline is the endpoint's.
    """

    read_timeout = 10.0
    gate: ConnectionGate | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._head_timer: asyncio.TimerHandle | None = None
        self._head_bytes = 0
        self._verdict = Verdict.SERVE

    def _arm(self) -> None:
        self._disarm()
        self._head_bytes = 0
        self._head_timer = self.loop.call_later(self.read_timeout, self._head_timed_out)

    def _disarm(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_timed_out(self) -> None:
        self._head_timer = None
        if not self.transport.is_closing():
            self.transport.close()

    def _count(self, n: int) -> None:
        self._head_bytes += n
        if self._head_bytes > MAX_HEAD_BYTES and not self.transport.is_closing():
            self._disarm()
            self.transport.write(
                b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
            )
            self.transport.close()

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._connection = Connection(transport, self.flow)
        if self.gate is not None:
            self._verdict = self.gate.taken(len(self.connections))
            if self._verdict is Verdict.CLOSE:
                transport.write(self.gate.bare_refusal)
                transport.close()
                return
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)
        if self.gate is not None:
            self.gate.released(len(self.connections))

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._arm()

    def on_url(self, url: bytes) -> None:
        self._count(len(url))
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._count(len(name) + len(value))
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        self._disarm()
        super().on_headers_complete()
        self.scope[CONNECTION] = self._connection  # type: ignore[literal-required]  # its streams' writes
        if self._verdict is Verdict.PROBES:
            self.scope[OVER_CAP] = self.gate  # type: ignore[literal-required]  # refused unless a probe


class RestServer(uvicorn.Server):
    """uvicorn on a socket we bound, with signals left to us (we stop gRPC and REST together)."""

    def __init__(
        self,
        app: FastAPI,
        sock: socket.socket,
        *,
        grace_seconds: float | None = None,
        read_timeout: float = 10.0,
        gate: ConnectionGate | None = None,
    ) -> None:
        """``gate``: the cap on connections and its counts (none: no cap)."""
        protocol = type("GuardedHttp", (GuardedHttpTools,), {"read_timeout": read_timeout, "gate": gate})
        super().__init__(
            uvicorn.Config(
                app,
                log_config=None,
                access_log=False,
                lifespan="off",
                http=protocol,
                timeout_graceful_shutdown=int(grace_seconds) if grace_seconds else None,
                timeout_keep_alive=5,
                server_header=False,
                proxy_headers=False,  # the client is the peer; the core trusts proxies (MAZZIERE_TRUSTED_PROXIES)
            )
        )
        self.sock = sock

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield

    async def run_on_socket(self) -> None:
        await self.serve(sockets=[self.sock])


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket (port 0: a free one), bound before anything starts so errors come first."""
    family = socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host.strip("[]"), port))
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock
