"""The Connect protocol and gRPC-Web on the REST port: every RPC of a service at ``/<service>/<RPC>``
(TableService's at ``/mazziere.v1.TableService/<RPC>``).

Browsers cannot speak gRPC (HTTP/2 trailers), but they can speak these two protocols over plain HTTP, which the
generated TypeScript client uses through ``@connectrpc/connect-web``. The routes are made from a service
descriptor, so a new unary or server-streaming RPC is served without a change here, and each calls the same
:class:`~services.gateway.backend.Backend` as the REST routes: same handlers, errors, limits, logs and metrics.

- Connect unary: ``POST`` with ``application/proto`` or ``application/json``; the answer is the bare message, an
  error a JSON body ``{code, message, details: [{type, value, debug}]}`` with the HTTP status of its code.
- Connect server streaming: ``application/connect+proto`` or ``+json``; the request and every answer are
  enveloped (a flag byte and a 4-byte big-endian length), the last envelope (flag 2) holds ``{"error": ...}``
  or ``{}`` and the call's trailers as ``"metadata"``; always HTTP 200.
- gRPC-Web: ``application/grpc-web`` (``+proto``, ``+json``), unary or streaming: the same envelopes, then a
  trailer frame (flag 0x80) with ``grpc-status``, ``grpc-message``, ``grpc-status-details-bin`` (unpadded
  base64) and the call's trailers.

A handler's ``call.headers`` are the answer's headers; its ``call.trailers`` go as above (Connect unary: as
``trailer-`` headers). A refusal's details are its ``google.rpc.ErrorInfo`` (for the service's reasons), a
``RetryInfo`` when it said when to retry, then any others it carries, as over gRPC. The layer's own refusals (a
body too large, compression, no message or several) carry a code and a message only; a request of no protocol is
a plain 415, a method other than POST a plain 405, as Connect servers answer.
Compression is not supported (a compressed request is refused with ``unimplemented``); answers go uncompressed.
Connect's GET form of unary calls is not served (no RPC is marked free of side effects), nor plain gRPC, which
needs HTTP/2 trailers: it has the gRPC port. The official conformance suite checks all this
(``tests/connect_conformance``).
"""

from __future__ import annotations

import base64
import json
import re
import urllib.parse
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

import grpc
from fastapi import APIRouter
from google.protobuf import any_pb2, descriptor_pool, json_format
from google.protobuf.descriptor import ServiceDescriptor
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

from mazziere.services.core.backend import Backend, Write
from mazziere.services.core.call import Call
from mazziere.services.errors import STATUS_DETAILS_KEY, ServiceError
from mazziere.services.http.errors import HTTP_STATUS, retry_headers
from mazziere.services.http.request import digits, http_call, read_body
from mazziere.services.http.routes import SERVICE
from mazziere.services.http.stream import Chunks, WrittenStream
from mazziere.services.wire import protojson

CORS_ALLOW_HEADERS = [
    "Connect-Protocol-Version",
    "Connect-Timeout-Ms",
    "Connect-Accept-Encoding",
    "Connect-Content-Encoding",
    "Grpc-Timeout",
    "X-Grpc-Web",
    "X-User-Agent",
]
"""Request headers the Connect and gRPC-Web clients send from a browser (allowed by the CORS preflight)."""
CORS_EXPOSE_HEADERS = ["Grpc-Status", "Grpc-Message", "Grpc-Status-Details-Bin"]
"""Response headers a browser's gRPC-Web client reads."""

_PROTOCOL_VERSION = "1"
_END_STREAM = 0x02
_COMPRESSED = 0x01
_TRAILER = 0x80
_PREFIX = 5
"""An envelope's flag byte and 4-byte length."""


@dataclass(frozen=True, slots=True)
class Rpc:
    """One method of the service as a Connect route."""

    name: str
    path: str
    request_class: type[Message]
    streaming: bool


def rpcs(service: ServiceDescriptor = SERVICE) -> list[Rpc]:
    """The unary and server-streaming methods of ``service`` (client streaming needs HTTP/2 both ways)."""
    return [
        Rpc(m.name, f"/{service.full_name}/{m.name}", GetMessageClass(m.input_type), m.server_streaming)
        for m in service.methods
        if not m.client_streaming
    ]


# -- codecs -----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Codec:
    name: str
    decode: Callable[[bytes, type[Message]], Message]
    encode: Callable[[Any], bytes]
    """A message, or an answer written on demand (:class:`~mazziere.services.table.service.Written`), as the body."""


def _decode_proto(body: bytes, cls: type[Message]) -> Message:
    try:
        return cls.FromString(body)
    except Exception:  # DecodeError, and whatever else a hostile body makes the parser raise
        raise ServiceError.invalid_request(f"the body is not a valid protobuf {cls.DESCRIPTOR.full_name}") from None


def _decode_json(body: bytes, cls: type[Message]) -> Message:
    try:
        return protojson.parse(body, cls)
    except protojson.JsonError as exc:
        raise ServiceError.invalid_request(str(exc)) from None


PROTO = Codec("proto", _decode_proto, lambda m: m.SerializeToString())
JSON = Codec("json", _decode_json, protojson.to_json)


# -- protocols --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Protocol:
    """One way of carrying a call over HTTP/1.1 or HTTP/2."""

    streaming: bool | None
    """Which methods it serves: unary only (False), streaming only (True), or both (None)."""
    prefix: str
    """The content type of its bodies, before the codec's name."""
    encoding_header: str
    timeout_header: str


CONNECT_UNARY = Protocol(False, "application/", "content-encoding", "connect-timeout-ms")
CONNECT_STREAM = Protocol(True, "application/connect+", "connect-content-encoding", "connect-timeout-ms")
GRPC_WEB = Protocol(None, "application/grpc-web+", "grpc-encoding", "grpc-timeout")

_CONTENT_TYPES: dict[str, tuple[Protocol, Codec]] = {
    "application/proto": (CONNECT_UNARY, PROTO),
    "application/json": (CONNECT_UNARY, JSON),
    "application/connect+proto": (CONNECT_STREAM, PROTO),
    "application/connect+json": (CONNECT_STREAM, JSON),
    "application/grpc-web": (GRPC_WEB, PROTO),
    "application/grpc-web+proto": (GRPC_WEB, PROTO),
    "application/grpc-web+json": (GRPC_WEB, JSON),
}


def _accepted(streaming: bool) -> list[str]:
    return [t for t, (p, _) in _CONTENT_TYPES.items() if p.streaming in (None, streaming)]


# -- errors -----------------------------------------------------------------------------------------


def connect_code(code: grpc.StatusCode) -> str:
    """The Connect name of a gRPC code: lower case, and ``canceled`` with one L."""
    return "canceled" if code is grpc.StatusCode.CANCELLED else code.name.lower()


def _unpadded(data: bytes) -> str:
    return base64.b64encode(data).decode().rstrip("=")


def _connect_detail(detail: any_pb2.Any) -> dict[str, Any]:
    """A detail as Connect writes it: its type's full name, its bytes in base64 and, for a type this process
    knows, its JSON as ``debug``."""
    name = detail.type_url.rpartition("/")[2]
    out: dict[str, Any] = {"type": name, "value": _unpadded(detail.value)}
    try:
        message = GetMessageClass(descriptor_pool.Default().FindMessageTypeByName(name)).FromString(detail.value)
    except Exception:  # KeyError for an unknown type, DecodeError for bytes that are not of it
        return out
    out["debug"] = json_format.MessageToDict(message)
    return out


def connect_error(error: ServiceError) -> dict[str, Any]:
    """The Connect error object: code, message, and each detail as its type name, base64 bytes and debug JSON."""
    body: dict[str, Any] = {"code": connect_code(error.code), "message": error.message}
    details = [_connect_detail(d) for d in error.status().details]
    if details:
        body["details"] = details
    return body


def _grpc_message(text: str) -> str:
    """Percent-encoded as the gRPC spec asks (any byte outside printable ASCII, and ``%``)."""
    return urllib.parse.quote(text, safe=" !\"#$&'()*+,-./:;<=>?@[\\]^_`{|}~")


Metadata = Sequence[tuple[str, str]]


def _trailer(error: ServiceError | None, trailers: Metadata) -> bytes:
    """gRPC-Web's trailer frame: the status, then the call's trailers."""
    if error is None:
        lines = ["grpc-status: 0"]
    else:
        lines = [
            f"grpc-status: {error.code.value[0]}",
            f"grpc-message: {_grpc_message(error.message)}",
            f"{STATUS_DETAILS_KEY}: {_unpadded(error.status().SerializeToString())}",
        ]
    lines += [f"{name.lower()}: {value}" for name, value in trailers]
    return "".join(line + "\r\n" for line in lines).encode()


def _envelope(flags: int, payload: bytes) -> bytes:
    return bytes([flags]) + len(payload).to_bytes(4, "big") + payload


def _end(protocol: Protocol, error: ServiceError | None, trailers: Metadata = ()) -> bytes:
    """The last envelope of a stream: Connect's end-stream message, or gRPC-Web's trailers."""
    if protocol is GRPC_WEB:
        return _envelope(_TRAILER, _trailer(error, trailers))
    end: dict[str, Any] = {} if error is None else {"error": connect_error(error)}
    if trailers:
        metadata: dict[str, list[str]] = {}
        for name, value in trailers:
            metadata.setdefault(name.lower(), []).append(value)
        end["metadata"] = metadata
    return _envelope(_END_STREAM, _json(end))


def _json(data: dict[str, Any]) -> bytes:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode()


def _raw(metadata: Metadata, prefix: str = "") -> list[tuple[bytes, bytes]]:
    return [((prefix + name).lower().encode("latin-1"), value.encode("latin-1")) for name, value in metadata]


def _with_metadata(response: Response, protocol: Protocol, call: Call | None) -> Response:
    """The call's headers on ``response``; over Connect unary its trailers too, as ``trailer-`` headers."""
    if call is not None:
        response.raw_headers += _raw(call.headers)
        if protocol is CONNECT_UNARY:
            response.raw_headers += _raw(call.trailers, "trailer-")
    return response


def _error_response(protocol: Protocol, codec: Codec, error: ServiceError, *, call: Call | None = None) -> Response:
    """A refusal: Connect unary's JSON error with its HTTP status, or a body of the last envelope alone."""
    if protocol is CONNECT_UNARY:
        status = HTTP_STATUS.get(error.code, 500)
        response = Response(
            _json(connect_error(error)), status_code=status, media_type="application/json", headers=retry_headers(error)
        )
    else:
        trailers = call.trailers if call is not None else ()
        response = Response(
            _end(protocol, error, trailers), media_type=protocol.prefix + codec.name, headers=retry_headers(error)
        )
    return _with_metadata(response, protocol, call)


_RPC_PATH = re.compile(r"^/[A-Za-z_]\w*(\.[A-Za-z_]\w*)+/[A-Za-z_]\w*$")
"""A Connect or gRPC-Web route: ``/<package>.<Service>/<Method>``."""


def protocol_refusal(path: str, content_type: str, error: ServiceError) -> Response | None:
    """``error`` as a Connect or gRPC-Web route answers it to a request of ``content_type`` (a refusal made before
    the route is reached); None for a request of any other route or content type."""
    found = _CONTENT_TYPES.get(content_type.split(";", 1)[0].strip().lower())
    if found is None or not _RPC_PATH.match(path):
        return None
    return _error_response(*found, error)


# -- reading the request ----------------------------------------------------------------------------


def _timeout(protocol: Protocol, value: str | None) -> float | None:
    """The caller's deadline in seconds: Connect-Timeout-Ms (milliseconds) or Grpc-Timeout (``<digits><unit>``)."""
    if value is None:
        return None
    if protocol is GRPC_WEB:
        units = {"H": 3600.0, "M": 60.0, "S": 1.0, "m": 1e-3, "u": 1e-6, "n": 1e-9}
        number, unit = value[:-1], value[-1:]
        if unit in units and digits(number, 8):
            return int(number) * units[unit]
    elif digits(value, 10):
        return int(value) / 1000
    raise ServiceError.invalid_request(f"the {protocol.timeout_header} header is not a timeout: {value[:32]!r}")


def _check_headers(request: Request, protocol: Protocol) -> float | None:
    headers = request.headers
    version = headers.get("connect-protocol-version")
    if protocol is not GRPC_WEB and version is not None and version != _PROTOCOL_VERSION:
        raise ServiceError.invalid_request(
            f"Connect-Protocol-Version must be {_PROTOCOL_VERSION}, not {version[:16]!r}"
        )
    encoding = headers.get(protocol.encoding_header, "identity").strip().lower()
    if encoding != "identity":
        raise ServiceError(
            grpc.StatusCode.UNIMPLEMENTED, "", f"compression {encoding[:32]!r} is not supported; send identity"
        )
    return _timeout(protocol, headers.get(protocol.timeout_header))


def _unwrap(protocol: Protocol, body: bytes) -> bytes:
    """The request message's bytes: the body itself (Connect unary), or its one envelope. As the protocols'
    reference servers answer: no message, or more than one, is ``unimplemented`` (the method takes exactly one);
    a message flagged compressed when no encoding was declared is ``internal``, the specs' protocol error."""
    if protocol is CONNECT_UNARY:
        return body
    if not body:
        raise ServiceError(grpc.StatusCode.UNIMPLEMENTED, "", "the body holds no message; this method takes one")
    size = int.from_bytes(body[1:5], "big")
    if len(body) < 5 or len(body) - 5 < size:
        raise ServiceError.invalid_request(
            "the body ends inside its envelope (a flag byte, a 4-byte length, then the message)"
        )
    if body[0] not in (0, _COMPRESSED):
        raise ServiceError.invalid_request(f"the request's envelope has unknown flags {body[0]:#04x}")
    if body[0] == _COMPRESSED:
        raise ServiceError(
            grpc.StatusCode.INTERNAL, "", "the message is flagged compressed, but no encoding was declared"
        )
    if len(body) > 5 + size:
        raise ServiceError(
            grpc.StatusCode.UNIMPLEMENTED, "", "the body holds more than one message; this method takes one"
        )
    return body[5:]


# -- the routes -------------------------------------------------------------------------------------


def add_routes(
    router: APIRouter, backend: Backend, *, max_body: int, read_timeout: float, service: ServiceDescriptor = SERVICE
) -> None:
    """A POST route for every RPC of ``service`` that ``backend`` calls (not in the OpenAPI document: it describes
    ``/v1/``)."""
    for rpc in rpcs(service):
        router.add_api_route(
            rpc.path,
            _endpoint(rpc, backend, max_body, read_timeout),
            methods=["POST"],
            name=f"connect.{rpc.name}",
            include_in_schema=False,
        )
        router.add_api_route(
            rpc.path, not_post, methods=NOT_POST, name=f"connect.{rpc.name}.405", include_in_schema=False
        )


NOT_POST = ["GET", "HEAD", "PUT", "PATCH", "DELETE"]
"""Methods a Connect route answers with a plain 405 (Connect's GET form is not served)."""


async def not_post(request: Request) -> Response:
    """A plain 405, as Connect servers answer (a client makes its error from the status)."""
    return PlainTextResponse(f"{request.method} is not served here: use POST", 405, headers={"Allow": "POST"})


def _endpoint(
    rpc: Rpc, backend: Backend, max_body: int, read_timeout: float
) -> Callable[[Request], Awaitable[Response]]:
    accepted = _accepted(rpc.streaming)

    async def endpoint(request: Request) -> Response:
        media_type = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
        protocol, codec = _CONTENT_TYPES.get(media_type, (None, JSON))
        if protocol is None or protocol.streaming not in (None, rpc.streaming):
            # A plain 415, as Connect servers answer: the request is none of the protocols, so no protocol's error.
            text = f"{rpc.name} takes Content-Type {', '.join(accepted)}, not {media_type[:64] or 'none'}"
            if media_type.startswith("application/grpc"):
                text += "; gRPC itself is served on the gRPC port"
            return PlainTextResponse(text, 415, headers={"Accept-Post": ", ".join(accepted)})
        try:
            timeout = _check_headers(request, protocol)
            limit = max_body if protocol is CONNECT_UNARY else max_body + _PREFIX  # a message of max_body
            message = codec.decode(_unwrap(protocol, await read_body(request, limit, read_timeout)), rpc.request_class)
        except ServiceError as exc:
            return _error_response(protocol, codec, exc)
        call = http_call(request)
        media = protocol.prefix + codec.name
        if rpc.streaming:
            return _stream(
                protocol,
                codec,
                media,
                call,
                lambda write: backend.stream(rpc.name, message, call, timeout, write, encode=codec.encode),
            )
        try:
            answer: bytes = await backend.call(rpc.name, message, call, timeout, encode=codec.encode)
        except ServiceError as exc:
            return _error_response(protocol, codec, exc, call=call)
        if protocol is CONNECT_UNARY:
            return _with_metadata(Response(answer, media_type=media), protocol, call)
        body = _envelope(0, answer) + _end(protocol, None, call.trailers)
        return _with_metadata(Response(body, media_type=media), protocol, call)

    endpoint.__name__ = f"connect_{rpc.name}"
    return endpoint


def _stream(
    protocol: Protocol, codec: Codec, media: str, call: Call, run: Callable[[Write], Awaitable[None]]
) -> WrittenStream:
    """Every answer enveloped, then the end: a refusal before or between answers goes in the last envelope. The
    call's headers are the answer's, its trailers go in the last envelope."""

    async def produce(write: Chunks) -> None:
        async def envelope(item: bytes) -> None:  # encoded by the backend, on the worker when in process
            await write(_envelope(0, item))

        await run(envelope)

    return WrittenStream(
        produce, lambda error, _started: _end(protocol, error, call.trailers), media, headers=lambda: call.headers
    )
