"""The HTTP transports go through the same call core as gRPC: game work on the core's workers (never the event
loop), the same admission and API keys, and a stream whose reader stops reading is ended and frees its place."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from concurrent import futures
from dataclasses import replace
from typing import Any

import httpx
import pytest
from google.protobuf import json_format

from mazziere.engine import bots
from mazziere.services.core.admission import CostClass
from mazziere.services.gen.mazziere.v1 import service_pb2 as svc
from mazziere.services.table import service as servicer
from tests.gateway.conftest import BASE, Gateway
from tests.service.test_load import long_game, replay_request
from tests.service.test_shutdown import wait_for

KEY = "the-only-key-0123456789"
TENANTS = json.dumps({"tenants": [{"name": "web", "keys": [KEY]}]})


def test_rest_and_connect_calls_run_on_the_move_workers(gateway: Gateway, monkeypatch: pytest.MonkeyPatch) -> None:
    threads: list[str] = []
    real = servicer.run_engine

    def spy(*args: Any, **kwargs: Any) -> Any:
        threads.append(threading.current_thread().name)
        return real(*args, **kwargs)

    monkeypatch.setattr(servicer, "run_engine", spy)
    table = gateway.api.create("trentuno", seats=3)
    gateway.api.act(table, {"seat": table.to_act[0], "kind": "DEAL"})
    body = json.dumps({"game": "trentuno", "seats": [{"name": n, "chips": "5"} for n in "abc"]})
    resp = gateway.http.post(
        "/mazziere.v1.TableService/CreateTable", content=body, headers={"content-type": "application/json"}
    )
    assert resp.status_code == 200
    assert threads and all(name.startswith("mazziere-move") for name in threads), threads


@pytest.fixture
def gated_bots(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Gateway, threading.Event]]:
    """A gateway whose sampling bot waits for a gate (or for its call to stop) before it plays (on the server's
    threads, where the gate reaches)."""
    gate = threading.Event()
    real = bots.choose

    def slow(policy: str, state: Any, seat: int, stop: Any = None) -> Any:
        while not gate.is_set() and not (stop and stop()):
            time.sleep(0.005)
        return real(policy, state, seat, stop=stop)

    monkeypatch.setattr(bots, "choose", slow)
    gw = Gateway(replace(BASE, bot_calls=2, bot_workers=1, worker_processes=0))
    yield gw, gate
    gate.set()
    gw.close()


def test_a_flood_of_rest_bot_moves_is_shed_while_health_and_moves_answer(
    gated_bots: tuple[Gateway, threading.Event],
) -> None:
    gw, gate = gated_bots
    tables = [gw.api.create("trentuno", seats=3) for _ in range(6)]
    with futures.ThreadPoolExecutor(6) as pool:

        def auto(table: Any) -> httpx.Response:
            body = {"tableId": table.table_id, "state": table.state, "expectedSeq": str(table.seq), "autoPlay": "best"}
            return httpx.post(
                f"{gw.url}/v1/tables:act", json=body, headers={"X-Seat-Key": table.keys[table.to_act[0]]}, timeout=30
            )

        calls = [pool.submit(auto, t) for t in tables]
        wait_for(lambda: sum(c.done() for c in calls) >= 4)  # two in the bot class, four shed at once
        for _ in range(3):
            assert gw.http.get("/healthz").status_code == 200
            assert gw.http.get("/v1/games").status_code == 200  # moves keep their own workers and places
        gate.set()
        answers = [c.result() for c in calls]
    shed = [a for a in answers if a.status_code == 429]
    assert len(shed) == 4 and sum(a.status_code == 200 for a in answers) == 2, [a.status_code for a in answers]
    for answer in shed:
        assert answer.headers["retry-after"] == "1"
        assert answer.json()["error"]["details"][0]["reason"] == "OVERLOADED"


def test_api_keys_over_http(monkeypatch: pytest.MonkeyPatch) -> None:
    gw = Gateway(replace(BASE, tenants=TENANTS))
    try:
        refused = gw.http.get("/v1/games")
        assert refused.status_code == 401
        assert refused.json()["error"]["details"][0]["reason"] == "API_KEY_INVALID"
        assert gw.http.get("/v1/games", headers={"Authorization": f"Bearer {KEY}"}).status_code == 200
        connect = gw.http.post(
            "/mazziere.v1.TableService/ListGames", content=b"{}", headers={"content-type": "application/json"}
        )
        assert connect.status_code == 401 and connect.json()["code"] == "unauthenticated"
        assert gw.http.get("/healthz").status_code == 200  # probes need no key
    finally:
        gw.close()


# -- stalled readers --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def stalling() -> Iterator[tuple[Gateway, bytes]]:
    """A gateway that gives a stream's reader 1 s to take each answer, and a replay of many megabytes."""
    gw = Gateway(replace(BASE, replay_max_views=1_000_000, replay_seconds=60.0, stream_write_seconds=1.0))
    request = replay_request("saltacavallo", 20, long_game("saltacavallo", 20, 600))
    yield gw, svc.StreamReplayRequest.FromString(request.SerializeToString()).SerializeToString()
    gw.close()


def _envelope(payload: bytes) -> bytes:
    return b"\x00" + len(payload).to_bytes(4, "big") + payload


def _stall(port: int, path: str, content_type: str, body: bytes) -> socket.socket:
    """Send one request and read nothing (a tiny receive buffer, so the server's writes soon block)."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", port))
    head = f"POST {path} HTTP/1.1\r\nhost: x\r\ncontent-type: {content_type}\r\ncontent-length: {len(body)}\r\n\r\n"
    sock.sendall(head.encode() + body)
    return sock


@pytest.mark.parametrize(
    ("path", "content_type", "frame"),
    [
        ("/v1/tables:streamReplay", "application/json", False),
        ("/mazziere.v1.TableService/StreamReplay", "application/connect+proto", True),
        ("/mazziere.v1.TableService/StreamReplay", "application/grpc-web+proto", True),
    ],
    ids=["rest-ndjson", "connect", "grpc-web"],
)
def test_a_stalled_stream_reader_is_dropped_and_frees_its_place(
    stalling: tuple[Gateway, bytes], path: str, content_type: str, frame: bool
) -> None:
    gw, request = stalling
    message = svc.StreamReplayRequest.FromString(request)
    body = _envelope(request) if frame else json_format.MessageToJson(message).encode()
    taken = gw.app.dispatcher.admission.taken
    stalled = [_stall(gw.port, path, content_type, body) for _ in range(2)]  # every replay place
    try:
        wait_for(lambda: taken(CostClass.REPLAY) == 2)
        wait_for(lambda: taken(CostClass.REPLAY) == 0)  # each dropped a second after its writes stopped
        short = replay_request("sette_e_mezzo", 3, long_game("sette_e_mezzo", 3, 5)).SerializeToString()
        answer = gw.http.post(
            "/mazziere.v1.TableService/StreamReplay",
            content=_envelope(short),
            headers={"content-type": "application/connect+proto"},
        )
        assert answer.status_code == 200 and len(answer.content) > 100  # the places serve again
    finally:
        for sock in stalled:
            sock.close()
