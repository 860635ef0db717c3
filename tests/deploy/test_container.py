"""The image itself: built from deploy/Dockerfile with podman, run read-only as its unprivileged user, played.

The Python base is $MAZZIERE_BASE_IMAGE, the Node base (the web table's build stage) $MAZZIERE_NODE_IMAGE, else
each the Dockerfile's default if podman has it or can pull it, else a local Debian made by deploy/base-image.sh
(root and debootstrap; cached by a hash of its recipe). The container runs as Kubernetes runs it (deploy/k8s):
read-only root with no writable /tmp, every capability dropped, the sealing key in a mounted read-only file, the
data directory (the host's SQLite store) on a volume. Tests play a game over gRPC and over REST, load the web
table, open a hosted table over Connect and play a move on it, ask both health checks, scrape the metrics, then
SIGTERM the container and expect a clean exit; a second container on the same volume finds the table as it was
left. Skipped where podman is absent, or with MAZZIERE_CONTAINER_TEST=0 (``make test CONTAINER_TEST=0``).
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
from typing import Any

import grpc
import httpx
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from mazziere import engine
from mazziere.services.gen.mazziere.v1 import service_pb2_grpc
from mazziere.services.table.sealing import Keyring, new_key_entry
from tests.gateway.helpers import Api
from tests.service.helpers import Client
from tests.service.test_metrics import STANDARD, names

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_BASE = "python:3.11-slim-bookworm"
DEFAULT_NODE = "node:22-bookworm-slim"
USER = "10001:10001"
KEYS_PATH = "/etc/mazziere/seal-keys"
DATA_DIR = "/var/lib/mazziere"
CAPABILITY = "x-table-capability"
HOST_SERVICE = "/mazziere.v1.HostService"

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


def base_image(variable: str = "MAZZIERE_BASE_IMAGE", default: str = DEFAULT_BASE, kind: str = "python") -> str:
    """A base for the Dockerfile: ``$variable``, else ``default`` if podman has it or can pull it, else
    ``deploy/base-image.sh kind``."""
    if chosen := os.environ.get(variable):
        return chosen
    if podman("image", "exists", default, check=False).returncode == 0:
        return default
    if podman("pull", "--quiet", default, timeout=300, check=False).returncode == 0:
        return default
    if os.geteuid() != 0 or shutil.which("debootstrap") is None:
        pytest.skip(f"{default} cannot be pulled, and deploy/base-image.sh needs root and debootstrap")
    script = [str(ROOT / "deploy" / "base-image.sh"), kind]
    done = subprocess.run(script, capture_output=True, text=True, timeout=1200)
    if done.returncode != 0:
        pytest.fail(f"deploy/base-image.sh {kind} failed:\n{done.stderr[-4000:]}", pytrace=False)
    return done.stdout.strip().splitlines()[-1]


@pytest.fixture(scope="module")
def image() -> str:
    """The image built from this checkout (podman's layer cache makes a rebuild of unchanged code quick)."""
    tag = f"localhost/mazziere-test:{hashlib.sha256(str(ROOT).encode()).hexdigest()[:12]}"
    build = ["build", *runtime(), "--isolation=chroot", "--quiet", "-f", "deploy/Dockerfile"]
    bases = [
        *("--build-arg", f"PYTHON_IMAGE={base_image()}"),
        *("--build-arg", f"NODE_IMAGE={base_image('MAZZIERE_NODE_IMAGE', DEFAULT_NODE, 'node')}"),
    ]
    podman(*build, *bases, "-t", tag, str(ROOT), timeout=1800)
    return tag


@dataclass
class Container:
    name: str
    keyring: Keyring
    grpc_port: int
    rest_port: int
    metrics_port: int
    volume: str
    keys_file: Path

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


def start(image: str, name: str, keys_file: Path, volume: str) -> Container:
    """The image run as Kubernetes runs it, its data directory (MAZZIERE_DATA_DIR, the image's default) on
    ``volume``, the only place it may write."""
    podman(
        "run", *runtime(), "--detach", "--name", name,
        "--ulimit", "nofile=1024:1024", "--ulimit", "nproc=1024:1024",
        "--read-only", "--read-only-tmpfs=false", "--cap-drop=ALL", "--security-opt=no-new-privileges",
        "--volume", f"{keys_file}:{KEYS_PATH}:ro",
        "--volume", f"{volume}:{DATA_DIR}",
        "--env", f"MAZZIERE_SEAL_KEYS_FILE={KEYS_PATH}",
        "--publish", "127.0.0.1::50051", "--publish", "127.0.0.1::8080", "--publish", "127.0.0.1::9090",
        image,
    )  # fmt: skip
    keyring = Keyring.from_config("", str(keys_file))
    assert keyring is not None
    running = Container(
        name, keyring, host_port(name, 50051), host_port(name, 8080), host_port(name, 9090), volume, keys_file
    )
    wait_ready(running)
    return running


@pytest.fixture(scope="module")
def volume() -> Iterator[str]:
    """A named volume: empty, it takes the image's folder (owned by the image's user) when first mounted."""
    name = f"mazziere-test-data-{os.getpid()}"
    podman("volume", "create", name)
    try:
        yield name
    finally:
        podman("volume", "rm", "--force", name, check=False)


@pytest.fixture(scope="module")
def container(image: str, volume: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Container]:
    keys_file = tmp_path_factory.mktemp("keys") / "seal-keys"
    keys_file.write_text(new_key_entry() + "\n")
    keys_file.chmod(0o644)
    name = f"mazziere-test-{os.getpid()}"
    try:
        yield start(image, name, keys_file, volume)
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


SHORT_STACK = 20
"""Chips a seat brings to a game played to its end: random play then ends in about 200 moves (at 50 chips, 900)."""


def test_a_game_plays_to_its_end_over_grpc(container: Container, channel: grpc.Channel) -> None:
    client = Client(service_pb2_grpc.TableServiceStub(channel), container.keyring)
    table = client.create("sette_e_mezzo", chips=SHORT_STACK)
    for _ in client.steps(table, random.Random(7), limit=1000):
        pass
    assert table.is_over
    assert engine.is_over(client.unseal(table.state))


def test_a_game_plays_to_its_end_over_rest(container: Container) -> None:
    with httpx.Client(base_url=f"http://127.0.0.1:{container.rest_port}", timeout=10) as http:
        api = Api(http, container.keyring)
        table = api.create("sette_e_mezzo", chips=SHORT_STACK)
        for _ in api.steps(table, random.Random(7), limit=1000):
            pass
        assert table.is_over
        assert engine.is_over(api.unseal(table.state))
        unknown = http.post("/v1/tables", json={"game": "briscola", "seats": [{"name": "a", "chips": "5"}] * 2})
        assert unknown.status_code == 400, unknown.text


def test_the_web_table_is_served_at_play(container: Container) -> None:
    with httpx.Client(base_url=f"http://127.0.0.1:{container.rest_port}", timeout=10) as http:
        page = http.get("/play", follow_redirects=True)
        assert page.status_code == 200 and page.url.path == "/play/"
        assert page.headers["content-type"].startswith("text/html")
        assert page.text == (ROOT / "clients" / "web" / "src" / "index.html").read_text(), "this checkout's page"
        script = http.get("/play/app.js")
        assert script.status_code == 200 and "javascript" in script.headers["content-type"]
        assert len(script.content) > 10_000, "the bundle"


@dataclass
class HostedTable:
    table_id: str
    invites: dict[int, str]
    seq: int


def connect(http: httpx.Client, method: str, body: dict[str, Any], capability: str = "") -> dict[str, Any]:
    """One HostService call over Connect (unary, JSON)."""
    headers = {CAPABILITY: capability} if capability else {}
    answer = http.post(f"{HOST_SERVICE}/{method}", json=body, headers=headers)
    assert answer.status_code == 200, f"{method}: {answer.status_code} {answer.text}"
    assert answer.headers["content-type"].startswith("application/json")
    result: dict[str, Any] = answer.json()
    return result


def fields(message: Any) -> set[str]:
    """Every field name anywhere in a JSON message."""
    if isinstance(message, dict):
        return set(message).union(*(fields(value) for value in message.values()))
    if isinstance(message, list):
        return set().union(*(fields(item) for item in message))
    return set()


@pytest.fixture(scope="module")
def hosted_table(container: Container) -> HostedTable:
    """A table between two people opened on the container's host (its SQLite store on the volume), and the first
    move of the seat to act, played with that seat's invite."""
    with httpx.Client(base_url=f"http://127.0.0.1:{container.rest_port}", timeout=10) as http:
        seats = [{"name": "Anna", "chips": "10"}, {"name": "Bruno", "chips": "10"}]
        opened = connect(http, "OpenTable", {"game": "sette_e_mezzo", "seats": seats})
        table_id = opened["tableId"]
        invites = {int(i.get("seat", 0)): i["capability"] for i in opened["invites"]}
        assert sorted(invites) == [0, 1]
        for invite in opened["invites"]:
            assert invite["url"].startswith("http://localhost:8080/play/#table=" + table_id), invite["url"]
        assert not {"state", "seatKey", "seatKeys"} & fields(opened), "no state token or seat key leaves the host"
        seat = opened["update"]["toAct"][0]
        mine = connect(http, "GetHostedTable", {"tableId": table_id}, invites[seat])
        assert mine.get("seat", 0) == seat
        update = mine["update"]
        legal = update["update"]["legalActions"][0]
        action = {"seat": seat, "kind": legal["kind"], "amount": legal.get("minAmount", "0")}
        if legal.get("cards"):
            action["cards"] = legal["cards"]
        seq = int(update.get("seq", 0))  # canonical JSON leaves out a 0
        request = {"tableId": table_id, "expectedSeq": str(seq), "action": action}
        played = connect(http, "Play", request, invites[seat])["update"]
        assert int(played["seq"]) == seq + 1
        assert any(e["kind"] for e in played["update"].get("events", []))
        # A second move at the same seq is refused: exactly one lands.
        again = http.post(f"{HOST_SERVICE}/Play", json=request, headers={CAPABILITY: invites[seat]})
        assert again.status_code == 409 and again.json()["code"] == "aborted", again.text
        # Without the invite, nothing.
        refused = http.post(f"{HOST_SERVICE}/GetHostedTable", json={"tableId": table_id})
        assert refused.status_code == 403 and refused.json()["code"] == "permission_denied", refused.text
        return HostedTable(table_id, invites, int(played["seq"]))


def test_a_hosted_table_opens_and_takes_a_move_over_connect(hosted_table: HostedTable) -> None:
    assert hosted_table.seq >= 1


def test_the_host_keeps_its_store_on_the_volume(container: Container, hosted_table: HostedTable) -> None:
    mountpoint = Path(podman("volume", "inspect", "--format", "{{.Mountpoint}}", container.volume).stdout.strip())
    kept = {path.name: path.stat() for path in mountpoint.iterdir()}
    assert {"tables.db", "tables.db.lock"} <= set(kept), sorted(kept)
    assert "seal.keys" not in kept, "the keys come from the mounted file, so none is made here"
    uid, gid = (int(n) for n in USER.split(":"))
    assert all((s.st_uid, s.st_gid) == (uid, gid) for s in kept.values()), "written by the image's user"
    assert mountpoint.stat().st_uid == uid


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


def test_sigterm_stops_the_server_cleanly(container: Container, hosted_table: HostedTable) -> None:
    """The container stops here (only the restart below comes after)."""
    podman("kill", "--signal", "TERM", container.name)
    code = podman("wait", container.name, timeout=120).stdout.strip()
    logs = container.logs()
    assert code == "0", logs[-4000:]
    assert '"event": "shutting_down"' in logs
    assert '"event": "stopped"' in logs
    assert "Traceback" not in logs


def test_a_new_container_on_the_volume_finds_the_table(
    image: str, container: Container, hosted_table: HostedTable
) -> None:
    """After the stop above: the table, as the move left it, is in the store on the volume."""
    name = f"mazziere-test-{os.getpid()}-again"
    try:
        again = start(image, name, container.keys_file, container.volume)
        with httpx.Client(base_url=f"http://127.0.0.1:{again.rest_port}", timeout=10) as http:
            for seat, invite in hosted_table.invites.items():
                found = connect(http, "GetHostedTable", {"tableId": hosted_table.table_id}, invite)
                assert int(found["update"].get("seq", 0)) == hosted_table.seq and found.get("seat", 0) == seat
    finally:
        podman("rm", "--force", "--time", "0", name, check=False)
