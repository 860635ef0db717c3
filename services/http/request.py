"""An HTTP request as the call core sees it: its headers as the call's metadata, and its body read within a
size limit and a deadline."""

from __future__ import annotations

import asyncio

import grpc
from starlette.requests import Request

from mazziere.services.core.call import Call
from mazziere.services.errors import ServiceError

REQUEST_ID_HEADER = "X-Request-ID"


def http_call(request: Request) -> Call:
    """The Call of an HTTP request: its headers as metadata, its request id first, and the connection's peer."""
    rid = request.scope.get("mazziere.request_id", "")
    headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in request.scope["headers"] if k != b"x-request-id"]
    client = request.scope.get("client")
    return Call(metadata=(("x-request-id", rid), *headers), peer=str(client[0]) if client else "")


def digits(value: str, most: int) -> bool:
    """1 to ``most`` ASCII digits (``str.isdigit`` also admits ``²`` and other digits ``int`` refuses)."""
    return 0 < len(value) <= most and value.isascii() and value.isdigit()


async def read_body(request: Request, limit: int, timeout: float, *, too_large: int | None = None) -> bytes:
    """The whole body, refused when it is over ``limit`` bytes (as RESOURCE_EXHAUSTED, or INVALID_ARGUMENT with
    the HTTP status ``too_large``) or has not arrived within ``timeout`` seconds."""

    def over(message: str) -> ServiceError:
        if too_large is None:
            return ServiceError(grpc.StatusCode.RESOURCE_EXHAUSTED, "", message)
        return ServiceError.invalid_request(message, http_status=too_large)

    length = request.headers.get("content-length")
    if length is not None and too_large is not None and not digits(length, 19):
        raise ServiceError.invalid_request("the Content-Length header is not a number")
    if length is not None and digits(length, 19) and int(length) > limit:
        raise over(f"the body is {length} bytes; at most {limit}")
    body = bytearray()
    try:
        async with asyncio.timeout(timeout):
            async for chunk in request.stream():
                body += chunk
                if len(body) > limit:
                    raise over(f"the body is over {limit} bytes")
    except TimeoutError:
        raise ServiceError.invalid_request(
            f"the body did not arrive within {timeout:g} s", http_status=None if too_large is None else 408
        ) from None
    return bytes(body)
