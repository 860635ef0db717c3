"""How calls end when the server gives up on them: a caller cut off is recorded as CANCELLED (never OK), and
calls still waiting when a shutdown's grace runs out are refused as UNAVAILABLE, which clients retry."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from concurrent import futures
from dataclasses import replace

import grpc
import pytest
from google.protobuf import empty_pb2

from mazziere.services.app import App
from mazziere.services.config import Config
from mazziere.services.core.admission import CostClass
from mazziere.services.core.call import Call
from mazziere.services.core.dispatch import Method
from mazziere.services.gen.mazziere.v1 import service_pb2 as svc
from mazziere.services.gen.mazziere.v1 import service_pb2_grpc
from mazziere.services.table.sealing import Keyring
from tests.service.conftest import BASE, KEYS
from tests.service.helpers import error_info
from tests.service.test_load import Served, long_game, replay_request, slow_steps  # noqa: F401 (a fixture)

Code = grpc.StatusCode
REPLAY = {"grpc_type": "unary", "grpc_service": "mazziere.v1.TableService", "grpc_method": "Replay"}


def wait_for(check: Callable[[], bool], seconds: float = 20.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def big_replay() -> svc.ReplayRequest:
    return replay_request("saltacavallo", 20, long_game("saltacavallo", 20, 600))


def reason_of(future: futures.Future[object]) -> str:
    try:
        future.result()
    except grpc.RpcError as exc:
        info = error_info(exc)
        return f"{exc.code().name}/{info.reason if info else ''}"  # type: ignore[attr-defined]
    return "OK"


@pytest.mark.usefixtures("slow_steps")
def test_a_replay_cut_by_connection_age_is_recorded_as_cancelled() -> None:
    config = replace(
        BASE,
        replay_max_views=1_000_000,
        replay_seconds=60.0,
        max_message_bytes=64 << 20,
        max_connection_age_ms=300,
        max_connection_age_grace_ms=300,
    )
    served = Served(config)
    try:
        start = time.monotonic()
        try:
            served.stub.Replay(big_replay(), timeout=60)
            outcome = "OK"
        except grpc.RpcError as exc:
            outcome = exc.code().name  # type: ignore[attr-defined]
        assert outcome in ("UNAVAILABLE", "CANCELLED", "INTERNAL"), outcome  # the connection went away mid-call
        wait_for(lambda: served.count("grpc_server_handled_total", {**REPLAY, "grpc_code": "CANCELLED"}) == 1)
        assert served.count("grpc_server_handled_total", {**REPLAY, "grpc_code": "OK"}) == 0
        assert time.monotonic() - start < 30  # the replay stopped soon after its caller was gone
    finally:
        served.close()


class Stoppable:
    """A server on its own loop in a thread, stopped as by SIGTERM."""

    def __init__(self, config: Config, extra: list[Method] | None = None) -> None:
        self.app = App(config, extra_methods=extra or [], keyring=Keyring.parse(KEYS))
        self.server = self.app.grpc
        self.loop = asyncio.new_event_loop()
        self.stop: asyncio.Event | None = None

        async def main() -> None:
            self.stop = asyncio.Event()
            await self.server.run(self.stop)

        self.thread = threading.Thread(target=lambda: self.loop.run_until_complete(main()), daemon=True)
        self.thread.start()
        wait_for(lambda: bool(self.server.port) and hasattr(self.server, "health"))
        self.channel = grpc.insecure_channel(f"127.0.0.1:{self.server.port}")
        grpc.channel_ready_future(self.channel).result(timeout=20)
        self.stub = service_pb2_grpc.TableServiceStub(self.channel)

    def shutdown(self) -> None:
        assert self.stop is not None
        self.loop.call_soon_threadsafe(self.stop.set)

    def close(self) -> None:
        self.shutdown()
        self.thread.join(30)
        self.channel.close()


@pytest.mark.usefixtures("slow_steps")
def test_replays_still_waiting_when_the_grace_runs_out_are_unavailable() -> None:
    config = replace(
        BASE, replay_max_views=1_000_000, replay_seconds=60.0, max_message_bytes=64 << 20, grace_seconds=2.0
    )
    server = Stoppable(config)
    try:
        request = big_replay()
        with futures.ThreadPoolExecutor(2) as pool:
            running = pool.submit(server.stub.Replay, request, timeout=60)
            wait_for(lambda: server.app.dispatcher.admission.taken(CostClass.REPLAY) == 1)
            waiting = pool.submit(server.stub.Replay, request, timeout=60)
            wait_for(lambda: server.app.dispatcher.admission.taken(CostClass.REPLAY) == 2)
            server.shutdown()
            outcomes = [reason_of(running), reason_of(waiting)]
        assert outcomes == ["UNAVAILABLE/SHUTTING_DOWN"] * 2, outcomes
        server.thread.join(30)
        wait_for(lambda: server.app.metrics.registry.get_sample_value(
            "grpc_server_handled_total", {**REPLAY, "grpc_code": "UNAVAILABLE"}) == 2)  # fmt: skip
    finally:
        server.close()


def test_calls_still_queued_when_the_grace_runs_out_are_unavailable() -> None:
    gate = threading.Event()

    def hold(request: empty_pb2.Empty, call: Call) -> empty_pb2.Empty:
        gate.wait(4)
        return empty_pb2.Empty()

    config = replace(BASE, workers=1, grace_seconds=2.0)
    server = Stoppable(config, [Method("test.v1.Hold", "Hold", hold, empty_pb2.Empty)])
    taken = server.app.dispatcher.admission.taken
    try:
        call = server.channel.unary_unary("/test.v1.Hold/Hold")
        held = call.future(b"", timeout=30)
        wait_for(lambda: taken(CostClass.MOVE) == 1)
        queued = [server.stub.ListGames.future(svc.ListGamesRequest(), timeout=30) for _ in range(3)]
        wait_for(lambda: taken(CostClass.MOVE) == 4)
        server.shutdown()
        outcomes = [reason_of(f) for f in queued]  # type: ignore[arg-type]
        assert outcomes == ["UNAVAILABLE/SHUTTING_DOWN"] * 3, outcomes
        gate.set()
        server.thread.join(30)
        assert reason_of(held) in ("OK", "UNAVAILABLE/SHUTTING_DOWN")  # type: ignore[arg-type]
    finally:
        gate.set()
        server.close()
