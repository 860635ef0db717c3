"""One `mazziere serve` for the client and package tests: gRPC and the REST gateway on free ports."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from tests.ports import free_port
from tests.service.conftest import KEYS

ROOT = Path(__file__).resolve().parents[2]
MAZZIERE = shutil.which("mazziere", path=str(Path(sys.executable).parent)) or "mazziere"
"""The server's command, this checkout's: `mazziere serve` here, and for the clients' tests that start their own."""


@pytest.fixture(scope="session")
def servers() -> Iterator[tuple[str, str]]:
    """`mazziere serve` on free ports: gRPC and the REST gateway (Connect, gRPC-Web), each as "host:port"."""
    port, rest_port = free_port(), free_port()
    env = {
        **os.environ,
        "MAZZIERE_HOST": "127.0.0.1",
        "MAZZIERE_PORT": str(port),
        "MAZZIERE_METRICS_PORT": "0",
        "MAZZIERE_REST_HOST": "127.0.0.1",
        "MAZZIERE_REST_PORT": str(rest_port),
        "MAZZIERE_SEAL_KEYS": KEYS,
        "MAZZIERE_LOG_CALLS": "false",
        "MAZZIERE_DATA_DIR": tempfile.mkdtemp(prefix="mazziere-data-"),  # its own store: SQLite serves one host
    }
    proc = subprocess.Popen([MAZZIERE, "serve"], env=env, cwd=ROOT, stderr=subprocess.DEVNULL)
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            grpc.channel_ready_future(channel).result(timeout=20)
        yield f"127.0.0.1:{port}", f"127.0.0.1:{rest_port}"
    finally:
        proc.terminate()
        proc.wait(timeout=20)


@pytest.fixture(scope="session")
def target(servers: tuple[str, str]) -> str:
    """The gRPC server's "host:port"."""
    return servers[0]
