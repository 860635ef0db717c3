"""Request ids in and out, one log line and the HTTP metrics for every request, and a plain 500 for a failure
nothing else answered (pure ASGI middleware)."""

from __future__ import annotations

import re
import time
import uuid

from prometheus_client import CollectorRegistry, Counter, Histogram
from starlette.requests import ClientDisconnect
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mazziere.services.core.logs import get_logger
from mazziere.services.http.errors import JSON, error_json, http_status, plain_error
from mazziere.services.http.openapi import SWAGGER_UI_STATIC
from mazziere.services.http.web import WEB_PATH

_REQUEST_ID = re.compile(r"^[A-Za-z0-9._:/+=-]{1,128}$")
_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"})
"""HTTP methods that may be a metric label as they are; any other is counted as ``other``."""
_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
CLIENT_CLOSED = 499
"""The status counted and logged for a caller that left before sending its whole body (nginx's convention)."""


class Observe:
    """Pure ASGI middleware: request id in and out, one log line and the HTTP metrics for every request."""

    def __init__(self, app: ASGIApp, registry: CollectorRegistry, log_requests: bool = True) -> None:
        self.app = app
        self.log = get_logger("mazziere.http")
        self.log_requests = log_requests
        self.requests = Counter(
            "http_requests_total",
            "HTTP requests answered by the REST gateway, by method, route template and status.",
            ["method", "route", "status"],
            registry=registry,
        )
        self.latency = Histogram(
            "http_request_duration_seconds",
            "Latency of the REST gateway's answers (seconds), by method and route template.",
            ["method", "route"],
            buckets=_BUCKETS,
            registry=registry,
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        request_id = ""
        for key, value in scope["headers"]:
            if key == b"x-request-id":
                text = value.decode("latin-1")
                if _REQUEST_ID.match(text):
                    request_id = text
                break
        request_id = request_id or uuid.uuid4().hex
        scope["mazziere.request_id"] = request_id
        header = (b"x-request-id", request_id.encode())
        status = 500

        started = False

        async def send_with_id(message: Message) -> None:
            nonlocal status, started
            if message["type"] == "http.response.start":
                status, started = message["status"], True
                message["headers"] = [*message.get("headers", ()), header]
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        except ClientDisconnect:  # the caller left mid-body: nobody to answer, and not our failure
            status = CLIENT_CLOSED
        except Exception:
            self.log.exception("http_failed", path=scope.get("path"), request_id=request_id)
            if started:
                raise
            error = plain_error(500, "internal error")
            status = http_status(error)
            await send(
                {
                    "type": "http.response.start",
                    "status": status,
                    "headers": [(b"content-type", JSON.encode()), header],
                }
            )
            await send({"type": "http.response.body", "body": error_json(error)})
        finally:
            template = _route_template(scope)
            method = scope["method"] if scope["method"] in _METHODS else "other"
            elapsed = time.perf_counter() - start
            self.requests.labels(method, template, str(status)).inc()
            self.latency.labels(method, template).observe(elapsed)
            if self.log_requests:  # the web table's files and its streams are many and routine: at debug
                quiet = template in (WEB_PATH, SWAGGER_UI_STATIC) or template.endswith("/Watch")
                (self.log.debug if quiet else self.log.info)(
                    "http_request",
                    method=method,
                    route=template,
                    status=status,
                    duration_ms=round(elapsed * 1000, 3),
                    request_id=request_id,
                )


def _route_template(scope: Scope) -> str:
    """The label of the route that answered: its template, the OpenAPI document's path, the mount of Swagger UI's
    files, or ``unmatched``; never a caller's free text (a file name under the mount is not a label)."""
    template = getattr(scope.get("route"), "path", None)
    if template is not None:
        return str(template)
    path: str = scope.get("path", "")
    if path == "/openapi.json":
        return path
    if path.startswith(SWAGGER_UI_STATIC + "/"):
        return SWAGGER_UI_STATIC
    if path.startswith(WEB_PATH + "/"):
        return WEB_PATH
    return "unmatched"
