"""The metrics endpoint: the process, platform and garbage-collector series beside ours, and no ``*_created``; the
admission's places, calls in flight and queued, and refusals by reason."""

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

from mazziere.services.core.admission import ANONYMOUS, REFUSALS, Admission, CostClass, Tenants
from mazziere.services.core.call import Call
from mazziere.services.core.dispatch import Method
from mazziere.services.gen.mazziere.v1 import service_pb2 as svc
from mazziere.services.metrics import Metrics, new_registry, serve_registry
from mazziere.services.server import App
from tests.service.conftest import BASE
from tests.service.test_admission import PLACES, TENANTS, refused
from tests.service.test_load import Served
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
    """``app`` with its admission reporting to its metrics (:meth:`Admission.meter`, harmless to call again)."""
    if app.dispatcher.admission.metrics is not app.metrics:
        app.dispatcher.admission.meter(app.metrics)
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
    assert counted == {"class_full": 1, "tenant_quota": 1, "table_busy": 1, "tables_per_minute": 1}
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


@pytest.fixture
def held() -> Iterator[tuple[Served, threading.Event]]:
    """A server taking 3 game calls at a time on 1 worker, and a method that waits for a gate."""
    gate = threading.Event()

    def hold(request: empty_pb2.Empty, call: Call) -> empty_pb2.Empty:
        gate.wait(20)
        return empty_pb2.Empty()

    served = Served(
        replace(BASE, workers=1, max_concurrent_calls=3), [Method("test.v1.Hold", "Hold", hold, empty_pb2.Empty)]
    )
    metered(served.app)
    yield served, gate
    gate.set()
    served.close()


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
