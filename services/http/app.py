"""The HTTP transport, assembled: every RPC of TableService as a JSON endpoint under ``/v1/`` (:mod:`.rest`), the
same RPCs (and the host's, when this process hosts) over Connect and gRPC-Web (:mod:`.connect`), the probes, the
OpenAPI document and Swagger UI, and the web table at ``/play``.

Bodies are the canonical protobuf JSON of the RPC's own request and response messages, so REST and gRPC
cannot drift; the gateway holds no rules and no second data model. See the README's "The REST gateway".
"""

from __future__ import annotations

from collections.abc import Sequence

from fastapi import FastAPI
from google.protobuf.descriptor import ServiceDescriptor
from prometheus_client import CollectorRegistry

from mazziere.services.config import Config
from mazziere.services.core.backend import Backend
from mazziere.services.http import connect
from mazziere.services.http.comments import proto_comments
from mazziere.services.http.connections import RefuseOverCap
from mazziere.services.http.cors import ServedCors, served_methods
from mazziere.services.http.errors import add_error_handlers
from mazziere.services.http.headers import SecurityHeaders
from mazziere.services.http.observe import Observe
from mazziere.services.http.openapi import DESCRIPTION, DOCS_PATH, SWAGGER_UI_STATIC, add_docs, openapi, responses
from mazziere.services.http.openapi import request_body as openapi_request_body
from mazziere.services.http.probes import PROBE_PATHS, PROBES_TAG, add_probes
from mazziere.services.http.request import REQUEST_ID_HEADER
from mazziere.services.http.rest import SEAT_KEY_HEADER, endpoint
from mazziere.services.http.routes import HOST_ROUTES, ROUTES, SERVICE, Route
from mazziere.services.http.web import WEB_PATH, add_web_table

SERVERS = [{"url": "/", "description": "The gateway serving this document"}]
LICENSE = {"name": "Apache-2.0", "identifier": "Apache-2.0"}
CONTACT = {"name": "Mazziere", "url": "https://github.com/mazziere/mazziere"}


def create_app(
    backend: Backend,
    config: Config,
    *,
    registry: CollectorRegistry | None = None,
    host: tuple[ServiceDescriptor, Backend] | None = None,
    host_headers: Sequence[str] = (),
) -> FastAPI:
    """The gateway over ``backend`` (TableService). ``registry``: where the HTTP metrics go (the service's when
    embedded); ``host``: another service and its backend, whose RPCs are served over Connect and gRPC-Web too, with
    the request headers it reads (``host_headers``, allowed from a browser)."""
    registry = registry if registry is not None else CollectorRegistry()
    app = FastAPI(
        title="Mazziere",
        version="v1",
        summary="A stateless rules engine for Italian card games: the REST face of mazziere.v1.TableService (and "
        "of HostService, where the server hosts tables).",
        description=DESCRIPTION,
        docs_url=None,  # served by add_docs, from the package's own Swagger UI files
        redoc_url=None,
        openapi_url="/openapi.json",
        redirect_slashes=False,  # /v1/games/ is no route, not a redirect to one
        servers=SERVERS,
        license_info=LICENSE,
        contact=CONTACT,
        openapi_tags=[{"name": "TableService", "description": _comment(SERVICE.full_name)}, PROBES_TAG],
    )
    max_body, read_timeout = config.gateway_max_body_bytes, config.gateway_read_timeout_seconds

    def add_rest(routes: Sequence[Route], on: Backend) -> None:
        for route in routes:
            app.add_api_route(
                route.path,
                endpoint(route, on, max_body, read_timeout),
                methods=[route.http_method],
                name=route.rpc,
                operation_id=route.rpc,
                summary=route.summary,
                description=_comment(route.method.full_name),
                tags=[route.service.name],
                responses=responses(route),
                openapi_extra=openapi_request_body(route),
            )

    add_rest(ROUTES, backend)
    connect.add_routes(app.router, backend, max_body=max_body, read_timeout=read_timeout)
    if host is not None:
        service, host_backend = host
        add_rest(HOST_ROUTES, host_backend)
        app.openapi_tags = [
            *(app.openapi_tags or []),
            {"name": service.name, "description": _comment(service.full_name)},
        ]
        connect.add_routes(app.router, host_backend, max_body=max_body, read_timeout=read_timeout, service=service)
    add_probes(app, backend, registry if config.gateway_metrics else None)
    if config.gateway_docs:
        add_docs(app)
    add_web_table(app, source_maps=config.web_source_maps)
    add_error_handlers(app)
    # Innermost: a request past the connection cap is refused (and counted by Observe) before any route.
    app.add_middleware(RefuseOverCap, probes=PROBE_PATHS, protocol_refusal=connect.protocol_refusal)
    if config.origins:
        app.add_middleware(
            ServedCors,
            served=lambda path: served_methods(app.router.routes, path, refusals=(connect.not_post,)),
            allow_origins=config.origins,
            allow_headers=[
                "Authorization",
                "Content-Type",
                SEAT_KEY_HEADER,
                *host_headers,
                REQUEST_ID_HEADER,
                *connect.CORS_ALLOW_HEADERS,
            ],
            expose_headers=[REQUEST_ID_HEADER, *connect.CORS_EXPOSE_HEADERS],
            max_age=600,
        )
    app.add_middleware(Observe, registry=registry, log_requests=config.log_calls)
    # Outermost, so Observe's own 500 gets the headers too; static files may be cached, nothing else.
    app.add_middleware(
        SecurityHeaders, web=WEB_PATH, pages=(DOCS_PATH,), static=(WEB_PATH + "/", SWAGGER_UI_STATIC + "/")
    )
    app.openapi = lambda: openapi(app)  # type: ignore[method-assign]
    return app


def _comment(name: str) -> str:
    """The contract's comment on a service or method, for its OpenAPI description."""
    return proto_comments().get(name, f"See {name} in protos/mazziere/v1/service.proto.")
