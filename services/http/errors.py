"""Refusals over HTTP: the official gRPC-to-HTTP status mapping and Google's JSON error envelope (AIP-193).

Every error body is ``{"error": {"code": <http status>, "status": "<gRPC code name>", "message": "...",
"details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "...", "domain": "mazziere.v1",
"metadata": {...}}]}}``: the refusal's ``google.rpc.Status``, with its HTTP code beside it.
"""

from __future__ import annotations

import json
import math
from typing import Any

import grpc
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response

from mazziere.services.errors import DOMAIN, ServiceError

# https://github.com/googleapis/googleapis/blob/master/google/rpc/code.proto (each code's HTTP mapping).
HTTP_STATUS: dict[grpc.StatusCode, int] = {
    grpc.StatusCode.OK: 200,
    grpc.StatusCode.CANCELLED: 499,
    grpc.StatusCode.UNKNOWN: 500,
    grpc.StatusCode.INVALID_ARGUMENT: 400,
    grpc.StatusCode.DEADLINE_EXCEEDED: 504,
    grpc.StatusCode.NOT_FOUND: 404,
    grpc.StatusCode.ALREADY_EXISTS: 409,
    grpc.StatusCode.PERMISSION_DENIED: 403,
    grpc.StatusCode.RESOURCE_EXHAUSTED: 429,
    grpc.StatusCode.FAILED_PRECONDITION: 400,
    grpc.StatusCode.ABORTED: 409,
    grpc.StatusCode.OUT_OF_RANGE: 400,
    grpc.StatusCode.UNIMPLEMENTED: 501,
    grpc.StatusCode.INTERNAL: 500,
    grpc.StatusCode.UNAVAILABLE: 503,
    grpc.StatusCode.DATA_LOSS: 500,
    grpc.StatusCode.UNAUTHENTICATED: 401,
}
JSON = "application/json"


def http_status(error: ServiceError) -> int:
    """The refusal's own HTTP status if it has one, else its code's."""
    return error.http_status or HTTP_STATUS.get(error.code, 500)


def retry_headers(error: ServiceError) -> dict[str, str]:
    """Retry-After (whole seconds, at least 1) when the refusal says when to retry."""
    if error.retry_after is None:
        return {}
    return {"Retry-After": str(max(1, math.ceil(error.retry_after)))}


def error_body(error: ServiceError) -> dict[str, Any]:
    """The JSON error envelope."""
    body: dict[str, Any] = {"code": http_status(error), "status": error.code.name, "message": error.message}
    if error.reason:
        info: dict[str, Any] = {"reason": error.reason, "domain": DOMAIN}
        if error.metadata:
            info["metadata"] = error.metadata
        body["details"] = [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", **info}]
    return {"error": body}


def error_json(error: ServiceError) -> bytes:
    return json.dumps(error_body(error), ensure_ascii=False, separators=(",", ":")).encode()


def error_response(error: ServiceError, headers: dict[str, str] | None = None) -> Response:
    return Response(
        error_json(error),
        status_code=http_status(error),
        media_type=JSON,
        headers={**retry_headers(error), **(headers or {})},
    )


def plain_error(status: int, message: str) -> ServiceError:
    """An HTTP-level refusal with no ErrorInfo (no such route, method not allowed)."""
    code = {404: grpc.StatusCode.NOT_FOUND, 405: grpc.StatusCode.UNIMPLEMENTED}.get(
        status, grpc.StatusCode.INVALID_ARGUMENT if status < 500 else grpc.StatusCode.INTERNAL
    )
    return ServiceError(code, "", message, http_status=status)


def add_error_handlers(app: FastAPI) -> None:
    """Every refusal as the JSON error envelope: the service's, an HTTP-level one, a body FastAPI could not read."""
    app.add_exception_handler(StarletteHTTPException, _http_exception)
    app.add_exception_handler(RequestValidationError, _validation_exception)
    app.add_exception_handler(ServiceError, _service_error)


async def _http_exception(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    detail = exc.detail if isinstance(exc.detail, str) else str(exc.detail)
    if exc.status_code == 404:
        detail = f"no such route: {request.method} {request.url.path}"
    return error_response(plain_error(exc.status_code, detail), dict(exc.headers or {}))


async def _validation_exception(request: Request, exc: Exception) -> Response:
    return error_response(ServiceError.invalid_request(str(exc)))


async def _service_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ServiceError)
    return error_response(exc)
