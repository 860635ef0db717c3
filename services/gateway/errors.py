"""Refusals over HTTP: the official gRPC-to-HTTP status mapping and Google's JSON error envelope (AIP-193).

Every error body is ``{"error": {"code": <http status>, "status": "<gRPC code name>", "message": "...",
"details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "...", "domain": "mazziere.v1",
"metadata": {...}}]}}``: the ``google.rpc.Status`` the gRPC service sent, with its HTTP code beside it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

import grpc
from google.protobuf import any_pb2, json_format
from google.rpc import error_details_pb2, status_pb2

from mazziere.services.errors import DOMAIN

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
_BY_NUMBER = {code.value[0]: code for code in grpc.StatusCode}


class GatewayError(Exception):
    """A refusal on its way to an HTTP caller: a gRPC code, a message, and the ErrorInfo if there is one."""

    def __init__(
        self,
        code: grpc.StatusCode,
        message: str,
        reason: str = "",
        metadata: Mapping[str, str] | None = None,
        *,
        http_status: int | None = None,
        details: Sequence[any_pb2.Any] = (),
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.reason = reason
        self.metadata = dict(metadata or {})
        self.http_status = http_status or HTTP_STATUS.get(code, 500)
        self.retry_after: float | None = None
        """From the status's google.rpc.RetryInfo: sent as the Retry-After header."""
        self.details = list(details)
        """The status's other details, in order (over Connect and gRPC-Web, after the ErrorInfo and RetryInfo)."""

    @classmethod
    def from_status(cls, status: status_pb2.Status) -> GatewayError:
        """From a ``google.rpc.Status``: its first ErrorInfo of our domain, its first RetryInfo, and the rest."""
        code = _BY_NUMBER.get(status.code, grpc.StatusCode.UNKNOWN)
        error = cls(code, status.message)
        for detail in status.details:
            info = error_details_pb2.ErrorInfo()
            retry = error_details_pb2.RetryInfo()
            if not error.reason and detail.Unpack(info) and info.domain == DOMAIN:
                error.reason, error.metadata = info.reason, dict(info.metadata)
            elif error.retry_after is None and detail.Unpack(retry):
                error.retry_after = retry.retry_delay.ToNanoseconds() / 1e9
            else:
                error.details.append(detail)
        return error

    def headers(self) -> dict[str, str]:
        """Retry-After (whole seconds, at least 1) when the service said when to retry."""
        if self.retry_after is None:
            return {}
        return {"Retry-After": str(max(1, math.ceil(self.retry_after)))}

    @classmethod
    def invalid_request(cls, message: str, *, http_status: int = 400) -> GatewayError:
        """A request the gateway refuses before the service sees it (malformed JSON, too large, ...)."""
        return cls(grpc.StatusCode.INVALID_ARGUMENT, message, "INVALID_REQUEST", http_status=http_status)

    def body(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.http_status, "status": self.code.name, "message": self.message}
        if self.reason:
            info = error_details_pb2.ErrorInfo(reason=self.reason, domain=DOMAIN, metadata=self.metadata)
            detail = json_format.MessageToDict(info)
            error["details"] = [{"@type": f"type.googleapis.com/{info.DESCRIPTOR.full_name}", **detail}]
        return {"error": error}

    def json(self) -> bytes:
        return json.dumps(self.body(), ensure_ascii=False, separators=(",", ":")).encode()


def plain_error(http_status: int, message: str) -> GatewayError:
    """An HTTP-level refusal with no ErrorInfo (no such route, method not allowed)."""
    code = {404: grpc.StatusCode.NOT_FOUND, 405: grpc.StatusCode.UNIMPLEMENTED}.get(
        http_status, grpc.StatusCode.INVALID_ARGUMENT if http_status < 500 else grpc.StatusCode.INTERNAL
    )
    return GatewayError(code, message, http_status=http_status)
