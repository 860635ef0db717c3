"""A shutdown that players do not stare at: every open Watch ends at once with a typed end its client acts on
(UNAVAILABLE, ErrorInfo SHUTTING_DOWN), whatever the transport; no new Watch is taken; and the server stops as soon
as its calls in flight are over, not after the grace."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest
from structlog.testing import capture_logs

from mazziere.services.gen.mazziere.v1 import host_pb2 as hpb
from mazziere.services.host import host
from mazziere.services.http.server import RestServer, bind
from tests.host.test_host import cap, host_config, invites, open_trentuno, start_host, table_of
from tests.service.helpers import error_info
from tests.service.test_shutdown import wait_for

CAPABILITY = "x-table-capability"
GRACE = 10.0
"""Far longer than a drain may take: a stop that waits for it fails the test."""


def _logged(work: Callable[[], None], into: list[dict[str, Any]]) -> None:
    with capture_logs() as logs:
        work()
    into += logs


def test_a_shutdown_ends_every_watch_at_once_with_shutting_down(tmp_path: Path) -> None:
    logs: list[dict[str, Any]] = []
    hosted = start_host(host_config(tmp_path, grace_seconds=GRACE, heartbeat_seconds=60))
    opened = open_trentuno(hosted.stub)
    grpc_watch = hosted.stub.Watch(
        hpb.WatchRequest(table_id=opened.table_id), metadata=cap(opened.spectators.capability)
    )
    next(grpc_watch)  # the table as it is
    fastapi = hosted.app.rest()
    sock = bind("127.0.0.1", 0)
    rest = RestServer(fastapi, sock, grace_seconds=GRACE)
    thread = threading.Thread(target=lambda: asyncio.run(rest.run_on_socket()), daemon=True)
    thread.start()
    while not rest.started:
        time.sleep(0.01)
    url = f"http://127.0.0.1:{sock.getsockname()[1]}/mazziere.v1.HostService/Watch"
    body = json.dumps({"tableId": opened.table_id}).encode()
    headers = {"content-type": "application/connect+json", CAPABILITY: opened.spectators.capability}
    with (
        httpx.Client(timeout=30) as http,
        http.stream("POST", url, content=len(body).to_bytes(5, "big") + body, headers=headers) as connect,
    ):
        frames = connect.iter_bytes()
        assert next(frames)  # the first envelope: the table as it is
        started = time.monotonic()
        down = threading.Thread(target=lambda: _logged(hosted.server.shutdown, logs))
        down.start()
        try:
            next(grpc_watch)
            raise AssertionError("the Watch went on after the shutdown began")
        except grpc.RpcError as exc:
            assert exc.code() == grpc.StatusCode.UNAVAILABLE
            assert error_info(exc).reason == "SHUTTING_DOWN"
        ended = time.monotonic() - started
        rest_of_stream = b"".join(frames)
    end = json.loads(rest_of_stream[5:])  # Connect's end-stream message
    assert end["error"]["code"] == "unavailable"
    assert any(d.get("debug", {}).get("reason") == "SHUTTING_DOWN" for d in end["error"]["details"])
    down.join(GRACE)
    stopped = time.monotonic() - started
    rest.should_exit = True
    thread.join(5)
    assert ended < 1.0, f"the Watch ended {ended:.2f} s after the shutdown began"
    assert not [e for e in logs if e["log_level"] in ("error", "critical")], logs
    assert stopped < GRACE / 2, f"the server took {stopped:.2f} s to stop, with nothing in flight"


def test_a_turn_falling_due_after_the_server_stopped_is_refused_without_an_error(tmp_path: Path) -> None:
    """Between the gRPC server's stop (its workers gone) and the host's, a due turn meets SHUTTING_DOWN, as a late
    call does, rather than a traceback in the log."""
    hosted = start_host(host_config(tmp_path, grace_seconds=GRACE))
    open_trentuno(hosted.stub, turn=1)
    lateness = "mazziere_host_timer_lateness_seconds_count"
    with capture_logs() as logs:
        hosted.server.run(hosted.app.grpc.stop())
        wait_for(lambda: (hosted.app.metrics.registry.get_sample_value(lateness) or 0) >= 1)  # the turn is tried
        hosted.server.run(asyncio.sleep(0))  # what that try logs, it has logged
        hosted.server.run(hosted.host.stop())
    hosted.channel.close()
    hosted.server.shutdown()
    assert not [e for e in logs if e["log_level"] in ("error", "critical")], logs


class HeldActs:
    """The host's table service, its moves held until ``release`` is set (``entered``: one is held)."""

    def __init__(self, tables: Any, release: asyncio.Event) -> None:
        self.tables = tables
        self.release = release
        self.entered = threading.Event()

    async def act(self, request: Any, call: Any) -> Any:
        self.entered.set()
        await self.release.wait()
        return await self.tables.act(request, call)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.tables, name)


def test_a_due_turn_under_way_when_the_host_drains_is_played(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A turn the timer claimed, still being played when the shutdown begins, is played through the drain rather
    than cut and left to its lease (made endless here, so only the drain can have played it)."""
    monkeypatch.setattr(host, "LEASE_MS", 3_600_000)
    hosted = start_host(host_config(tmp_path, grace_seconds=GRACE))
    release: asyncio.Event = hosted.server.run(_event())
    held = HeldActs(hosted.host.tables, release)
    hosted.host.tables = held
    opened = open_trentuno(hosted.stub, turn=1)
    first = table_of(hosted.stub, opened, invites(opened)[0]).update.seq
    assert held.entered.wait(20)  # the timer is playing the turn

    async def drain_while_held() -> None:
        draining = asyncio.create_task(hosted.host.drain(GRACE))
        await asyncio.sleep(0.2)  # the drain has begun, the turn still under way
        release.set()
        await draining

    hosted.server.run(drain_while_held())
    assert table_of(hosted.stub, opened, invites(opened)[0]).update.seq == first + 1
    hosted.close()


async def _event() -> asyncio.Event:
    return asyncio.Event()
