"""The image itself: built from deploy/Dockerfile with podman, run read-only as its unprivileged user, played.

The base is $MAZZIERE_BASE_IMAGE, else the Dockerfile's default if podman has it or can pull it, else a local
Debian made by deploy/base-image.sh (root and debootstrap; cached by a hash of its recipe). The container runs
as Kubernetes runs it (deploy/k8s): read-only root with no writable /tmp, every capability dropped, the sealing
key in a mounted read-only file. Tests play a game over gRPC and over REST, ask both health checks, scrape the
metrics, then SIGTERM the container and expect a clean exit. Skipped where podman is absent, or with
MAZZIERE_CONTAINER_TEST=0 (``make test CONTAINER_TEST=0``).
"""

from __future__ import annotations

import hashlib
import os
import random
import shutil
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import httpx
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from mazziere import engine
from mazziere.services.gen.mazziere.v1 import service_pb2_grpc
from mazziere.services.sealing import Keyring, new_key_entry
from tests.gateway.helpers import Api
from tests.service.helpers import Client
from tests.service.test_metrics import STANDARD, names

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_BASE = "python:3.11-slim-bookworm"
USER = "10001:10001"
KEYS_PATH = "/etc/mazziere/seal-keys"

if os.environ.get("MAZZIERE_CONTAINER_TEST") == "0":
    pytest.skip("MAZZIERE_CONTAINER_TEST=0: the container test is turned off", allow_module_level=True)
if shutil.which("podman") is None:
    pytest.skip(
        "podman is not installed: `make test` installs it (as root with apt), or install podman and runc",
        allow_module_level=True,
    )


def podman(*args: str, timeout: float = 60, check: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(["podman", *args], capture_output=True, text=True, timeout=timeout)
    if check and done.returncode != 0:
        pytest.fail(f"podman {' '.join(args[:2])} failed ({done.returncode}):\n{done.stderr[-4000:]}", pytrace=False)
    return done


def runtime() -> list[str]:
    """runc where installed (the OCI runtime these tests were written against), else podman's default."""
    return ["--runtime", "runc"] if shutil.which("runc") else []


def base_image() -> str:
    if chosen := os.environ.get("MAZZIERE_BASE_IMAGE"):
        return chosen
    if podman("image", "exists", DEFAULT_BASE, check=False).returncode == 0:
        return DEFAULT_BASE
    if podman("pull", "--quiet", DEFAULT_BASE, timeout=300, check=False).returncode == 0:
        return DEFAULT_BASE
    if os.geteuid() != 0 or shutil.which("debootstrap") is None:
        pytest.skip(f"{DEFAULT_BASE} cannot be pulled, and deploy/base-image.sh needs root and debootstrap")
    done = subprocess.run([str(ROOT / "deploy" / "base-image.sh")], capture_output=True, text=True, timeout=1200)
    if done.returncode != 0:
        pytest.fail(f"deploy/base-image.sh failed:\n{done.stderr[-4000:]}", pytrace=False)
    return done.stdout.strip().splitlines()[-1]


@pytest.fixture(scope="module")
def image() -> str:
    """The image built from this checkout (podman's layer cache makes a rebuild of unchanged code quick)."""
    tag = f"localhost/mazziere-test:{hashlib.sha256(str(ROOT).encode()).hexdigest()[:12]}"
    build = ["build", *runtime(), "--isolation=chroot", "--quiet", "-f", "deploy/Dockerfile"]
    podman(*build, "--build-arg", f"PYTHON_IMAGE={base_image()}", "-t", tag, str(ROOT), timeout=1200)
    return tag


@dataclass
class Container:
    name: str
    keyring: Keyring
    grpc_port: int
    rest_port: int
    metrics_port: int

    def logs(self) -> str:
        done = podman("logs", self.name, check=False)
        return done.stdout + done.stderr


def host_port(name: str, port: int) -> int:
    """The host port podman picked for the container's ``port`` (published as 127.0.0.1::port)."""
    return int(podman("port", name, f"{port}/tcp").stdout.strip().splitlines()[0].rsplit(":", 1)[1])


def wait_ready(container: Container, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            if httpx.get(f"http://127.0.0.1:{container.rest_port}/readyz", timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            pass
        state = podman("inspect", "--format", "{{.State.Status}}", container.name).stdout.strip()
        if state != "running" or time.monotonic() > deadline:
            pytest.fail(f"the container is {state}, not ready:\n{container.logs()[-4000:]}", pytrace=False)
        time.sleep(0.2)


@pytest.fixture(scope="module")
def container(image: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Container]:
    key = new_key_entry()
    keys_file = tmp_path_factory.mktemp("keys") / "seal-keys"
    keys_file.write_text(key + "\n")
    keys_file.chmod(0o644)
    name = f"mazziere-test-{os.getpid()}"
    podman(
        "run", *runtime(), "--detach", "--name", name,
        "--ulimit", "nofile=1024:1024", "--ulimit", "nproc=1024:1024",
        "--read-only", "--read-only-tmpfs=false", "--cap-drop=ALL", "--security-opt=no-new-privileges",
        "--volume", f"{keys_file}:{KEYS_PATH}:ro",
        "--env", f"MAZZIERE_SEAL_KEYS_FILE={KEYS_PATH}",
        "--publish", "127.0.0.1::50051", "--publish", "127.0.0.1::8080", "--publish", "127.0.0.1::9090",
        image,
    )  # fmt: skip
    try:
        running = Container(
            name, Keyring.parse(key), host_port(name, 50051), host_port(name, 8080), host_port(name, 9090)
        )
        wait_ready(running)
        yield running
    finally:
        podman("rm", "--force", "--time", "0", name, check=False)


@pytest.fixture(scope="module")
def channel(container: Container) -> Iterator[grpc.Channel]:
    with grpc.insecure_channel(f"127.0.0.1:{container.grpc_port}") as opened:
        yield opened


def test_the_image_runs_as_its_unprivileged_user_with_the_documented_command(image: str) -> None:
    fmt = "{{.Config.User}} {{json .Config.Entrypoint}} {{json .Config.Cmd}} {{.Config.StopSignal}}"
    assert podman("image", "inspect", "--format", fmt, image).stdout.split() == [
        USER, '["mazziere"]', '["serve"]', "SIGTERM"
    ]  # fmt: skip


def test_the_server_process_is_not_root(container: Container) -> None:
    uid = podman("exec", container.name, "python", "-c", "import os; print(os.getuid(), os.getgid())").stdout
    assert uid.split() == USER.split(":")


def test_a_game_plays_to_its_end_over_grpc(container: Container, channel: grpc.Channel) -> None:
    client = Client(service_pb2_grpc.TableServiceStub(channel), container.keyring)
    table = client.create("sette_e_mezzo")
    for _ in client.steps(table, random.Random(7), limit=1000):
        pass
    assert table.is_over
    assert engine.is_over(client.unseal(table.state))


def test_a_game_plays_to_its_end_over_rest(container: Container) -> None:
    with httpx.Client(base_url=f"http://127.0.0.1:{container.rest_port}", timeout=10) as http:
        api = Api(http, container.keyring)
        table = api.create("sette_e_mezzo")
        for _ in api.steps(table, random.Random(7), limit=1000):
            pass
        assert table.is_over
        assert engine.is_over(api.unseal(table.state))
        unknown = http.post("/v1/tables", json={"game": "briscola", "seats": [{"name": "a", "chips": "5"}] * 2})
        assert unknown.status_code == 400, unknown.text


def test_both_health_checks_say_serving(container: Container, channel: grpc.Channel) -> None:
    answer = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(service=""), timeout=10)
    assert answer.status == health_pb2.HealthCheckResponse.SERVING
    assert httpx.get(f"http://127.0.0.1:{container.rest_port}/healthz", timeout=10).status_code == 200


def test_the_metrics_count_the_calls_beside_the_process_series(container: Container) -> None:
    text = httpx.get(f"http://127.0.0.1:{container.metrics_port}/metrics", timeout=10).text
    found = names(text)
    assert set(STANDARD) <= found
    assert not [n for n in found if n.endswith("_created")]
    handled = [line for line in text.splitlines() if line.startswith("grpc_server_handled_total{")]
    assert [line for line in handled if 'grpc_method="CreateTable"' in line and 'grpc_code="OK"' in line], handled


def test_sigterm_stops_the_server_cleanly(container: Container) -> None:
    """Last in this module: the container stops here."""
    podman("kill", "--signal", "TERM", container.name)
    code = podman("wait", container.name, timeout=120).stdout.strip()
    logs = container.logs()
    assert code == "0", logs[-4000:]
    assert '"event": "shutting_down"' in logs
    assert '"event": "stopped"' in logs
    assert "Traceback" not in logs
