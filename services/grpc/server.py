"""The gRPC transport: the call core's services on ``grpc.aio``, with health, reflection, keepalive, TLS and
shutdown.

Thin: a call's bytes go to the call core (:class:`~mazziere.services.core.dispatch.Dispatcher`), which admits,
runs and observes it; this module only writes its answer or its status. The event loop runs no game work but a host
call's moves (tens of microseconds each: :data:`~mazziere.services.core.dispatch.INLINE`), so health checks answer
at once however busy the workers are.
"""

from __future__ import annotations

import asyncio
import random
import threading
from collections.abc import Callable, Coroutine, Sequence
from pathlib import Path
from typing import Any, NoReturn, TypeVar
from urllib.parse import unquote

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection, reflection_pb2
from grpc_status import rpc_status

from mazziere.services.config import Config
from mazziere.services.core.call import Call
from mazziere.services.core.dispatch import Dispatcher, Gone, Method, Stalled
from mazziere.services.core.logs import get_logger
from mazziere.services.errors import ServiceError
from mazziere.services.gen.mazziere.v1 import errors_pb2

T = TypeVar("T")

REFLECTION_V1 = "grpc.reflection.v1.ServerReflection"
"""The stable name of server reflection. grpcio-reflection implements only ``grpc.reflection.v1alpha``; the v1
messages are the same on the wire (the same fields and numbers, only the package differs), so the same servicer
serves both names."""
REFLECTED_FILES = (errors_pb2.DESCRIPTOR,)
"""Files no served service imports that reflection must still find (loaded into the default descriptor pool by
importing them): ``mazziere/v1/errors.proto``, whose ErrorReason names every ``ErrorInfo.reason``."""


# -- the behaviours: parse nothing, call the core, write --------------------------------------------


def _call(context: grpc.aio.ServicerContext[Any, Any]) -> Call:
    metadata = tuple((k, v) for k, v in context.invocation_metadata() or () if isinstance(v, str))
    return Call(metadata=metadata, peer=peer_address(context.peer()))


def peer_address(peer: str) -> str:
    """The address in gRPC's peer (``ipv4:10.0.0.7:5123``, ``ipv6:[::1]:5123``, its brackets perhaps
    percent-encoded); empty for any other kind (a Unix socket)."""
    kind, _, rest = (peer or "").partition(":")
    if kind not in ("ipv4", "ipv6"):
        return ""
    rest = unquote(rest)
    if rest.startswith("["):
        return rest[1 : rest.find("]")]
    return rest.rsplit(":", 1)[0] if kind == "ipv4" else rest


async def _refuse(context: grpc.aio.ServicerContext[Any, Any], error: ServiceError) -> NoReturn:
    if error.reason or error.details:
        await context.abort_with_status(rpc_status.to_status(error.status()))
    await context.abort(error.code, error.message)


async def _send_headers(context: grpc.aio.ServicerContext[Any, Any], call: Call) -> None:
    if call.headers:
        await context.send_initial_metadata(tuple(call.headers))
    if call.trailers:
        context.set_trailing_metadata(tuple(call.trailers))


def _unary(dispatcher: Dispatcher, method: Method) -> Callable[..., Any]:
    async def behavior(request: bytes, context: grpc.aio.ServicerContext[Any, Any]) -> bytes:
        call = _call(context)
        try:
            answer: bytes = await dispatcher.unary(method, request, call, context.time_remaining(), wire=True)
        except ServiceError as exc:
            await _send_headers(context, call)
            await _refuse(context, exc)
        await _send_headers(context, call)
        return answer

    return behavior


def stream_lifetime(config: Config) -> Callable[[], float]:
    """A stream's lifetime (:attr:`Call.stream_lifetime`): a random time between one and one and a half connection
    ages. A stream opened before its connection was told to close (at its age) then ends by itself within the grace
    (at least one and a half ages and a heartbeat), so the grace never cuts one, and the streams of one connection
    end spread over half an age: their clients come back one by one, not all at once when it closes, and no more
    often than a connection's age cut them."""
    age = config.max_connection_age_ms / 1000
    return (lambda: 0.0) if age <= 0 else (lambda: random.uniform(age, 1.5 * age))


def grace_cuts_streams(config: Config) -> bool:
    """Whether a connection closed for its age may cut a stream still open on it: its grace is shorter than the
    longest lifetime (one and a half ages) and a heartbeat, the time a stream may take to end by itself."""
    age = config.max_connection_age_ms
    return age > 0 and config.max_connection_age_grace_ms < 1.5 * age + config.heartbeat_seconds * 1000


def _stream(dispatcher: Dispatcher, method: Method, lifetime: Callable[[], float]) -> Callable[..., Any]:
    async def behavior(request: bytes, context: grpc.aio.ServicerContext[Any, Any]) -> None:
        """Writes each answer with ``context.write`` (a coroutine, not a generator: the core does the writing)."""
        call = _call(context)
        call.stream_lifetime = lifetime()
        sent = False

        async def write(item: bytes) -> None:
            nonlocal sent
            if not sent:
                sent = True
                await _send_headers(context, call)
            try:
                await context.write(item)
            except Exception as exc:  # grpc's ExecuteBatchError: the call was cancelled under the write
                raise Gone from exc

        try:
            await dispatcher.stream(method, request, call, context.time_remaining(), write, wire=True)
        except ServiceError as exc:
            if not sent:
                await _send_headers(context, call)
            await _refuse(context, exc)
        except Stalled as exc:
            await context.abort(grpc.StatusCode.CANCELLED, str(exc))
        except Gone:
            return
        if not sent:
            await _send_headers(context, call)

    return behavior


def generic_handlers(
    dispatcher: Dispatcher, methods: Sequence[Method], lifetime: Callable[[], float]
) -> list[grpc.GenericRpcHandler]:
    """The handlers of ``methods``, which take and return bytes: parsing happens in the core, and the answer is the
    protobuf bytes the core made (a written answer's as written, never parsed and serialized again), handed to
    grpcio as the serialized answer (no response serializer: bytes pass through). Each stream's lifetime is
    ``lifetime()`` (0: none)."""
    by_service: dict[str, dict[str, grpc.RpcMethodHandler[Any, Any]]] = {}
    for m in methods:
        handler: grpc.RpcMethodHandler[Any, Any] = (
            grpc.unary_stream_rpc_method_handler(_stream(dispatcher, m, lifetime))
            if m.streaming
            else grpc.unary_unary_rpc_method_handler(_unary(dispatcher, m))
        )
        by_service.setdefault(m.service, {})[m.name] = handler
    return [grpc.method_handlers_generic_handler(name, handlers) for name, handlers in by_service.items()]


def enable_reflection(server: Any, service_names: Sequence[str], *, aio: bool) -> None:
    """Server reflection under both names, v1alpha (grpcio-reflection's own) and v1 (:data:`REFLECTION_V1`)."""
    reflection.enable_server_reflection(service_names, server)
    servicer: Any = (reflection.aio.ReflectionServicer if aio else reflection.ReflectionServicer)(service_names)
    handler = grpc.stream_stream_rpc_method_handler(
        servicer.ServerReflectionInfo,
        request_deserializer=reflection_pb2.ServerReflectionRequest.FromString,
        response_serializer=reflection_pb2.ServerReflectionResponse.SerializeToString,
    )
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler(REFLECTION_V1, {"ServerReflectionInfo": handler}),)
    )


def server_options(config: Config) -> list[tuple[str, Any]]:
    return [
        ("grpc.max_receive_message_length", config.max_message_bytes),
        ("grpc.max_send_message_length", config.max_message_bytes),
        ("grpc.keepalive_time_ms", config.keepalive_time_ms),
        ("grpc.keepalive_timeout_ms", config.keepalive_timeout_ms),
        ("grpc.keepalive_permit_without_calls", 1),
        ("grpc.http2.min_ping_interval_without_data_ms", 10_000),
        ("grpc.max_connection_age_ms", config.max_connection_age_ms),
        ("grpc.max_connection_age_grace_ms", config.max_connection_age_grace_ms),
        ("grpc.so_reuseport", int(config.processes > 1)),  # only this server's own processes share its port
    ]


def _credentials(config: Config) -> grpc.ServerCredentials | None:
    if not config.tls_cert_file:
        return None
    pair = (Path(config.tls_key_file).read_bytes(), Path(config.tls_cert_file).read_bytes())
    return grpc.ssl_server_credentials([pair])


def _grace_split(grace: float) -> float:
    """How long into the grace period calls that have not started yet are still served (the rest are refused as
    SHUTTING_DOWN, UNAVAILABLE, which clients retry, rather than cut as CANCELLED when the grace runs out)."""
    return max(0.0, grace - min(1.0, grace / 4))


def service_names(dispatcher: Dispatcher) -> list[str]:
    """Every service the server answers: the core's, health and reflection."""
    names = {m.service for m in dispatcher.methods.values()}
    return [*sorted(names), health.SERVICE_NAME, REFLECTION_V1, reflection.SERVICE_NAME]


class GrpcServer:
    """The gRPC server of a call core, on the running event loop."""

    def __init__(self, config: Config, dispatcher: Dispatcher) -> None:
        self.config = config
        self.dispatcher = dispatcher
        self.log = get_logger()
        self.port = 0

    async def start(self) -> int:
        config = self.config
        self.health = health.aio.HealthServicer()
        methods = list(self.dispatcher.methods.values())
        self.server = grpc.aio.server(
            handlers=generic_handlers(self.dispatcher, methods, stream_lifetime(config)),
            options=server_options(config),
        )
        health_pb2_grpc.add_HealthServicer_to_server(self.health, self.server)
        if config.reflection:
            enable_reflection(self.server, service_names(self.dispatcher), aio=True)
        creds = _credentials(config)
        if creds is None:
            self.port = self.server.add_insecure_port(config.address)
        else:
            self.port = self.server.add_secure_port(config.address, creds)
        await self.server.start()
        self.dispatcher.start()
        for name in ["", *service_names(self.dispatcher)]:
            await self.health.set(name, health_pb2.HealthCheckResponse.SERVING)
        self.log.info("serving", port=self.port, metrics_port=config.metrics_port)
        return self.port

    async def not_serving(self) -> None:
        """Health NOT_SERVING (so load balancers stop sending calls) and every host stream ended at once, as
        SHUTTING_DOWN (its client watches again elsewhere), before :meth:`stop`."""
        await self.health.enter_graceful_shutdown()
        self.dispatcher.drain()
        self.log.info("shutting_down", drain_seconds=self.config.drain_seconds)

    async def stop(self) -> None:
        """Stop with grace: calls in flight finish; calls not started near the grace's end are refused."""
        grace = self.config.grace_seconds
        stopping = asyncio.ensure_future(self.server.stop(grace))
        done, _ = await asyncio.wait({stopping}, timeout=_grace_split(grace))
        if not done:  # calls still waiting: refuse them as UNAVAILABLE before grpc cuts them as CANCELLED
            self.dispatcher.close()
            await stopping
        self.dispatcher.shutdown()
        self.log.info("stopped")

    async def run(self, stop: asyncio.Event) -> None:
        await self.start()
        await stop.wait()
        await self.not_serving()
        await asyncio.sleep(self.config.drain_seconds)
        await self.stop()


class ServerThread:
    """A :class:`GrpcServer` on an event loop of its own thread, for synchronous programs (tests, benchmarks)."""

    def __init__(self, server: GrpcServer) -> None:
        self.server = server
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="mazziere-grpc-loop", daemon=True)

    def start(self) -> int:
        self._thread.start()
        return self.run(self.server.start())

    def run(self, work: Coroutine[Any, Any, T]) -> T:
        """Run ``work`` on the server's loop and wait for its result."""
        return asyncio.run_coroutine_threadsafe(work, self._loop).result()

    def shutdown(self) -> None:
        """NOT_SERVING, drain, then stop with grace (as on SIGTERM)."""

        async def down() -> None:
            await self.server.not_serving()
            await asyncio.sleep(self.server.config.drain_seconds)
            await self.server.stop()

        self.run(down())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join()
