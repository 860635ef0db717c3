"""The Go client's module asks of its consumers only what it needs: the oldest Go it builds with, and no tools.

Its ``go`` line is the newest of its requirements' own (a consumer's Go can be no older than theirs, and need be no
newer), and it builds with that Go; the code generators (``tool`` lines) live in clients/go/tools, a module of
their own, so a program that requires the client has none of their requirements in its module graph.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.clients.test_generated_code import GO_CLIENT, MODULE

TOOLS = GO_CLIENT / "tools"
GENERATORS = ("google.golang.org/grpc/cmd/protoc-gen-go-grpc", "google.golang.org/protobuf/cmd/protoc-gen-go")
ENV = {**os.environ, "GOTOOLCHAIN": "local", "GOFLAGS": "-mod=mod"}


def go(folder: Path, *args: str, env: dict[str, str] = ENV) -> str:
    if shutil.which("go") is None:
        pytest.skip("Go is not installed")
    done = subprocess.run(["go", *args], cwd=folder, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return done.stdout


def version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def go_line(folder: Path) -> str:
    (line,) = [line for line in (folder / "go.mod").read_text().splitlines() if line.startswith("go ")]
    return line.removeprefix("go ").strip()


def test_the_go_line_is_the_newest_of_the_requirements() -> None:
    """The build list's modules and the Go each declares: the client's own is the newest of theirs."""
    listed = go(GO_CLIENT, "list", "-m", "-f", "{{.Path}}|{{.GoVersion}}|{{.Main}}", "all").splitlines()
    required = {}
    for line in listed:
        path, version, main = line.split("|")
        if main != "true" and version:  # a module without a go line asks for no Go of its own
            required[path] = version
    newest = max(required.values(), key=version_key)
    assert go_line(GO_CLIENT) == newest, f"go.mod says {go_line(GO_CLIENT)}, its requirements need {newest}"
    assert "google.golang.org/grpc" in required


def test_it_builds_and_vets_with_the_go_its_line_names() -> None:
    """GOTOOLCHAIN=goX.Y.Z: the build uses exactly that Go (the local one if it is that, else the toolchain Go
    fetches as a module); skipped where neither is at hand."""
    wanted = f"go{go_line(GO_CLIENT)}"
    local = go(GO_CLIENT, "env", "GOVERSION").strip()
    env = {**ENV, "GOTOOLCHAIN": wanted if local != wanted else "local"}
    done = subprocess.run(["go", "version"], cwd=GO_CLIENT, env=env, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        pytest.skip(f"{wanted} is not at hand: {done.stderr.strip()}")
    assert wanted in done.stdout, done.stdout
    go(GO_CLIENT, "build", "./...", env=env)
    go(GO_CLIENT, "vet", "./...", env=env)


def test_the_tools_are_a_module_of_their_own() -> None:
    client = (GO_CLIENT / "go.mod").read_text()
    assert "tool " not in client and "tool (" not in client, "clients/go/go.mod names no tool"
    tools = go(TOOLS, "list", "-f", "{{.ImportPath}}", "tool").split()
    assert sorted(tools) == sorted(GENERATORS)
    assert go_line(TOOLS) == go_line(GO_CLIENT)


def test_a_consumer_graph_has_no_tool_requirements(tmp_path: Path) -> None:
    """A program that requires the client (through a replace, as from a clone) has no generator in its graph."""
    app = tmp_path / "app"
    app.mkdir()
    (app / "main.go").write_text(f'package main\n\nimport _ "{MODULE}"\n\nfunc main() {{}}\n')
    go(app, "mod", "init", "example.com/app")
    go(app, "mod", "edit", f"-require={MODULE}@v0.0.0", f"-replace={MODULE}={GO_CLIENT}")
    shutil.copy(GO_CLIENT / "go.sum", app / "go.sum")  # the client's checksums: nothing to look up
    go(app, "mod", "tidy")
    graph = go(app, "mod", "graph")
    assert MODULE in graph
    assert "protoc-gen-go-grpc" not in graph, graph
    go(app, "build", ".")
