"""The metrics endpoint: the process, platform and garbage-collector series beside ours, and no ``*_created``; the
admission's places, calls in flight and queued, and refusals by reason, as a server's own endpoint shows them."""

from __future__ import annotations

import re
import threading
import urllib.request
from collections.abc import Iterator
from concurrent import futures
from dataclasses import replace

import grpc
import pytest
from google.protobuf import empty_pb2

from mazziere.services.app import App
from mazziere.services.core.admission import ANONYMOUS, REFUSALS, Admission, CostClass, Tenants
from mazziere.services.core.call import Call
from mazziere.services.core.dispatch import Method, always
from mazziere.services.core.metrics import Metrics, new_registry, serve_registry
from mazziere.services.gen.mazziere.v1 import service_pb2 as svc
from tests.service.conftest import BASE
from tests.service.helpers import Client
from tests.service.test_admission import PLACES, TENANTS, refused
from tests.service.test_load import Served, replay_request
from tests.service.test_shutdown import wait_for

STANDARD = ("process_resident_memory_bytes", "process_cpu_seconds_total", "process_open_fds", "python_info")


def scrape(port: int) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as answer:
        text: str = answer.read().decode()
    return text


def names(text: str) -> set[str]:
    return {m.group(1) for m in re.finditer(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)[{ ]", text, re.MULTILINE)}


def test_the_metrics_endpoint_has_the_process_series_and_no_created_series() -> None:
    metrics = Metrics()
    metrics.started.labels("unary", "mazziere.v1.TableService", "Act").inc()
    metrics.handling.labels("unary", "mazziere.v1.TableService", "Act").observe(0.01)
    metrics.rejections.labels("trentuno", "STALE_SEQUENCE").inc()
    text = scrape(metrics.serve(0, "127.0.0.1"))
    found = names(text)
    for name in STANDARD:
        assert name in found, name
    assert "python_gc_objects_collected_total" in found
    assert {"grpc_server_started_total", "mazziere_rejections_total"} <= found
    assert 'python_info{implementation="CPython"' in text
    assert not [n for n in found if n.endswith("_created")], sorted(n for n in found if n.endswith("_created"))
    assert "grpc_server_handling_seconds_bucket" in found


def test_a_split_gateway_registry_has_the_process_series_too() -> None:
    found = names(scrape(serve_registry(new_registry(), 0, "127.0.0.1")))
    assert set(STANDARD) <= found


# -- saturation: places, calls in flight and queued, refusals by reason -----------------------------


def metered(app: App) -> App:
    """``app``, whose admission reports to its metrics as every server's does (checked, not wired here)."""
    assert app.dispatcher.admission.metrics is app.metrics
    return app


def sample(metrics: Metrics, name: str, **labels: str) -> float | None:
    return metrics.registry.get_sample_value(name, labels)


def test_the_admission_reports_places_calls_in_flight_and_refusals_by_reason() -> None:
    metrics = Metrics()
    tenants = Tenants.parse(TENANTS)
    victim, hostile = tenants.tenants
    admission = Admission(PLACES, tenants, per_table=1, metrics=metrics)
    assert sample(metrics, "mazziere_call_places", cost_class="bot") == 2
    for cost in PLACES:
        for why in REFUSALS:  # every reason's series is there before its first refusal
            assert sample(metrics, "mazziere_admission_refusals_total", cost_class=cost.value, reason=why) == 0
    tickets = [admission.admit(CostClass.MOVE, hostile, "t_1"), admission.admit(CostClass.MOVE, hostile, "t_2")]
    assert sample(metrics, "mazziere_calls_in_flight", cost_class="move") == 2
    refused(lambda: admission.admit(CostClass.MOVE, hostile, "t_3"))  # its share: half of 4
    refused(lambda: admission.admit(CostClass.MOVE, victim, "t_1"))  # one call per table
    tickets += [admission.admit(CostClass.MOVE, victim, "t_a"), admission.admit(CostClass.MOVE, victim, "t_b")]
    refused(lambda: admission.admit(CostClass.MOVE, victim, "t_c"))  # the class is full
    for i in range(3):
        admission.create_table(hostile, now=100.0 + i)
    refused(lambda: admission.create_table(hostile, now=103.0))
    counted = {
        why: sample(metrics, "mazziere_admission_refusals_total", cost_class="move", reason=why) for why in REFUSALS
    }
    assert counted == {
        **dict.fromkeys(REFUSALS, 0),  # the host's callers' limits (tests/host/test_abuse.py) refused nothing here
        **{"class_full": 1, "tenant_quota": 1, "table_busy": 1, "tables_per_minute": 1},
    }
    for ticket in tickets:
        ticket.release()
        ticket.release()
    assert sample(metrics, "mazziere_calls_in_flight", cost_class="move") == 0


def test_a_call_is_queued_until_a_worker_starts_it_or_its_place_is_given_back() -> None:
    metrics = Metrics()
    admission = Admission(PLACES, Tenants(), per_table=9, metrics=metrics)
    gate, started = threading.Event(), threading.Event()

    def hold() -> str:
        started.set()
        gate.wait(10)
        return "done"

    def queued() -> float | None:
        return sample(metrics, "mazziere_calls_queued", cost_class="replay")

    first, second = admission.admit(CostClass.REPLAY, ANONYMOUS), admission.admit(CostClass.REPLAY, ANONYMOUS)
    with futures.ThreadPoolExecutor(max_workers=1) as pool:
        running = pool.submit(first.queued(hold))
        assert started.wait(10)
        waiting = pool.submit(second.queued(hold))  # the one worker is busy
        assert admission.queued(CostClass.REPLAY) == 1 == queued()
        assert sample(metrics, "mazziere_calls_in_flight", cost_class="replay") == 2
        assert waiting.cancel()
        second.release()  # given back before a worker started it: no longer queued
        assert queued() == 0
        gate.set()
        assert running.result(10) == "done"
        first.release()
    assert sample(metrics, "mazziere_calls_in_flight", cost_class="replay") == 0 == queued()


HELD = replace(BASE, workers=1, max_concurrent_calls=3, bot_workers=1, bot_calls=4)
"""3 move calls at a time on 1 worker, 4 bot calls on 1 worker."""


@pytest.fixture
def held() -> Iterator[tuple[Served, threading.Event]]:
    """A server of :data:`HELD` (its admission metered as in production), and two methods that wait for a gate:
    ``Hold``, a move, ``HoldBot`` and ``HoldReplay``, of the bot and the replay classes."""
    gate = threading.Event()

    def hold(request: empty_pb2.Empty, call: Call) -> empty_pb2.Empty:
        gate.wait(20)
        return empty_pb2.Empty()

    served = Served(
        HELD,
        [
            Method("test.v1.Hold", "Hold", hold, empty_pb2.Empty),
            Method("test.v1.Hold", "HoldBot", hold, empty_pb2.Empty, cost=always(CostClass.BOT)),
            Method("test.v1.Hold", "HoldReplay", hold, empty_pb2.Empty, cost=always(CostClass.REPLAY)),
        ],
    )
    yield served, gate
    gate.set()
    served.close()


def served_sample(text: str, name: str, cost: str) -> float | None:
    """The value of ``name{cost_class="<cost>"}`` in a scrape, if it is there."""
    found = re.search(rf'^{name}\{{cost_class="{cost}"\}} (\S+)$', text, re.MULTILINE)
    return float(found.group(1)) if found else None


def test_a_servers_metrics_endpoint_shows_the_places_of_every_class(held: tuple[Served, threading.Event]) -> None:
    served, _ = held
    assert metered(served.app) is served.app
    text = scrape(served.app.metrics.serve(0, "127.0.0.1"))  # what `serve` starts on MAZZIERE_METRICS_PORT
    places = {
        CostClass.MOVE: 3,
        CostClass.BOT: 4,
        CostClass.ADVICE: HELD.advice_calls,
        CostClass.REPLAY: 2 * HELD.replay_workers,
        CostClass.HOST: 3,
        CostClass.WATCH: HELD.watchers,
    }
    assert set(places) == set(CostClass)
    for cost, n in places.items():
        assert served_sample(text, "mazziere_call_places", cost.value) == n, cost
        assert served_sample(text, "mazziere_calls_in_flight", cost.value) == 0, cost
        assert served_sample(text, "mazziere_calls_queued", cost.value) == 0, cost
        for why in REFUSALS:
            line = f'mazziere_admission_refusals_total{{cost_class="{cost.value}",reason="{why}"}} 0.0'
            assert line in text.splitlines(), line


def test_bot_calls_queue_behind_a_busy_bot_worker_and_leave_the_queue(held: tuple[Served, threading.Event]) -> None:
    served, gate = held
    port = served.app.metrics.serve(0, "127.0.0.1")
    client = Client(served.stub, served.app.keyring)
    tables = [client.create("sette_e_mezzo") for _ in range(3)]
    before = [table.seq for table in tables]

    def queued() -> float | None:
        return served_sample(scrape(port), "mazziere_calls_queued", "bot")

    blocker = served.channel.unary_unary("/test.v1.Hold/HoldBot").future(b"", timeout=30)
    wait_for(lambda: served_sample(scrape(port), "mazziere_calls_in_flight", "bot") == 1 and queued() == 0)
    with futures.ThreadPoolExecutor(max_workers=len(tables)) as callers:
        acts = [callers.submit(client.auto, table, "best") for table in tables]  # sampled: the bot class
        wait_for(lambda: queued() == len(tables))  # the one bot worker is held: every Act waits for it
        assert served_sample(scrape(port), "mazziere_calls_in_flight", "bot") == 1 + len(tables)
        assert served_sample(scrape(port), "mazziere_calls_queued", "move") == 0
        gate.set()
        assert blocker.result() == b""
        assert [act.result(timeout=30).seq for act in acts] == [seq + 1 for seq in before]  # each played a move
    wait_for(lambda: queued() == 0 and served_sample(scrape(port), "mazziere_calls_in_flight", "bot") == 0)


def test_calls_in_flight_return_to_zero_and_a_refusal_counts_its_reason(held: tuple[Served, threading.Event]) -> None:
    served, gate = held
    metrics = served.app.metrics
    assert sample(metrics, "mazziere_call_places", cost_class="move") == 3
    hold = served.channel.unary_unary("/test.v1.Hold/Hold")
    calls = [hold.future(b"", timeout=30) for _ in range(3)]
    wait_for(lambda: sample(metrics, "mazziere_calls_in_flight", cost_class="move") == 3)
    with pytest.raises(grpc.RpcError):
        served.stub.ListGames(svc.ListGamesRequest(), timeout=10)
    assert sample(metrics, "mazziere_admission_refusals_total", cost_class="move", reason="class_full") == 1
    gate.set()
    assert [call.result() for call in calls] == [b""] * 3
    served.stub.ListGames(svc.ListGamesRequest(), timeout=10)
    wait_for(lambda: sample(metrics, "mazziere_calls_in_flight", cost_class="move") == 0)
    assert sample(metrics, "mazziere_calls_queued", cost_class="move") == 0


def test_a_streams_step_is_queued_behind_a_busy_worker(held: tuple[Served, threading.Event]) -> None:
    served, gate = held
    metrics = served.app.metrics

    def queued() -> float | None:
        return sample(metrics, "mazziere_calls_queued", cost_class="replay")

    blocker = served.channel.unary_unary("/test.v1.Hold/HoldReplay").future(b"", timeout=30)
    wait_for(lambda: sample(metrics, "mazziere_calls_in_flight", cost_class="replay") == 1 and queued() == 0)
    request = replay_request("trentuno", 3, [])
    with futures.ThreadPoolExecutor(max_workers=1) as caller:
        steps = caller.submit(lambda: list(served.stub.StreamReplay(request, timeout=30)))
        wait_for(lambda: queued() == 1)  # its first step waits for the one replay worker
        gate.set()
        assert blocker.result() == b""
        assert len(steps.result(timeout=30)) == 1
    wait_for(lambda: queued() == 0 and sample(metrics, "mazziere_calls_in_flight", cost_class="replay") == 0)
