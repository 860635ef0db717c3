"""Gateways started by the tests: a real uvicorn server on a free port, in front of a real gRPC server."""

from __future__ import annotations

import asyncio
import base64
import os
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import httpx
import pytest

from mazziere.services.app import App
from mazziere.services.config import Config
from mazziere.services.core.backend import Backend, InProcessBackend
from mazziere.services.grpc.server import ServerThread
from mazziere.services.http.server import RestServer, bind
from mazziere.services.table.channel import ChannelBackend
from mazziere.services.table.methods import TABLE_SERVICE
from mazziere.services.table.sealing import Keyring
from tests.gateway.helpers import Api

KEYS = f"k1:{base64.b64encode(os.urandom(32)).decode()}"
ORIGIN = "https://table.example"
BASE = Config(
    host="127.0.0.1",
    port=0,
    metrics_port=0,
    rest_host="127.0.0.1",
    rest_port=0,
    log_calls=False,
    grace_seconds=1.0,
    seal_keys=KEYS,
    cors_origins=ORIGIN,
    gateway_max_body_bytes=64 * 1024,
    worker_processes=0,  # the heavy work on threads: the worker processes have their own tests (test_processes.py)
)


class Gateway:
    """A started gRPC server and a REST gateway (in process, or over a channel to ``target``)."""

    def __init__(self, config: Config, *, target: str | None = None, timeout: float = 5.0) -> None:
        self.app = App(config, keyring=Keyring.parse(config.seal_keys))
        self.grpc = ServerThread(self.app.grpc)
        self.grpc_port = self.grpc.start()
        backend: Backend
        if target is None:
            backend = InProcessBackend(self.app.dispatcher, TABLE_SERVICE, timeout=timeout, ready=self.app.ready)
        else:
            backend = ChannelBackend(
                target.format(port=self.grpc_port),
                timeout=timeout,
                max_message_bytes=1 << 20,
                write_seconds=5.0,
            )
        self.backend = backend
        self.fastapi = self.app.rest(backend)
        sock = bind("127.0.0.1", 0)
        self.port = sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.rest = RestServer(self.fastapi, sock)
        self.thread = threading.Thread(target=lambda: asyncio.run(self.rest.run_on_socket()), daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.rest.started:
            assert time.monotonic() < deadline, "the gateway did not start"
            time.sleep(0.01)
        self.http = httpx.Client(base_url=self.url, timeout=10.0)
        self.api = Api(self.http, self.app.keyring)

    def close(self) -> None:
        self.http.close()
        self.rest.should_exit = True
        self.thread.join(5)
        self.grpc.shutdown()


@pytest.fixture(scope="session")
def gateway() -> Iterator[Gateway]:
    g = Gateway(BASE)
    yield g
    g.close()


@pytest.fixture(scope="session")
def split() -> Iterator[Gateway]:
    """The gateway calling its gRPC server over a real channel, as ``mazziere gateway --target`` does."""
    g = Gateway(replace(BASE, cors_origins=""), target="127.0.0.1:{port}")
    yield g
    g.close()


@pytest.fixture
def api(gateway: Gateway) -> Api:
    return gateway.api


def wait_http(url: str, seconds: float = 20.0) -> Any:
    deadline = time.monotonic() + seconds
    while True:
        try:
            return httpx.get(url, timeout=1.0)
        except httpx.TransportError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)
