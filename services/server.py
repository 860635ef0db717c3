"""The gRPC server: TableService, health, reflection, limits, keepalive, TLS, logs, metrics, shutdown.

Both flavours of grpcio are supported and share everything but the event loop: ``thread`` (``grpc.server``
with a thread pool) and ``aio`` (``grpc.aio``). docs/performance.md compares them; the default is the faster.
"""

from __future__ import annotations

import asyncio
import functools
import signal
import threading
import time
import uuid
from collections.abc import AsyncIterator, Callable, Generator, Iterator, Sequence
from concurrent import futures
from dataclasses import dataclass
from pathlib import Path
from queue import Empty
from typing import Any, ParamSpec, TypeVar

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection, reflection_pb2
from grpc_status import rpc_status

from mazziere.services.config import Config
from mazziere.services.errors import ServiceError, ServiceReason
from mazziere.services.gen.mazziere.v1 import errors_pb2
from mazziere.services.gen.mazziere.v1 import service_pb2 as svc
from mazziere.services.logs import get_logger
from mazziere.services.metrics import Metrics
from mazziere.services.sealing import Keyring
from mazziere.services.servicer import Call, TableCore, served_games

SERVICE_NAME = "mazziere.v1.TableService"
REFLECTION_V1 = "grpc.reflection.v1.ServerReflection"
"""The stable name of server reflection. grpcio-reflection implements only ``grpc.reflection.v1alpha``; the v1
messages are the same on the wire (the same fields and numbers, only the package differs), so the same servicer
serves both names."""
REFLECTED_FILES = (errors_pb2.DESCRIPTOR,)
"""Files no served service imports that reflection must still find (loaded into the default descriptor pool by
importing them): ``mazziere/v1/errors.proto``, whose ErrorReason names every ``ErrorInfo.reason``."""
Handler = Callable[[Any, Call], Any]
Gone = Callable[[], "grpc.StatusCode | None"]
"""Asked when a call ends: the code to record instead of OK if the caller is gone (None while it waits)."""

RETRY_AFTER_SECONDS = 1.0
"""The delay a refused call (OVERLOADED) is told to wait before retrying, in its google.rpc.RetryInfo."""
UNKNOWN_LABEL = "unknown"
"""The metric label that stands for any game the caller named that is not one of ours."""

P = ParamSpec("P")
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Method:
    """One method: the handler and how its messages cross the wire.

    ``deserialize`` and ``serialize`` run inside :meth:`Observer.run` (gRPC hands the handler the raw bytes), so a
    body that does not parse is a typed, logged and counted refusal like any other. ``streaming``: the handler
    returns an iterator of responses (server streaming). ``slow``: the call may run long (a replay, an advice); it
    runs on the replay workers, never holding a game worker (a replay also under the replay budget).
    """

    service: str
    name: str
    handler: Handler
    deserialize: Callable[[bytes], Any] | None
    serialize: Callable[[Any], bytes] | None
    streaming: bool = False
    slow: bool = False


def table_methods(core: TableCore) -> list[Method]:
    rows: list[tuple[str, Handler, Any, Any]] = [
        ("ListGames", core.list_games, svc.ListGamesRequest, svc.ListGamesResponse),
        ("CreateTable", core.create_table, svc.CreateTableRequest, svc.CreateTableResponse),
        ("Act", core.act, svc.ActRequest, svc.ActResponse),
        ("GetView", core.get_view, svc.GetViewRequest, svc.GetViewResponse),
    ]
    methods = [Method(SERVICE_NAME, name, fn, req.FromString, resp.SerializeToString) for name, fn, req, resp in rows]
    methods.append(
        Method(
            SERVICE_NAME,
            "Replay",
            core.replay,
            svc.ReplayRequest.FromString,
            svc.ReplayResponse.SerializeToString,
            slow=True,
        )
    )
    methods.append(
        Method(
            SERVICE_NAME,
            "StreamReplay",
            core.stream_replay,
            svc.StreamReplayRequest.FromString,
            svc.StreamReplayResponse.SerializeToString,
            streaming=True,
            slow=True,
        )
    )
    methods.append(  # an advice plays out many deals: off the game workers, like a replay
        Method(
            SERVICE_NAME,
            "Advise",
            core.advise,
            svc.AdviseRequest.FromString,
            svc.AdviseResponse.SerializeToString,
            slow=True,
        )
    )
    return methods


# -- admission --------------------------------------------------------------------------------------

_SHED = threading.local()
"""Set on the thread that runs a call the admission pool refused: its handler answers OVERLOADED at once."""


def _run_shed(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    _SHED.active = True
    try:
        return fn(*args, **kwargs)
    finally:
        _SHED.active = False


class AdmissionPool(futures.ThreadPoolExecutor):
    """A thread pool that takes at most ``limit`` tasks at a time, running or queued.

    A task over the limit is not queued behind the others: it runs at once on ``overflow`` with a thread-local
    mark, so the call's handler refuses it (RESOURCE_EXHAUSTED, OVERLOADED) without doing its work. grpcio hands
    every call of a method to this pool (``experimental_thread_pool``) from its polling thread, so the decision is
    made when the call arrives, not when a worker gets to it.
    """

    def __init__(self, workers: int, limit: int, overflow: futures.Executor, name: str) -> None:
        super().__init__(max_workers=workers, thread_name_prefix=name)
        self.limit = limit
        self._taken = 0
        self._lock = threading.Lock()
        self._overflow = overflow

    def admit(self) -> bool:
        """Take a place if there is one (give it back with :meth:`release`)."""
        with self._lock:
            if self._taken >= self.limit:
                return False
            self._taken += 1
            return True

    def release(self, _future: object = None) -> None:
        with self._lock:
            self._taken -= 1

    def close_after(self, steps: Generator[Any, None, None], step: futures.Future[Any] | None) -> None:
        """Close a stream's steps once the one in hand (if any) is over, then give its place back."""

        def close(_: object = None) -> None:
            try:
                steps.close()
            finally:
                self.release()

        if step is None:
            close()
        else:
            step.add_done_callback(close)

    @property
    def taken(self) -> int:
        return self._taken

    def submit(self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> futures.Future[T]:
        if not self.admit():
            return self._overflow.submit(functools.partial(_run_shed, fn, *args, **kwargs))
        return self.run_admitted(fn, *args, **kwargs)

    def run_admitted(self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> futures.Future[T]:
        """Run a task that already holds a place; the place is given back when it ends."""
        try:
            future = super().submit(fn, *args, **kwargs)
        except BaseException:
            self.release()
            raise
        future.add_done_callback(self.release)
        return future

    def run_more(self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> futures.Future[T]:
        """Run one more piece of a call that holds a place (a stream's next step), without taking another."""
        return super().submit(fn, *args, **kwargs)

    def flush(self) -> int:
        """Run every queued task now on the overflow pool (at shutdown, where its handler refuses it at once)."""
        moved = 0
        queue = self._work_queue  # the executor's own queue of work items not yet picked by a worker
        while True:
            try:
                item = queue.get_nowait()
            except Empty:
                return moved
            if item is None:  # the executor's own wake-up mark: leave it for the workers
                queue.put(None)
                return moved
            self._overflow.submit(item.run)
            moved += 1


# -- the wrapper around every call -----------------------------------------------------------------


class Aborted(Exception):
    """A streaming call ends with this status (raised by :meth:`Observer.stream` after it has been recorded)."""

    def __init__(self, status: grpc.Status) -> None:
        super().__init__(status.details)
        self.status = status


class Observer:
    """Runs a handler with a request id, one log line, and the go-grpc-prometheus metrics.

    Labels never carry the caller's text: a game label is one of the served games or ``unknown``.
    """

    def __init__(
        self,
        metrics: Metrics,
        log_calls: bool = True,
        *,
        max_message_bytes: int = 1 << 20,
        replay_seconds: float = 5.0,
    ) -> None:
        self.metrics = metrics
        self.log = get_logger("mazziere.call")
        self.log_calls = log_calls
        self.max_message_bytes = max_message_bytes
        self.replay_seconds = replay_seconds
        self.games = frozenset(served_games())
        self.closing = threading.Event()
        """Set near the end of a shutdown's grace: calls that have not started are refused as SHUTTING_DOWN."""

    def game_label(self, game: str) -> str:
        return game if game in self.games else UNKNOWN_LABEL

    def run(
        self,
        method: Method,
        request: Any,
        context: Any,
        *,
        wire: bool = False,
        gone: Gone | None = None,
        shed: bool = False,
    ) -> tuple[Any, grpc.Status | None]:
        """One unary call. ``wire``: ``request`` is the body's bytes and the response is returned serialized."""
        start = time.perf_counter()
        self.metrics.started.labels("unary", method.service, method.name).inc()
        request_id = _request_id(context)
        call = self._call(method, context, start, gone)
        status: grpc.Status | None = None
        response = None
        reason = ""
        try:
            self._admit(shed or getattr(_SHED, "active", False))
            if wire and method.deserialize is not None:
                request = _parse(method, request)
            _check_deadline(context)
            response = method.handler(request, call)
            _check_deadline(context)
            if wire and method.serialize is not None:
                response = self._check_size(method.serialize(response))
            elif method.slow:
                self._check_size(response.ByteSize())
            code = grpc.StatusCode.OK
        except ServiceError as exc:
            error = self._budget(method, context, exc)
            code, reason = error.code, error.reason
            status = rpc_status.to_status(error.status())
            response = None
        except Exception as exc:
            code, reason, status = self._failed(method, call, request_id, exc)
            response = None
        if gone is not None and (late := gone()) is not None:  # the caller was answered elsewhere, or left
            code, reason, response, status = late, "", None, None
        if code is grpc.StatusCode.OK:
            for answered in call.on_answered:
                answered()
        self._finish("unary", method, call, code, reason, start, request_id)
        return response, status

    def stream(
        self,
        method: Method,
        request: Any,
        context: Any,
        *,
        wire: bool = False,
        gone: Gone | None = None,
        shed: bool = False,
    ) -> Generator[Any, None, None]:
        """One server-streaming call: yields the responses; a refusal is recorded, then raised as :class:`Aborted`."""
        start = time.perf_counter()
        self.metrics.started.labels("server_stream", method.service, method.name).inc()
        request_id = _request_id(context)
        call = self._call(method, context, start, gone)
        status: grpc.Status | None = None
        code = grpc.StatusCode.OK
        reason = ""
        try:
            self._admit(shed or getattr(_SHED, "active", False))
            if wire and method.deserialize is not None:
                request = _parse(method, request)
            _check_deadline(context)
            for item in method.handler(request, call):
                if wire and method.serialize is not None:
                    item = self._check_size(method.serialize(item))
                yield item
        except GeneratorExit:  # the caller went away mid-stream
            code = grpc.StatusCode.CANCELLED
            raise
        except ServiceError as exc:
            error = self._budget(method, context, exc)
            code, reason = error.code, error.reason
            status = rpc_status.to_status(error.status())
        except Exception as exc:
            code, reason, status = self._failed(method, call, request_id, exc)
        finally:
            if gone is not None and (late := gone()) is not None:
                code, reason, status = late, "", None
            self._finish("server_stream", method, call, code, reason, start, request_id)
        if status is not None:
            raise Aborted(status)

    # -- parts ---------------------------------------------------------------------------------------

    def _admit(self, shed: bool) -> None:
        if shed:
            raise ServiceError.of(
                ServiceReason.OVERLOADED,
                "the server is at its limit of calls in flight; retry after the RetryInfo delay",
                retry_after=RETRY_AFTER_SECONDS,
            )
        if self.closing.is_set():
            raise ServiceError.of(ServiceReason.SHUTTING_DOWN, "the server is shutting down; retry")

    def _call(self, method: Method, context: Any, start: float, gone: Gone | None) -> Call:
        if not method.slow:
            return Call(time_remaining=context.time_remaining)
        limit = self.replay_seconds

        def remaining() -> float | None:
            """The caller's deadline or the server's replay budget, whichever comes first; 0 once the caller left."""
            if gone is not None and gone() is not None:
                return 0.0
            left = limit - (time.perf_counter() - start)
            theirs = context.time_remaining()
            return left if theirs is None else min(left, theirs)

        return Call(time_remaining=remaining)

    def _budget(self, method: Method, context: Any, error: ServiceError) -> ServiceError:
        """A slow call cut short while its caller still waits was cut by the server's budget, not the deadline."""
        if method.slow and error.code == grpc.StatusCode.DEADLINE_EXCEEDED:
            theirs = context.time_remaining()
            if theirs is None or theirs > 0:
                return ServiceError.of(
                    ServiceReason.REPLAY_BUDGET_EXCEEDED,
                    f"the replay ran over the server's limit of {self.replay_seconds:g} s; replay fewer actions",
                    limit_seconds=f"{self.replay_seconds:g}",
                )
        return error

    def _check_size(self, data: Any) -> Any:
        size = data if isinstance(data, int) else len(data)
        if size > self.max_message_bytes:
            raise ServiceError.of(
                ServiceReason.RESPONSE_TOO_LARGE,
                f"the answer would be {size} bytes, over the limit of {self.max_message_bytes}; "
                "for a replay, use StreamReplay or fewer actions",
                size=str(size),
                limit=str(self.max_message_bytes),
            )
        return data

    def _failed(
        self, method: Method, call: Call, request_id: str, exc: Exception
    ) -> tuple[grpc.StatusCode, str, grpc.Status]:
        code = grpc.StatusCode.INTERNAL
        self.log.exception(
            "call_failed", method=method.name, game=self.game_label(call.game), request_id=request_id, exc_info=exc
        )
        return code, "", _Status(code, "internal error", ())

    def _finish(
        self, kind: str, method: Method, call: Call, code: grpc.StatusCode, reason: str, start: float, request_id: str
    ) -> None:
        labels = (kind, method.service, method.name)
        elapsed = time.perf_counter() - start
        game = self.game_label(call.game)
        self.metrics.handled.labels(*labels, code.name).inc()
        self.metrics.handling.labels(*labels).observe(elapsed)
        if reason:
            self.metrics.rejections.labels(game, reason).inc()
        for played, preset, event in call.finished:
            (self.metrics.hands_finished if event == "HAND_OVER" else self.metrics.games_finished).labels(
                self.game_label(played), preset
            ).inc()
        if self.log_calls:
            self.log.info(
                "call",
                method=method.name,
                game=game,
                code=code.name,
                reason=reason or None,
                duration_ms=round(elapsed * 1000, 3),
                request_id=request_id,
            )


def _request_id(context: Any) -> str:
    for key, value in context.invocation_metadata() or ():
        if key == "x-request-id":
            text = str(value)[:128]
            if text:
                return text
    return uuid.uuid4().hex


def _parse(method: Method, body: bytes) -> Any:
    assert method.deserialize is not None
    try:
        return method.deserialize(body)
    except Exception:  # DecodeError, and whatever else a hostile body makes the parser raise
        raise ServiceError.of(
            ServiceReason.INVALID_REQUEST, f"the body of this {method.name} call is not a valid protobuf request"
        ) from None


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


class Snapshot:
    """What :class:`Observer` reads of a call's context, copied so another thread may read it."""

    __slots__ = ("_deadline", "_metadata")

    def __init__(self, metadata: Sequence[tuple[str, Any]], timeout: float | None) -> None:
        self._metadata = tuple(metadata)
        self._deadline = None if timeout is None else time.monotonic() + timeout

    def invocation_metadata(self) -> tuple[tuple[str, Any], ...]:
        return self._metadata

    def time_remaining(self) -> float | None:
        return None if self._deadline is None else self._deadline - time.monotonic()


# -- the thread-pool server's behaviours ------------------------------------------------------------


def _on_pool(behavior: Any, pool: futures.ThreadPoolExecutor | None) -> Any:
    """grpcio runs a behaviour on its ``experimental_thread_pool`` instead of the server's pool."""
    if pool is not None:
        behavior.experimental_thread_pool = pool
    return behavior


def _sync_behavior(observer: Observer, method: Method) -> Callable[[Any, grpc.ServicerContext], Any]:
    def behavior(request: Any, context: grpc.ServicerContext) -> Any:
        def gone() -> grpc.StatusCode | None:
            return None if context.is_active() else grpc.StatusCode.CANCELLED

        response, status = observer.run(method, request, context, wire=True, gone=gone)
        if status is not None:
            context.abort_with_status(status)
        return response

    return behavior


def _sync_stream_behavior(observer: Observer, method: Method) -> Callable[[Any, grpc.ServicerContext], Any]:
    def behavior(request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
        def gone() -> grpc.StatusCode | None:
            return None if context.is_active() else grpc.StatusCode.CANCELLED

        # The budget is checked between steps; a caller that stops reading leaves the worker waiting to send
        # one, so the call is cancelled a little after its budget instead.
        watchdog = threading.Timer(observer.replay_seconds + 1.0, context.cancel) if method.slow else None
        if watchdog is not None:
            watchdog.daemon = True
            watchdog.start()
        try:
            yield from observer.stream(method, request, context, wire=True, gone=gone)
        except Aborted as exc:
            context.abort_with_status(exc.status)
        finally:
            if watchdog is not None:
                watchdog.cancel()

    return behavior


# -- the asyncio server's behaviours ----------------------------------------------------------------


class _AioCall:
    """How a call of the asyncio server that runs on a worker thread learns that it was given up."""

    def __init__(self) -> None:
        self.code: grpc.StatusCode | None = None

    def gone(self) -> grpc.StatusCode | None:
        return self.code


def _aio_snapshot(context: Any) -> Snapshot:
    return Snapshot(context.invocation_metadata() or (), context.time_remaining())


async def _until_closing(future: asyncio.Future[Any], closing: asyncio.Event, given_up: _AioCall) -> bool:
    """Wait for ``future``; False if shutdown's grace ran out first (the call is then marked given up)."""
    waiter = asyncio.ensure_future(closing.wait())
    try:
        done, _ = await asyncio.wait({future, waiter}, return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError:
        given_up.code = grpc.StatusCode.CANCELLED
        raise
    finally:
        waiter.cancel()
    if future in done:
        return True
    given_up.code = grpc.StatusCode.UNAVAILABLE
    return False


_SHUTTING_DOWN = ServiceError.of(ServiceReason.SHUTTING_DOWN, "the server is shutting down; retry")


def _aio_behavior(
    observer: Observer, method: Method, pool: AdmissionPool | None, closing: asyncio.Event
) -> Callable[[Any, grpc.aio.ServicerContext[Any, Any]], Any]:
    async def behavior(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
        if pool is None:
            response, status = observer.run(method, request, context, wire=True)
        elif not pool.admit():
            response, status = observer.run(method, request, context, wire=True, shed=True)
        else:
            given_up = _AioCall()
            future = asyncio.wrap_future(
                pool.run_admitted(observer.run, method, request, _aio_snapshot(context), wire=True, gone=given_up.gone)
            )
            if not await _until_closing(future, closing, given_up):
                await context.abort(
                    grpc.StatusCode.UNAVAILABLE, _SHUTTING_DOWN.message, _SHUTTING_DOWN.trailing_metadata()
                )
            response, status = future.result()
        if status is not None:
            await context.abort_with_status(status)
        return response

    return behavior


def _aio_stream_behavior(
    observer: Observer, method: Method, pool: AdmissionPool, closing: asyncio.Event
) -> Callable[[Any, grpc.aio.ServicerContext[Any, Any]], Any]:
    async def behavior(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> AsyncIterator[Any]:
        if not pool.admit():
            steps = observer.stream(method, request, context, wire=True, shed=True)
            try:
                for item in steps:
                    yield item
            except Aborted as exc:
                await context.abort_with_status(exc.status)
            return
        given_up = _AioCall()
        steps = observer.stream(method, request, _aio_snapshot(context), wire=True, gone=given_up.gone)
        done = object()
        finished = False
        step: futures.Future[Any] | None = None
        try:
            while True:
                step = pool.run_more(next, steps, done)
                future = asyncio.wrap_future(step)
                if not await _until_closing(future, closing, given_up):
                    await context.abort(
                        grpc.StatusCode.UNAVAILABLE, _SHUTTING_DOWN.message, _SHUTTING_DOWN.trailing_metadata()
                    )
                try:
                    item = future.result()
                except Aborted as exc:
                    finished = True
                    await context.abort_with_status(exc.status)
                if item is done:
                    finished = True
                    return
                yield item
        finally:
            if finished:
                pool.release()
            else:  # the caller left or the server gave up: close the steps once the one in hand is over
                given_up.code = given_up.code or grpc.StatusCode.CANCELLED
                pool.close_after(steps, step)

    return behavior


def generic_handlers(
    observer: Observer,
    methods: Sequence[Method],
    *,
    aio: bool,
    pools: Pools | None = None,
    closing: asyncio.Event | None = None,
) -> list[grpc.GenericRpcHandler]:
    """The handlers of ``methods``, which take and return bytes (parsing happens in :class:`Observer`)."""
    by_service: dict[str, dict[str, grpc.RpcMethodHandler[Any, Any]]] = {}
    handler: grpc.RpcMethodHandler[Any, Any]
    for m in methods:
        pool = None if pools is None else (pools.replay if m.slow else pools.game)
        if aio:
            assert pools is not None and closing is not None
            if m.streaming:
                handler = grpc.unary_stream_rpc_method_handler(_aio_stream_behavior(observer, m, pools.replay, closing))
            else:
                behavior = _aio_behavior(observer, m, pools.replay if m.slow else None, closing)
                handler = grpc.unary_unary_rpc_method_handler(behavior)
        elif m.streaming:
            handler = grpc.unary_stream_rpc_method_handler(_on_pool(_sync_stream_behavior(observer, m), pool))
        else:
            handler = grpc.unary_unary_rpc_method_handler(_on_pool(_sync_behavior(observer, m), pool))
        by_service.setdefault(m.service, {})[m.name] = handler
    return [grpc.method_handlers_generic_handler(name, handlers) for name, handlers in by_service.items()]


def health_handler(servicer: health.HealthServicer, pool: futures.ThreadPoolExecutor) -> grpc.GenericRpcHandler:
    """The health service on a pool of its own, so a check never waits behind game calls (thread-pool server)."""

    def check(request: Any, context: Any) -> Any:
        return servicer.Check(request, context)

    def list_(request: Any, context: Any) -> Any:
        return servicer.List(request, context)

    def watch(request: Any, context: Any, send_response_callback: Any = None) -> Any:
        return servicer.Watch(request, context, send_response_callback)

    watch.experimental_non_blocking = True  # type: ignore[attr-defined]
    handlers = {
        "Check": grpc.unary_unary_rpc_method_handler(
            _on_pool(check, pool),
            request_deserializer=health_pb2.HealthCheckRequest.FromString,
            response_serializer=health_pb2.HealthCheckResponse.SerializeToString,
        ),
        "List": grpc.unary_unary_rpc_method_handler(
            _on_pool(list_, pool),
            request_deserializer=health_pb2.HealthListRequest.FromString,
            response_serializer=health_pb2.HealthListResponse.SerializeToString,
        ),
        "Watch": grpc.unary_stream_rpc_method_handler(
            _on_pool(watch, pool),
            request_deserializer=health_pb2.HealthCheckRequest.FromString,
            response_serializer=health_pb2.HealthCheckResponse.SerializeToString,
        ),
    }
    return grpc.method_handlers_generic_handler(health.SERVICE_NAME, handlers)


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


@dataclass(frozen=True, slots=True)
class Pools:
    """The worker threads of one process, apart from grpcio's own.

    ``game``: the game calls of the thread-pool server, at most ``MAZZIERE_MAX_CONCURRENT_CALLS`` taken at a time.
    ``replay``: replays (both servers and the in-process gateway), so they never take every game worker.
    ``overflow``: runs the refusals of calls over a limit. ``health``: the health service (thread-pool server).
    """

    game: AdmissionPool
    replay: AdmissionPool
    overflow: futures.ThreadPoolExecutor
    health: futures.ThreadPoolExecutor

    @classmethod
    def of(cls, config: Config) -> Pools:
        overflow = futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="mazziere-shed")
        return cls(
            game=AdmissionPool(config.workers, config.max_concurrent_calls, overflow, "mazziere-game"),
            replay=AdmissionPool(config.replay_workers, 2 * config.replay_workers, overflow, "mazziere-replay"),
            overflow=overflow,
            health=futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="mazziere-health"),
        )


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
            replay_max_views=config.replay_max_views,
        )
        self.metrics = Metrics()
        self.observer = Observer(
            self.metrics,
            config.log_calls,
            max_message_bytes=config.max_message_bytes,
            replay_seconds=config.replay_seconds,
        )
        self.pools = Pools.of(config)
        self.methods = [*table_methods(self.core), *extra_methods]
        self.log = get_logger()
        if config.trusted_mode:
            self.log.warning(
                "TRUSTED_MODE", message="states travel in plain and seat keys are not required: trusted back ends only"
            )

    def service_names(self) -> list[str]:
        names = {m.service for m in self.methods}
        return [*sorted(names), health.SERVICE_NAME, REFLECTION_V1, reflection.SERVICE_NAME]


def _grace_split(grace: float) -> float:
    """How long into the grace period calls that have not started yet are still served (the rest are refused as
    SHUTTING_DOWN, UNAVAILABLE, which clients retry, rather than cut as CANCELLED when the grace runs out)."""
    return max(0.0, grace - min(1.0, grace / 4))


class ThreadServer:
    """The thread-pool server, started and stopped from the calling thread.

    Game calls run on :attr:`Pools.game`, replays on :attr:`Pools.replay`, health checks on :attr:`Pools.health`;
    grpcio's own pool serves reflection only.
    """

    def __init__(self, app: App) -> None:
        self.app = app
        config = app.config
        pools = app.pools
        self.server = grpc.server(
            futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="mazziere-grpc"),
            handlers=generic_handlers(app.observer, app.methods, aio=False, pools=pools),
            options=server_options(config),
            maximum_concurrent_rpcs=None,
        )
        self.health = health.HealthServicer(experimental_non_blocking=True)
        self.server.add_generic_rpc_handlers((health_handler(self.health, pools.health),))
        if config.reflection:
            enable_reflection(self.server, app.service_names(), aio=False)
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
        grace = self.app.config.grace_seconds
        stopped = self.server.stop(grace)
        if not stopped.wait(_grace_split(grace)):  # calls still queued are refused, not cut when the grace ends
            self.app.observer.closing.set()
            self.app.pools.game.flush()
            self.app.pools.replay.flush()
            stopped.wait()
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
    """The asyncio server; :meth:`serve_until_signal` runs its own event loop.

    Game calls run on the event loop; replays on :attr:`Pools.replay`, so the loop (and health) stays free.
    """

    def __init__(self, app: App) -> None:
        self.app = app
        self.port = 0

    async def _build(self) -> None:
        config = self.app.config
        self.closing = asyncio.Event()
        self.server = grpc.aio.server(
            handlers=generic_handlers(
                self.app.observer, self.app.methods, aio=True, pools=self.app.pools, closing=self.closing
            ),
            options=server_options(config),
        )
        self.health = health.aio.HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(self.health, self.server)
        if config.reflection:
            enable_reflection(self.server, self.app.service_names(), aio=True)
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
        grace = self.app.config.grace_seconds
        stopping = asyncio.ensure_future(self.server.stop(grace))
        done, _ = await asyncio.wait({stopping}, timeout=_grace_split(grace))
        if not done:  # calls still waiting: refuse them as UNAVAILABLE before grpc cuts them as CANCELLED
            self.app.observer.closing.set()
            self.closing.set()
            self.app.pools.replay.flush()
            await stopping
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
        app.metrics.serve(config.metrics_port, config.bind_host)
    server: ThreadServer | AioServer = ThreadServer(app) if config.server_kind == "thread" else AioServer(app)
    server.serve_until_signal()
