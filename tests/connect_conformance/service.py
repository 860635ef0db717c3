"""The reference handler of ``connectrpc.conformance.v1.ConformanceService``, as methods of the call core.

Each case tells the handler what to answer (data, headers, trailers, an error with details, a delay) and expects
it to echo what it saw (the request, its headers, its timeout), as the suite's docs ("Testing Servers") describe
and its Go reference server does. ``Unimplemented`` is left out on purpose: the layer must refuse it itself.
Client and bidirectional streams are not served (the layer serves unary and server-streaming methods only).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import grpc
from google.protobuf import any_pb2
from google.protobuf.message import Message

from mazziere.services.core.call import Call
from mazziere.services.core.dispatch import Method
from mazziere.services.errors import ServiceError

SERVICE_NAME = "connectrpc.conformance.v1.ConformanceService"
TIMEOUT_HEADERS = frozenset({"connect-timeout-ms", "grpc-timeout"})
"""The request headers that carry a caller's deadline (Connect's and gRPC-Web's)."""
_BY_NUMBER = {code.value[0]: code for code in grpc.StatusCode}


def conformance_methods(pb: ModuleType) -> list[Method]:
    """The served methods; ``pb``: the generated ``connectrpc.conformance.v1.service_pb2``."""

    def unary(request: Any, call: Call) -> Any:
        return pb.UnaryResponse(payload=_unary(pb, request, call))

    def idempotent_unary(request: Any, call: Call) -> Any:
        return pb.IdempotentUnaryResponse(payload=_unary(pb, request, call))

    def server_stream(request: Any, call: Call) -> Iterator[Any]:
        info = _request_info(pb, request, call)
        if not request.HasField("response_definition"):
            return
        definition = request.response_definition
        _add_metadata(definition, call)
        for i, data in enumerate(definition.response_data):
            payload = pb.ConformancePayload(data=data)
            if i == 0:
                payload.request_info.CopyFrom(info)
            _pause(call, definition.response_delay_ms)
            yield pb.ServerStreamResponse(payload=payload)
        if definition.HasField("error"):
            raise _error(definition.error, [] if definition.response_data else [info])

    return [
        Method(SERVICE_NAME, "Unary", unary, pb.UnaryRequest),
        Method(SERVICE_NAME, "IdempotentUnary", idempotent_unary, pb.IdempotentUnaryRequest),
        Method(SERVICE_NAME, "ServerStream", server_stream, pb.ServerStreamRequest, streaming=True),
    ]


def _unary(pb: ModuleType, request: Any, call: Call) -> Any:
    """The payload of a unary answer, or the error the definition asks for (the request's info in its details)."""
    info = _request_info(pb, request, call)
    if not request.HasField("response_definition"):
        return pb.ConformancePayload(request_info=info)
    definition = request.response_definition
    _add_metadata(definition, call)
    if definition.WhichOneof("response") == "error":
        raise _error(definition.error, [info])
    _pause(call, definition.response_delay_ms)
    return pb.ConformancePayload(data=definition.response_data, request_info=info)


def _request_info(pb: ModuleType, request: Message, call: Call) -> Any:
    """What the handler saw: the request's headers (each name with all its values), its timeout if the caller
    sent one, and the request itself."""
    info = pb.ConformancePayload.RequestInfo()
    headers: dict[str, list[str]] = {}
    for name, value in call.metadata:
        headers.setdefault(name, []).append(value)
    for name, values in headers.items():
        info.request_headers.add(name=name, value=values)
    remaining = call.time_remaining()
    if remaining is not None and TIMEOUT_HEADERS & headers.keys():
        info.timeout_ms = max(0, int(remaining * 1000))
    info.requests.add().Pack(request)
    return info


def _add_metadata(definition: Any, call: Call) -> None:
    call.headers.extend((h.name, v) for h in definition.response_headers for v in h.value)
    call.trailers.extend((h.name, v) for h in definition.response_trailers for v in h.value)


def _error(error: Any, more: list[Message]) -> ServiceError:
    """The suite's ``Error`` as the core's refusal: its code, message and details, then ``more`` details."""
    details = list(error.details)
    for message in more:
        details.append(any_pb2.Any())
        details[-1].Pack(message)
    return ServiceError(_BY_NUMBER.get(error.code, grpc.StatusCode.UNKNOWN), "", error.message, details=details)


def _pause(call: Call, ms: int) -> None:
    """Wait ``ms`` milliseconds, unless the call's deadline passes (or its caller leaves) first."""
    end = time.monotonic() + ms / 1000
    while (left := end - time.monotonic()) > 0:
        if call.stop():
            raise ServiceError(grpc.StatusCode.DEADLINE_EXCEEDED, "", "the call's deadline passed")
        time.sleep(min(left, 0.01))
