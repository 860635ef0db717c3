"""The REST routes: every RPC of TableService that has a route (:mod:`.routes`) as a JSON endpoint under
``/v1/``. The body is the canonical protobuf JSON of the RPC's request message; the answer that of its response
(written on the worker that ran the call), or NDJSON lines for a streaming RPC."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from fastapi import Request, Response
from google.protobuf.message import Message

from mazziere.services.core.backend import Backend
from mazziere.services.core.call import Call
from mazziere.services.errors import ServiceError
from mazziere.services.http.errors import JSON, error_json, error_response
from mazziere.services.http.request import http_call, read_body
from mazziere.services.http.routes import Route
from mazziere.services.http.stream import Chunks, WrittenStream
from mazziere.services.wire import protojson

SEAT_KEY_HEADER = "X-Seat-Key"
NDJSON = "application/x-ndjson"


def endpoint(
    route: Route, backend: Backend, max_body: int, read_timeout: float
) -> Callable[[Request], Awaitable[Response]]:
    """The endpoint of ``route``: parse the JSON body (the seat key may come in its header), call, answer."""
    request_class = route.request_class
    takes_seat_key = "seat_key" in request_class.DESCRIPTOR.fields_by_name
    rpc = route.rpc

    async def answer(request: Request) -> Response:
        body = b"" if route.http_method == "GET" else await _read_json(request, max_body, read_timeout)
        try:
            message = protojson.parse(body, request_class)
        except protojson.JsonError as exc:
            raise ServiceError.invalid_request(str(exc)) from None
        if takes_seat_key:
            _take_seat_key(request, message)
        call = http_call(request)
        if route.streaming:
            return _stream(backend, rpc, message, call)
        written: bytes = await backend.call(rpc, message, call, encode=protojson.to_json)  # written on the worker
        return Response(written, media_type=JSON)

    answer.__name__ = rpc
    return answer


def _take_seat_key(request: Request, message: Message) -> None:
    header = request.headers.get(SEAT_KEY_HEADER)
    if header:
        current = getattr(message, "seat_key")  # noqa: B009
        if current and current != header:
            raise ServiceError.invalid_request(f"the {SEAT_KEY_HEADER} header and seatKey disagree")
        message.seat_key = header  # type: ignore[attr-defined]


def _stream(backend: Backend, rpc: str, message: Message, call: Call) -> Response:
    """NDJSON: one response per line. A refusal before the first is an ordinary error answer (its HTTP status);
    one after it is a last line holding the error envelope, since the status has been sent."""

    async def produce(write: Chunks) -> None:
        async def line(item: bytes) -> None:
            await write(item + b"\n")

        await backend.stream(rpc, message, call, None, line, encode=protojson.to_json)

    def last(error: ServiceError | None, started: bool) -> bytes | Response:
        if error is None:
            return b""
        return error_json(error) + b"\n" if started else error_response(error)

    return WrittenStream(produce, last, NDJSON)


async def _read_json(request: Request, limit: int, timeout: float) -> bytes:
    """A POST body must say it is JSON: this also keeps browsers' form posts from other sites away."""
    media_type = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if media_type != JSON:
        raise ServiceError.invalid_request(
            f"the body must be {JSON} (Content-Type), not {media_type[:64] or 'unnamed'}", http_status=415
        )
    return await read_body(request, limit, timeout, too_large=413)
