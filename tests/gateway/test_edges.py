"""The REST port's edges: content type, trailing slashes, metrics opt-in, labels, and slow or endless heads."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import replace

import httpx
import pytest
from prometheus_client import generate_latest

from mazziere.services.http.app import create_app
from mazziere.services.http.server import RestServer, bind
from tests.gateway.conftest import BASE, Gateway
from tests.gateway.helpers import Api, error


def test_a_post_body_must_say_it_is_json(api: Api) -> None:
    body = b'{"game": "trentuno"}'
    for content_type in (None, "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; b=x"):
        headers = {} if content_type is None else {"Content-Type": content_type}
        resp = api.http.post("/v1/tables", content=body, headers=headers)
        assert error(resp) == (415, "INVALID_ARGUMENT", "INVALID_REQUEST"), resp.text
    ok = api.http.post("/v1/tables:view", content=b"{}", headers={"Content-Type": "application/json; charset=utf-8"})
    assert ok.status_code == 400 and "table_id" in ok.text  # past the door, refused by the service


def test_a_trailing_slash_is_no_route_and_no_redirect(api: Api) -> None:
    resp = api.http.get("/v1/games/", follow_redirects=False)
    assert resp.status_code == 404
    assert "location" not in resp.headers


def test_metrics_are_not_on_the_rest_port_unless_asked(api: Api) -> None:
    assert api.http.get("/metrics").status_code == 404

    async def scrape() -> httpx.Response:
        app = create_app(_NoBackend(), replace(BASE, gateway_metrics=True))
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://gw") as client:
            return await client.get("/metrics")

    resp = asyncio.run(scrape())
    assert resp.status_code == 200 and "mazziere_http_requests_total" in resp.text


def test_an_odd_http_method_is_no_metric_label(gateway: Gateway) -> None:
    gateway.http.request("PROPFIND", "/v1/games")
    gateway.http.request("GET", "/v1/zz-" + "x" * 50)
    text = generate_latest(gateway.app.metrics.registry).decode()
    assert "PROPFIND" not in text and "zz-" not in text
    assert 'mazziere_http_requests_total{method="other",route="/v1/games",status="405"}' in text


class _NoBackend:
    async def call(self, rpc: str, request: object, request_id: str) -> object:
        raise AssertionError("not called")

    async def ready(self) -> bool:
        return True

    async def close(self) -> None:
        return None


@pytest.fixture(scope="module")
def impatient() -> Iterator[int]:
    """A gateway that gives a request's head, and then its body, one second each."""
    config = replace(BASE, gateway_read_timeout_seconds=1.0)
    sock = bind("127.0.0.1", 0)
    port: int = sock.getsockname()[1]
    rest = RestServer(create_app(_NoBackend(), config), sock, read_timeout=1.0)
    thread = threading.Thread(target=lambda: asyncio.run(rest.run_on_socket()), daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not rest.started:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    yield port
    rest.should_exit = True
    thread.join(5)


def closed_within(sock: socket.socket, seconds: float) -> tuple[bool, bytes]:
    """Whether the server closed ``sock`` within ``seconds``, and what it sent."""
    sock.settimeout(seconds)
    received = b""
    try:
        while chunk := sock.recv(4096):
            received += chunk
    except TimeoutError:
        return False, received
    except ConnectionResetError:  # closed with our bytes still unread
        pass
    return True, received


@pytest.mark.parametrize(
    "sent",
    [b"", b"POST /v1/tables HT", b"POST /v1/tables HTTP/1.1\r\nHost: x\r\nContent-Type: appl"],
    ids=["nothing", "half a request line", "half the headers"],
)
def test_a_slow_head_is_cut(impatient: int, sent: bytes) -> None:
    with socket.create_connection(("127.0.0.1", impatient)) as sock:
        sock.sendall(sent)
        closed, _ = closed_within(sock, 10.0)  # the server gives 1 s; uvicorn alone keeps it open for ever
    assert closed


def test_a_slow_body_is_408(impatient: int) -> None:
    head = b"POST /v1/tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n"
    with socket.create_connection(("127.0.0.1", impatient)) as sock:
        sock.sendall(head + b'{"game":')
        _, answer = closed_within(sock, 10.0)
    assert answer.startswith(b"HTTP/1.1 408"), answer[:200]


def test_an_endless_head_is_431(impatient: int) -> None:
    with socket.create_connection(("127.0.0.1", impatient)) as sock:
        sock.sendall(b"GET /v1/games HTTP/1.1\r\nHost: x\r\n")
        try:
            for i in range(200):
                sock.sendall(b"X-Filler-%d: %s\r\n" % (i, b"y" * 1000))
        except OSError:
            pass  # closed while we were still sending
        closed, answer = closed_within(sock, 10.0)
    assert closed and (answer == b"" or answer.startswith(b"HTTP/1.1 431")), answer[:200]
