"""CORS, request ids, probes, metrics, documentation; and the real ``mazziere serve`` / ``mazziere gateway``."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from grpc_health.v1 import health_pb2
from prometheus_client import generate_latest

from mazziere.services.http.app import SWAGGER_UI_STATIC
from mazziere.services.table.methods import SERVICE_NAME
from tests.gateway.conftest import KEYS, ORIGIN, Gateway, wait_http
from tests.gateway.helpers import Api, error
from tests.ports import free_port

_JSON = "application/json"


def test_cors_allows_the_configured_origin(api: Api) -> None:
    preflight = api.http.options(
        "/v1/tables:act",
        headers={
            "Origin": ORIGIN,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "content-type, x-seat-key, x-request-id",
        },
    )
    assert preflight.status_code == 200
    assert preflight.headers["access-control-allow-origin"] == ORIGIN
    allowed = preflight.headers["access-control-allow-headers"].lower()
    assert "x-seat-key" in allowed and "x-request-id" in allowed
    resp = api.http.get("/v1/games", headers={"Origin": ORIGIN})
    assert resp.headers["access-control-allow-origin"] == ORIGIN
    assert "x-request-id" in resp.headers["access-control-expose-headers"].lower()


def test_cors_denies_other_origins(api: Api) -> None:
    preflight = api.http.options(
        "/v1/tables:act",
        headers={"Origin": "https://evil.example", "Access-Control-Request-Method": "POST"},
    )
    assert preflight.status_code == 400
    assert "access-control-allow-origin" not in preflight.headers
    resp = api.http.get("/v1/games", headers={"Origin": "https://evil.example"})
    assert "access-control-allow-origin" not in resp.headers


def test_no_origin_is_allowed_by_default(split: Gateway) -> None:
    resp = split.http.get("/v1/games", headers={"Origin": ORIGIN})
    assert "access-control-allow-origin" not in resp.headers


def test_the_request_id_is_echoed_or_made(api: Api) -> None:
    assert api.http.get("/healthz", headers={"X-Request-ID": "abc-123"}).headers["x-request-id"] == "abc-123"
    made = api.http.get("/healthz").headers["x-request-id"]
    assert re.fullmatch(r"[0-9a-f]{32}", made)
    bad = api.http.get("/healthz", headers={"X-Request-ID": "no spaces please"}).headers["x-request-id"]
    assert re.fullmatch(r"[0-9a-f]{32}", bad)
    # Errors carry it too.
    resp = api.http.post("/v1/tables", content=b"{", headers={"X-Request-ID": "err-1", "Content-Type": _JSON})
    assert resp.headers["x-request-id"] == "err-1"


def test_the_request_id_reaches_the_grpc_call(split: Gateway) -> None:
    """Over the channel, the service receives it as x-request-id metadata."""
    seen: list[Any] = []
    dispatcher = split.app.dispatcher
    original = dispatcher.unary

    async def spy(method: Any, request: Any, call: Any, *args: Any, **kw: Any) -> Any:
        seen.append(dict(call.metadata))
        return await original(method, request, call, *args, **kw)

    dispatcher.unary = spy  # type: ignore[method-assign]
    try:
        split.http.get("/v1/games", headers={"X-Request-ID": "trace-42"})
    finally:
        dispatcher.unary = original  # type: ignore[method-assign]
    assert seen and seen[0]["x-request-id"] == "trace-42"


def test_probes(gateway: Gateway) -> None:
    assert gateway.http.get("/healthz").json() == {"status": "ok"}
    assert gateway.http.get("/readyz").json() == {"status": "SERVING"}
    grpc_server = gateway.grpc
    health = grpc_server.server.health
    grpc_server.run(health.set(SERVICE_NAME, health_pb2.HealthCheckResponse.NOT_SERVING))
    try:
        resp = gateway.http.get("/readyz")
        assert (resp.status_code, resp.json()) == (503, {"status": "NOT_SERVING"})
        assert gateway.http.get("/healthz").status_code == 200
    finally:
        grpc_server.run(health.set(SERVICE_NAME, health_pb2.HealthCheckResponse.SERVING))


def test_split_probes_and_an_unreachable_service(split: Gateway) -> None:
    assert split.http.get("/readyz").status_code == 200
    from mazziere.services.http.app import create_app
    from mazziere.services.table.channel import ChannelBackend
    from tests.gateway.conftest import BASE

    dead = ChannelBackend(f"127.0.0.1:{free_port()}", timeout=2.0, max_message_bytes=1 << 20, write_seconds=5.0)
    app = create_app(dead, BASE)
    transport = httpx.ASGITransport(app=app)

    async def calls() -> tuple[httpx.Response, httpx.Response]:
        async with httpx.AsyncClient(transport=transport, base_url="http://gw") as client:
            return await client.get("/readyz"), await client.get("/v1/games")

    import asyncio

    ready, games = asyncio.run(calls())
    assert ready.status_code == 503
    assert (games.status_code, games.json()["error"]["status"]) == (503, "UNAVAILABLE")


def metrics_text(gateway: Gateway) -> str:
    return generate_latest(gateway.app.metrics.registry).decode()


def test_metrics_count_http_grpc_and_games(gateway: Gateway) -> None:
    gateway.api.create("trentuno")
    gateway.http.post("/v1/tables", content=b"{", headers={"Content-Type": _JSON})
    text = metrics_text(gateway)
    assert re.search(r'mazziere_http_requests_total\{method="POST",route="/v1/tables",status="200"\} [1-9]', text)
    assert re.search(r'mazziere_http_requests_total\{method="POST",route="/v1/tables",status="400"\} [1-9]', text)
    assert 'mazziere_http_request_duration_seconds_bucket{le="0.005",method="POST",route="/v1/tables"}' in text
    assert 'grpc_server_handled_total{grpc_code="OK",grpc_method="CreateTable"' in text
    assert "mazziere_hands_finished_total" in text
    gateway.http.get("/v1/no/such/route")
    assert 'route="unmatched",status="404"' in metrics_text(gateway)


def test_openapi_document_and_docs(gateway: Gateway) -> None:
    doc = gateway.http.get("/openapi.json").json()
    assert set(doc["paths"]) >= {"/v1/games", "/v1/tables", "/v1/tables:act", "/v1/tables:view", "/v1/tables:replay"}
    act = doc["paths"]["/v1/tables:act"]["post"]
    assert act["requestBody"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/mazziere.v1.ActRequest"
    }
    assert {p["name"] for p in act["parameters"]} == {"X-Request-ID"}
    assert act["security"] == [{"SeatKey": []}, {}]
    schemas = doc["components"]["schemas"]
    request = schemas["mazziere.v1.ActRequest"]["properties"]
    assert request["expectedSeq"]["type"] == "string" and request["expectedSeq"]["format"] == "int64"
    assert request["state"]["format"] == "byte"
    assert "sequence number" in request["expectedSeq"]["description"]
    rules = schemas["mazziere.v1.Rules"]
    assert {"setteEMezzo", "saltacavallo", "trentuno"} <= set(rules["properties"]) and "not" in rules
    assert gateway.http.get("/docs").status_code == 200


# -- the real entry points ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[subprocess.Popen[bytes], int, int]]:
    rest, grpc_port = free_port(), free_port()
    env = {
        **os.environ,
        "MAZZIERE_PORT": str(grpc_port),
        "MAZZIERE_REST_PORT": str(rest),
        "MAZZIERE_REST_HOST": "127.0.0.1",
        "MAZZIERE_HOST": "127.0.0.1",
        "MAZZIERE_METRICS_PORT": "0",
        "MAZZIERE_SEAL_KEYS": KEYS,
        "MAZZIERE_GRACE_SECONDS": "1",
        "MAZZIERE_DATA_DIR": tempfile.mkdtemp(prefix="mazziere-data-"),  # its own store: SQLite serves one host
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "mazziere.services.cli", "serve"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        wait_http(f"http://127.0.0.1:{rest}/healthz")
        yield proc, rest, grpc_port
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_mazziere_serve_runs_grpc_and_rest_and_stops_on_sigterm(
    served: tuple[subprocess.Popen[bytes], int, int],
) -> None:
    proc, rest, grpc_port = served
    base = f"http://127.0.0.1:{rest}"
    assert httpx.get(f"{base}/readyz").json() == {"status": "SERVING"}
    created = httpx.post(
        f"{base}/v1/tables",
        json={"game": "sette_e_mezzo", "seats": [{"name": "a", "chips": "10"}, {"name": "b", "chips": "10"}]},
        headers={"X-Request-ID": "serve-test-1"},
    )
    assert created.status_code == 200 and created.headers["x-request-id"] == "serve-test-1"
    # The split gateway, in front of this process's gRPC port.
    gw_port = free_port()
    env = {**os.environ, "MAZZIERE_REST_PORT": str(gw_port), "MAZZIERE_REST_HOST": "127.0.0.1"}
    gw = subprocess.Popen(
        [sys.executable, "-m", "mazziere.services.cli", "gateway", "--target", f"127.0.0.1:{grpc_port}"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        wait_http(f"http://127.0.0.1:{gw_port}/healthz")
        assert httpx.get(f"http://127.0.0.1:{gw_port}/readyz").status_code == 200
        data = created.json()
        view = httpx.post(
            f"http://127.0.0.1:{gw_port}/v1/tables:view",
            json={"tableId": data["tableId"], "state": data["state"], "seat": 0},
            headers={"X-Seat-Key": data["seatKeys"][0]["key"]},
        )
        assert view.status_code == 200, view.text
        stale = httpx.post(
            f"http://127.0.0.1:{gw_port}/v1/tables:act",
            json={"tableId": data["tableId"], "state": data["state"], "expectedSeq": "9", "action": {"seat": 0}},
            headers={"X-Seat-Key": data["seatKeys"][0]["key"]},
        )
        assert error(stale) == (409, "ABORTED", "STALE_SEQUENCE")
    finally:
        gw.send_signal(signal.SIGTERM)
        assert gw.wait(10) == 0
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(15) == 0
    logs = proc.stderr.read().decode() if proc.stderr else ""
    lines = [line for line in logs.splitlines() if "serve-test-1" in line]
    assert any('"event": "call"' in line for line in lines), logs  # the gRPC handler's line
    assert any('"event": "http_request"' in line for line in lines), logs  # the gateway's line
    assert '"event": "stopped"' in logs


def test_the_document_and_its_pages_are_counted_by_their_own_routes(gateway: Gateway) -> None:
    for path in ("/openapi.json", "/docs", f"{SWAGGER_UI_STATIC}/swagger-ui.css"):
        assert gateway.http.get(path).status_code == 200, path
    wanted = [
        rf'mazziere_http_requests_total\{{method="GET",route="{SWAGGER_UI_STATIC}",status="200"\}} [1-9]',
        r'mazziere_http_requests_total\{method="GET",route="/openapi.json",status="200"\} [1-9]',
        r'mazziere_http_requests_total\{method="GET",route="/docs",status="200"\} [1-9]',
    ]
    for _ in range(200):  # a request is counted once its handler returns, just after the last byte is sent
        text = metrics_text(gateway)
        if all(re.search(w, text) for w in wanted):
            break
        time.sleep(0.01)
    assert all(re.search(w, text) for w in wanted), text
