"""Server processes on fixed ports, stopped with SIGTERM and started again in place, with the times of each stop:
when it was signalled, when it exited, when it was ready again.

Each process is started ahead (tests/host/warm_start.py): loaded while the one it replaces still serves, as a
rolling deploy's new pod is ready before the old one stops, and told to serve once the old one has exited. So a
restart costs what serving again costs, not the loading of Python, which a loaded machine stretches to seconds.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import grpc
import httpx
from grpc_health.v1 import health_pb2, health_pb2_grpc

ROOT = Path(__file__).resolve().parents[3]
WARM_START = [sys.executable, "-m", "tests.host.warm_start"]
NEWER = "newer"
"""The build of tests/host/newer_build.py: this checkout's, writing a new optional field."""
START_S = 120.0
"""How long a process may take to load, or to be ready (a condition, on a loaded machine, never a measured time)."""


@dataclass(frozen=True)
class Stop:
    """One SIGTERM to a process, and its start after, in wall-clock seconds (``time.time``)."""

    name: str
    build: str
    """What it started again as: "" for this checkout's, else the build's name."""
    signalled: float
    exited: float
    ready: float | None
    """When it was ready again; None for a last stop."""

    @property
    def exit_seconds(self) -> float:
        return self.exited - self.signalled


class Process:
    """One ``mazziere serve`` on its own ports (gRPC, and REST unless ``rest_port`` is 0), its log in ``log``."""

    def __init__(self, name: str, env: Mapping[str, str], grpc_port: int, rest_port: int, log: Path) -> None:
        self.name = name
        self.env = dict(env)
        self.grpc_port = grpc_port
        self.rest_port = rest_port
        self.log = log
        self.process: subprocess.Popen[bytes] | None = None
        self.stops: list[Stop] = []
        """Every SIGTERM it was sent, in order."""
        self.down: list[tuple[float, float]] = [(0.0, 0.0)]
        """The spans (signalled, ready again) when it served nothing, the first one before it started."""

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.grpc_port}"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.rest_port}"

    def start(self, build: str = "") -> float:
        """Starts it and waits until it is ready: its health SERVING (and its /readyz 200); the time it was."""
        return self._serve(self._load(build))

    def restart(self, build: str = "", moment: Callable[[], object] = lambda: None) -> Stop:
        """Loads its successor (as ``build``), waits for the ``moment`` to stop, SIGTERM, then the successor serves
        on the same ports once this one has exited."""
        successor = self._load(build)
        try:
            moment()
            stopped = self.terminate(build)
        except BaseException:
            successor.kill()
            raise
        self.stops[-1] = Stop(self.name, build, stopped.signalled, stopped.exited, self._serve(successor))
        return self.stops[-1]

    def terminate(self, build: str = "") -> Stop:
        """SIGTERM, and the wait for it to exit (``build``: what it is started again as, if it is)."""
        assert self.process is not None
        signalled = time.time()
        self.down.append((signalled, float("inf")))
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=60)
        exited = time.time()
        assert self.process.returncode == 0, f"{self.name} exited with {self.process.returncode}: see {self.log}"
        self.process = None
        self.stops.append(Stop(self.name, build, signalled, exited, None))
        return self.stops[-1]

    def kill(self) -> None:
        """Stops it at once (the end of a test that failed)."""
        if self.process is not None:
            self.process.kill()
            self.process.wait(timeout=30)
            self.process = None

    def _load(self, build: str) -> subprocess.Popen[bytes]:
        """A process of ``build``, loaded and waiting to serve."""
        with tempfile.TemporaryDirectory() as folder, self.log.open("ab") as log:
            loaded = Path(folder) / "loaded"
            command = [*WARM_START, *([build] if build else []), "serve"]
            env = {**self.env, "WARM_START_LOADED": str(loaded)}
            process = subprocess.Popen(command, env=env, cwd=ROOT, stdin=subprocess.PIPE, stdout=log, stderr=log)
            deadline = time.monotonic() + START_S
            while not loaded.exists():
                if process.poll() is not None:
                    raise AssertionError(f"{self.name} exited as it loaded ({process.returncode}): see {self.log}")
                assert time.monotonic() < deadline, f"{self.name} did not load within {START_S:g} s"
                time.sleep(0.02)
        return process

    def _serve(self, process: subprocess.Popen[bytes]) -> float:
        """Tells a loaded process to serve, and waits until it is ready; the time it was."""
        assert process.stdin is not None
        process.stdin.write(b"serve\n")
        process.stdin.close()
        self.process = process
        deadline = time.monotonic() + START_S
        while not self._ready():
            if process.poll() is not None:
                raise AssertionError(f"{self.name} exited at start ({process.returncode}): see {self.log}")
            assert time.monotonic() < deadline, f"{self.name} was not ready within {START_S:g} s"
            time.sleep(0.02)
        ready = time.time()
        self.down[-1] = (self.down[-1][0], ready)
        return ready

    def _ready(self) -> bool:
        try:
            with grpc.insecure_channel(self.target) as channel:
                answer = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=1.0)
            if answer.status != health_pb2.HealthCheckResponse.SERVING:
                return False
            return not self.rest_port or httpx.get(f"{self.url}/readyz", timeout=1.0).status_code == 200
        except (grpc.RpcError, httpx.TransportError):
            return False
