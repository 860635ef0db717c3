"""A refused call: ``MazziereError``, its gRPC code and the ``ErrorInfo`` the service sent with it."""

from __future__ import annotations

import grpc
from google.protobuf import any_pb2
from google.rpc import error_details_pb2
from grpc_status import rpc_status

ERROR_DOMAIN = "mazziere.v1"


class MazziereError(Exception):
    """A call the service refused.

    ``code`` is the gRPC status code; ``reason`` the ``ErrorInfo`` reason (a ``mazziere.v1.ErrorReason`` name
    without its ``ERROR_REASON_`` prefix, e.g. ``"STALE_SEQUENCE"``), or ``None`` when the status carries no
    ``ErrorInfo`` of domain ``mazziere.v1`` (e.g. a request over gRPC's size limit, or a server that cannot be
    reached); ``metadata`` the ErrorInfo's specifics (e.g. ``expected_seq``, ``actual_seq``); ``retry_delay`` the
    seconds of a ``RetryInfo`` (with ``OVERLOADED``), if any. Act on the reason, not on the message.
    """

    def __init__(
        self,
        code: grpc.StatusCode,
        message: str,
        reason: str | None = None,
        metadata: dict[str, str] | None = None,
        retry_delay: float | None = None,
    ) -> None:
        super().__init__(f"{code.name} {reason or '(no reason)'}: {message}")
        self.code = code
        self.message = message
        self.reason = reason
        self.metadata = dict(metadata or {})
        self.retry_delay = retry_delay

    @classmethod
    def from_rpc_error(cls, exc: grpc.RpcError) -> MazziereError:
        """The error of a failed call (a ``grpc.RpcError`` that is also a ``grpc.Call``, as stubs raise)."""
        code = exc.code() if isinstance(exc, grpc.Call) else grpc.StatusCode.UNKNOWN
        message = (exc.details() if isinstance(exc, grpc.Call) else None) or str(exc)
        reason: str | None = None
        metadata: dict[str, str] = {}
        retry_delay: float | None = None
        try:
            status = rpc_status.from_call(exc) if isinstance(exc, grpc.Call) else None
        except ValueError:  # details whose code or message disagree with the call's: not trustworthy
            status = None
        details: list[any_pb2.Any] = list(status.details) if status else []
        for detail in details:
            info = error_details_pb2.ErrorInfo()
            retry = error_details_pb2.RetryInfo()
            if detail.Is(info.DESCRIPTOR) and detail.Unpack(info) and info.domain == ERROR_DOMAIN:
                reason, metadata = info.reason, dict(info.metadata)
            elif detail.Is(retry.DESCRIPTOR) and detail.Unpack(retry):
                retry_delay = retry.retry_delay.ToTimedelta().total_seconds()
        return cls(code or grpc.StatusCode.UNKNOWN, message, reason, metadata, retry_delay)
