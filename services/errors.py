"""The rich error model: every refusal is a gRPC status with a google.rpc.ErrorInfo (reason, domain, metadata).

Engine rejections keep their reason (``Reason.is_precondition`` picks FAILED_PRECONDITION, otherwise
INVALID_ARGUMENT); the service adds its own reasons (tokens, tables, sequence numbers, seat keys). The reasons
are the names of ``mazziere.v1.ErrorReason`` without the prefix; a test keeps the two lists equal.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import Enum

import grpc
from google.protobuf import any_pb2
from google.protobuf.message import Message
from google.rpc import error_details_pb2, status_pb2

from mazziere.engine.errors import Reason, Rejected

DOMAIN = "mazziere.v1"
STATUS_DETAILS_KEY = "grpc-status-details-bin"


class ServiceReason(Enum):
    """The service's own reasons, beside the engine's :class:`~engine.errors.Reason`."""

    INVALID_REQUEST = "INVALID_REQUEST"
    INVALID_TOKEN = "INVALID_TOKEN"
    WRONG_TABLE = "WRONG_TABLE"
    PLAIN_STATE_REFUSED = "PLAIN_STATE_REFUSED"
    STALE_SEQUENCE = "STALE_SEQUENCE"
    SEAT_KEY_MISSING = "SEAT_KEY_MISSING"
    SEAT_KEY_INVALID = "SEAT_KEY_INVALID"
    OVERLOADED = "OVERLOADED"
    RESPONSE_TOO_LARGE = "RESPONSE_TOO_LARGE"
    REPLAY_BUDGET_EXCEEDED = "REPLAY_BUDGET_EXCEEDED"
    SHUTTING_DOWN = "SHUTTING_DOWN"
    API_KEY_INVALID = "API_KEY_INVALID"
    QUOTA_EXCEEDED = "QUOTA_EXCEEDED"
    TABLE_NOT_FOUND = "TABLE_NOT_FOUND"
    CAPABILITY_INVALID = "CAPABILITY_INVALID"
    TABLE_CLOSED = "TABLE_CLOSED"
    STORE_UNAVAILABLE = "STORE_UNAVAILABLE"
    CAPABILITY_REVOKED = "CAPABILITY_REVOKED"
    CALLER_LIMIT = "CALLER_LIMIT"
    STORE_FULL = "STORE_FULL"
    TOO_MANY_CONNECTIONS = "TOO_MANY_CONNECTIONS"


_CODES = {
    ServiceReason.INVALID_REQUEST: grpc.StatusCode.INVALID_ARGUMENT,
    ServiceReason.INVALID_TOKEN: grpc.StatusCode.INVALID_ARGUMENT,
    ServiceReason.WRONG_TABLE: grpc.StatusCode.INVALID_ARGUMENT,
    ServiceReason.PLAIN_STATE_REFUSED: grpc.StatusCode.INVALID_ARGUMENT,
    ServiceReason.STALE_SEQUENCE: grpc.StatusCode.ABORTED,
    ServiceReason.SEAT_KEY_MISSING: grpc.StatusCode.PERMISSION_DENIED,
    ServiceReason.SEAT_KEY_INVALID: grpc.StatusCode.PERMISSION_DENIED,
    ServiceReason.OVERLOADED: grpc.StatusCode.RESOURCE_EXHAUSTED,
    ServiceReason.RESPONSE_TOO_LARGE: grpc.StatusCode.RESOURCE_EXHAUSTED,
    ServiceReason.REPLAY_BUDGET_EXCEEDED: grpc.StatusCode.RESOURCE_EXHAUSTED,
    ServiceReason.SHUTTING_DOWN: grpc.StatusCode.UNAVAILABLE,
    ServiceReason.API_KEY_INVALID: grpc.StatusCode.UNAUTHENTICATED,
    ServiceReason.QUOTA_EXCEEDED: grpc.StatusCode.RESOURCE_EXHAUSTED,
    ServiceReason.TABLE_NOT_FOUND: grpc.StatusCode.NOT_FOUND,
    ServiceReason.CAPABILITY_INVALID: grpc.StatusCode.PERMISSION_DENIED,
    ServiceReason.TABLE_CLOSED: grpc.StatusCode.FAILED_PRECONDITION,
    ServiceReason.STORE_UNAVAILABLE: grpc.StatusCode.UNAVAILABLE,
    ServiceReason.CAPABILITY_REVOKED: grpc.StatusCode.PERMISSION_DENIED,
    ServiceReason.CALLER_LIMIT: grpc.StatusCode.RESOURCE_EXHAUSTED,
    ServiceReason.STORE_FULL: grpc.StatusCode.RESOURCE_EXHAUSTED,
    ServiceReason.TOO_MANY_CONNECTIONS: grpc.StatusCode.UNAVAILABLE,
}


_BY_NUMBER = {code.value[0]: code for code in grpc.StatusCode}

MAX_MESSAGE = 1000
MAX_METADATA_VALUE = 200


def _bounded(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


class ServiceError(Exception):
    """A refusal on its way to the caller."""

    def __init__(
        self,
        code: grpc.StatusCode,
        reason: str,
        message: str,
        metadata: Mapping[str, str] | None = None,
        *,
        retry_after: float | None = None,
        details: Sequence[any_pb2.Any] = (),
        http_status: int | None = None,
    ) -> None:
        # Messages may quote the caller's input; bounded, so a refusal always fits in the status trailers.
        message = _bounded(message, MAX_MESSAGE)
        super().__init__(f"{reason}: {message}")
        self.code = code
        self.reason = reason
        self.message = message
        self.metadata = {k: _bounded(v, MAX_METADATA_VALUE) for k, v in (metadata or {}).items()}
        self.retry_after = retry_after
        """Seconds the caller should wait before retrying: sent as a google.rpc.RetryInfo beside the ErrorInfo."""
        self.details = tuple(details)
        """Further details of the status, after the ErrorInfo and the RetryInfo."""
        self.http_status = http_status
        """An HTTP status of its own (a refusal of the HTTP layer: a body too large, no such route), in place of
        the one its code maps to."""

    @classmethod
    def of(
        cls, reason: ServiceReason, message: str, *, retry_after: float | None = None, **metadata: str
    ) -> ServiceError:
        return cls(_CODES[reason], reason.value, message, metadata, retry_after=retry_after)

    @classmethod
    def invalid_request(cls, message: str, *, http_status: int | None = None) -> ServiceError:
        """A request refused before any handler sees it (a malformed body, too large, ...)."""
        return cls(
            grpc.StatusCode.INVALID_ARGUMENT, ServiceReason.INVALID_REQUEST.value, message, http_status=http_status
        )

    @classmethod
    def from_status(cls, status: status_pb2.Status) -> ServiceError:
        """The refusal a ``google.rpc.Status`` carries (from another server): its first ErrorInfo of our domain,
        its first RetryInfo, and the rest of its details in order."""
        code = _BY_NUMBER.get(status.code, grpc.StatusCode.UNKNOWN)
        reason, metadata, retry_after = "", {}, None
        others: list[any_pb2.Any] = []
        for detail in status.details:
            info, retry = error_details_pb2.ErrorInfo(), error_details_pb2.RetryInfo()
            if not reason and detail.Unpack(info) and info.domain == DOMAIN:
                reason, metadata = info.reason, dict(info.metadata)
            elif retry_after is None and detail.Unpack(retry):
                retry_after = retry.retry_delay.ToNanoseconds() / 1e9
            else:
                others.append(detail)
        return cls(code, reason, status.message, metadata, retry_after=retry_after, details=others)

    @classmethod
    def from_rejected(cls, exc: Rejected, **metadata: str) -> ServiceError:
        code = grpc.StatusCode.FAILED_PRECONDITION if exc.reason.is_precondition else grpc.StatusCode.INVALID_ARGUMENT
        return cls(code, exc.reason.value, exc.message, metadata)

    def status(self) -> status_pb2.Status:
        """The google.rpc.Status: an ErrorInfo detail if there is a reason, a RetryInfo if there is a retry delay,
        then the further details."""
        details: list[any_pb2.Any] = []
        if self.reason:
            info = error_details_pb2.ErrorInfo(reason=self.reason, domain=DOMAIN, metadata=self.metadata)
            details.append(_packed(info))
        if self.retry_after is not None:
            retry = error_details_pb2.RetryInfo()
            retry.retry_delay.FromNanoseconds(round(self.retry_after * 1e9))
            details.append(_packed(retry))
        details.extend(self.details)
        return status_pb2.Status(code=self.code.value[0], message=self.message, details=details)

    def trailing_metadata(self) -> tuple[tuple[str, bytes], ...]:
        return ((STATUS_DETAILS_KEY, self.status().SerializeToString()),)


def _packed(message: Message) -> any_pb2.Any:
    detail = any_pb2.Any()
    detail.Pack(message)
    return detail


def all_reasons() -> list[str]:
    """Every reason the service can give: the engine's and its own."""
    return [r.value for r in Reason] + [r.value for r in ServiceReason]
