"""How the gateway reaches TableService: in the same process, or over a gRPC channel.

Both take the request message, its :class:`~mazziere.services.core.call.Call` (the request's metadata) and a
deadline, and return the response message (or, given ``encode``, the answer in the form the HTTP caller takes:
its JSON, its protobuf bytes) or raise :class:`~services.gateway.errors.GatewayError` built from the
``google.rpc.Status`` the service sent. The in-process backend calls the very core the gRPC port calls
(:class:`~mazziere.services.core.dispatch.Dispatcher`: admission, workers, logs and metrics), so the transports
cannot answer differently; its answers are written in that form on the worker that ran the call, straight from
the engine's values (:class:`~mazziere.services.servicer.Written`), and a message is parsed only for a caller
that asks for one (the host).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import grpc
from google.protobuf.descriptor import ServiceDescriptor
from google.protobuf.message import Message
from google.rpc import status_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from starlette.requests import Request

from mazziere.services.core import tracing
from mazziere.services.core.call import Call
from mazziere.services.core.dispatch import Dispatcher, Encode, Method, Stalled
from mazziere.services.errors import STATUS_DETAILS_KEY, ServiceError
from mazziere.services.gateway.errors import GatewayError
from mazziere.services.gateway.routes import SERVICE
from mazziere.services.methods import SERVICE_NAME
from mazziere.services.servicer import Written

Write = Callable[[Any], Awaitable[None]]
"""Writes one answer of a stream to the HTTP caller (a message, or ``encode`` of it); it must make progress within
the stream write limit."""
FORWARDED = frozenset({"x-request-id", "authorization", *tracing.PROPAGATED})
"""The request headers a gateway passes on to the service over gRPC (its own metadata, not the whole request); a
span current here (the host's call, when tracing) is the parent in place of the caller's ``traceparent``."""


def http_call(request: Request) -> Call:
    """The Call of an HTTP request: its headers as metadata, its request id first."""
    rid = request.scope.get("mazziere.request_id", "")
    headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in request.scope["headers"] if k != b"x-request-id"]
    return Call(metadata=(("x-request-id", rid), *headers))


def as_message(answer: Any) -> Any:
    """A handler's answer as its message: a written answer's bytes parsed (once), a message as it is."""
    return answer.message() if isinstance(answer, Written) else answer


class Backend(Protocol):
    async def call(
        self, rpc: str, request: Message, call: Call, timeout: float | None = None, *, encode: Encode | None = None
    ) -> Any:
        """One unary call: the response message, or ``encode`` of it. ``timeout``: the caller's own deadline
        (seconds), if shorter than the gateway's."""
        ...

    async def stream(
        self,
        rpc: str,
        request: Message,
        call: Call,
        timeout: float | None,
        write: Write,
        *,
        encode: Encode | None = None,
    ) -> None:
        """A server-streaming call: each answer to ``write`` (``encode`` of it, if given); a refusal (before or
        between them) raises GatewayError, a reader that stops reading
        :class:`~mazziere.services.core.dispatch.Stalled`."""
        ...

    async def ready(self) -> bool: ...

    async def close(self) -> None: ...


def error_from_status(code: grpc.StatusCode, details: str | None, trailing: Any) -> GatewayError:
    """The GatewayError for a failed call: the rich status in the trailers if present, else code and details."""
    for key, value in trailing or ():
        if key == STATUS_DETAILS_KEY:
            return GatewayError.from_status(status_pb2.Status.FromString(value))
    return GatewayError(code, details or code.name.lower())


class InProcessBackend:
    """Calls the call core directly (``mazziere serve``, embedded): the same admission, workers, logs and metrics
    as the gRPC port."""

    def __init__(
        self,
        dispatcher: Dispatcher,
        *,
        timeout: float,
        ready: Callable[[], Awaitable[bool]],
        service: ServiceDescriptor = SERVICE,
    ) -> None:
        """``service``: the service whose methods it calls (the dispatcher's methods of that name)."""
        self.dispatcher = dispatcher
        self.timeout = timeout
        self.service = service.full_name
        self._ready = ready

    def _method(self, rpc: str) -> Method:
        """The served method named ``rpc``; one the contract has but this server does not serve is UNIMPLEMENTED."""
        method = self.dispatcher.method(self.service, rpc)
        if method is None:
            raise GatewayError(grpc.StatusCode.UNIMPLEMENTED, f"{rpc} is not served here")
        return method

    async def call(
        self, rpc: str, request: Message, call: Call, timeout: float | None = None, *, encode: Encode | None = None
    ) -> Any:
        """The answer written on the worker: ``encode`` of it, or its message."""
        method, deadline = self._method(rpc), _shorter(self.timeout, timeout)
        try:
            return await self.dispatcher.unary(method, request, call, deadline, encode=encode or as_message)
        except ServiceError as exc:
            raise GatewayError.from_status(exc.status()) from None

    async def stream(
        self,
        rpc: str,
        request: Message,
        call: Call,
        timeout: float | None,
        write: Write,
        *,
        encode: Encode | None = None,
    ) -> None:
        method, deadline = self._method(rpc), _shorter(self.timeout, timeout)
        try:
            await self.dispatcher.stream(method, request, call, deadline, write, encode=encode or as_message)
        except ServiceError as exc:
            raise GatewayError.from_status(exc.status()) from None

    async def ready(self) -> bool:
        return await self._ready()

    async def close(self) -> None:
        return None


def _shorter(timeout: float, caller: float | None) -> float:
    return timeout if caller is None else min(timeout, caller)


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


def _forwarded(call: Call) -> tuple[tuple[str, str], ...]:
    return tracing.outgoing(tuple((k, v) for k, v in call.metadata if k in FORWARDED))


class ChannelBackend:
    """Calls a TableService over gRPC (``mazziere gateway --target``, or embedded over a local channel)."""

    def __init__(
        self, target: str, *, timeout: float, max_message_bytes: int, methods: dict[str, Any], write_seconds: float
    ) -> None:
        """``methods``: RPC name to (request class, response class, server streaming)."""
        self.target = target
        self.timeout = timeout
        self.write_seconds = write_seconds
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

    async def call(
        self, rpc: str, request: Message, call: Call, timeout: float | None = None, *, encode: Encode | None = None
    ) -> Any:
        """The message the channel parsed (the bytes came from another process), or ``encode`` of it."""
        if self._channel is None:
            self._open()
        try:
            response: Message = await self._calls[rpc](
                request, metadata=_forwarded(call), timeout=_shorter(self.timeout, timeout)
            )
        except grpc.aio.AioRpcError as exc:
            raise error_from_status(exc.code(), exc.details(), exc.trailing_metadata()) from None
        return response if encode is None else encode(response)

    async def stream(
        self,
        rpc: str,
        request: Message,
        call: Call,
        timeout: float | None,
        write: Write,
        *,
        encode: Encode | None = None,
    ) -> None:
        if self._channel is None:
            self._open()
        answers = self._streams[rpc](request, metadata=_forwarded(call), timeout=_shorter(self.timeout, timeout))
        try:
            async for item in answers:
                try:
                    await asyncio.wait_for(write(item if encode is None else encode(item)), self.write_seconds)
                except TimeoutError:
                    raise Stalled(f"the reader took no answer within {self.write_seconds:g} s") from None
        except grpc.aio.AioRpcError as exc:
            raise error_from_status(exc.code(), exc.details(), exc.trailing_metadata()) from None
        finally:
            answers.cancel()

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
