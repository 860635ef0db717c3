"""How the gateway reaches TableService: in the same process, or over a gRPC channel.

Both take the request message, a request id and a deadline, and return the response message or raise
:class:`~services.gateway.errors.GatewayError` built from the ``google.rpc.Status`` the service sent. The
in-process backend runs the very handler the gRPC server runs (:class:`services.server.Observer`, with its
logs and metrics), so the two transports cannot answer differently.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import grpc
from google.protobuf.message import Message
from google.rpc import status_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc

from services.errors import STATUS_DETAILS_KEY
from services.gateway.errors import GatewayError
from services.server import SERVICE_NAME, App, Method


class Backend(Protocol):
    async def call(self, rpc: str, request: Message, request_id: str) -> Message: ...

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

    async def call(self, rpc: str, request: Message, request_id: str) -> Message:
        method = self.methods[rpc]
        context = _Context(request_id, self.timeout)
        if method.slow:  # on the replay workers, under their limit, so the event loop stays free
            response, status = await asyncio.wrap_future(
                self.app.pools.replay.submit(self.app.observer.run, method, request, context)
            )
        else:
            response, status = self.app.observer.run(method, request, context)
        if status is not None:
            raise error_from_status(status.code, status.details, status.trailing_metadata)
        result: Message = response
        return result

    async def ready(self) -> bool:
        return await self._ready()

    async def close(self) -> None:
        return None


class ChannelBackend:
    """Calls a TableService over gRPC (``mazziere gateway --target``, or embedded over a local channel)."""

    def __init__(self, target: str, *, timeout: float, max_message_bytes: int, methods: dict[str, Any]) -> None:
        """``methods``: RPC name to (request class, response class)."""
        self.target = target
        self.timeout = timeout
        self._options = [
            ("grpc.max_receive_message_length", max_message_bytes),
            ("grpc.max_send_message_length", max_message_bytes),
        ]
        self._methods = methods
        self._channel: grpc.aio.Channel | None = None
        self._calls: dict[str, Any] = {}
        self._health: Any = None

    def _open(self) -> None:
        """Made on first use, inside the running event loop (grpc.aio needs it)."""
        channel = grpc.aio.insecure_channel(self.target, options=self._options)
        for name, (req, resp) in self._methods.items():
            self._calls[name] = channel.unary_unary(
                f"/{SERVICE_NAME}/{name}",
                request_serializer=req.SerializeToString,
                response_deserializer=resp.FromString,
            )
        self._health = health_pb2_grpc.HealthStub(channel)
        self._channel = channel

    async def call(self, rpc: str, request: Message, request_id: str) -> Message:
        if self._channel is None:
            self._open()
        try:
            response: Message = await self._calls[rpc](
                request, metadata=(("x-request-id", request_id),), timeout=self.timeout
            )
        except grpc.aio.AioRpcError as exc:
            raise error_from_status(exc.code(), exc.details(), exc.trailing_metadata()) from None
        return response

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
