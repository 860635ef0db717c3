"""TableService in another process, over a gRPC channel: :class:`ChannelBackend` (``mazziere gateway --target``,
the host in front of the engine's replicas, or the gateway over a local channel). Refusals come back as the
:class:`~mazziere.services.errors.ServiceError` the rich status in the trailers carries."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import grpc
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass
from google.rpc import status_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc

from mazziere.services.core import tracing
from mazziere.services.core.backend import Write, shorter
from mazziere.services.core.call import Call
from mazziere.services.core.dispatch import Encode, Stalled
from mazziere.services.errors import STATUS_DETAILS_KEY, ServiceError
from mazziere.services.table.methods import SERVICE_NAME, TABLE_SERVICE

FORWARDED = frozenset({"x-request-id", "authorization", *tracing.PROPAGATED})
"""The request headers passed on to the service over gRPC (its own metadata, not the whole request); a span
current here (the host's call, when tracing) is the parent in place of the caller's ``traceparent``."""
ROUND_ROBIN = json.dumps({"loadBalancingConfig": [{"round_robin": {}}]})
"""The service config that spreads calls over every address of a target, rather than gRPC's default pick-first
(which sends every call to the first address that answers)."""


def channel_methods() -> dict[str, Any]:
    """Every method of TableService, as RPC name to (request class, response class, server streaming)."""
    return {
        m.name: (GetMessageClass(m.input_type), GetMessageClass(m.output_type), m.server_streaming)
        for m in TABLE_SERVICE.methods
    }


def error_from_status(code: grpc.StatusCode, details: str | None, trailing: Any) -> ServiceError:
    """The refusal of a failed call: the rich status in the trailers if present, else its code and details."""
    for key, value in trailing or ():
        if key == STATUS_DETAILS_KEY:
            return ServiceError.from_status(status_pb2.Status.FromString(value))
    return ServiceError(code, "", details or code.name.lower())


def spreads(target: str) -> bool:
    """Whether ``target`` names several servers: a ``dns:`` name (every address it resolves to, e.g. a headless
    Service's pods) or a list of addresses (``ipv4:a:1,b:2``, ``ipv6:...``). A plain ``host:port`` keeps the default:
    behind a ClusterIP it is one address anyway."""
    scheme, _, rest = target.partition(":")
    return scheme == "dns" or (scheme in ("ipv4", "ipv6") and "," in rest)


def channel_options(target: str, max_message_bytes: int) -> list[tuple[str, Any]]:
    """The channel's options: message limits, and round-robin balancing where the target spreads."""
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
    """Calls a TableService over gRPC."""

    def __init__(self, target: str, *, timeout: float, max_message_bytes: int, write_seconds: float) -> None:
        self.target = target
        self.timeout = timeout
        self.write_seconds = write_seconds
        self._options = channel_options(target, max_message_bytes)
        self._channel: grpc.aio.Channel | None = None
        self._calls: dict[str, Any] = {}
        self._streams: dict[str, Any] = {}
        self._health: Any = None

    def _open(self) -> None:
        """Made on first use, inside the running event loop (grpc.aio needs it)."""
        channel = grpc.aio.insecure_channel(self.target, options=self._options)
        for name, (req, resp, streaming) in channel_methods().items():
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
                request, metadata=_forwarded(call), timeout=shorter(self.timeout, timeout)
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
        answers = self._streams[rpc](request, metadata=_forwarded(call), timeout=shorter(self.timeout, timeout))
        try:
            async for item in answers:
                try:
                    await asyncio.wait_for(write(item if encode is None else encode(item)), self.write_seconds)
                except TimeoutError:
                    raise Stalled.after(self.write_seconds) from None
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
