"""Generated code: the root `buf generate` works with what the Makefile installs, the Go client's code in git is
what the protos make, and `go get` fetches the Go client as a library.

``clients/go/gen/`` is kept in git so that a Go project can depend on the module without generating anything.
These tests regenerate it into a temporary folder with the pinned plugins (``make clients`` builds them) and
compare, then fetch the module the way a consumer would, from a git repository, into a new module that builds.
"""

from __future__ import annotations

import filecmp
import os
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GO_CLIENT = ROOT / "clients" / "go"
BUF = ROOT / "node_modules" / ".bin" / "buf"
MODULE = "github.com/mazziere/mazziere/clients/go"
REPOSITORY = "https://github.com/mazziere/mazziere"


def needs(*tools: Path | str) -> None:
    for tool in tools:
        if not (Path(tool).exists() if isinstance(tool, Path) else shutil.which(tool)):
            pytest.skip(f"{tool} is missing: `make clients` (Go and Node.js) builds what this test needs")


def differences(left: Path, right: Path) -> list[str]:
    """Paths, relative to ``left``, of files that differ or exist on one side only."""
    out: list[str] = []

    def walk(cmp: filecmp.dircmp[str], prefix: str) -> None:
        out.extend(prefix + name for name in cmp.left_only + cmp.right_only + cmp.diff_files + cmp.funny_files)
        for name, sub in cmp.subdirs.items():
            walk(sub, f"{prefix}{name}/")

    walk(filecmp.dircmp(left, right), "")
    return sorted(out)


def test_buf_generate_at_the_root_needs_no_protoc(tmp_path: Path) -> None:
    """buf.gen.yaml's built-in generators run the protoc that grpcio-tools ships in the virtual environment."""
    needs(BUF, ROOT / ".venv" / "bin" / "python")
    env = {**os.environ, "PATH": "/usr/bin:/bin"}  # no protoc of the machine's own
    subprocess.run([str(BUF), "generate", "--output", str(tmp_path)], cwd=ROOT, env=env, check=True)
    made = tmp_path / "build" / "gen" / "python" / "mazziere" / "v1"
    assert {p.name for p in made.glob("service_pb2.py*")} == {"service_pb2.py", "service_pb2.pyi"}


def test_go_generated_code_in_git_matches_the_protos(tmp_path: Path) -> None:
    needs(BUF, GO_CLIENT / ".bin" / "protoc-gen-go", GO_CLIENT / ".bin" / "protoc-gen-go-grpc")
    subprocess.run([str(BUF), "generate", "--output", str(tmp_path)], cwd=GO_CLIENT, check=True)
    stale = differences(GO_CLIENT / "gen", tmp_path / "gen")
    assert not stale, f"clients/go/gen is stale, run `make generate-go` and commit: {stale}"


def test_go_get_fetches_the_client_from_a_clone(tmp_path: Path) -> None:
    """A consumer's `go get` of the module from a git clone (standing in for the repository) builds against it.

    The clone is tagged as a release tags the repository: a module in the subfolder clients/go takes its version
    from the tags ``clients/go/vX.Y.Z`` (the release's version, the root pyproject.toml's), so ``@latest`` is it.
    """
    needs("go", "git")
    clone = tmp_path / "mazziere"
    shutil.copytree(GO_CLIENT, clone / "clients" / "go", ignore=shutil.ignore_patterns(".bin"))
    git = ["git", "-c", "user.name=test", "-c", "user.email=test@example.invalid"]
    subprocess.run(["git", "init", "-q", "-b", "main", str(clone)], check=True)
    subprocess.run([*git, "-C", str(clone), "add", "."], check=True)
    subprocess.run([*git, "-C", str(clone), "commit", "-q", "-m", "client"], check=True)
    version = "v" + tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    subprocess.run(["git", "-C", str(clone), "tag", f"clients/go/{version}"], check=True)

    app = tmp_path / "app"
    app.mkdir()
    (app / "main.go").write_text(
        "package main\n\n"
        'import (\n\t"fmt"\n\n'
        f'\tmazziere "{MODULE}"\n\tmazzierev1 "{MODULE}/gen/mazziere/v1"\n)\n\n'
        "func main() {\n"
        '\treq := &mazzierev1.CreateTableRequest{Game: "trentuno"}\n'
        "\tfmt.Println(req.GetGame(), mazziere.ErrorDomain, mazzierev1.TableService_ServiceDesc.ServiceName)\n"
        "}\n"
    )
    env = {
        **os.environ,
        "GOTOOLCHAIN": "local",
        "GOFLAGS": "-mod=mod",
        "GOPRIVATE": "github.com/mazziere",  # fetched straight from git, never the proxy or the checksum database
        "GIT_CONFIG_COUNT": "2",
        "GIT_CONFIG_KEY_0": f"url.{clone.as_uri()}.insteadOf",
        "GIT_CONFIG_VALUE_0": REPOSITORY,
        "GIT_CONFIG_KEY_1": "protocol.file.allow",
        "GIT_CONFIG_VALUE_1": "always",
    }

    def go(*args: str) -> str:
        done = subprocess.run(["go", *args], cwd=app, env=env, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr
        return done.stdout

    go("mod", "init", "example.com/app")
    go("get", f"{MODULE}@latest")
    assert go("run", ".").split() == ["trentuno", "mazziere.v1", "mazziere.v1.TableService"]
    assert f"{MODULE} {version}" in (app / "go.mod").read_text()
