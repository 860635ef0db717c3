"""Running the gateway: embedded beside the gRPC server (``mazziere serve``) or alone (``mazziere gateway``).

Embedded, one process serves gRPC on ``MAZZIERE_PORT`` and REST on ``MAZZIERE_REST_PORT``; the gateway calls the
handlers in process (or over a local channel, ``MAZZIERE_GATEWAY_EMBEDDED=channel``) and shares the service's
metrics registry. On SIGTERM the health service turns NOT_SERVING (so ``/readyz`` answers 503), both keep
serving for ``MAZZIERE_DRAIN_SECONDS``, then both stop, letting calls in flight finish.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import signal
import socket
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import uvicorn
import uvloop
from fastapi import FastAPI
from google.protobuf.message_factory import GetMessageClass
from grpc_health.v1 import health_pb2
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from mazziere.services.core.call import Call
from mazziere.services.core.dispatch import Encode
from mazziere.services.gateway.app import create_app
from mazziere.services.gateway.backend import Backend, ChannelBackend, InProcessBackend, Write
from mazziere.services.gateway.config import GatewayConfig
from mazziere.services.gateway.routes import SERVICE
from mazziere.services.gateway.stream import TRANSPORT
from mazziere.services.host.host import Host
from mazziere.services.host.serve import add_host
from mazziere.services.logs import get_logger
from mazziere.services.metrics import new_registry, serve_registry
from mazziere.services.server import SERVICE_NAME, App, GrpcServer, make_keyring

MAX_HEAD_BYTES = 64 * 1024
"""The most a request line and its headers may take; beyond, 431 and the connection is closed."""


class GuardedHttpTools(HttpToolsProtocol):
    """uvicorn's httptools protocol with a deadline on each request's head, and a bound on its size.

    uvicorn times out idle keep-alive connections only: a caller that opens a connection and sends nothing, or
    half a request line, holds it forever. Here the head (request line and headers) must arrive within
    ``read_timeout`` of the connection or of the request's first byte; the body's deadline is the endpoint's.
    """

    read_timeout = 10.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._head_timer: asyncio.TimerHandle | None = None
        self._head_bytes = 0

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
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

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
        self.scope[TRANSPORT] = self.transport  # type: ignore[literal-required]  # to drop a stalled reader's


class RestServer(uvicorn.Server):
    """uvicorn on a socket we bound, with signals left to us (we stop gRPC and REST together)."""

    def __init__(
        self, app: FastAPI, sock: socket.socket, *, grace_seconds: float | None = None, read_timeout: float = 10.0
    ) -> None:
        protocol = type("GuardedHttp", (GuardedHttpTools,), {"read_timeout": read_timeout})
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


def channel_methods() -> dict[str, Any]:
    """Every method of TableService (from its descriptor: the Connect routes serve each, with or without a REST
    route) as RPC name to (request class, response class, server streaming)."""
    return {
        m.name: (GetMessageClass(m.input_type), GetMessageClass(m.output_type), m.server_streaming)
        for m in SERVICE.methods
    }


class _HealthContext:
    def set_code(self, code: Any) -> None:
        return None

    def set_details(self, details: str) -> None:
        return None


def _health_probe(server: GrpcServer) -> Callable[[], Awaitable[bool]]:
    request = health_pb2.HealthCheckRequest(service=SERVICE_NAME)

    async def ready() -> bool:
        answer = await server.health.Check(request, _HealthContext())
        return bool(answer.status == health_pb2.HealthCheckResponse.SERVING)

    return ready


def channel_backend(config: GatewayConfig, target: str) -> ChannelBackend:
    return ChannelBackend(
        target,
        timeout=config.gateway_timeout_seconds,
        max_message_bytes=config.max_message_bytes,
        methods=channel_methods(),
        write_seconds=config.stream_write_seconds,
    )


def embedded_backend(app: App, config: GatewayConfig, server: GrpcServer, port: int) -> Backend:
    if config.gateway_embedded == "channel":
        return channel_backend(config, f"127.0.0.1:{port}")
    return InProcessBackend(app.dispatcher, timeout=config.gateway_timeout_seconds, ready=_health_probe(server))


def serve_embedded(config: GatewayConfig) -> None:
    """``mazziere serve``: gRPC, the host and REST in one process until SIGTERM or SIGINT."""
    if config.gateway_embedded == "channel" and config.tls_cert_file:
        raise ValueError("MAZZIERE_GATEWAY_EMBEDDED=channel needs a plaintext gRPC port; use inprocess with TLS")
    sock = bind(config.rest_host, config.rest_port) if config.rest_port else None
    keep_key = config.host_enabled and config.store.startswith("sqlite:") and not config.engine_target
    app = App(config, keyring=make_keyring(config, keep_in=Path(config.data_dir) if keep_key else None))
    hosted = add_host(app, config, timeout=config.gateway_timeout_seconds) if config.host_enabled else None
    if config.metrics_port:
        app.metrics.serve(config.metrics_port, config.bind_host)
    gc.freeze()  # what start-up made (modules, descriptors) lives as long as the process: no collection scans it
    uvloop.run(_embedded(app, config, sock, hosted))


async def _embedded(
    app: App, config: GatewayConfig, sock: socket.socket | None, hosted: tuple[Host, Backend] | None
) -> None:
    stop = _stop_on_signals()
    log = get_logger()
    server = GrpcServer(app)
    port = await server.start()
    if hosted is not None:
        await hosted[0].start()
        log.info("host_serving", store=_store_kind(config.store), public_url=config.public_url)
    backend = embedded_backend(app, config, server, port)
    waits: list[asyncio.Task[Any]] = [asyncio.create_task(stop.wait())]
    rest: RestServer | None = None
    if sock is not None:
        rest = RestServer(
            create_app(backend, config, registry=app.metrics.registry, host=hosted[1] if hosted else None),
            sock,
            grace_seconds=config.grace_seconds,
            read_timeout=config.gateway_read_timeout_seconds,
        )
        waits.append(asyncio.create_task(rest.run_on_socket()))
        log.info("rest_serving", port=sock.getsockname()[1], grpc_port=port, gateway=config.gateway_embedded)
    await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    await server.not_serving()  # /readyz answers 503 from here on
    await asyncio.sleep(config.drain_seconds)
    if rest is not None:
        rest.should_exit = True
    await asyncio.gather(server.stop(), *waits[1:], return_exceptions=True)
    if hosted is not None:
        await hosted[0].stop()
    await backend.close()


def _store_kind(url: str) -> str:
    """The store's kind and place, without credentials."""
    return url if url.startswith("sqlite:") else url.split("://", 1)[0] + "://" + url.rsplit("@", 1)[-1]


def serve_split(config: GatewayConfig, target: str) -> None:
    """``mazziere gateway``: the REST port alone (REST, Connect, gRPC-Web), calling the gRPC service at ``target``,
    until SIGTERM or SIGINT."""
    sock = bind(config.rest_host, config.rest_port)
    uvloop.run(_split(config, target, sock))


class _Draining:
    """Readiness that turns false once shutdown begins, whatever the service says."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend
        self.draining = False

    async def call(
        self, rpc: str, request: Any, call: Call, timeout: float | None = None, *, encode: Encode | None = None
    ) -> Any:
        return await self.backend.call(rpc, request, call, timeout, encode=encode)

    async def stream(
        self, rpc: str, request: Any, call: Call, timeout: float | None, write: Write, *, encode: Encode | None = None
    ) -> None:
        await self.backend.stream(rpc, request, call, timeout, write, encode=encode)

    async def ready(self) -> bool:
        return not self.draining and await self.backend.ready()

    async def close(self) -> None:
        await self.backend.close()


async def _split(config: GatewayConfig, target: str, sock: socket.socket) -> None:
    stop = _stop_on_signals()
    backend = _Draining(channel_backend(config, target))
    registry = new_registry()  # the HTTP metrics and the gateway process's own
    if config.metrics_port:  # the HTTP metrics, on the metrics port as the engine's are
        serve_registry(registry, config.metrics_port, config.bind_host)
    rest = RestServer(
        create_app(backend, config, registry=registry),
        sock,
        grace_seconds=config.grace_seconds,
        read_timeout=config.gateway_read_timeout_seconds,
    )
    rest_task = asyncio.create_task(rest.run_on_socket())
    get_logger().info("rest_serving", port=sock.getsockname()[1], target=target, gateway="split")
    await asyncio.wait([asyncio.create_task(stop.wait()), rest_task], return_when=asyncio.FIRST_COMPLETED)
    backend.draining = True
    get_logger().info("shutting_down", drain_seconds=config.drain_seconds)
    await asyncio.sleep(config.drain_seconds)
    rest.should_exit = True
    await asyncio.gather(rest_task, return_exceptions=True)
    await backend.close()
    get_logger().info("stopped")


def _stop_on_signals() -> asyncio.Event:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    return stop
