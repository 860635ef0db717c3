"""How a transport reaches a service: :class:`Backend`, one interface, in this process through the call core
(:class:`InProcessBackend`) or over a gRPC channel to another process
(:class:`~mazziere.services.table.channel.ChannelBackend`).

Both take the request message, its :class:`~mazziere.services.core.call.Call` (the request's metadata) and a
deadline, and return the response message (or, given ``encode``, the answer in the form the transport sends: its
JSON, its protobuf bytes) or raise :class:`~mazziere.services.errors.ServiceError`. The in-process backend calls
the very core the gRPC port calls (admission, workers, logs and metrics), so the transports cannot answer
differently; its answers are written in the form asked for on the worker that ran the call, straight from the
engine's values, and never parsed again.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import grpc
from google.protobuf.descriptor import ServiceDescriptor
from google.protobuf.message import Message

from mazziere.services.core.call import Call
from mazziere.services.core.dispatch import Dispatcher, Encode, Method
from mazziere.services.errors import ServiceError

Write = Callable[[Any], Awaitable[None]]
"""Writes one answer of a stream to the caller (a message, or ``encode`` of it); it must make progress within the
stream write limit."""


class Backend(Protocol):
    async def call(
        self, rpc: str, request: Message, call: Call, timeout: float | None = None, *, encode: Encode | None = None
    ) -> Any:
        """One unary call: the response message, or ``encode`` of it. ``timeout``: the caller's own deadline
        (seconds), if shorter than the backend's."""
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
        between them) raises ServiceError, a reader that stops reading
        :class:`~mazziere.services.core.dispatch.Stalled`."""
        ...

    async def ready(self) -> bool: ...

    async def close(self) -> None: ...


def shorter(timeout: float, caller: float | None) -> float:
    """The sooner of a backend's timeout and a caller's own."""
    return timeout if caller is None else min(timeout, caller)


class InProcessBackend:
    """Calls the methods of ``service`` that the call core of this process serves: the same admission, workers,
    logs and metrics as the gRPC port."""

    def __init__(
        self,
        dispatcher: Dispatcher,
        service: ServiceDescriptor,
        *,
        timeout: float,
        ready: Callable[[], Awaitable[bool]],
    ) -> None:
        self.dispatcher = dispatcher
        self.timeout = timeout
        self.service = service.full_name
        self._ready = ready

    def _method(self, rpc: str) -> Method:
        """The served method named ``rpc``; one the contract has but this server does not serve is UNIMPLEMENTED."""
        method = self.dispatcher.method(self.service, rpc)
        if method is None:
            raise ServiceError(grpc.StatusCode.UNIMPLEMENTED, "", f"{rpc} is not served here")
        return method

    async def call(
        self, rpc: str, request: Message, call: Call, timeout: float | None = None, *, encode: Encode | None = None
    ) -> Any:
        """The answer written on the worker: ``encode`` of it, or the handler's answer as it is."""
        return await self.dispatcher.unary(
            self._method(rpc), request, call, shorter(self.timeout, timeout), encode=encode
        )

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
        method = self._method(rpc)
        await self.dispatcher.stream(method, request, call, shorter(self.timeout, timeout), write, encode=encode)

    async def ready(self) -> bool:
        return await self._ready()

    async def close(self) -> None:
        return None
