"""The metrics endpoint: the process, platform and garbage-collector series beside ours, and no ``*_created``."""

from __future__ import annotations

import re
import urllib.request

from mazziere.services.metrics import Metrics, new_registry, serve_registry

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
