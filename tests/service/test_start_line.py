"""What ``mazziere serve`` says at start: a line a person reads on a terminal (where to play, the API's docs, the
gRPC port, where tables are kept), JSON lines only otherwise; and invite links that follow the REST port served
when ``MAZZIERE_PUBLIC_URL`` is not set."""

from __future__ import annotations

import json
import os
import pty
import select
import shutil
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.ports import free_port
from tests.service.conftest import KEYS
from tests.service.test_process import ROOT

EXE = shutil.which("mazziere", path=str(Path(sys.executable).parent)) or "mazziere"


def env(tmp_path: Path, rest_port: int, **settings: str) -> dict[str, str]:
    """An embedded server on 127.0.0.1 whose REST port alone is changed (no ``MAZZIERE_PUBLIC_URL``)."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("MAZZIERE_")}
    return {
        **clean,
        "MAZZIERE_HOST": "127.0.0.1",
        "MAZZIERE_PORT": str(free_port()),
        "MAZZIERE_METRICS_PORT": "0",
        "MAZZIERE_REST_PORT": str(rest_port),
        "MAZZIERE_SEAL_KEYS": KEYS,
        "MAZZIERE_DATA_DIR": str(tmp_path),
        **{f"MAZZIERE_{name.upper()}": value for name, value in settings.items()},
    }


def wait_ready(port: int, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        assert proc.poll() is None, "the server stopped at start"
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=2).read()
            return
        except OSError:
            time.sleep(0.1)
    pytest.fail("the server did not become ready")


@contextmanager
def stopped(proc: subprocess.Popen[bytes]) -> Iterator[subprocess.Popen[bytes]]:
    try:
        yield proc
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def read_until(fd: int, text: bytes, seconds: float = 30) -> bytes:
    """What the terminal shows until ``text`` appears."""
    seen = b""
    deadline = time.monotonic() + seconds
    while text not in seen and time.monotonic() < deadline:
        if select.select([fd], [], [], 0.2)[0]:
            try:
                seen += os.read(fd, 65536)
            except OSError:  # the other end closed
                break
    return seen


def test_on_a_terminal_the_server_says_where_to_play(tmp_path: Path) -> None:
    port = free_port()
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [EXE, "serve"], env=env(tmp_path, port, rest_host="127.0.0.1"), cwd=ROOT, stdout=follower, stderr=follower
    )
    os.close(follower)
    with stopped(proc):
        shown = read_until(leader, b"Ctrl-C").decode(errors="replace")
    os.close(leader)
    base = f"http://127.0.0.1:{port}"
    assert f"Mazziere is serving. Play at {base}/play" in shown, shown
    assert f"API docs at {base}/docs" in shown and "gRPC on port" in shown and str(tmp_path) in shown
    assert '{"' not in shown, "a terminal gets lines a person reads, not JSON"


def test_without_a_terminal_only_json_lines_and_no_start_line(tmp_path: Path) -> None:
    port = free_port()
    proc = subprocess.Popen(
        [EXE, "serve"],
        env=env(tmp_path, port, rest_host="127.0.0.1"),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    with stopped(proc):
        wait_ready(port, proc)
    out, err = proc.communicate(timeout=20)
    assert out == b""
    lines = err.decode().splitlines()
    assert lines and all(json.loads(line) for line in lines), lines
    assert "rest_serving" in {json.loads(line)["event"] for line in lines}


def test_changing_the_rest_port_alone_gives_invite_links_that_open(tmp_path: Path) -> None:
    """Served on every address with no MAZZIERE_PUBLIC_URL: links name localhost at the port served (and a warning
    says they reach this machine only); each link reaches the port served."""
    port = free_port()
    proc = subprocess.Popen(
        [EXE, "serve"], env=env(tmp_path, port), cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    with stopped(proc):
        wait_ready(port, proc)
        body = {"game": "trentuno", "seats": [{"name": n, "chips": "20"} for n in ("Anna", "Bruno", "Carla")]}
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/mazziere.v1.HostService/OpenTable",
            json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
        )
        opened = json.load(urllib.request.urlopen(request, timeout=30))
        urls = [invite["url"] for invite in opened["invites"]]
        assert urls and all(url.startswith(f"http://localhost:{port}/play/#table=") for url in urls), urls
        origin = urls[0].split("/play/")[0].replace("localhost", "127.0.0.1")  # this machine's browser's view
        assert urllib.request.urlopen(f"{origin}/readyz", timeout=10).status == 200
    _, err = proc.communicate(timeout=20)
    events = [json.loads(line) for line in err.decode().splitlines()]
    [warning] = [e for e in events if e["event"] == "PUBLIC_URL_THIS_MACHINE_ONLY"]
    assert warning["public_url"] == f"http://localhost:{port}" and "MAZZIERE_PUBLIC_URL" in warning["message"]
