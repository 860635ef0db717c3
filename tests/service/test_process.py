"""The real entry point: `mazziere serve` in a subprocess, health, metrics, and a graceful SIGTERM."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from mazziere.services.gen.mazziere.v1 import service_pb2 as svc
from mazziere.services.gen.mazziere.v1 import service_pb2_grpc
from mazziere.services.gen.mazziere.v1 import table_pb2 as pb
from tests.ports import free_port
from tests.service.conftest import KEYS

ROOT = Path(__file__).resolve().parents[2]


def server_env(port: int, metrics_port: int, **settings: str) -> dict[str, str]:
    """The environment of a gRPC-only server process on 127.0.0.1 with the test keys, and ``settings``
    (``MAZZIERE_`` + the upper-case name: ``drain_seconds="3"`` is ``MAZZIERE_DRAIN_SECONDS=3``)."""
    return {
        **os.environ,
        "MAZZIERE_HOST": "127.0.0.1",
        "MAZZIERE_PORT": str(port),
        "MAZZIERE_METRICS_PORT": str(metrics_port),
        "MAZZIERE_SEAL_KEYS": KEYS,
        "MAZZIERE_REST_PORT": "0",  # the REST gateway has tests of its own
        "MAZZIERE_DATA_DIR": tempfile.mkdtemp(prefix="mazziere-data-"),  # its own store: SQLite serves one host
        **{f"MAZZIERE_{name.upper()}": value for name, value in settings.items()},
    }


def metric(port: int, line_start: str) -> float:
    body = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5).read().decode()
    total = 0.0
    for line in body.splitlines():
        if line.startswith(line_start):
            total += float(line.rsplit(" ", 1)[1])
    return total


def listening_hosts(port: int) -> set[str]:
    """The local addresses (hex, as /proc/net/tcp* writes them) of the sockets listening on ``port``."""
    hosts = set()
    for name in ("tcp", "tcp6"):
        path = Path(f"/proc/net/{name}")
        if not path.exists():
            continue
        for line in path.read_text().splitlines()[1:]:
            fields = line.split()
            address, state = fields[1], fields[3]
            if state == "0A" and int(address.rsplit(":", 1)[1], 16) == port:
                hosts.add(address.rsplit(":", 1)[0])
    return hosts


def test_serve_health_metrics_and_graceful_sigterm() -> None:
    exe = shutil.which("mazziere", path=str(Path(sys.executable).parent)) or "mazziere"
    port, metrics_port = free_port(), free_port()
    env = server_env(port, metrics_port, drain_seconds="3")  # drain: room for the calls below
    proc = subprocess.Popen([exe, "serve"], env=env, cwd=ROOT, stderr=subprocess.PIPE, text=True)
    try:
        channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        grpc.channel_ready_future(channel).result(timeout=20)
        health = health_pb2_grpc.HealthStub(channel)
        stub = service_pb2_grpc.TableServiceStub(channel)
        serving = health_pb2.HealthCheckResponse.SERVING
        if Path("/proc/net/tcp").exists():  # the metrics port listens where MAZZIERE_HOST says, not on 0.0.0.0
            assert listening_hosts(metrics_port) == {"0100007F"}
        assert health.Check(health_pb2.HealthCheckRequest(service="")).status == serving
        assert health.Check(health_pb2.HealthCheckRequest(service="mazziere.v1.TableService")).status == serving

        handled = 'grpc_server_handled_total{grpc_code="OK",grpc_method="CreateTable"'
        before = metric(metrics_port, handled)
        seats = [pb.Seat(name=f"p{i}", chips=30) for i in range(3)]
        created = stub.CreateTable(
            svc.CreateTableRequest(game="trentuno", seats=seats), metadata=[("x-request-id", "r-1")]
        )
        assert metric(metrics_port, handled) == before + 1
        with pytest.raises(grpc.RpcError):
            stub.CreateTable(svc.CreateTableRequest(game="nope", seats=seats))
        # A caller's text never becomes a label: a game that is not ours is counted as "unknown".
        assert metric(metrics_port, 'mazziere_rejections_total{game="unknown",reason="UNKNOWN_GAME"}') == 1
        exposed = urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=5).read().decode()
        assert "nope" not in exposed
        # The process's own series are there; the *_created ones are not.
        assert "process_resident_memory_bytes " in exposed and "python_info{" in exposed
        assert "_created" not in exposed
        assert metric(metrics_port, "grpc_server_started_total") >= 2
        assert metric(metrics_port, "grpc_server_handling_seconds_count") >= 2

        # Calls made while the server drains after SIGTERM still complete.
        replay = svc.ReplayRequest(
            create=svc.CreateTableRequest(game="trentuno", seats=seats, seed=b"s"),
            table_id="t",
            actions=[],
        )
        results: list[object] = []
        worker = threading.Thread(target=lambda: results.append(stub.Replay(replay, timeout=10)))
        proc.send_signal(signal.SIGTERM)
        worker.start()
        deadline = time.monotonic() + 5
        status = serving
        while time.monotonic() < deadline and status == serving:
            status = health.Check(health_pb2.HealthCheckRequest(service="")).status
            time.sleep(0.05)
        assert status == health_pb2.HealthCheckResponse.NOT_SERVING
        # Still answering while draining: the host's calls finish.
        view = stub.GetView(svc.GetViewRequest(table_id=created.table_id, state=created.state))
        assert view.seq == 0
        worker.join(10)
        assert results and len(results[0].steps) == 1  # type: ignore[attr-defined]
        assert proc.wait(timeout=20) == 0
        channel.close()
    finally:
        if proc.poll() is None:
            proc.kill()
        _, err = proc.communicate(timeout=5)
    lines = [line for line in err.splitlines() if '"event": "call"' in line]
    assert any('"request_id": "r-1"' in line and '"game": "trentuno"' in line for line in lines), err[-2000:]
    assert "shutting_down" in err and "stopped" in err
