"""Connections: the REST port caps its connections below the open-files limit (raised at start), answers probes
past the cap and refuses the rest with a typed 503, counted and logged; and a Watch whose reader takes nothing is
ended within the write limit, though its table is idle."""

from __future__ import annotations

import asyncio
import contextlib
import json
import resource
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from mazziere.services.config import Config
from mazziere.services.core.admission import CostClass
from mazziere.services.gen.mazziere.v1 import host_pb2 as hpb
from mazziere.services.http.connections import PROBE_ROOM, connection_cap
from mazziere.services.http.server import RestServer, bind
from tests.host.test_host import ROOMY, Hosted, cap, host_config, open_trentuno, play_first, start_host
from tests.ports import free_port
from tests.service.test_process import ROOT, metric, server_env
from tests.service.test_shutdown import wait_for

CAPABILITY = "x-table-capability"
OPEN_FILES = 200
"""The hard open-files limit the server process is started under (its soft one lower: the server raises it)."""
RESERVED = 64
CAP = OPEN_FILES - RESERVED
WATCHERS = CAP + 14
"""More Watch streams than the cap lets in."""


def _envelope(message: dict[str, object]) -> bytes:
    body = json.dumps(message).encode()
    return b"\x00" + len(body).to_bytes(4, "big") + body


def watch_request(table_id: str, capability: str, after_seq: int = 0) -> bytes:
    """A Watch over Connect (JSON), as the web table opens it, on a connection of its own."""
    body = _envelope({"tableId": table_id, "afterSeq": str(after_seq)})
    head = (
        f"POST /mazziere.v1.HostService/Watch HTTP/1.1\r\nhost: x\r\ncontent-type: application/connect+json\r\n"
        f"{CAPABILITY}: {capability}\r\ncontent-length: {len(body)}\r\n\r\n"
    )
    return head.encode() + body


def read_until(sock: socket.socket, *markers: bytes, seconds: float = 20.0) -> bytes:
    """What ``sock`` gives until one of ``markers`` shows, or it closes."""
    sock.settimeout(seconds)
    data = b""
    while not any(m in data for m in markers):
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    return data


@dataclass
class Capped:
    """``mazziere serve`` under a hard open-files limit of :data:`OPEN_FILES`: its REST and metrics ports, and
    its log lines so far."""

    rest: int
    metrics: int
    server: subprocess.Popen[str]
    logged: list[str]

    def stop(self) -> list[dict[str, Any]]:
        """Stop it (SIGTERM); its log lines."""
        self.server.send_signal(signal.SIGTERM)
        self.server.wait(30)
        return [json.loads(line) for line in self.logged if line.startswith("{")]


@pytest.fixture
def capped(tmp_path: Path) -> Iterator[Capped]:
    rest, metrics = free_port(), free_port()
    env = server_env(free_port(), metrics, rest_port=str(rest), rest_host="127.0.0.1", reserved_files=str(RESERVED))
    env["MAZZIERE_DATA_DIR"] = str(tmp_path)
    # every watcher here is one caller (127.0.0.1): room for all of them, so the cap is what refuses
    env |= {f"MAZZIERE_{name.upper()}": str(value) for name, value in ROOMY.items()}
    env["MAZZIERE_CALLER_WATCHERS"] = env["MAZZIERE_TABLE_SPECTATORS"] = str(10 * WATCHERS)

    def limited() -> None:  # the soft limit lower still: the server raises it
        resource.setrlimit(resource.RLIMIT_NOFILE, (OPEN_FILES - 50, OPEN_FILES))

    command = [sys.executable, "-m", "mazziere.services.cli", "serve"]
    server = subprocess.Popen(
        command, env=env, cwd=ROOT, preexec_fn=limited, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True
    )
    logged: list[str] = []
    assert server.stderr is not None
    drain = threading.Thread(target=lambda: logged.extend(iter(server.stderr.readline, "")), daemon=True)
    drain.start()  # read as it comes: a full pipe would stop the server
    try:
        wait_for(lambda: _answers(f"http://127.0.0.1:{rest}/healthz"), seconds=60)
        yield Capped(rest, metrics, server, logged)
    finally:
        server.send_signal(signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            server.wait(20)
        server.kill()
        drain.join(5)


def _answers(url: str) -> bool:
    try:
        return httpx.get(url, timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def _post(url: str, message: dict[str, object]) -> httpx.Response:
    return httpx.post(url, json=message, headers={"connection": "close"}, timeout=20)


def test_past_the_connection_cap_probes_answer_and_the_rest_is_refused_typed_counted_and_logged(
    capped: Capped,
) -> None:
    rest, metrics = capped.rest, capped.metrics
    base = f"http://127.0.0.1:{rest}"
    seats = [{"name": name, "chips": "10"} for name in ("Ada", "Bruno", "Carla")]
    opened = _post(f"{base}/mazziere.v1.HostService/OpenTable", {"game": "trentuno", "seats": seats}).json()
    spectators = opened["spectators"]["capability"]
    watchers: list[socket.socket] = []
    served = refused = 0
    try:
        for _ in range(WATCHERS):
            sock = socket.create_connection(("127.0.0.1", rest))
            watchers.append(sock)
            sock.sendall(watch_request(opened["tableId"], spectators))
            seen = read_until(sock, b'"snapshot":true', b"TOO_MANY_CONNECTIONS")
            served += b'"snapshot":true' in seen
            refused += b"TOO_MANY_CONNECTIONS" in seen and b'"code":"unavailable"' in seen  # Connect's end of stream
        assert served + refused == WATCHERS and CAP - 5 <= served <= CAP and refused >= WATCHERS - CAP

        assert httpx.get(f"{base}/healthz", timeout=10).status_code == 200  # the probes' room
        assert httpx.get(f"{base}/readyz", timeout=10).status_code == 200
        games = httpx.get(f"{base}/v1/games", timeout=10)
        assert games.status_code == 503 and games.headers["retry-after"] == "1"
        assert games.json()["error"]["details"][0]["reason"] == "TOO_MANY_CONNECTIONS"
        assert games.headers["x-content-type-options"] == "nosniff"  # an answer of the gateway's, with its headers
        again = _post(f"{base}/mazziere.v1.HostService/OpenTable", {"game": "trentuno", "seats": seats})
        assert again.status_code == 503 and again.json()["code"] == "unavailable"  # Connect's error, typed
        assert again.json()["details"][0]["debug"]["reason"] == "TOO_MANY_CONNECTIONS"

        idle = [socket.create_connection(("127.0.0.1", rest)) for _ in range(PROBE_ROOM + 4)]  # past the room too
        watchers += idle
        closed = [read_until(sock, b"\r\n\r\n{", seconds=5) for sock in idle[-3:]]
        assert all(answer.startswith(b"HTTP/1.1 503") and b"TOO_MANY_CONNECTIONS" in answer for answer in closed)
        assert metric(metrics, 'mazziere_http_connections_refused_total{how="answered"}') >= refused + 2
        assert metric(metrics, 'mazziere_http_connections_refused_total{how="closed"}') >= 3
        assert metric(metrics, "mazziere_http_connections_limit") == CAP
    finally:
        for sock in watchers:
            sock.close()
    wait_for(
        lambda: _post(f"{base}/mazziere.v1.HostService/OpenTable", {"game": "trentuno", "seats": seats}).is_success
    )
    lines = capped.stop()
    started = next(line for line in lines if line["event"] == "open_files")
    assert (started["limit"], started["raised_from"], started["http_connections"]) == (OPEN_FILES, 150, CAP)
    events = [line["event"] for line in lines]
    assert events.count("http_connections_full") == 1 and "http_connections_below_cap" in events
    assert not [line for line in capped.logged if "Traceback" in line]
    assert not [line for line in lines if line["level"] in ("error", "critical")]


def test_the_cap_is_the_open_files_limit_less_the_reserve_or_what_is_set_if_it_fits() -> None:
    assert connection_cap(Config(), 1024) == 1024 - 128
    assert connection_cap(Config(http_connections=500), 1024) == 500
    with pytest.raises(ValueError, match="does not fit"):
        connection_cap(Config(http_connections=1000), 1024)
    with pytest.raises(ValueError, match="leaves no HTTP connection"):
        connection_cap(Config(), 128)


# -- a reader that takes nothing ------------------------------------------------------------------------


@pytest.fixture
def stalling(tmp_path: Path) -> Iterator[tuple[Hosted, int]]:
    """A host whose streams' readers have half a second to take each answer, with a heartbeat every 50 ms, and its
    REST port."""
    hosted = start_host(host_config(tmp_path, stream_write_seconds=0.5, heartbeat_seconds=0.05))
    sock = bind("127.0.0.1", 0)
    rest = RestServer(hosted.app.rest(), sock)
    thread = threading.Thread(target=lambda: asyncio.run(rest.run_on_socket()), daemon=True)
    thread.start()
    wait_for(lambda: bool(rest.started))
    yield hosted, sock.getsockname()[1]
    rest.should_exit = True
    thread.join(5)
    hosted.close()


def test_a_watch_whose_reader_takes_nothing_is_ended_though_its_table_is_idle(stalling: tuple[Hosted, int]) -> None:
    """The stalled reader asks for the table's whole record (about 90 KB) and reads nothing; the table then stays
    idle, with only heartbeats written. Its answers stop leaving the process within the write limit, and the stream
    ends, freeing its place; a reader that reads keeps its stream. (The system used to take megabytes of a stalled
    reader's answers, every write succeeded, and a heartbeat never filled that: the place was held for days.)"""
    hosted, port = stalling
    opened = open_trentuno(hosted.stub)
    for _ in range(80):
        play_first(hosted.stub, opened)
    taken = hosted.app.dispatcher.admission.taken
    stalled = socket.socket()
    stalled.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    stalled.connect(("127.0.0.1", port))
    stalled.sendall(watch_request(opened.table_id, opened.spectators.capability, after_seq=-1))
    reader = hosted.stub.Watch(hpb.WatchRequest(table_id=opened.table_id), metadata=cap(invites_of(opened)[0]))
    try:
        assert next(reader).update.snapshot
        wait_for(lambda: taken(CostClass.WATCH) == 2)
        wait_for(lambda: taken(CostClass.WATCH) == 1)  # the stalled one ended; the reading one goes on
        assert next(m for m in reader if m.heartbeat).heartbeat
    finally:
        reader.cancel()
        stalled.close()


def invites_of(opened: hpb.OpenTableResponse) -> dict[int, str]:
    return {i.seat: i.capability for i in opened.invites}


def test_a_grpc_watch_whose_reader_takes_nothing_ends_within_its_connections_age(tmp_path: Path) -> None:
    """grpc.aio completes a write once gRPC holds it (the client's HTTP/2 window, which it grows to megabytes), so
    over gRPC the write limit finds only a reader whose window is full. What bounds any gRPC stream is its
    connection's age: a Watch ends by itself within one and a half ``MAZZIERE_MAX_CONNECTION_AGE_MS`` (its
    lifetime), and past the age and its grace the server closes the connection."""
    config = host_config(tmp_path, heartbeat_seconds=0.05, max_connection_age_ms=1_000, max_connection_age_grace_ms=500)
    hosted = start_host(config)
    try:
        opened = open_trentuno(hosted.stub)
        taken = hosted.app.dispatcher.admission.taken
        watch = hosted.stub.Watch(
            hpb.WatchRequest(table_id=opened.table_id), metadata=cap(opened.spectators.capability)
        )
        wait_for(lambda: taken(CostClass.WATCH) == 1)
        wait_for(lambda: taken(CostClass.WATCH) == 0)
        watch.cancel()
    finally:
        hosted.close()
