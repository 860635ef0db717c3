"""The generated clients (clients/): each plays a hand against a real `mazziere serve` and reads a refusal's ErrorInfo.

``make test`` generates and builds them first (``make clients``: ``npm ci``, ``buf generate`` with local plugins,
``tsc``; the Go plugins built from the versions in clients/go/go.mod). Each client's own test runs as a
subprocess with the server's address in ``MAZZIERE_TARGET``.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from tests.service.conftest import KEYS

ROOT = Path(__file__).resolve().parents[2]
CLIENTS = ROOT / "clients"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def target() -> Iterator[str]:
    """`mazziere serve` on a free port (gRPC only), as "host:port"."""
    exe = shutil.which("mazziere", path=str(Path(sys.executable).parent)) or "mazziere"
    port = free_port()
    env = {
        **os.environ,
        "MAZZIERE_HOST": "127.0.0.1",
        "MAZZIERE_PORT": str(port),
        "MAZZIERE_METRICS_PORT": "0",
        "MAZZIERE_REST_PORT": "0",
        "MAZZIERE_SEAL_KEYS": KEYS,
        "MAZZIERE_LOG_CALLS": "false",
    }
    proc = subprocess.Popen([exe, "serve"], env=env, cwd=ROOT, stderr=subprocess.DEVNULL)
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            grpc.channel_ready_future(channel).result(timeout=20)
        yield f"127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def run(command: list[str], cwd: Path, target: str, needs: Path) -> str:
    """Runs a client's command against the server; fails with its whole output unless it succeeds."""
    if not needs.exists():
        pytest.fail(f"{needs.relative_to(ROOT)} is missing: run `make clients` (make test does)", pytrace=False)
    tool = shutil.which(command[0]) if not Path(command[0]).is_absolute() else command[0]
    if tool is None:
        pytest.fail(f"{command[0]} is not on PATH", pytrace=False)
    env = {**os.environ, "MAZZIERE_TARGET": target, "GOTOOLCHAIN": "local"}
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    output = f"$ {' '.join(command)}  (in {cwd.relative_to(ROOT)})\n{done.stdout}\n{done.stderr}"
    assert done.returncode == 0, output
    return output


def test_python_example(target: str) -> None:
    example = CLIENTS / "python" / "example.py"
    output = run([sys.executable, str(example)], ROOT, target, ROOT / "services" / "gen" / "mazziere")
    assert "HAND_OVER" in output, output
    assert "refused: ABORTED, reason STALE_SEQUENCE" in output, output


def test_go_client(target: str) -> None:
    folder = CLIENTS / "go"
    output = run(["go", "test", "-count=1", "-v", "./..."], folder, target, folder / "gen" / "mazziere" / "v1")
    for name in ("TestPlayHand", "TestStaleSequenceIsAborted", "TestWrongSeatKeyIsPermissionDenied"):
        assert f"--- PASS: {name}" in output, output


def test_typescript_client(target: str) -> None:
    folder = CLIENTS / "typescript"
    output = run(["node", "--test", "dist/test/"], folder, target, folder / "dist" / "test")
    assert "# pass 3" in output and "# fail 0" in output, output
