"""Bounded work under load: excess calls are shed at once, replays stay within their budget, and health and
short calls keep answering meanwhile. Every load here is small, on 127.0.0.1, and bounded in time."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator
from concurrent import futures
from dataclasses import replace
from typing import Any

import grpc
import pytest
from google.protobuf import empty_pb2
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_status import rpc_status

from mazziere import engine
from mazziere.services.app import App
from mazziere.services.config import Config
from mazziere.services.core.admission import CostClass
from mazziere.services.core.call import Call
from mazziere.services.core.dispatch import Method
from mazziere.services.gen.mazziere.v1 import service_pb2 as svc
from mazziere.services.gen.mazziere.v1 import service_pb2_grpc
from mazziere.services.gen.mazziere.v1 import table_pb2 as pb
from mazziere.services.grpc.server import ServerThread
from mazziere.services.table import service as servicer
from mazziere.services.table.sealing import Keyring
from mazziere.services.wire.codec import to_proto
from tests.service.conftest import BASE, KEYS
from tests.service.helpers import error_info

Code = grpc.StatusCode
PROMPT = 1.0
"""Seconds within which health checks and short calls must answer while the server is loaded (generous: a
shed call or a health check takes about a millisecond)."""


class Served:
    def __init__(self, config: Config, extra: list[Method] | None = None) -> None:
        self.app = App(config, extra_methods=extra or [], keyring=Keyring.parse(KEYS))
        self.server = ServerThread(self.app.grpc)
        self.port = self.server.start()
        self.channel = grpc.insecure_channel(f"127.0.0.1:{self.port}")
        self.stub = service_pb2_grpc.TableServiceStub(self.channel)
        self.health = health_pb2_grpc.HealthStub(self.channel)

    def close(self) -> None:
        self.channel.close()
        self.server.shutdown()

    def timed_health(self) -> float:
        start = time.monotonic()
        answer = self.health.Check(health_pb2.HealthCheckRequest(service=""), timeout=5)
        assert answer.status == health_pb2.HealthCheckResponse.SERVING
        return time.monotonic() - start

    def taken(self, cost: CostClass) -> int:
        return self.app.dispatcher.admission.taken(cost)

    def count(self, name: str, labels: dict[str, str]) -> float:
        return self.app.metrics.registry.get_sample_value(name, labels) or 0.0


def retry_delay(exc: grpc.RpcError) -> float | None:
    status = rpc_status.from_call(exc)  # type: ignore[arg-type]
    assert status is not None
    for detail in status.details:
        info = error_details_pb2.RetryInfo()
        if detail.Unpack(info):
            return float(info.retry_delay.ToNanoseconds() / 1e9)
    return None


# -- admission --------------------------------------------------------------------------------------


@pytest.fixture
def gated() -> Iterator[tuple[Served, threading.Event]]:
    """A server with 2 game workers taking 3 calls at a time, and a method that waits for a gate."""
    gate = threading.Event()

    def hold(request: empty_pb2.Empty, call: Call) -> empty_pb2.Empty:
        gate.wait(20)
        return empty_pb2.Empty()

    config = replace(BASE, workers=2, max_concurrent_calls=3, refusal_hold_seconds=0.0)  # shed at once, each time
    served = Served(config, [Method("test.v1.Hold", "Hold", hold, empty_pb2.Empty)])
    yield served, gate
    gate.set()
    served.close()


def test_excess_calls_are_shed_at_once_and_health_still_answers(gated: tuple[Served, threading.Event]) -> None:
    served, gate = gated
    hold = served.channel.unary_unary("/test.v1.Hold/Hold")
    held = [hold.future(b"", timeout=30) for _ in range(3)]  # two running, one waiting for a worker
    deadline = time.monotonic() + 10
    while served.taken(CostClass.MOVE) < 3:
        assert time.monotonic() < deadline, "the held calls did not arrive"
        time.sleep(0.01)
    for call in (lambda: hold(b"", timeout=10), lambda: served.stub.ListGames(svc.ListGamesRequest(), timeout=10)):
        for _ in range(5):
            start = time.monotonic()
            with pytest.raises(grpc.RpcError) as caught:
                call()
            assert time.monotonic() - start < PROMPT
            exc = caught.value
            assert exc.code() == Code.RESOURCE_EXHAUSTED, exc.details()  # type: ignore[attr-defined]
            info = error_info(exc)
            assert info is not None and info.reason == "OVERLOADED"
            assert retry_delay(exc) == 1.0
    for _ in range(5):
        assert served.timed_health() < PROMPT  # health never waits behind game calls
    gate.set()
    for future in held:
        assert future.result() == b""
    assert served.stub.ListGames(svc.ListGamesRequest(), timeout=10).games
    labels = {"grpc_type": "unary", "grpc_service": "mazziere.v1.TableService", "grpc_method": "ListGames"}
    assert served.count("grpc_server_handled_total", {**labels, "grpc_code": "RESOURCE_EXHAUSTED"}) == 5
    assert served.count("mazziere_rejections_total", {"game": "unknown", "reason": "OVERLOADED"}) == 10


# -- replays ----------------------------------------------------------------------------------------


def long_game(game: str, seats: int, count: int) -> list[pb.Action]:
    """Up to ``count`` random legal actions of a table created with seed b"long" (played by the engine)."""
    out = engine.new_table(game, [engine.Seat(f"p{i}", 1000) for i in range(seats)], seed=b"long", table_id="t_r")
    rng = random.Random(7)
    actions = []
    while len(actions) < count and not engine.is_over(out.state):
        seat = rng.choice(engine.to_act(out.state))
        action = rng.choice(engine.legal_actions(out.state, seat)).example(seat)
        out = engine.apply(out.state, action)
        actions.append(to_proto(action, pb.Action))
    return actions


def replay_request(game: str, seats: int, actions: list[pb.Action]) -> svc.ReplayRequest:
    create = svc.CreateTableRequest(
        game=game, seats=[pb.Seat(name=f"p{i}", chips=1000) for i in range(seats)], seed=b"long"
    )
    return svc.ReplayRequest(create=create, table_id="t_r", actions=actions)


@pytest.fixture(scope="module")
def big() -> svc.ReplayRequest:
    """Saltacavallo with 20 seats and over 500 actions: about 10 s of CPU and 6 MB of answer, unbounded."""
    actions = long_game("saltacavallo", 20, 600)
    assert len(actions) > 500
    return replay_request("saltacavallo", 20, actions)


def test_a_replay_over_the_view_budget_is_refused_before_any_work(big: svc.ReplayRequest) -> None:
    served = Served(BASE)  # the default budget: 8,000 views
    try:
        for call in (served.stub.Replay, lambda r, **kw: list(served.stub.StreamReplay(r, **kw))):
            start = time.monotonic()
            with pytest.raises(grpc.RpcError) as caught:
                call(big, timeout=30)
            assert time.monotonic() - start < 5
            exc = caught.value
            assert exc.code() == Code.RESOURCE_EXHAUSTED
            info = error_info(exc)
            assert info is not None and info.reason == "REPLAY_BUDGET_EXCEEDED"
            assert int(info.metadata["views"]) == (len(big.actions) + 1) * 21
            assert info.metadata["budget"] == "8000"
    finally:
        served.close()


@pytest.mark.usefixtures("slow_steps")
def test_a_long_replay_is_cut_at_its_time_budget_while_short_calls_answer(big: svc.ReplayRequest) -> None:
    config = replace(BASE, replay_max_views=1_000_000, replay_seconds=1.0, max_message_bytes=64 << 20)
    served = Served(config)
    try:
        results: dict[str, object] = {}

        def replay(name: str, call: object) -> None:
            try:
                results[name] = call()  # type: ignore[operator]
            except grpc.RpcError as exc:
                results[name] = exc

        runners = [
            threading.Thread(target=replay, args=("unary", lambda: served.stub.Replay(big, timeout=60))),
            threading.Thread(target=replay, args=("stream", lambda: list(served.stub.StreamReplay(big, timeout=60)))),
        ]
        started = time.monotonic()
        for runner in runners:
            runner.start()
        slowest = 0.0
        while any(r.is_alive() for r in runners) and time.monotonic() - started < 30:
            start = time.monotonic()
            assert served.stub.ListGames(svc.ListGamesRequest(), timeout=10).games
            slowest = max(slowest, time.monotonic() - start, served.timed_health())
            time.sleep(0.05)
        for runner in runners:
            runner.join(30)
        assert slowest < PROMPT
        for name in ("unary", "stream"):
            exc = results[name]
            assert isinstance(exc, grpc.RpcError), name
            assert exc.code() == Code.RESOURCE_EXHAUSTED, exc.details()  # type: ignore[attr-defined]
            info = error_info(exc)
            assert info is not None and info.reason == "REPLAY_BUDGET_EXCEEDED", name
        assert time.monotonic() - started < 20  # cut near 1 s each (one waits for the single replay worker)
    finally:
        served.close()


@pytest.fixture
def slow_steps(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every replay step takes at least 5 ms, so a long replay outlasts the limits under test on any machine."""
    real = servicer._replay_step

    def slow(*args: Any, **kwargs: Any) -> Any:
        time.sleep(0.005)
        return real(*args, **kwargs)

    monkeypatch.setattr(servicer, "_replay_step", slow)


@pytest.mark.usefixtures("slow_steps")
def test_concurrent_replays_beyond_the_replay_workers_are_shed(big: svc.ReplayRequest) -> None:
    config = replace(BASE, replay_max_views=1_000_000, replay_seconds=2.0, max_message_bytes=64 << 20)
    served = Served(config)  # one replay worker, one replay waiting
    try:
        with futures.ThreadPoolExecutor(6) as pool:
            calls = [pool.submit(served.stub.Replay, big, timeout=60) for _ in range(6)]
            time.sleep(0.2)
            slowest = max(served.timed_health() for _ in range(3))
            view = served.stub.ListGames(svc.ListGamesRequest(), timeout=10)
            codes = []
            for call in calls:
                try:
                    call.result()
                    codes.append("OK")
                except grpc.RpcError as exc:
                    info = error_info(exc)
                    codes.append(info.reason if info else exc.code().name)  # type: ignore[attr-defined]
        assert view.games and slowest < PROMPT
        assert codes.count("OVERLOADED") >= 4, codes
        assert set(codes) <= {"OVERLOADED", "REPLAY_BUDGET_EXCEEDED"}, codes
    finally:
        served.close()


def test_a_replay_within_budget_streams_the_same_steps() -> None:
    served = Served(BASE)
    try:
        request = replay_request("sette_e_mezzo", 4, long_game("sette_e_mezzo", 4, 60))
        unary = served.stub.Replay(request, timeout=30)
        stream = list(served.stub.StreamReplay(svc.StreamReplayRequest.FromString(request.SerializeToString())))
        assert len(stream) == len(request.actions) + 1
        assert [m.step for m in stream] == list(unary.steps)
    finally:
        served.close()


def test_an_answer_over_the_message_limit_is_typed_and_counted(big: svc.ReplayRequest) -> None:
    config = replace(BASE, replay_max_views=1_000_000, replay_seconds=60.0, max_message_bytes=64 * 1024)
    served = Served(config)
    try:
        request = replay_request("saltacavallo", 20, list(big.actions[:40]))
        with pytest.raises(grpc.RpcError) as caught:
            served.stub.Replay(request, timeout=30)
        info = error_info(caught.value)
        assert caught.value.code() == Code.RESOURCE_EXHAUSTED  # type: ignore[attr-defined]
        assert info is not None and info.reason == "RESPONSE_TOO_LARGE"
        labels = {"grpc_type": "unary", "grpc_service": "mazziere.v1.TableService", "grpc_method": "Replay"}
        assert served.count("grpc_server_handled_total", {**labels, "grpc_code": "OK"}) == 0
        assert served.count("grpc_server_handled_total", {**labels, "grpc_code": "RESOURCE_EXHAUSTED"}) == 1
        assert (
            len(list(served.stub.StreamReplay(svc.StreamReplayRequest.FromString(request.SerializeToString())))) == 41
        )
    finally:
        served.close()


@pytest.mark.usefixtures("slow_steps")
def test_a_stream_whose_caller_stops_reading_gives_its_worker_back(big: svc.ReplayRequest) -> None:
    config = replace(BASE, replay_max_views=1_000_000, replay_seconds=1.0, max_message_bytes=64 << 20)
    served = Served(config)
    try:
        # No window growth on this channel: the server soon has more than a 64 KiB window it cannot send.
        channel = grpc.insecure_channel(f"127.0.0.1:{served.port}", options=[("grpc.http2.bdp_probe", 0)])
        stub = service_pb2_grpc.TableServiceStub(channel)
        stream = stub.StreamReplay(svc.StreamReplayRequest.FromString(big.SerializeToString()), timeout=60)
        next(stream)  # one step read, then nothing
        deadline = time.monotonic() + 20
        while served.taken(CostClass.REPLAY) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert served.taken(CostClass.REPLAY) == 0
        assert served.stub.ListGames(svc.ListGamesRequest(), timeout=10).games
        stream.cancel()
        channel.close()
    finally:
        served.close()


def test_only_answered_tokens_are_remembered() -> None:
    """A table whose answer is refused (over the message limit) leaves nothing in the memo of recent tokens."""
    seats = [pb.Seat(name=f"p{i}", chips=100) for i in range(8)]
    request = svc.CreateTableRequest(game="sette_e_mezzo", seats=seats)
    small = Served(replace(BASE, max_message_bytes=1024))
    try:
        with pytest.raises(grpc.RpcError) as caught:
            small.stub.CreateTable(request, timeout=10)
        info = error_info(caught.value)
        assert info is not None and info.reason == "RESPONSE_TOO_LARGE"
        assert len(small.app.table.recent) == 0
    finally:
        small.close()
    served = Served(BASE)
    try:
        answer = served.stub.CreateTable(request, timeout=10)
        assert served.app.table.recent.get(answer.state) is not None
    finally:
        served.close()
