"""The gRPC server: TableService, health, reflection, limits, keepalive, TLS, logs, metrics, shutdown.

Both flavours of grpcio are supported and share everything but the event loop: ``thread`` (``grpc.server``
with a thread pool) and ``aio`` (``grpc.aio``). docs/performance.md compares them; the default is the faster.
"""

from __future__ import annotations

import asyncio
import signal
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from concurrent import futures
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection
from grpc_status import rpc_status

from engine.errors import Reason, Rejected
from services.config import Config
from services.errors import ServiceError
from services.gen.mazziere.v1 import service_pb2 as svc
from services.logs import get_logger
from services.metrics import Metrics
from services.sealing import Keyring
from services.servicer import Call, TableCore

SERVICE_NAME = "mazziere.v1.TableService"
Handler = Callable[[Any, Call], Any]


@dataclass(frozen=True, slots=True)
class Method:
    """One unary method: the handler and how its messages cross the wire."""

    service: str
    name: str
    handler: Handler
    deserialize: Callable[[bytes], Any] | None
    serialize: Callable[[Any], bytes] | None


def table_methods(core: TableCore) -> list[Method]:
    rows: list[tuple[str, Handler, Any, Any]] = [
        ("ListGames", core.list_games, svc.ListGamesRequest, svc.ListGamesResponse),
        ("CreateTable", core.create_table, svc.CreateTableRequest, svc.CreateTableResponse),
        ("Act", core.act, svc.ActRequest, svc.ActResponse),
        ("GetView", core.get_view, svc.GetViewRequest, svc.GetViewResponse),
        ("Replay", core.replay, svc.ReplayRequest, svc.ReplayResponse),
    ]
    return [Method(SERVICE_NAME, name, fn, req.FromString, resp.SerializeToString) for name, fn, req, resp in rows]


class Observer:
    """Runs a handler with a request id, one log line, and the go-grpc-prometheus metrics."""

    def __init__(self, metrics: Metrics, log_calls: bool = True) -> None:
        self.metrics = metrics
        self.log = get_logger("mazziere.call")
        self.log_calls = log_calls

    def run(self, method: Method, request: Any, context: Any) -> tuple[Any, grpc.Status | None]:
        labels = ("unary", method.service, method.name)
        self.metrics.started.labels(*labels).inc()
        start = time.perf_counter()
        request_id = ""
        for key, value in context.invocation_metadata() or ():
            if key == "x-request-id":
                request_id = str(value)[:128]
        request_id = request_id or uuid.uuid4().hex
        call = Call(time_remaining=context.time_remaining)
        status: grpc.Status | None = None
        response = None
        reason = ""
        try:
            _check_deadline(context)
            response = method.handler(request, call)
            _check_deadline(context)
            code = grpc.StatusCode.OK
        except ServiceError as exc:
            code, reason = exc.code, exc.reason
            status = rpc_status.to_status(exc.status())
            self.metrics.rejections.labels(call.game, reason).inc()
        except Exception as exc:
            if call.plain_state:  # a trusted caller's plain state that does not hold together
                error = ServiceError.from_rejected(
                    Rejected(Reason.INVALID_STATE, f"the plain state is inconsistent ({type(exc).__name__}: {exc})")
                )
                code, reason = error.code, error.reason
                status = rpc_status.to_status(error.status())
                self.metrics.rejections.labels(call.game, reason).inc()
            else:
                code = grpc.StatusCode.INTERNAL
                self.log.exception("call_failed", method=method.name, game=call.game, request_id=request_id)
                status = _Status(code, "internal error", ())
        elapsed = time.perf_counter() - start
        self.metrics.handled.labels(*labels, code.name).inc()
        self.metrics.handling.labels(*labels).observe(elapsed)
        for game, preset, kind in call.finished:
            (self.metrics.hands_finished if kind == "HAND_OVER" else self.metrics.games_finished).labels(
                game, preset
            ).inc()
        if self.log_calls:
            self.log.info(
                "call",
                method=method.name,
                game=call.game,
                code=code.name,
                reason=reason or None,
                duration_ms=round(elapsed * 1000, 3),
                request_id=request_id,
            )
        return response, status


def _check_deadline(context: Any) -> None:
    """Refuse work whose caller has stopped waiting (the engine is pure, so nothing is left half done)."""
    remaining = context.time_remaining()
    if remaining is not None and remaining <= 0:
        raise ServiceError(grpc.StatusCode.DEADLINE_EXCEEDED, "DEADLINE_EXCEEDED", "the call's deadline passed")


@dataclass(frozen=True)
class _Status(grpc.Status):
    code: grpc.StatusCode
    details: str
    trailing_metadata: tuple[tuple[str, bytes], ...]


def _sync_behavior(observer: Observer, method: Method) -> Callable[[Any, grpc.ServicerContext], Any]:
    def behavior(request: Any, context: grpc.ServicerContext) -> Any:
        response, status = observer.run(method, request, context)
        if status is not None:
            context.abort_with_status(status)
        return response

    return behavior


def _aio_behavior(observer: Observer, method: Method) -> Callable[[Any, grpc.aio.ServicerContext[Any, Any]], Any]:
    async def behavior(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
        response, status = observer.run(method, request, context)
        if status is not None:
            await context.abort_with_status(status)
        return response

    return behavior


def generic_handlers(observer: Observer, methods: Sequence[Method], *, aio: bool) -> list[grpc.GenericRpcHandler]:
    by_service: dict[str, dict[str, grpc.RpcMethodHandler[Any, Any]]] = {}
    for m in methods:
        behavior = _aio_behavior(observer, m) if aio else _sync_behavior(observer, m)
        by_service.setdefault(m.service, {})[m.name] = grpc.unary_unary_rpc_method_handler(
            behavior, request_deserializer=m.deserialize, response_serializer=m.serialize
        )
    return [grpc.method_handlers_generic_handler(name, handlers) for name, handlers in by_service.items()]


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
        ("grpc.so_reuseport", 0),
    ]


def make_keyring(config: Config) -> Keyring:
    keyring = Keyring.from_config(config.seal_keys, config.seal_keys_file)
    if keyring is None:
        keyring = Keyring.ephemeral()
        get_logger().warning(
            "EPHEMERAL_SEALING_KEY",
            message="no MAZZIERE_SEAL_KEYS or MAZZIERE_SEAL_KEYS_FILE: sealing with a key made for this process "
            "alone; tokens and seat keys die with it and other replicas cannot open them",
            kid=keyring.primary,
        )
    return keyring


def _credentials(config: Config) -> grpc.ServerCredentials | None:
    if not config.tls_cert_file:
        return None
    pair = (Path(config.tls_key_file).read_bytes(), Path(config.tls_cert_file).read_bytes())
    return grpc.ssl_server_credentials([pair])


class App:
    """Everything a server needs, built once from a :class:`Config`."""

    def __init__(self, config: Config, *, extra_methods: Sequence[Method] = (), keyring: Keyring | None = None) -> None:
        self.config = config
        self.keyring = keyring or make_keyring(config)
        self.core = TableCore(
            self.keyring,
            trusted_mode=config.trusted_mode,
            max_replay_actions=config.max_replay_actions,
            recent_size=config.recent_tokens,
        )
        self.metrics = Metrics()
        self.observer = Observer(self.metrics, config.log_calls)
        self.methods = [*table_methods(self.core), *extra_methods]
        self.log = get_logger()
        if config.trusted_mode:
            self.log.warning(
                "TRUSTED_MODE", message="states travel in plain and seat keys are not required: trusted back ends only"
            )

    def service_names(self) -> list[str]:
        names = {m.service for m in self.methods}
        return [*sorted(names), health.SERVICE_NAME, reflection.SERVICE_NAME]


class ThreadServer:
    """The thread-pool server, started and stopped from the calling thread."""

    def __init__(self, app: App) -> None:
        self.app = app
        config = app.config
        self.server = grpc.server(
            futures.ThreadPoolExecutor(max_workers=config.workers),
            handlers=generic_handlers(app.observer, app.methods, aio=False),
            options=server_options(config),
            maximum_concurrent_rpcs=None,
        )
        self.health = health.HealthServicer(experimental_non_blocking=True)
        health_pb2_grpc.add_HealthServicer_to_server(self.health, self.server)
        if config.reflection:
            reflection.enable_server_reflection(app.service_names(), self.server)
        creds = _credentials(config)
        if creds is None:
            self.port = self.server.add_insecure_port(config.address)
        else:
            self.port = self.server.add_secure_port(config.address, creds)

    def start(self) -> int:
        self.server.start()
        for name in ["", *self.app.service_names()]:
            self.health.set(name, health_pb2.HealthCheckResponse.SERVING)
        return self.port

    def shutdown(self) -> None:
        """NOT_SERVING, drain, then stop with grace: calls in flight finish, new ones are refused."""
        self.health.enter_graceful_shutdown()
        self.app.log.info("shutting_down", drain_seconds=self.app.config.drain_seconds)
        time.sleep(self.app.config.drain_seconds)
        self.server.stop(self.app.config.grace_seconds).wait()
        self.app.log.info("stopped")

    def serve_until_signal(self) -> None:
        stop = threading.Event()
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, lambda *_: stop.set())
        self.start()
        self.app.log.info("serving", port=self.port, kind="thread", metrics_port=self.app.config.metrics_port)
        stop.wait()
        self.shutdown()


class AioServer:
    """The asyncio server; :meth:`serve_until_signal` runs its own event loop."""

    def __init__(self, app: App) -> None:
        self.app = app
        self.port = 0

    async def _build(self) -> None:
        config = self.app.config
        self.server = grpc.aio.server(
            handlers=generic_handlers(self.app.observer, self.app.methods, aio=True), options=server_options(config)
        )
        self.health = health.aio.HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(self.health, self.server)
        if config.reflection:
            reflection.enable_server_reflection(self.app.service_names(), self.server)
        creds = _credentials(config)
        if creds is None:
            self.port = self.server.add_insecure_port(config.address)
        else:
            self.port = self.server.add_secure_port(config.address, creds)

    async def run(self, stop: asyncio.Event) -> None:
        await self._build()
        await self.server.start()
        for name in ["", *self.app.service_names()]:
            await self.health.set(name, health_pb2.HealthCheckResponse.SERVING)
        self.app.log.info("serving", port=self.port, kind="aio", metrics_port=self.app.config.metrics_port)
        await stop.wait()
        await self.health.enter_graceful_shutdown()
        self.app.log.info("shutting_down", drain_seconds=self.app.config.drain_seconds)
        await asyncio.sleep(self.app.config.drain_seconds)
        await self.server.stop(self.app.config.grace_seconds)
        self.app.log.info("stopped")

    def serve_until_signal(self) -> None:
        async def main() -> None:
            stop = asyncio.Event()
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGTERM, signal.SIGINT):
                loop.add_signal_handler(sig, stop.set)
            await self.run(stop)

        asyncio.run(main())


def serve(config: Config, *, extra_methods: Sequence[Method] = ()) -> None:
    """Run a server until SIGTERM or SIGINT, with the metrics endpoint if configured."""
    app = App(config, extra_methods=extra_methods)
    if config.metrics_port:
        app.metrics.serve(config.metrics_port)
    server: ThreadServer | AioServer = ThreadServer(app) if config.server_kind == "thread" else AioServer(app)
    server.serve_until_signal()
