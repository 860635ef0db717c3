"""Liveness and readiness for load balancers and Kubernetes (``/healthz``, ``/readyz``), and ``/metrics`` on the
REST port when configured."""

from __future__ import annotations

from fastapi import FastAPI, Response
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest

from mazziere.services.core.backend import Backend
from mazziere.services.http.errors import JSON

PROBES_TAG = {"name": "Probes", "description": "Liveness and readiness, for load balancers and Kubernetes."}
HEALTHZ, READYZ = "/healthz", "/readyz"
PROBE_PATHS = (HEALTHZ, READYZ)
"""Answered even past the connection cap (:mod:`.connections`)."""


def add_probes(app: FastAPI, backend: Backend, registry: CollectorRegistry | None) -> None:
    """The probes (readiness asks ``backend``), and ``/metrics`` of ``registry`` if given."""
    status_schema = {"type": "object", "properties": {"status": {"type": "string"}}, "required": ["status"]}

    @app.get(
        HEALTHZ,
        tags=["Probes"],
        summary="Liveness: the process answers",
        description="200 while the process can answer at all; it asks nothing of the engine.",
        responses={200: {"content": {JSON: {"schema": status_schema, "example": {"status": "ok"}}}}},
    )
    async def healthz() -> Response:
        return Response(b'{"status":"ok"}', media_type=JSON)

    @app.get(
        READYZ,
        tags=["Probes"],
        summary="Readiness: the engine service answers SERVING to a health check",
        description="200 with SERVING when the engine is ready for calls; 503 while it starts or shuts down.",
        responses={
            200: {"content": {JSON: {"schema": status_schema, "example": {"status": "SERVING"}}}},
            503: {"description": "Not ready", "content": {JSON: {"schema": status_schema}}},
        },
    )
    async def readyz() -> Response:
        if await backend.ready():
            return Response(b'{"status":"SERVING"}', media_type=JSON)
        return Response(b'{"status":"NOT_SERVING"}', status_code=503, media_type=JSON)

    if registry is None:  # MAZZIERE_GATEWAY_METRICS off: metrics only on the metrics port
        return

    @app.get("/metrics", include_in_schema=False)
    async def metrics() -> Response:
        return Response(generate_latest(registry), media_type=CONTENT_TYPE_LATEST)
