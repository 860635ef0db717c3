"""A call's own response headers, trailers and error details, over Connect, gRPC-Web and gRPC.

The Connect and gRPC-Web routes are built from any service descriptor: here ``grpc.health.v1.Health`` (``Check``
unary, ``Watch`` server-streaming), served as TableService is (the call core's Dispatcher with Methods,
InProcessBackend, ``connect.add_routes``), by handlers that set headers and trailers and refuse with a detail of
any type. The official Connect conformance suite does the same with its own service and client
(``tests/connect_conformance``).
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import grpc
import httpx
import pytest
from fastapi import FastAPI
from google.protobuf import any_pb2, duration_pb2, empty_pb2
from google.rpc import error_details_pb2, status_pb2
from grpc_health.v1 import health_pb2
from grpc_status import rpc_status

from mazziere.services.app import App
from mazziere.services.core.admission import Admission, CostClass, Tenants
from mazziere.services.core.backend import InProcessBackend
from mazziere.services.core.call import Call
from mazziere.services.core.dispatch import Dispatcher, Method
from mazziere.services.core.metrics import Metrics
from mazziere.services.core.observe import Observer
from mazziere.services.errors import DOMAIN, ServiceError
from mazziere.services.grpc.server import ServerThread
from mazziere.services.http import connect
from mazziere.services.http.server import RestServer, bind
from mazziere.services.table.sealing import Keyring
from tests.gateway.conftest import BASE
from tests.gateway.test_connect import envelope, frames, trailers, unpadded_b64

HEALTH = health_pb2.DESCRIPTOR.services_by_name["Health"]
PATH = f"/{HEALTH.full_name}/"
DELAY = duration_pb2.Duration(seconds=3)
"""The detail every refusal here carries: a type that is neither ErrorInfo nor RetryInfo."""


def _refusal() -> ServiceError:
    detail = any_pb2.Any()
    detail.Pack(DELAY)
    return ServiceError(grpc.StatusCode.FAILED_PRECONDITION, "", "refused, as asked", details=[detail])


def _metadata(request: Any, call: Call) -> None:
    """Two values of one header (the second echoes the caller's ``x-echo``) and a trailer."""
    echo = next((v for k, v in call.metadata if k == "x-echo"), "")
    call.headers.extend([("X-Header", "one"), ("x-header", echo)])
    call.trailers.append(("x-trailer", request.service))


def check(request: Any, call: Call) -> Any:
    _metadata(request, call)
    if request.service == "refuse":
        raise _refusal()
    return health_pb2.HealthCheckResponse(status=health_pb2.HealthCheckResponse.SERVING)


def watch(request: Any, call: Call) -> Iterator[Any]:
    _metadata(request, call)
    yield health_pb2.HealthCheckResponse(status=health_pb2.HealthCheckResponse.SERVING)
    if request.service == "refuse":
        raise _refusal()
    yield health_pb2.HealthCheckResponse(status=health_pb2.HealthCheckResponse.NOT_SERVING)


@pytest.fixture(scope="module")
def http() -> Iterator[httpx.Client]:
    methods = [
        Method(HEALTH.full_name, "Check", check, health_pb2.HealthCheckRequest),
        Method(HEALTH.full_name, "Watch", watch, health_pb2.HealthCheckRequest, streaming=True),
    ]
    dispatcher = Dispatcher(
        methods,
        Observer(Metrics(), games=(), log_calls=False),
        Admission({CostClass.MOVE: 8}, Tenants(), per_table=4),
        {CostClass.MOVE: 2},
        budget_seconds=5.0,
        write_seconds=5.0,
        max_message_bytes=1 << 20,
    )

    async def ready() -> bool:
        return True

    app = FastAPI()
    backend = InProcessBackend(dispatcher, HEALTH, timeout=5.0, ready=ready)
    connect.add_routes(app.router, backend, max_body=1 << 16, read_timeout=5.0, service=HEALTH)
    sock = bind("127.0.0.1", 0)
    rest = RestServer(app, sock)
    thread = threading.Thread(target=lambda: asyncio.run(rest.run_on_socket()), daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not rest.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.01)
    with httpx.Client(base_url=f"http://127.0.0.1:{sock.getsockname()[1]}", timeout=10.0) as client:
        yield client
    rest.should_exit = True
    thread.join(5)
    dispatcher.shutdown()


def post(http: httpx.Client, rpc: str, service: str, content_type: str) -> httpx.Response:
    message = health_pb2.HealthCheckRequest(service=service)
    body = json.dumps({"service": service}).encode() if content_type.endswith("json") else message.SerializeToString()
    if content_type.startswith(("application/connect+", "application/grpc-web")):
        body = envelope(body)
    return http.post(PATH + rpc, content=body, headers={"content-type": content_type, "x-echo": "two"})


def the_delay(detail: dict[str, Any]) -> duration_pb2.Duration:
    """A Connect error detail, which must be the Duration: its type, its bytes and its debug JSON."""
    assert detail["type"] == "google.protobuf.Duration" and detail["debug"] == "3s", detail
    return duration_pb2.Duration.FromString(unpadded_b64(detail["value"]))


def test_every_rpc_of_another_service_is_routed_and_one_not_served_is_unimplemented(http: httpx.Client) -> None:
    assert {r.path: r.streaming for r in connect.rpcs(HEALTH)} == {
        PATH + m.name: m.server_streaming for m in HEALTH.methods
    }
    assert {"Check", "Watch", "List"} <= {m.name for m in HEALTH.methods}
    resp = http.post(PATH + "List", content=b"", headers={"content-type": "application/proto"})
    assert (resp.status_code, resp.json()["code"]) == (501, "unimplemented")


@pytest.mark.parametrize("content_type", ["application/proto", "application/json"])
def test_connect_unary_sends_the_headers_and_the_trailers_as_trailer_headers(
    http: httpx.Client, content_type: str
) -> None:
    resp = post(http, "Check", "ok", content_type)
    assert resp.status_code == 200 and resp.headers["content-type"] == content_type, resp.text
    assert resp.headers.get_list("x-header") == ["one", "two"] and resp.headers["trailer-x-trailer"] == "ok"
    refused = post(http, "Check", "refuse", content_type)
    assert refused.status_code == 400 and refused.headers.get_list("x-header") == ["one", "two"]
    assert refused.headers["trailer-x-trailer"] == "refuse"
    error = refused.json()
    assert (error["code"], error["message"]) == ("failed_precondition", "refused, as asked")
    [detail] = error["details"]  # no ErrorInfo: the refusal has no reason
    assert the_delay(detail) == DELAY


def test_connect_streams_send_the_headers_first_and_the_trailers_in_the_end(http: httpx.Client) -> None:
    resp = post(http, "Watch", "ok", "application/connect+proto")
    assert resp.status_code == 200 and resp.headers.get_list("x-header") == ["one", "two"]
    assert "trailer-x-trailer" not in resp.headers
    *answers, (flags, end) = frames(resp.content)
    assert [health_pb2.HealthCheckResponse.FromString(p).status for _, p in answers] == [1, 2]
    assert (flags, json.loads(end)) == (2, {"metadata": {"x-trailer": ["ok"]}})
    refused = post(http, "Watch", "refuse", "application/connect+json")
    (_, first), (flags, end) = frames(refused.content)
    assert json.loads(first) == {"status": "SERVING"} and flags == 2
    ended = json.loads(end)
    assert ended["metadata"] == {"x-trailer": ["refuse"]} and ended["error"]["code"] == "failed_precondition"
    assert the_delay(ended["error"]["details"][0]) == DELAY


@pytest.mark.parametrize(("rpc", "answers"), [("Check", 1), ("Watch", 2)])
def test_grpc_web_sends_the_headers_and_the_trailers_in_its_trailer_frame(
    http: httpx.Client, rpc: str, answers: int
) -> None:
    resp = post(http, rpc, "ok", "application/grpc-web+proto")
    assert resp.headers.get_list("x-header") == ["one", "two"]
    *data, (flags, last) = frames(resp.content)
    assert len(data) == answers and flags == 0x80
    assert trailers(last) == {"grpc-status": "0", "x-trailer": "ok"}
    refused = post(http, rpc, "refuse", "application/grpc-web")
    found = trailers(frames(refused.content)[-1][1])
    assert (found["grpc-status"], found["x-trailer"]) == ("9", "refuse")
    status = status_pb2.Status.FromString(unpadded_b64(found["grpc-status-details-bin"]))
    delay = duration_pb2.Duration()
    assert len(status.details) == 1 and status.details[0].Unpack(delay) and delay == DELAY


def test_the_gateway_keeps_every_detail_of_a_status_in_order() -> None:
    """Ours (the ErrorInfo of our domain, the RetryInfo) are read; any other detail is kept as it came."""
    status = status_pb2.Status(code=8, message="busy")
    foreign = error_details_pb2.ErrorInfo(reason="ELSEWHERE", domain="example.com")
    retry = error_details_pb2.RetryInfo()
    retry.retry_delay.FromSeconds(2)
    for message in (foreign, error_details_pb2.ErrorInfo(reason="OVERLOADED", domain=DOMAIN), DELAY, retry):
        status.details.add().Pack(message)
    error = ServiceError.from_status(status)
    assert (error.code, error.reason, error.retry_after) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "OVERLOADED", 2.0)
    assert [d.type_url.rsplit("/", 1)[1] for d in error.details] == ["google.rpc.ErrorInfo", "google.protobuf.Duration"]
    types = [d["type"] for d in connect.connect_error(error)["details"]]
    assert types == ["google.rpc.ErrorInfo", "google.rpc.RetryInfo", "google.rpc.ErrorInfo", "google.protobuf.Duration"]


def test_grpc_sends_a_refusal_s_details_without_a_reason_too() -> None:
    """Over the gRPC port the same refusal is a rich status (``grpc-status-details-bin``) with its one detail."""

    def refuse(request: Any, call: Call) -> Any:
        raise _refusal()

    config = replace(BASE, port=0)
    probe = Method("mazziere.test.Probe", "Refuse", refuse, empty_pb2.Empty)
    app = App(config, keyring=Keyring.parse(config.seal_keys), extra_methods=[probe])
    server = ServerThread(app.grpc)
    port = server.start()
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            refuse_rpc: Any = channel.unary_unary(
                "/mazziere.test.Probe/Refuse", request_serializer=empty_pb2.Empty.SerializeToString
            )
            with pytest.raises(grpc.RpcError) as raised:
                refuse_rpc(empty_pb2.Empty(), timeout=5)
        status = rpc_status.from_call(raised.value)
        delay = duration_pb2.Duration()
        assert status is not None and status.code == grpc.StatusCode.FAILED_PRECONDITION.value[0]
        assert len(status.details) == 1 and status.details[0].Unpack(delay) and delay == DELAY
    finally:
        server.shutdown()
