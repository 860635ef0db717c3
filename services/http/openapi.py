"""The OpenAPI document of the REST routes (the contract's messages as JSON schemas, the error envelope, the
seat key as a security scheme) and Swagger UI at ``/docs``."""

from __future__ import annotations

from typing import Any

import swagger_ui_bundle
from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.openapi.utils import get_openapi
from fastapi.responses import HTMLResponse
from google.rpc import error_details_pb2
from starlette.staticfiles import StaticFiles

from mazziere.services.gen.mazziere.v1 import errors_pb2
from mazziere.services.http.comments import proto_comments
from mazziere.services.http.errors import JSON
from mazziere.services.http.headers import docs_policy
from mazziere.services.http.request import REQUEST_ID_HEADER
from mazziere.services.http.rest import NDJSON, SEAT_KEY_HEADER
from mazziere.services.http.routes import CAPABILITY_HEADER, HOST_ROUTES, ROUTES, Route
from mazziere.services.http.schema import Schema, message_schemas, ref

SEAT_KEY_SCHEME = "SeatKey"
CAPABILITY_SCHEME = "TableCapability"

SWAGGER_UI_STATIC = "/static/swagger-ui"
"""Where the Swagger UI files of the ``swagger-ui-bundle-v2`` package are served: /docs needs no CDN."""
DOCS_PATH = "/docs"
"""Swagger UI's page."""


def add_docs(app: FastAPI) -> None:
    """Swagger UI at ``/docs``, from the package's own files."""

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

    @app.get(DOCS_PATH, include_in_schema=False)
    async def docs() -> HTMLResponse:
        return HTMLResponse(page, headers=policy)


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
    401: (
        "UNAUTHENTICATED",
        "this server needs an API key: send `authorization: Bearer <key>` with a key it knows",
        "API_KEY_INVALID",
    ),
    404: ("NOT_FOUND", "this host keeps no table of that id (or it expired)", "TABLE_NOT_FOUND"),
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


def responses(route: Route) -> dict[int | str, dict[str, Any]]:
    media_type = NDJSON if route.streaming else JSON
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
        401: "An unknown API key, where the server names its tenants (UNAUTHENTICATED API_KEY_INVALID)",
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
    if route.method.containing_service.name == "HostService":
        described[403] = "Missing, wrong or revoked capability (PERMISSION_DENIED)"
        described[404] = "No such table here (NOT_FOUND TABLE_NOT_FOUND)"
    if route.http_method == "GET":
        described = {k: v for k, v in described.items() if k in (401, 429, 500, 503, 504)}
    for code, text in described.items():
        out[code] = {
            "description": text,
            "content": {JSON: {"schema": ref("Error"), "example": _error_example(code)}},
        }
    return out


def request_body(route: Route) -> dict[str, Any]:
    if route.http_method == "GET":
        return {}
    content: dict[str, Any] = {"schema": ref(route.method.input_type.full_name)}
    if route.examples:
        content["examples"] = route.examples
    return {"requestBody": {"required": True, "content": {JSON: content}}}


def openapi(app: FastAPI) -> dict[str, Any]:
    """The OpenAPI document of the REST routes, made once: the contract's messages as schemas."""
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
        served = _served(doc)
        bodies = [r.method.input_type for r in served if r.http_method != "GET"]  # a GET has no body
        roots = bodies + [r.method.output_type for r in served]
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
            },
        }
        if any(route in HOST_ROUTES for route in served):
            components["securitySchemes"][CAPABILITY_SCHEME] = {
                "type": "apiKey",
                "in": "header",
                "name": CAPABILITY_HEADER,
                "description": "A hosted table's capability, from OpenTable or ReissueInvite: a seat's invite (to "
                "play and advise that seat), the spectators' (to watch) or the owner's (to reissue invites and "
                "close). Only in this header: never in a path or a query string, which logs and browsers keep.",
            }
        for path in doc["paths"].values():
            for operation in path.values():
                _add_header_params(operation)
        for route in served:
            if route.streaming:  # FastAPI adds its default JSON answer beside the NDJSON one
                ok = doc["paths"][route.path][route.http_method.lower()]["responses"]["200"]["content"]
                ok.pop(JSON, None)
        app.openapi_schema = doc
    return app.openapi_schema


def _served(doc: dict[str, Any]) -> list[Route]:
    """The RPC routes this app serves (the host's only where it hosts)."""
    return [r for r in (*ROUTES, *HOST_ROUTES) if r.path in doc["paths"]]


def _add_header_params(operation: dict[str, Any]) -> None:
    """The headers every RPC route reads: the request id, and the seat key (a security scheme) where the request
    has one."""
    op_id = operation.get("operationId")
    route = next((r for r in (*ROUTES, *HOST_ROUTES) if r.rpc == op_id), None)
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
    if route in HOST_ROUTES:  # every host call but OpenTable needs a capability
        operation["security"] = [] if route.rpc == "OpenTable" else [{CAPABILITY_SCHEME: []}]
    elif "seat_key" in route.request_class.DESCRIPTOR.fields_by_name:
        # The seat key in the header, or none (it may be in the body's seatKey; a spectator has none).
        operation["security"] = [{SEAT_KEY_SCHEME: []}, {}]
    else:
        operation["security"] = []  # said outright: this call takes no key
    operation["parameters"] = [*operation.get("parameters", []), *params]


def error_reasons() -> list[str]:
    """The names of ``mazziere.v1.ErrorReason`` without their prefix (and without UNSPECIFIED)."""
    prefix = "ERROR_REASON_"
    names = errors_pb2.DESCRIPTOR.enum_types_by_name["ErrorReason"].values
    return [v.name.removeprefix(prefix) for v in names if v.number != 0]


DESCRIPTION = """\
Every endpoint under `/v1/` is one RPC of `mazziere.v1.TableService`; its body is the canonical protobuf JSON
of the RPC's request message and its answer that of the response message: camelCase field names (the proto
names are accepted too), 64-bit integers as decimal strings, enums by name, bytes (the state token) in base64,
fields at their default value left out. Unknown fields are refused.

The state travels with every call: send back the `state` and `seq` of the last answer. A seat's calls need
its key, in the `X-Seat-Key` header or the body's `seatKey`.

Errors carry Google's JSON error envelope: `{"error": {"code", "status", "message", "details": [ErrorInfo]}}`,
where `details[0].reason` is a `mazziere.v1.ErrorReason` name without its prefix (e.g. `NOT_YOUR_TURN`).
"""
