"""Prometheus metrics: go-grpc-prometheus names for every call, the games' own counters, the admission's
saturation (places, calls in flight and queued per cost class, refusals by reason), and the process's.

Every registry made here also carries the standard process (``process_*``: CPU, memory, file descriptors, start
time), Python platform (``python_info``) and garbage collector (``python_gc_*``) collectors, as the client
library's default registry does. The ``*_created`` series (each counter's creation time) are dropped for the whole
process: they double the series of every counter and histogram and no query of ours reads them.
"""

from __future__ import annotations

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    GCCollector,
    Histogram,
    PlatformCollector,
    ProcessCollector,
    disable_created_metrics,
    start_http_server,
)

disable_created_metrics()  # type: ignore[no-untyped-call]

_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)


class Metrics:
    """One registry per server, so tests can run several servers in one process."""

    def __init__(self) -> None:
        self.registry = new_registry()
        labels = ["grpc_type", "grpc_service", "grpc_method"]
        self.started = Counter(
            "grpc_server_started_total", "Total number of RPCs started on the server.", labels, registry=self.registry
        )
        self.handled = Counter(
            "grpc_server_handled_total",
            "Total number of RPCs completed on the server, regardless of success or failure.",
            [*labels, "grpc_code"],
            registry=self.registry,
        )
        self.handling = Histogram(
            "grpc_server_handling_seconds",
            "Histogram of response latency (seconds) of gRPC that had been application-level handled by the server.",
            labels,
            buckets=_BUCKETS,
            registry=self.registry,
        )
        self.hands_finished = Counter(
            "mazziere_hands_finished_total",
            "Hands (deals) played to the end, by game and preset ('custom' for overridden options).",
            ["game", "preset"],
            registry=self.registry,
        )
        self.games_finished = Counter(
            "mazziere_games_finished_total",
            "Games played to the end, by game and preset.",
            ["game", "preset"],
            registry=self.registry,
        )
        self.rejections = Counter(
            "mazziere_rejections_total",
            "Calls refused, by game ('unknown' when not one of the served games) and ErrorInfo reason.",
            ["game", "reason"],
            registry=self.registry,
        )
        # The admission's (services/core/admission.py), by cost class: saturation is in_flight / places.
        self.places = Gauge(
            "mazziere_call_places",
            "Places of each cost class: the calls it holds at once, running or waiting for a worker.",
            ["cost_class"],
            registry=self.registry,
        )
        self.in_flight = Gauge(
            "mazziere_calls_in_flight",
            "Calls holding a place of their cost class (running, or queued for one of its workers).",
            ["cost_class"],
            registry=self.registry,
        )
        self.queued = Gauge(
            "mazziere_calls_queued",
            "Calls admitted and waiting for one of their cost class's workers.",
            ["cost_class"],
            registry=self.registry,
        )
        self.refusals = Counter(
            "mazziere_admission_refusals_total",
            "Calls the admission refused, by cost class and reason: class_full, tenant_quota, table_busy, "
            "tables_per_minute, and the host's limits (caller_rate, caller_tables_per_minute, caller_watchers, "
            "caller_unknown_tables, caller_open_tables, table_watchers, store_full).",
            ["cost_class", "reason"],
            registry=self.registry,
        )

        self.refusals_held = Counter(
            "mazziere_refusals_held_total",
            "Refusals to come back later, held until the hint their caller ignored ended.",
            registry=self.registry,
        )

    def serve(self, port: int, addr: str = "0.0.0.0") -> int:
        """Serve ``/metrics`` on ``port`` (0: a free port) at ``addr``; return the port."""
        return serve_registry(self.registry, port, addr)


def new_registry() -> CollectorRegistry:
    """A registry with the process, platform and garbage-collector collectors (one per server, or per gateway)."""
    registry = CollectorRegistry()
    ProcessCollector(registry=registry)
    PlatformCollector(registry=registry)
    GCCollector(registry=registry)
    return registry


def serve_registry(registry: CollectorRegistry, port: int, addr: str) -> int:
    """Serve ``registry`` at ``/metrics``. ``::`` (every address, as gRPC's ``[::]``) falls back to ``0.0.0.0`` on
    a host without IPv6, as gRPC does."""
    try:
        server, _thread = start_http_server(port, addr=addr, registry=registry)
    except OSError:
        if addr != "::":
            raise
        server, _thread = start_http_server(port, addr="0.0.0.0", registry=registry)
    return int(server.server_port)
