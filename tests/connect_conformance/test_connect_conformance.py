"""The official Connect conformance suite against the Connect and gRPC-Web layer, in server mode.

``connectconformance`` (the Go module ``connectrpc.com/conformance``, pinned and built into ``.venv/bin`` by
``make test``) starts ``tests/connect_conformance/server.py`` for each protocol and sends it every case that the
features claimed in ``config.yaml`` select, with its reference client; every one must pass (no case is listed as
known to fail). The suite's protos ship inside its module: their Python code is generated here, into a temporary
folder, with grpcio-tools.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from grpc_tools import protoc

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
MODULE = "connectrpc.com/conformance"
PROTOS = ["config.proto", "service.proto", "server_compat.proto"]
"""The suite's files the server needs (the service, and the messages of its start-up exchange)."""
GO_ENV = {"GOTOOLCHAIN": "local", "GOFLAGS": "-mod=mod"}
TIMEOUT_SECONDS = 300


def runner() -> Path:
    """The pinned ``connectconformance`` that ``make test`` builds beside this Python (or $CONNECTCONFORMANCE)."""
    found = os.environ.get("CONNECTCONFORMANCE") or str(Path(sys.executable).parent / "connectconformance")
    if not Path(found).is_file():
        pytest.fail(
            "no connectconformance: run `make test` (it builds the pinned one with Go into .venv/bin), "
            "or set CONNECTCONFORMANCE=/path/to/connectconformance",
            pytrace=False,
        )
    return Path(found)


def suite_protos(binary: Path, tmp: Path) -> Path:
    """The ``proto`` folder of the module at the runner's own version, from Go's module cache."""
    version = subprocess.run([binary, "--version"], capture_output=True, text=True, check=True).stdout.split()[-1]
    go = shutil.which("go")
    if go is None:
        pytest.fail("Go is needed to find the conformance suite's protos (in its module)", pytrace=False)
    done = subprocess.run(
        [go, "mod", "download", "-json", f"{MODULE}@{version}"],
        capture_output=True,
        text=True,
        cwd=tmp,
        env={**os.environ, **GO_ENV},
        timeout=TIMEOUT_SECONDS,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return Path(json.loads(done.stdout)["Dir"]) / "proto"


def generate(protos: Path, out: Path) -> None:
    files = [f"connectrpc/conformance/v1/{name}" for name in PROTOS]
    include = Path(protoc.__file__).parent / "_proto"
    assert protoc.main(["protoc", f"-I{protos}", f"-I{include}", f"--python_out={out}", *files]) == 0


def test_the_connect_and_grpc_web_layer_passes_every_claimed_case(
    tmp_path: Path, summary: Callable[[str], None]
) -> None:
    binary = runner()
    generated = tmp_path / "gen"
    generated.mkdir()
    generate(suite_protos(binary, tmp_path), generated)
    command: list[str | Path] = [binary, "--mode", "server", "-v", "--conf", HERE / "config.yaml", "--"]
    server: list[str | Path] = [sys.executable, "-m", "tests.connect_conformance.server", generated]
    done = subprocess.run(
        [*command, *server], capture_output=True, text=True, cwd=ROOT, timeout=TIMEOUT_SECONDS, check=False
    )
    output = done.stdout + done.stderr
    total = re.search(r"^(\d+) passed, (\d+) failed$", output, re.MULTILINE)
    assert done.returncode == 0 and total is not None and total[2] == "0", output
    protocols = re.findall(r"^Running (\d+) tests .*\{HTTP_VERSION_1, PROTOCOL_(\w+), TLS:false\}", output, re.M)
    assert {name for _, name in protocols} == {"CONNECT", "GRPC_WEB"}, output
    counts = ", ".join(f"{name}: {n} passed" for n, name in protocols)
    summary(f"Connect conformance ({binary.name} server mode): {counts}; {total[1]} passed, 0 failed")
