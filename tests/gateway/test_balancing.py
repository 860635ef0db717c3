"""The split gateway spreads its calls over every engine behind a target that names several (round robin).

Three engines on 127.0.0.1, one gateway whose target lists them all (as a headless Service's DNS name does in
Kubernetes): each engine's own metrics count the calls it served.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator

import pytest

from mazziere.services.app import App
from mazziere.services.grpc.server import ServerThread
from mazziere.services.table.channel import ROUND_ROBIN, channel_options, spreads
from mazziere.services.table.methods import SERVICE_NAME
from tests.gateway.conftest import BASE, Gateway

CALLS = 60


def served(app: App, method: str) -> float:
    labels = {"grpc_type": "unary", "grpc_service": SERVICE_NAME, "grpc_method": method, "grpc_code": "OK"}
    return app.metrics.registry.get_sample_value("grpc_server_handled_total", labels) or 0.0


@pytest.fixture
def engines() -> Iterator[list[tuple[App, ServerThread, int]]]:
    """Two more engines with the same keys (the gateway fixture starts the first)."""
    started = []
    for _ in range(2):
        app = App(BASE)
        server = ServerThread(app.grpc)
        started.append((app, server, server.start()))
    yield started
    for _, server, _ in started:
        server.shutdown()


def test_only_a_target_of_several_servers_gets_round_robin() -> None:
    for target in (
        "dns:///mazziere-headless:50051",
        "dns://10.0.0.10/mazziere-headless:50051",
        "ipv4:1.2.3.4:1,1.2.3.5:1",
    ):
        assert spreads(target), target
        assert ("grpc.service_config", ROUND_ROBIN) in channel_options(target, 1024)
    for target in ("mazziere:50051", "localhost:50051", "127.0.0.1:50051", "[::1]:50051", "ipv4:127.0.0.1:50051"):
        assert not spreads(target), target
        assert "grpc.service_config" not in dict(channel_options(target, 1024))
    assert json.loads(ROUND_ROBIN) == {"loadBalancingConfig": [{"round_robin": {}}]}


def test_the_split_gateway_spreads_calls_over_every_engine(engines: list[tuple[App, ServerThread, int]]) -> None:
    others = ",".join(f"127.0.0.1:{port}" for _, _, port in engines)
    gateway = Gateway(BASE, target=f"ipv4:127.0.0.1:{{port}},{others}")
    try:
        apps = [gateway.app, *(app for app, _, _ in engines)]
        before = [served(app, "ListGames") for app in apps]
        for _ in range(CALLS):
            assert gateway.http.get("/v1/games").status_code == 200
        counts = [served(app, "ListGames") - b for app, b in zip(apps, before, strict=True)]
        assert sum(counts) == CALLS
        # Round robin over the engines that are connected: all three soon are, then each takes every third call.
        assert min(counts) >= CALLS // 6, counts

        # A table plays on across engines: any engine opens any other's token (the same keys).
        table = gateway.api.create("trentuno")
        for _ in gateway.api.steps(table, random.Random(3), limit=6):
            pass
        assert all(served(app, "Act") + served(app, "CreateTable") > 0 for app in apps)
    finally:
        gateway.close()
