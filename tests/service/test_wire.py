"""Bodies that are not protobuf: refused as INVALID_REQUEST by the handler's wrapper, logged, counted, and
leaving no memory behind (grpcio's own deserialization failure leaks on the thread-pool server)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import grpc
import pytest

from mazziere.services.gen.mazziere.v1 import service_pb2 as svc
from tests.ports import free_port
from tests.service.conftest import Running
from tests.service.helpers import error_info
from tests.service.test_process import ROOT, metric, server_env

Code = grpc.StatusCode
METHODS = [m.name for m in svc.DESCRIPTOR.services_by_name["TableService"].methods]
GARBAGE = [b"\xff\xff", b"\x0a\x05ab", b"\x08" + b"\xff" * 11, b"\x0b", b"\x80"]


def raw_call(channel: grpc.Channel, method: str) -> grpc.UnaryUnaryMultiCallable:  # type: ignore[type-arg]
    return channel.unary_unary(f"/mazziere.v1.TableService/{method}")


def raw_stream(channel: grpc.Channel, method: str) -> grpc.UnaryStreamMultiCallable:  # type: ignore[type-arg]
    return channel.unary_stream(f"/mazziere.v1.TableService/{method}")


def call_raw(channel: grpc.Channel, method: str, body: bytes, timeout: float = 10) -> list[bytes]:
    """Send ``body`` as it is; the answers' bytes (one for a unary method)."""
    if method == "StreamReplay":
        return list(raw_stream(channel, method)(body, timeout=timeout))
    return [raw_call(channel, method)(body, timeout=timeout)]


@pytest.mark.parametrize("method", METHODS)
def test_an_undecodable_body_is_a_typed_refusal(running: Running, method: str) -> None:
    for body in GARBAGE:
        with pytest.raises(grpc.RpcError) as caught:
            call_raw(running.channel, method, body)
        exc = caught.value
        assert exc.code() == Code.INVALID_ARGUMENT, exc.details()  # type: ignore[attr-defined]
        info = error_info(exc)
        assert info is not None and info.reason == "INVALID_REQUEST", exc
        assert method in exc.details()  # type: ignore[attr-defined]
    text = running.app.metrics.registry.get_sample_value(
        "mazziere_rejections_total", {"game": "unknown", "reason": "INVALID_REQUEST"}
    )
    assert text is not None and text >= len(GARBAGE)


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads RSS from /proc")
def test_garbage_bodies_leave_memory_flat(tmp_path: Path) -> None:
    port, metrics_port = free_port(), free_port()
    env = server_env(port, metrics_port)
    log = tmp_path / "server.log"
    with log.open("w") as err:
        proc = subprocess.Popen([sys.executable, "-m", "mazziere.services.cli", "serve"], env=env, cwd=ROOT, stderr=err)
    try:
        channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        grpc.channel_ready_future(channel).result(timeout=20)
        act = raw_call(channel, "Act")

        def burst(n: int) -> None:
            for start in range(0, n, 50):
                pending = [act.future(b"\xff\xff", timeout=20) for _ in range(min(50, n - start))]
                for future in pending:
                    assert future.code() == Code.INVALID_ARGUMENT  # type: ignore[attr-defined]

        burst(500)  # warm up: the allocator's pools, the metrics' children, grpc's buffers
        before = rss_mib(proc.pid)
        burst(5000)
        grown = rss_mib(proc.pid) - before
        # Before the wrapper parsed bodies itself, the thread-pool server grew about 95 MiB here.
        assert grown < 15, f"RSS grew {grown:.1f} MiB over 5,000 undecodable bodies"
        handled = 'grpc_server_handled_total{grpc_code="INVALID_ARGUMENT",grpc_method="Act"'
        assert metric(metrics_port, handled) == 5500
        assert metric(metrics_port, 'mazziere_rejections_total{game="unknown",reason="INVALID_REQUEST"}') == 5500
        channel.close()
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    lines = [line for line in log.read_text().splitlines() if '"event": "call"' in line]
    assert len(lines) == 5500 and all('"reason": "INVALID_REQUEST"' in line for line in lines[:10])
