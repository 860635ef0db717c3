"""Servers started by the tests: in-process, on a free port, over a real channel."""

from __future__ import annotations

import base64
import os
from collections.abc import Iterator
from dataclasses import replace

import grpc
import pytest

from mazziere.services.app import App
from mazziere.services.config import Config
from mazziere.services.gen.mazziere.v1 import service_pb2_grpc
from mazziere.services.grpc.server import ServerThread
from mazziere.services.table.sealing import Keyring
from tests.service.helpers import Client

KEYS = f"k2:{base64.b64encode(os.urandom(32)).decode()},k1:{base64.b64encode(os.urandom(32)).decode()}"
BASE = Config(host="127.0.0.1", port=0, metrics_port=0, log_calls=False, grace_seconds=2.0, worker_processes=0)
"""The servers of these tests run the heavy work on threads (no process pool started for each): the worker
processes have their own tests, test_processes.py, and the host's and the deploy's tests serve with the default."""


class Running:
    """A started server, its channel and a client."""

    def __init__(self, config: Config) -> None:
        self.app = App(config, keyring=Keyring.parse(config.seal_keys) if config.seal_keys else None)
        self.server = ServerThread(self.app.grpc)
        self.port = self.server.start()
        self.channel = grpc.insecure_channel(f"127.0.0.1:{self.port}")
        self.stub = service_pb2_grpc.TableServiceStub(self.channel)
        self.client = Client(self.stub, self.app.keyring)

    def close(self) -> None:
        self.channel.close()
        self.server.shutdown()


@pytest.fixture(scope="session")
def running() -> Iterator[Running]:
    r = Running(replace(BASE, seal_keys=KEYS, max_message_bytes=256 * 1024))
    yield r
    r.close()


@pytest.fixture(scope="session")
def trusted() -> Iterator[Running]:
    r = Running(replace(BASE, seal_keys=KEYS, trusted_mode=True))
    yield r
    r.close()


@pytest.fixture
def client(running: Running) -> Client:
    return running.client
