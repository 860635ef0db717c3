"""The REST gateway: every RPC of TableService as a JSON endpoint under ``/v1/``, the same RPCs over Connect and
gRPC-Web (:mod:`connect`), health, metrics, the OpenAPI document and Swagger UI, and the web table at ``/play``.

Bodies are the canonical protobuf JSON of the RPC's own request and response messages, so REST and gRPC
cannot drift; the gateway holds no rules and no second data model. See the README's "The REST gateway".
"""

from __future__ import annotations

import asyncio
import re
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.openapi.utils import get_openapi
from fastapi.responses import HTMLResponse, RedirectResponse
from google.protobuf.message import Message as ProtoMessage
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import ClientDisconnect
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mazziere.services.core.call import Call
from mazziere.services.gateway import connect, protojson
from mazziere.services.gateway.backend import Backend, http_call
from mazziere.services.gateway.comments import proto_comments
from mazziere.services.gateway.config import GatewayConfig
from mazziere.services.gateway.errors import GatewayError, plain_error
from mazziere.services.gateway.headers import SecurityHeaders, docs_policy
from mazziere.services.gateway.routes import ROUTES, SERVICE, Route
from mazziere.services.gateway.schema import Schema, message_schemas, ref
from mazziere.services.gateway.stream import Chunks, WrittenStream
from mazziere.services.host.capabilities import HEADER as CAPABILITY_HEADER
from mazziere.services.host.host import HOST_SERVICE
from mazziere.services.logs import get_logger

SEAT_KEY_HEADER = "X-Seat-Key"
SEAT_KEY_SCHEME = "SeatKey"
SERVERS = [{"url": "/", "description": "The gateway serving this document"}]
LICENSE = {"name": "Apache-2.0", "identifier": "Apache-2.0"}
CONTACT = {"name": "Mazziere", "url": "https://github.com/mazziere/mazziere"}
PROBES_TAG = {"name": "Probes", "description": "Liveness and readiness, for load balancers and Kubernetes."}
REQUEST_ID_HEADER = "X-Request-ID"
_REQUEST_ID = re.compile(r"^[A-Za-z0-9._:/+=-]{1,128}$")
_JSON = "application/json"
_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"})
"""HTTP methods that may be a metric label as they are; any other is counted as ``other``."""
_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)


def create_app(
    backend: Backend,
    config: GatewayConfig,
    *,
    registry: CollectorRegistry | None = None,
    host: Backend | None = None,
) -> FastAPI:
    """The gateway over ``backend``. ``registry``: where the HTTP metrics go (the service's when embedded);
    ``host``: HostService's backend, whose RPCs are served over Connect and gRPC-Web too."""
    registry = registry if registry is not None else CollectorRegistry()
    app = FastAPI(
        title="Mazziere",
        version="v1",
        summary="A stateless rules engine for Italian card games: the REST face of mazziere.v1.TableService.",
        description=_DESCRIPTION,
        docs_url=None,  # served by _add_docs, from the package's own Swagger UI files
        redoc_url=None,
        openapi_url="/openapi.json",
        redirect_slashes=False,  # /v1/games/ is no route, not a redirect to one
        servers=SERVERS,
        license_info=LICENSE,
        contact=CONTACT,
        openapi_tags=[{"name": "TableService", "description": _comment(SERVICE.full_name)}, PROBES_TAG],
    )
    for route in ROUTES:
        app.add_api_route(
            route.path,
            _endpoint(route, backend, config.gateway_max_body_bytes, config.gateway_read_timeout_seconds),
            methods=[route.http_method],
            name=route.rpc,
            operation_id=route.rpc,
            summary=route.summary,
            description=_comment(route.method.full_name),
            tags=["TableService"],
            responses=_responses(route),
            openapi_extra=_request_body(route),
        )
    connect.add_routes(
        app.router, backend, max_body=config.gateway_max_body_bytes, read_timeout=config.gateway_read_timeout_seconds
    )
    if host is not None:
        connect.add_routes(
            app.router,
            host,
            max_body=config.gateway_max_body_bytes,
            read_timeout=config.gateway_read_timeout_seconds,
            service=HOST_SERVICE,
        )
    _add_probes(app, backend, registry if config.gateway_metrics else None)
    if config.gateway_docs:
        _add_docs(app)
    _add_web_table(app, source_maps=config.web_source_maps)
    app.add_exception_handler(StarletteHTTPException, _http_exception)
    app.add_exception_handler(RequestValidationError, _validation_exception)
    app.add_exception_handler(GatewayError, _gateway_error)
    if config.origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=config.origins,
            allow_methods=["GET", "POST"],
            allow_headers=[
                "Authorization",
                "Content-Type",
                SEAT_KEY_HEADER,
                CAPABILITY_HEADER,
                REQUEST_ID_HEADER,
                *connect.CORS_ALLOW_HEADERS,
            ],
            expose_headers=[REQUEST_ID_HEADER, *connect.CORS_EXPOSE_HEADERS],
            max_age=600,
        )
    app.add_middleware(Observe, registry=registry, log_requests=config.log_calls)
    # Outermost, so Observe's own 500 gets the headers too; static files may be cached, nothing else.
    app.add_middleware(SecurityHeaders, web=WEB_PATH, static=(WEB_PATH + "/", SWAGGER_UI_STATIC + "/"))
    app.openapi = lambda: _openapi(app)  # type: ignore[method-assign]
    return app


def _comment(name: str) -> str:
    """The contract's comment on a service or method, for its OpenAPI description."""
    return proto_comments().get(name, f"See {name} in protos/mazziere/v1/service.proto.")


# -- the RPC endpoints ------------------------------------------------------------------------------


def _endpoint(
    route: Route, backend: Backend, max_body: int, read_timeout: float
) -> Callable[[Request], Awaitable[Response]]:
    request_class = route.request_class
    takes_seat_key = "seat_key" in request_class.DESCRIPTOR.fields_by_name
    rpc = route.rpc

    async def endpoint(request: Request) -> Response:
        body = b"" if route.http_method == "GET" else await _read_body(request, max_body, read_timeout)
        try:
            message = protojson.parse(body, request_class)
        except protojson.JsonError as exc:
            raise GatewayError.invalid_request(str(exc)) from None
        if takes_seat_key:
            header = request.headers.get(SEAT_KEY_HEADER)
            if header:
                current = getattr(message, "seat_key")  # noqa: B009
                if current and current != header:
                    raise GatewayError.invalid_request(f"the {SEAT_KEY_HEADER} header and seatKey disagree")
                message.seat_key = header  # type: ignore[attr-defined]
        call = http_call(request)
        if route.streaming:
            return _stream(backend, rpc, message, call)
        answer: bytes = await backend.call(rpc, message, call, encode=protojson.to_json)  # written on the worker
        return Response(answer, media_type=_JSON)

    endpoint.__name__ = rpc
    return endpoint


NDJSON = "application/x-ndjson"


def _stream(backend: Backend, rpc: str, message: ProtoMessage, call: Call) -> Response:
    """NDJSON: one response per line. A refusal before the first is an ordinary error answer (its HTTP status);
    one after it is a last line holding the error envelope, since the status has been sent."""

    async def produce(write: Chunks) -> None:
        async def line(item: bytes) -> None:
            await write(item + b"\n")

        await backend.stream(rpc, message, call, None, line, encode=protojson.to_json)

    def last(error: GatewayError | None, started: bool) -> bytes | Response:
        if error is None:
            return b""
        return error.json() + b"\n" if started else error_response(error)

    return WrittenStream(produce, last, NDJSON)


CLIENT_CLOSED = 499
"""The status counted and logged for a caller that left before sending its whole body (nginx's convention)."""


def _check_json(request: Request) -> None:
    """A POST body must say it is JSON: this also keeps browsers' form posts from other sites away."""
    media_type = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if media_type != _JSON:
        raise GatewayError.invalid_request(
            f"the body must be {_JSON} (Content-Type), not {media_type[:64] or 'unnamed'}", http_status=415
        )


async def _read_body(request: Request, limit: int, timeout: float) -> bytes:
    _check_json(request)
    try:
        async with asyncio.timeout(timeout):
            return await _read_bounded(request, limit)
    except TimeoutError:
        raise GatewayError.invalid_request(f"the body did not arrive within {timeout:g} s", http_status=408) from None


async def _read_bounded(request: Request, limit: int) -> bytes:
    length = request.headers.get("content-length")
    if length is not None:
        if not connect.digits(length, 19):
            raise GatewayError.invalid_request("the Content-Length header is not a number")
        if int(length) > limit:
            raise GatewayError.invalid_request(f"the body is {length} bytes; at most {limit}", http_status=413)
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise GatewayError.invalid_request(f"the body is over {limit} bytes", http_status=413)
    return bytes(body)


# -- health and metrics -----------------------------------------------------------------------------


def _add_probes(app: FastAPI, backend: Backend, registry: CollectorRegistry | None) -> None:
    status_schema = {"type": "object", "properties": {"status": {"type": "string"}}, "required": ["status"]}

    @app.get(
        "/healthz",
        tags=["Probes"],
        summary="Liveness: the process answers",
        description="200 while the process can answer at all; it asks nothing of the engine.",
        responses={200: {"content": {_JSON: {"schema": status_schema, "example": {"status": "ok"}}}}},
    )
    async def healthz() -> Response:
        return Response(b'{"status":"ok"}', media_type=_JSON)

    @app.get(
        "/readyz",
        tags=["Probes"],
        summary="Readiness: the engine service answers SERVING to a health check",
        description="200 with SERVING when the engine is ready for calls; 503 while it starts or shuts down.",
        responses={
            200: {"content": {_JSON: {"schema": status_schema, "example": {"status": "SERVING"}}}},
            503: {"description": "Not ready", "content": {_JSON: {"schema": status_schema}}},
        },
    )
    async def readyz() -> Response:
        if await backend.ready():
            return Response(b'{"status":"SERVING"}', media_type=_JSON)
        return Response(b'{"status":"NOT_SERVING"}', status_code=503, media_type=_JSON)

    if registry is None:  # MAZZIERE_GATEWAY_METRICS off: metrics only on the metrics port
        return

    @app.get("/metrics", include_in_schema=False)
    async def metrics() -> Response:
        return Response(generate_latest(registry), media_type=CONTENT_TYPE_LATEST)


# -- interactive documentation ----------------------------------------------------------------------

SWAGGER_UI_STATIC = "/static/swagger-ui"
"""Where the Swagger UI files of the ``swagger-ui-bundle-v2`` package are served: /docs needs no CDN."""


def _add_docs(app: FastAPI) -> None:
    import swagger_ui_bundle

    app.mount(SWAGGER_UI_STATIC, StaticFiles(directory=swagger_ui_bundle.swagger_ui_path), name="swagger-ui")
    page = bytes(
        get_swagger_ui_html(
            openapi_url=app.openapi_url or "/openapi.json",
            title=f"{app.title} - Swagger UI",
            swagger_js_url=f"{SWAGGER_UI_STATIC}/swagger-ui-bundle.js",
            swagger_css_url=f"{SWAGGER_UI_STATIC}/swagger-ui.css",
            swagger_favicon_url=f"{SWAGGER_UI_STATIC}/favicon-32x32.png",
        ).body
    )
    policy = {"Content-Security-Policy": docs_policy(page)}  # its inline start-up script allowed by its hash

    @app.get("/docs", include_in_schema=False)
    async def docs() -> HTMLResponse:
        return HTMLResponse(page, headers=policy)


# -- the web table ---------------------------------------------------------------------------------

WEB_PATH = "/play"
WEB_DIST = Path(__file__).resolve().parents[2] / "clients" / "web" / "dist"
"""The built web table (clients/web, ``make run`` builds it): served at /play when it exists."""
WEB_SOURCE_MAP = "app.js.map"


class WebFiles(StaticFiles):
    """The built web table; its source map (``app.js.map``) only with ``MAZZIERE_WEB_SOURCE_MAPS``, and then
    linked from ``app.js`` by a ``SourceMap`` header (the bundle itself names no map)."""

    def __init__(self, directory: Path, *, source_maps: bool) -> None:
        super().__init__(directory=directory, html=True)
        self.source_maps = source_maps

    async def get_response(self, path: str, scope: Scope) -> Response:
        if path.endswith(".map") and not self.source_maps:
            raise StarletteHTTPException(404)
        response = await super().get_response(path, scope)
        if self.source_maps and path == "app.js":
            response.headers["SourceMap"] = WEB_SOURCE_MAP
        return response


def _add_web_table(app: FastAPI, *, source_maps: bool) -> None:
    if not (WEB_DIST / "index.html").is_file():
        return
    app.mount(WEB_PATH + "/", WebFiles(WEB_DIST, source_maps=source_maps), name="play")

    @app.get(WEB_PATH, include_in_schema=False)
    async def play() -> RedirectResponse:
        return RedirectResponse(WEB_PATH + "/")


# -- errors -----------------------------------------------------------------------------------------


def error_response(error: GatewayError, headers: dict[str, str] | None = None) -> Response:
    return Response(
        error.json(), status_code=error.http_status, media_type=_JSON, headers={**error.headers(), **(headers or {})}
    )


async def _http_exception(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    detail = exc.detail if isinstance(exc.detail, str) else str(exc.detail)
    if exc.status_code == 404:
        detail = f"no such route: {request.method} {request.url.path}"
    return error_response(plain_error(exc.status_code, detail), dict(exc.headers or {}))


async def _validation_exception(request: Request, exc: Exception) -> Response:
    return error_response(GatewayError.invalid_request(str(exc)))


async def _gateway_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, GatewayError)
    return error_response(exc)


# -- request ids, metrics and logs ------------------------------------------------------------------


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
            status = error.http_status
            await send(
                {
                    "type": "http.response.start",
                    "status": status,
                    "headers": [(b"content-type", _JSON.encode()), header],
                }
            )
            await send({"type": "http.response.body", "body": error.json()})
        finally:
            template = _route_template(scope)
            method = scope["method"] if scope["method"] in _METHODS else "other"
            elapsed = time.perf_counter() - start
            self.requests.labels(method, template, str(status)).inc()
            self.latency.labels(method, template).observe(elapsed)
            if self.log_requests:
                self.log.info(
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


# -- OpenAPI ----------------------------------------------------------------------------------------

_ERROR_SCHEMA: Schema = {
    "type": "object",
    "title": "Error",
    "description": "Google's JSON error envelope (AIP-193): the google.rpc.Status of the call with its HTTP code.",
    "properties": {
        "error": {
            "type": "object",
            "properties": {
                "code": {"type": "integer", "description": "The HTTP status code."},
                "status": {"type": "string", "description": "The gRPC status code's name, e.g. FAILED_PRECONDITION."},
                "message": {"type": "string", "description": "What went wrong, for people."},
                "details": {
                    "type": "array",
                    "items": ref("ErrorDetail"),
                },
            },
            "required": ["code", "status", "message"],
        }
    },
    "required": ["error"],
}

_ERROR_INFO_TYPE = "type.googleapis.com/google.rpc.ErrorInfo"
_ERROR_EXAMPLES: dict[int, tuple[str, str, str]] = {
    400: ("FAILED_PRECONDITION", "seat 2 may not act now", "NOT_YOUR_TURN"),
    403: ("PERMISSION_DENIED", "that is not the key of seat 1 at this table", "SEAT_KEY_INVALID"),
    409: ("ABORTED", "the state is at sequence 4, not 3; act on the latest state", "STALE_SEQUENCE"),
    408: ("INVALID_ARGUMENT", "the body did not arrive within 10 s", "INVALID_REQUEST"),
    413: ("INVALID_ARGUMENT", "the body is 3000000 bytes; at most 2097152", "INVALID_REQUEST"),
    415: ("INVALID_ARGUMENT", "the body must be application/json (Content-Type), not text/plain", "INVALID_REQUEST"),
    429: ("RESOURCE_EXHAUSTED", "the server is at its limit of calls in flight; retry", "OVERLOADED"),
    500: ("INTERNAL", "internal error", ""),
    503: ("UNAVAILABLE", "the server is shutting down; retry", "SHUTTING_DOWN"),
    504: ("DEADLINE_EXCEEDED", "Deadline Exceeded", ""),
}


def _error_example(http_status: int) -> dict[str, Any]:
    status, message, reason = _ERROR_EXAMPLES[http_status]
    error: dict[str, Any] = {"code": http_status, "status": status, "message": message}
    if reason:
        error["details"] = [{"@type": _ERROR_INFO_TYPE, "reason": reason, "domain": "mazziere.v1"}]
    return {"error": error}


def _responses(route: Route) -> dict[int | str, dict[str, Any]]:
    media_type = NDJSON if route.streaming else _JSON
    ok = {
        "description": f"The {route.method.output_type.name}"
        + (
            ": one per line; an error after the first is a last line holding the error envelope"
            if route.streaming
            else ""
        ),
        "content": {media_type: {"schema": ref(route.method.output_type.full_name), "example": route.answer}},
    }
    out: dict[int | str, dict[str, Any]] = {200: ok}
    described = {
        400: "Malformed request (INVALID_ARGUMENT) or a move the rules refuse now (FAILED_PRECONDITION)",
        403: "Missing or wrong seat key (PERMISSION_DENIED)",
        408: "The body did not arrive within MAZZIERE_GATEWAY_READ_TIMEOUT_SECONDS",
        409: "Stale sequence number (ABORTED): fetch the latest state and retry",
        413: "Body too large",
        415: "The body is not application/json (Content-Type)",
        429: "The server is overloaded (OVERLOADED: retry after Retry-After) or the call is over a limit "
        "(RESPONSE_TOO_LARGE, REPLAY_BUDGET_EXCEEDED)",
        500: "Internal error",
        503: "The service is unavailable (split mode)",
        504: "The call's deadline passed",
    }
    if route.http_method == "GET":
        described = {k: v for k, v in described.items() if k in (429, 500, 503, 504)}
    for code, text in described.items():
        out[code] = {
            "description": text,
            "content": {_JSON: {"schema": ref("Error"), "example": _error_example(code)}},
        }
    return out


def _request_body(route: Route) -> dict[str, Any]:
    if route.http_method == "GET":
        return {}
    content: dict[str, Any] = {"schema": ref(route.method.input_type.full_name)}
    if route.examples:
        content["examples"] = route.examples
    return {"requestBody": {"required": True, "content": {_JSON: content}}}


def _openapi(app: FastAPI) -> dict[str, Any]:
    if app.openapi_schema is None:
        doc = get_openapi(
            title=app.title,
            version=app.version,
            summary=app.summary,
            description=app.description,
            routes=app.routes,
            servers=app.servers,
            license_info=app.license_info,
            contact=app.contact,
            tags=app.openapi_tags,
        )
        from google.rpc import error_details_pb2

        bodies = [r.method.input_type for r in ROUTES if r.http_method != "GET"]  # a GET has no body
        roots = bodies + [r.method.output_type for r in ROUTES]
        schemas = message_schemas(*roots, error_details_pb2.ErrorInfo.DESCRIPTOR, comments=proto_comments())
        info = schemas.pop("google.rpc.ErrorInfo")
        reason = {
            "type": "string",
            "enum": error_reasons(),
            "description": "A mazziere.v1.ErrorReason name without its ERROR_REASON_ prefix.",
        }
        schemas["ErrorDetail"] = {
            **info,
            "title": "ErrorDetail",
            "description": "A google.rpc.ErrorInfo, with its type URL in @type.",
            "properties": {
                "@type": {"type": "string", "const": _ERROR_INFO_TYPE},
                **info["properties"],
                "reason": reason,
            },
            "required": ["@type"],
        }
        schemas["Error"] = _ERROR_SCHEMA
        components = doc.setdefault("components", {})
        components.setdefault("schemas", {}).update(schemas)
        components["securitySchemes"] = {
            SEAT_KEY_SCHEME: {
                "type": "apiKey",
                "in": "header",
                "name": SEAT_KEY_HEADER,
                "description": "A seat's key (from CreateTable's seatKeys), for the calls of that seat; it may "
                "also go in the body's seatKey. A spectator's GetView needs none.",
            }
        }
        for path in doc["paths"].values():
            for operation in path.values():
                _add_header_params(operation)
        for route in ROUTES:
            if route.streaming:  # FastAPI adds its default JSON answer beside the NDJSON one
                ok = doc["paths"][route.path][route.http_method.lower()]["responses"]["200"]["content"]
                ok.pop(_JSON, None)
        app.openapi_schema = doc
    return app.openapi_schema


def _add_header_params(operation: dict[str, Any]) -> None:
    """The headers every RPC route reads: the request id, and the seat key (a security scheme) where the request
    has one."""
    op_id = operation.get("operationId")
    route = next((r for r in ROUTES if r.rpc == op_id), None)
    if route is None:
        operation["security"] = []  # the probes
        return
    params = [
        {
            "name": REQUEST_ID_HEADER,
            "in": "header",
            "required": False,
            "description": "Your id for this request: up to 128 of A-Z a-z 0-9 . _ : / + = - (any other value is "
            "replaced, and one is made if absent). Returned in the answer's X-Request-ID and logged by every "
            "component.",
            "schema": {"type": "string"},
        }
    ]
    if "seat_key" in route.request_class.DESCRIPTOR.fields_by_name:
        # The seat key in the header, or none (it may be in the body's seatKey; a spectator has none).
        operation["security"] = [{SEAT_KEY_SCHEME: []}, {}]
    else:
        operation["security"] = []  # said outright: this call takes no key
    operation["parameters"] = [*operation.get("parameters", []), *params]


def error_reasons() -> list[str]:
    """The names of ``mazziere.v1.ErrorReason`` without their prefix (and without UNSPECIFIED)."""
    from mazziere.services.gen.mazziere.v1 import errors_pb2

    prefix = "ERROR_REASON_"
    names = errors_pb2.DESCRIPTOR.enum_types_by_name["ErrorReason"].values
    return [v.name.removeprefix(prefix) for v in names if v.number != 0]


_DESCRIPTION = """\
Every endpoint under `/v1/` is one RPC of `mazziere.v1.TableService`; its body is the canonical protobuf JSON
of the RPC's request message and its answer that of the response message: camelCase field names (the proto
names are accepted too), 64-bit integers as decimal strings, enums by name, bytes (the state token) in base64,
fields at their default value left out. Unknown fields are refused.

The state travels with every call: send back the `state` and `seq` of the last answer. A seat's calls need
its key, in the `X-Seat-Key` header or the body's `seatKey`.

Errors carry Google's JSON error envelope: `{"error": {"code", "status", "message", "details": [ErrorInfo]}}`,
where `details[0].reason` is a `mazziere.v1.ErrorReason` name without its prefix (e.g. `NOT_YOUR_TURN`).
"""
