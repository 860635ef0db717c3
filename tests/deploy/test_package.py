"""The server's package installs and serves at the floors of its dependency ranges (pyproject.toml), and at the
newest versions the registry has.

The package is built as a wheel from this checkout (pure Python, with the generated code ``make setup`` wrote) and
installed into a new virtual environment with each direct dependency held at its floor (pip's constraints; what
they need in turn resolves as pip resolves it), from the registry pip is set up for; or, with
``MAZZIERE_PACKAGE_NEWEST=1`` (``make bench`` sets it: the newest versions change from one day to the next, so
``make test`` does not depend on them), with every dependency at the newest version pip resolves. ``pip check``
finds nothing broken, and ``mazziere serve`` answers a REST call and a refusal there. The locks' versions are the
ones every other test runs on.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import tomllib
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from packaging.requirements import Requirement

from tests.ports import free_port

pytestmark = pytest.mark.long  # minutes, mostly downloads: `make test` starts it first
ROOT = Path(__file__).resolve().parents[2]
INSTALL_SECONDS = 900
"""A bound on the install (downloads included), above the 6 minutes the whole test took here with a cold pip cache
on a loaded machine; not a speed check."""


def floors() -> list[str]:
    """``name==floor`` for each dependency of the server that applies here: the version its ``>=`` names."""
    found = []
    for text in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]:
        requirement = Requirement(text)
        if requirement.marker is not None and not requirement.marker.evaluate():
            continue
        (floor,) = [spec.version for spec in requirement.specifier if spec.operator == ">="]
        found.append(f"{requirement.name}=={floor}")
    return found


def run(*args: str | Path, timeout: float = INSTALL_SECONDS) -> str:
    done = subprocess.run([str(arg) for arg in args], capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{' '.join(map(str, args))}:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def call(url: str, body: bytes | None = None) -> tuple[int, Any]:
    """GET ``url`` (POST ``body`` as JSON if given): the status and the JSON answer."""
    request = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=5) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read())


def installed_versions(bin_dir: Path) -> dict[str, str]:
    listed = json.loads(run(bin_dir / "python", "-m", "pip", "list", "--format", "json"))
    return {entry["name"].lower().replace("_", "-"): entry["version"] for entry in listed}


NEWEST = os.environ.get("MAZZIERE_PACKAGE_NEWEST") == "1"
"""Set by ``make bench``: the newest versions are tried too (``make test`` stays at the floors and the locks)."""


@pytest.fixture(scope="module", params=["floors", "newest"] if NEWEST else ["floors"])
def installed(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    """A virtual environment with the server's wheel and its dependencies at their floors, or at the newest
    versions: which, and its bin folder."""
    versions: str = request.param
    if not (ROOT / "services" / "gen" / ".generated").exists():
        pytest.skip("no generated code: run `make setup`")
    scratch = tmp_path_factory.mktemp(f"package-{versions}")
    run(sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "-w", scratch, ROOT)
    (wheel,) = scratch.glob("mazziere-*.whl")
    venv = scratch / "venv"
    run(sys.executable, "-m", "venv", venv)
    bin_dir = venv / "bin"
    if versions == "floors":
        constraints = scratch / "floors.txt"
        constraints.write_text("\n".join(floors()) + "\n")
        run(bin_dir / "python", "-m", "pip", "install", "--quiet", "--constraint", constraints, wheel)
    else:
        run(bin_dir / "python", "-m", "pip", "install", "--quiet", "--upgrade", "--upgrade-strategy", "eager", wheel)
        newest = installed_versions(bin_dir)
        print("the newest versions:", ", ".join(f"{name} {newest[name]}" for name in sorted(newest)))
    return versions, bin_dir


def test_the_floors_are_installed_and_pip_check_passes(installed: tuple[str, Path]) -> None:
    versions, bin_dir = installed
    if versions == "floors":
        found = installed_versions(bin_dir)
        for pin in floors():
            name, version = pin.split("==")
            assert found[Requirement(name).name.lower()] == version, pin
    run(bin_dir / "python", "-m", "pip", "check")


def test_the_server_serves(installed: tuple[str, Path], tmp_path: Path) -> None:
    """``mazziere serve`` from the environment: ListGames over REST, and a typed refusal."""
    bin_dir = installed[1]
    rest = free_port()
    env = {
        **os.environ,
        "MAZZIERE_HOST": "127.0.0.1",
        "MAZZIERE_REST_HOST": "127.0.0.1",
        "MAZZIERE_PORT": str(free_port()),
        "MAZZIERE_REST_PORT": str(rest),
        "MAZZIERE_METRICS_PORT": str(free_port()),
        "MAZZIERE_DATA_DIR": str(tmp_path),
    }
    server = subprocess.Popen(
        [bin_dir / "mazziere", "serve"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                status, games = call(f"http://127.0.0.1:{rest}/v1/games")
                break
            except (urllib.error.URLError, ConnectionError):
                assert server.poll() is None, server.stderr.read() if server.stderr else ""
                assert time.monotonic() < deadline, "the server did not answer within a minute"
                time.sleep(0.25)
        assert status == 200
        assert {game["id"] for game in games["games"]} >= {"sette_e_mezzo", "saltacavallo", "trentuno"}
        status, refusal = call(f"http://127.0.0.1:{rest}/v1/tables", body=b"{")
        assert status == 400 and refusal["error"]["status"] == "INVALID_ARGUMENT", refusal
    finally:
        server.terminate()
        server.wait(timeout=30)
