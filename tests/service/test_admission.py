"""Admission by cost and by caller: each cost class has its own places, each tenant its share of them, each table a
few; API keys name tenants; expensive work stops when its caller leaves or its deadline passes."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any, TypeVar

import grpc
import pytest
from google.protobuf import empty_pb2

from mazziere.engine import bots
from mazziere.services.core.admission import ANONYMOUS, Admission, CostClass, Tenant, Tenants
from mazziere.services.core.call import Call
from mazziere.services.core.dispatch import Method, always
from mazziere.services.errors import ServiceError
from mazziere.services.gen.mazziere.v1 import service_pb2 as svc
from mazziere.services.gen.mazziere.v1 import table_pb2 as pb
from tests.service.conftest import BASE
from tests.service.helpers import error_info
from tests.service.test_load import Served
from tests.service.test_shutdown import wait_for

Code = grpc.StatusCode
VICTIM, HOSTILE = "victim-key-0123456789", "hostile-key-0123456789"
TENANTS = json.dumps(
    {"tenants": [{"name": "victim", "keys": [VICTIM]}, {"name": "hostile", "keys": [HOSTILE], "tables_per_minute": 3}]}
)
PLACES = {CostClass.MOVE: 4, CostClass.BOT: 2, CostClass.ADVICE: 2, CostClass.REPLAY: 2}


T = TypeVar("T")


def reason(exc: grpc.RpcError) -> str:
    info = error_info(exc)
    return f"{exc.code().name}/{info.reason if info else ''}"  # type: ignore[attr-defined]


def refused(work: object) -> str:
    with pytest.raises(ServiceError) as caught:
        work()  # type: ignore[operator]
    return caught.value.reason


def in_time(send: Callable[[], T], settled: Callable[[], bool], tries: int = 3) -> T:
    """The answer of ``send``, sent again (at most ``tries`` times, once ``settled``) when the answer of work told
    to stop before the deadline still came after it: a machine shared with other tests may hold the server's
    threads longer than the margin. Work never told to stop in time misses the deadline every time."""
    for attempt in range(1, tries + 1):
        try:
            return send()
        except grpc.RpcError as exc:
            if exc.code() != grpc.StatusCode.DEADLINE_EXCEEDED or attempt == tries:  # type: ignore[attr-defined]
                raise
            wait_for(settled)
    raise AssertionError("unreachable")


# -- the admission itself ---------------------------------------------------------------------------


def test_each_cost_class_has_its_own_places() -> None:
    admission = Admission(PLACES, Tenants(), per_table=10)
    bots = [admission.admit(CostClass.BOT, ANONYMOUS) for _ in range(2)]
    assert refused(lambda: admission.admit(CostClass.BOT, ANONYMOUS)) == "OVERLOADED"
    moves = [admission.admit(CostClass.MOVE, ANONYMOUS) for _ in range(4)]  # the bots' flood took none of these
    assert refused(lambda: admission.admit(CostClass.MOVE, ANONYMOUS)) == "OVERLOADED"
    for ticket in bots + moves:
        ticket.release()
        ticket.release()  # a second release gives nothing back twice
    assert all(admission.taken(c) == 0 for c in CostClass)


def test_a_tenant_takes_only_its_share_and_a_table_only_a_few() -> None:
    tenants = Tenants.parse(TENANTS)
    victim, hostile = tenants.tenants
    admission = Admission(PLACES, tenants, per_table=2)
    mine = [admission.admit(CostClass.MOVE, hostile, f"t_{i}") for i in range(2)]  # half of 4, two tenants
    assert refused(lambda: admission.admit(CostClass.MOVE, hostile, "t_9")) == "QUOTA_EXCEEDED"
    assert admission.admit(CostClass.MOVE, victim, "t_a") and admission.admit(CostClass.MOVE, victim, "t_b")
    assert refused(lambda: admission.admit(CostClass.MOVE, victim, "t_c")) == "OVERLOADED"  # the class is full
    mine[0].release()
    assert admission.admit(CostClass.MOVE, hostile, "t_0")
    one = Admission(PLACES, Tenants(), per_table=2)
    one.admit(CostClass.MOVE, ANONYMOUS, "t_x"), one.admit(CostClass.ADVICE, ANONYMOUS, "t_x")
    assert refused(lambda: one.admit(CostClass.MOVE, ANONYMOUS, "t_x")) == "OVERLOADED"  # its own flood, shed
    assert one.admit(CostClass.MOVE, ANONYMOUS, "t_y")


def test_tables_per_minute_are_counted_per_tenant() -> None:
    tenants = Tenants.parse(TENANTS)
    victim, hostile = tenants.tenants
    admission = Admission(PLACES, tenants, per_table=2)
    for i in range(3):
        admission.create_table(hostile, now=100.0 + i)
    with pytest.raises(ServiceError) as caught:
        admission.create_table(hostile, now=110.0)
    assert caught.value.reason == "QUOTA_EXCEEDED" and caught.value.retry_after == pytest.approx(50.0)
    admission.create_table(victim, now=110.0)  # no quota of its own
    admission.create_table(hostile, now=161.0)  # a minute after the first


def test_api_keys_name_tenants() -> None:
    tenants = Tenants.parse(TENANTS)
    assert tenants.identify([("authorization", f"Bearer {VICTIM}")]).name == "victim"
    assert tenants.identify([("authorization", f"bearer  {HOSTILE} ")]).name == "hostile"
    for metadata in ([], [("authorization", "Bearer nope-nope-nope-nope")], [("authorization", VICTIM)]):
        assert refused(lambda metadata=metadata: tenants.identify(metadata)) == "API_KEY_INVALID"
    assert Tenants().identify([]) is ANONYMOUS


@pytest.mark.parametrize(
    "text",
    [
        "[]",
        '{"tenants": []}',
        '{"tenants": [{"name": "a", "keys": ["short"]}]}',
        '{"tenants": [{"name": "a", "keys": ["0123456789abcdef"], "in_flight": {"move": 0}}]}',
        '{"tenants": [{"name": "a", "keys": ["0123456789abcdef"], "in_flight": {"gold": 1}}]}',
    ],
)
def test_malformed_tenants_are_refused_at_start(text: str) -> None:
    with pytest.raises(ValueError):
        Tenants.parse(text)


def test_a_tenant_may_name_its_own_places() -> None:
    tenants = Tenants.parse(
        '{"tenants": [{"name": "a", "keys": ["0123456789abcdef"], "in_flight": {"bot": 1}}, '
        '{"name": "b", "keys": ["fedcba9876543210"]}]}'
    )
    a = tenants.tenants[0]
    assert a == Tenant("a", {CostClass.BOT: 1})
    admission = Admission(PLACES, tenants, per_table=9)
    admission.admit(CostClass.BOT, a)
    assert refused(lambda: admission.admit(CostClass.BOT, a)) == "QUOTA_EXCEEDED"


# -- over gRPC --------------------------------------------------------------------------------------


@pytest.fixture
def keyed() -> Iterator[Served]:
    served = Served(replace(BASE, tenants=TENANTS))
    yield served
    served.close()


def test_a_server_with_keys_refuses_a_call_without_one(keyed: Served) -> None:
    with pytest.raises(grpc.RpcError) as caught:
        keyed.stub.ListGames(svc.ListGamesRequest(), timeout=10)
    assert reason(caught.value) == "UNAUTHENTICATED/API_KEY_INVALID"
    answer = keyed.stub.ListGames(svc.ListGamesRequest(), metadata=[("authorization", f"Bearer {VICTIM}")], timeout=10)
    assert answer.games


def test_a_tenants_table_quota_leaves_the_others_alone(keyed: Served) -> None:
    request = svc.CreateTableRequest(game="trentuno", seats=[pb.Seat(name=f"p{i}", chips=10) for i in range(3)])
    hostile = [("authorization", f"Bearer {HOSTILE}")]
    for _ in range(3):
        keyed.stub.CreateTable(request, metadata=hostile, timeout=10)
    with pytest.raises(grpc.RpcError) as caught:
        keyed.stub.CreateTable(request, metadata=hostile, timeout=10)
    assert reason(caught.value) == "RESOURCE_EXHAUSTED/QUOTA_EXCEEDED"
    assert keyed.stub.CreateTable(request, metadata=[("authorization", f"Bearer {VICTIM}")], timeout=10).table_id


@pytest.fixture
def gated_bots() -> Iterator[tuple[Served, threading.Event, list[Call]]]:
    """A server whose test method costs a bot's move and waits for a gate (or for its call to stop)."""
    gate = threading.Event()
    calls: list[Call] = []

    def hold(request: empty_pb2.Empty, call: Call) -> empty_pb2.Empty:
        calls.append(call)
        while not gate.is_set() and not call.stop():
            time.sleep(0.005)
        return empty_pb2.Empty()

    method = Method("test.v1.Hold", "Hold", hold, empty_pb2.Empty, cost=always(CostClass.BOT))
    served = Served(replace(BASE, bot_workers=1, bot_calls=2, replay_seconds=30.0), [method])
    yield served, gate, calls
    gate.set()
    served.close()


def test_a_flood_of_bot_moves_is_shed_and_moves_keep_their_places(
    gated_bots: tuple[Served, threading.Event, list[Call]],
) -> None:
    served, gate, _ = gated_bots
    hold = served.channel.unary_unary("/test.v1.Hold/Hold")
    held = [hold.future(b"", timeout=30) for _ in range(2)]  # one running, one waiting for the bot worker
    wait_for(lambda: served.taken(CostClass.BOT) == 2)
    for _ in range(5):
        with pytest.raises(grpc.RpcError) as caught:
            hold(b"", timeout=10)
        assert reason(caught.value) == "RESOURCE_EXHAUSTED/OVERLOADED"
    for _ in range(5):  # moves have workers and places of their own
        assert served.stub.ListGames(svc.ListGamesRequest(), timeout=10).games
        served.timed_health()
    gate.set()
    assert [f.result() for f in held] == [b"", b""]


def test_work_whose_caller_left_is_told_to_stop(gated_bots: tuple[Served, threading.Event, list[Call]]) -> None:
    served, _, calls = gated_bots
    hold = served.channel.unary_unary("/test.v1.Hold/Hold")
    future = hold.future(b"", timeout=30)
    wait_for(lambda: len(calls) == 1)
    assert not calls[0].stop()
    future.cancel()
    wait_for(lambda: calls[0].stop() and served.taken(CostClass.BOT) == 0)  # the gate never opened


def test_work_near_its_deadline_is_told_to_stop(gated_bots: tuple[Served, threading.Event, list[Call]]) -> None:
    """``stop`` turns true just before the caller's deadline, so work that stops with an answer still answers."""
    served, _, calls = gated_bots
    hold = served.channel.unary_unary("/test.v1.Hold/Hold")
    idle = lambda: served.taken(CostClass.BOT) == 0  # noqa: E731
    assert in_time(lambda: hold(b"", timeout=0.5), idle) == b""  # the gate never opened
    assert all(call.stop() for call in calls)
    wait_for(idle)


# -- advice within its deadline ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def advised() -> Iterator[tuple[Served, svc.AdviseRequest]]:
    """A server, and an Advise of 1,000 sampled deals for the first turn of a 6-seat Trentuno deal (eleven moves
    to weigh, each played out to the end of the deal), on the server's threads, where :func:`slow_advice` reaches
    (in worker processes: tests/service/test_processes.py)."""
    served = Served(replace(BASE, replay_seconds=30.0, worker_processes=0))
    seats = [pb.Seat(name=f"p{i}", chips=100) for i in range(6)]
    created = served.stub.CreateTable(svc.CreateTableRequest(game="trentuno", seats=seats, seed=b"a"), timeout=10)
    keys = {k.seat: k.key for k in created.seat_keys}
    dealer = created.to_act[0]
    deal = svc.ActRequest(
        table_id=created.table_id,
        state=created.state,
        expected_seq=0,
        action=pb.Action(seat=dealer, kind="DEAL"),
        seat_key=keys[dealer],
    )
    dealt = served.stub.Act(deal, timeout=10)
    to_act = dealt.to_act[0]
    request = svc.AdviseRequest(
        table_id=created.table_id, state=dealt.state, seat=to_act, seat_key=keys[to_act], samples=1000
    )
    yield served, request
    served.close()


@pytest.fixture
def slow_advice(monkeypatch: pytest.MonkeyPatch) -> list[bots.Advice]:
    """Advice that takes a millisecond more at each poll of its ``stop`` (each play-out), so that 1,000 samples
    outlast any deadline below a second however fast the engine plays them out; the advice given, in a list."""
    done: list[bots.Advice] = []
    real = bots.advise

    def slowed(*args: Any, stop: Any = None, **kwargs: Any) -> bots.Advice:
        def slow_stop() -> bool:
            time.sleep(0.001)
            return bool(stop is not None and stop())

        done.append(real(*args, stop=slow_stop, **kwargs))
        return done[-1]

    monkeypatch.setattr(bots, "advise", slowed)
    return done


def test_advice_answers_within_the_callers_deadline_with_the_samples_it_has(
    advised: tuple[Served, svc.AdviseRequest], slow_advice: list[bots.Advice]
) -> None:
    served, request = advised
    idle = lambda: served.taken(CostClass.ADVICE) == 0  # noqa: E731
    answer = in_time(lambda: served.stub.Advise(request, timeout=0.5), idle)
    assert answer.method == svc.ADVICE_METHOD_SAMPLED
    assert 2 <= answer.samples < 1000  # cut at the deadline, not played out
    assert any(a.standard_error > 0 for a in answer.actions)  # sampled: an error bound (0 where every deal agreed)
    wait_for(lambda: served.taken(CostClass.ADVICE) == 0)


def test_advice_abandoned_by_its_caller_stops_and_frees_its_place(
    advised: tuple[Served, svc.AdviseRequest], slow_advice: list[bots.Advice]
) -> None:
    served, request = advised
    done = slow_advice
    future = served.stub.Advise.future(request, timeout=60)
    wait_for(lambda: served.taken(CostClass.ADVICE) == 1)
    time.sleep(0.1)
    future.cancel()
    wait_for(lambda: served.taken(CostClass.ADVICE) == 0)
    assert len(done) == 1 and done[0].samples < 1000  # the work stopped when its caller left
