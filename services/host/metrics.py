"""The host's metrics, on the process's registry beside the calls' own."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

_LAG_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)


class HostMetrics:
    def __init__(self, registry: CollectorRegistry) -> None:
        self.tables = Gauge(
            "mazziere_host_tables", "Open tables (not closed) the host's store keeps.", registry=registry
        )
        self.opened = Counter("mazziere_host_tables_opened_total", "Tables opened by this host.", registry=registry)
        self.moves = Counter(
            "mazziere_host_moves_total",
            "Moves applied by this host, by who chose them (a person, or the host: a bot or a timer).",
            ["by"],
            registry=registry,
        )
        self.watchers = Gauge("mazziere_host_watchers", "Watch streams connected to this host.", registry=registry)
        self.push_lag = Histogram(
            "mazziere_host_push_lag_seconds",
            "From a step's notification to its write to one watcher.",
            buckets=_LAG_BUCKETS,
            registry=registry,
        )
        self.timer_lateness = Histogram(
            "mazziere_host_timer_lateness_seconds",
            "How late a turn timer fired after it was due.",
            buckets=_LAG_BUCKETS,
            registry=registry,
        )
        self.store_errors = Counter(
            "mazziere_host_store_errors_total", "Store operations that failed.", registry=registry
        )
        self.store_tables = Gauge(
            "mazziere_host_store_tables", "Tables the host's store keeps (closed ones too).", registry=registry
        )
        self.store_tables_limit = Gauge(
            "mazziere_host_store_tables_limit",
            "Tables the store may keep (MAZZIERE_STORE_MAX_TABLES): OpenTable is refused STORE_FULL at it.",
            registry=registry,
        )
        self.store_bytes = Gauge(
            "mazziere_host_store_bytes",
            "Bytes the host's store takes (its tables, their log and indexes).",
            registry=registry,
        )
        self.store_bytes_limit = Gauge(
            "mazziere_host_store_bytes_limit",
            "Bytes the store may take (MAZZIERE_STORE_MAX_BYTES): OpenTable is refused STORE_FULL at it.",
            registry=registry,
        )
        self.store_seconds = Histogram(
            "mazziere_host_store_seconds", "Store operations' latency.", buckets=_LAG_BUCKETS, registry=registry
        )
