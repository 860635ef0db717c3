"""How the gateway reaches TableService: in the same process, or over a gRPC channel.

Both take the request message, a request id and a deadline, and return the response message or raise
:class:`~services.gateway.errors.GatewayError` built from the ``google.rpc.Status`` the service sent. The
in-process backend runs the very handler the gRPC server runs (:class:`services.server.Observer`, with its
logs and metrics), so the two transports cannot answer differently.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from concurrent import futures
from typing import Any, Protocol

import grpc
from google.protobuf.message import Message
from google.rpc import status_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc

from mazziere.services.errors import STATUS_DETAILS_KEY
from mazziere.services.gateway.errors import GatewayError
from mazziere.services.server import SERVICE_NAME, Aborted, App, Method


class Backend(Protocol):
    async def call(self, rpc: str, request: Message, request_id: str, timeout: float | None = None) -> Message:
        """One unary call. ``timeout``: the caller's own deadline (seconds), if shorter than the gateway's."""
        ...

    def stream(
        self, rpc: str, request: Message, request_id: str, timeout: float | None = None
    ) -> AsyncIterator[Message]:
        """A server-streaming call's responses; a refusal (before or between them) raises GatewayError."""
        ...

    async def ready(self) -> bool: ...

    async def close(self) -> None: ...


class _Context:
    """The part of a gRPC servicer context that :class:`services.server.Observer` reads."""

    __slots__ = ("_deadline", "_metadata")

    def __init__(self, request_id: str, timeout: float) -> None:
        self._metadata = (("x-request-id", request_id),)
        self._deadline = time.monotonic() + timeout

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return self._metadata

    def time_remaining(self) -> float:
        return self._deadline - time.monotonic()


def error_from_status(code: grpc.StatusCode, details: str | None, trailing: Any) -> GatewayError:
    """The GatewayError for a failed call: the rich status in the trailers if present, else code and details."""
    for key, value in trailing or ():
        if key == STATUS_DETAILS_KEY:
            return GatewayError.from_status(status_pb2.Status.FromString(value))
    return GatewayError(code, details or code.name.lower())


class InProcessBackend:
    """Calls the service's handlers directly (``mazziere serve``, embedded)."""

    def __init__(self, app: App, *, timeout: float, ready: Callable[[], Awaitable[bool]]) -> None:
        self.app = app
        self.timeout = timeout
        self._ready = ready
        self.methods: dict[str, Method] = {m.name: m for m in app.methods}

    def _method(self, rpc: str) -> Method:
        """The served method named ``rpc``; one the contract has but this server does not serve is UNIMPLEMENTED."""
        method = self.methods.get(rpc)
        if method is None:
            raise GatewayError(grpc.StatusCode.UNIMPLEMENTED, f"{rpc} is not served here")
        return method

    async def call(self, rpc: str, request: Message, request_id: str, timeout: float | None = None) -> Message:
        method = self._method(rpc)
        context = _Context(request_id, _shorter(self.timeout, timeout))
        if method.slow:  # on the replay workers, under their limit, so the event loop stays free
            response, status = await asyncio.wrap_future(
                self.app.pools.replay.submit(self.app.observer.run, method, request, context)
            )
        else:
            response, status = self.app.observer.run(method, request, context)
        if status is not None:
            raise _error(status)
        result: Message = response
        return result

    async def stream(
        self, rpc: str, request: Message, request_id: str, timeout: float | None = None
    ) -> AsyncIterator[Message]:
        method = self._method(rpc)
        pool = self.app.pools.replay
        context = _Context(request_id, _shorter(self.timeout, timeout))
        observer = self.app.observer
        if not pool.admit():
            try:
                for item in observer.stream(method, request, context, shed=True):
                    yield item
            except Aborted as exc:
                raise _error(exc.status) from None
            return
        given_up: list[grpc.StatusCode] = []
        steps = observer.stream(method, request, context, gone=lambda: given_up[0] if given_up else None)
        done = object()
        step: futures.Future[Any] | None = None
        finished = False
        try:
            while True:  # each step on the replay workers, so the event loop stays free
                step = pool.run_more(next, steps, done)
                try:
                    item = await asyncio.wrap_future(step)
                except Aborted as exc:
                    finished = True
                    raise _error(exc.status) from None
                if item is done:
                    finished = True
                    return
                yield item
        finally:
            if finished:
                pool.release()
            else:  # the HTTP caller left: close the steps once the one in hand is over
                given_up.append(grpc.StatusCode.CANCELLED)
                pool.close_after(steps, step)

    async def ready(self) -> bool:
        return await self._ready()

    async def close(self) -> None:
        return None


def _shorter(timeout: float, caller: float | None) -> float:
    return timeout if caller is None else min(timeout, caller)


def _error(status: grpc.Status) -> GatewayError:
    return error_from_status(status.code, status.details, status.trailing_metadata)


ROUND_ROBIN = json.dumps({"loadBalancingConfig": [{"round_robin": {}}]})
"""The service config that spreads calls over every address of a target, rather than gRPC's default pick-first
(which sends every call to the first address that answers)."""


def spreads(target: str) -> bool:
    """Whether ``target`` names several servers: a ``dns:`` name (every address it resolves to, e.g. a headless
    Service's pods) or a list of addresses (``ipv4:a:1,b:2``, ``ipv6:...``). A plain ``host:port`` keeps the default:
    behind a ClusterIP it is one address anyway."""
    scheme, _, rest = target.partition(":")
    return scheme == "dns" or (scheme in ("ipv4", "ipv6") and "," in rest)


def channel_options(target: str, max_message_bytes: int) -> list[tuple[str, Any]]:
    """The gateway channel's options: message limits, and round-robin balancing where the target spreads."""
    options: list[tuple[str, Any]] = [
        ("grpc.max_receive_message_length", max_message_bytes),
        ("grpc.max_send_message_length", max_message_bytes),
    ]
    if spreads(target):
        options.append(("grpc.service_config", ROUND_ROBIN))
    return options


class ChannelBackend:
    """Calls a TableService over gRPC (``mazziere gateway --target``, or embedded over a local channel)."""

    def __init__(self, target: str, *, timeout: float, max_message_bytes: int, methods: dict[str, Any]) -> None:
        """``methods``: RPC name to (request class, response class, server streaming)."""
        self.target = target
        self.timeout = timeout
        self._options = channel_options(target, max_message_bytes)
        self._methods = methods
        self._channel: grpc.aio.Channel | None = None
        self._calls: dict[str, Any] = {}
        self._streams: dict[str, Any] = {}
        self._health: Any = None

    def _open(self) -> None:
        """Made on first use, inside the running event loop (grpc.aio needs it)."""
        channel = grpc.aio.insecure_channel(self.target, options=self._options)
        for name, (req, resp, streaming) in self._methods.items():
            make = channel.unary_stream if streaming else channel.unary_unary
            (self._streams if streaming else self._calls)[name] = make(
                f"/{SERVICE_NAME}/{name}",
                request_serializer=req.SerializeToString,
                response_deserializer=resp.FromString,
            )
        self._health = health_pb2_grpc.HealthStub(channel)
        self._channel = channel

    async def call(self, rpc: str, request: Message, request_id: str, timeout: float | None = None) -> Message:
        if self._channel is None:
            self._open()
        try:
            response: Message = await self._calls[rpc](
                request, metadata=(("x-request-id", request_id),), timeout=_shorter(self.timeout, timeout)
            )
        except grpc.aio.AioRpcError as exc:
            raise error_from_status(exc.code(), exc.details(), exc.trailing_metadata()) from None
        return response

    async def stream(
        self, rpc: str, request: Message, request_id: str, timeout: float | None = None
    ) -> AsyncIterator[Message]:
        if self._channel is None:
            self._open()
        call = self._streams[rpc](
            request, metadata=(("x-request-id", request_id),), timeout=_shorter(self.timeout, timeout)
        )
        try:
            async for item in call:
                yield item
        except grpc.aio.AioRpcError as exc:
            raise error_from_status(exc.code(), exc.details(), exc.trailing_metadata()) from None
        finally:
            call.cancel()

    async def ready(self) -> bool:
        if self._channel is None:
            self._open()
        try:
            answer = await self._health.Check(health_pb2.HealthCheckRequest(service=SERVICE_NAME), timeout=1.0)
        except grpc.aio.AioRpcError:
            return False
        return bool(answer.status == health_pb2.HealthCheckResponse.SERVING)

    async def close(self) -> None:
        if self._channel is not None:
            await self._channel.close()
            self._channel = None
