"""The packages as a release builds them, each installed where a user would have it, and the version they carry.

The Python distributions, the server's (the root pyproject.toml) and the client's (clients/python), are built with
``python -m build`` (an sdist, then the wheel from that sdist, each in an isolated build environment) from a
snapshot of the checkout (every file git does not ignore, as it is now), and checked with ``twine check --strict``.
The server's wheel goes into a fresh venv beside its locked dependencies; the client's wheel and sdist into fresh
venvs of their own, from those files and a wheelhouse only (``--no-index``). The client's dependencies are ranges:
it plays a hand (clients/python/tests/hand.py) and runs its example against `mazziere serve` at the lowest versions
its metadata allows and at the newest the index has, each pinned by a constraints file. The TypeScript client is
packed with ``npm pack`` from a copy of its folder, installed into a fresh npm project with its dependencies, and a
small consumer is type-checked with tsc and plays a hand over gRPC and the Connect protocol.

Everything happens in temporary folders (nothing is written into the checkout), once per session. The builds need
the package index (pip's, PyPI by default) and the npm registry, or npm's cache: without them the tests skip and
say so. They are marked ``long``, so ``make test`` runs them beside the other tests: most of their time is spent
waiting for pip and npm, not on a core.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tarfile
import tomllib
import urllib.request
import zipfile
from dataclasses import dataclass
from email.parser import HeaderParser
from importlib import metadata
from pathlib import Path

import grpc
import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name, parse_wheel_filename

from mazziere.services.gen.mazziere.v1 import service_pb2 as svc
from mazziere.services.gen.mazziere.v1 import service_pb2_grpc
from tests.clients.test_clients import CLIENTS, ROOT, check_example, check_hand, run

BUILD_TOOLS = ("build==1.6.1", "twine==7.0.0")
"""The release tools, pinned here (they are in no lock file: only these tests use them)."""
CLIENT = CLIENTS / "python"
TYPESCRIPT = CLIENTS / "typescript"
NPM_UNREACHABLE = ("ENOTFOUND", "EAI_AGAIN", "ENETUNREACH", "ECONNREFUSED", "ETIMEDOUT", "ECONNRESET", "ENOTCACHED")
"""npm's words when it could not reach the registry and had nothing cached."""


def version_of(pyproject: Path) -> str:
    return str(tomllib.loads(pyproject.read_text())["project"]["version"])


RELEASE = version_of(ROOT / "pyproject.toml")
"""The release's version: every package carries it (test_every_package_carries_the_release_version)."""


def sh(command: list[str], cwd: Path, env: dict[str, str] | None = None, timeout: float = 600) -> str:
    """Runs ``command``; its stdout, or a failure with its whole output."""
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        pytest.fail(f"$ {shlex.join(command)}  (in {cwd})\n{done.stdout}\n{done.stderr}", pytrace=False)
    return done.stdout


def new_venv(folder: Path) -> Path:
    """A fresh venv without pip (the tests' own pip installs into it with ``--python``); its interpreter."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True, timeout=120)
    return folder / "bin" / "python"


def pip(python: Path, *args: str) -> str:
    """This venv's pip, installing into (or asking) the venv of ``python``."""
    return sh([sys.executable, "-m", "pip", "--python", str(python), *args], python.parents[1])


# -- versions ------------------------------------------------------------------------------------------------------


def test_every_package_carries_the_release_version() -> None:
    """One version for the release: the server's, the Python and TypeScript clients' and the changelog's newest
    release (the Go module's is its tag, clients/go/vX.Y.Z: test_generated_code.py fetches it by that tag)."""
    typescript = json.loads((TYPESCRIPT / "package.json").read_text())
    lock = json.loads((TYPESCRIPT / "package-lock.json").read_text())
    assert version_of(CLIENT / "pyproject.toml") == RELEASE
    assert typescript["version"] == lock["version"] == lock["packages"][""]["version"] == RELEASE
    releases = re.findall(r"^## \[(\d[^\]]*)\] - \d{4}-\d{2}-\d{2}$", (ROOT / "CHANGELOG.md").read_text(), re.M)
    assert releases and releases[0] == RELEASE, f"CHANGELOG.md's newest release is {releases[:1]}, not {RELEASE}"


def test_the_server_reports_its_distributions_version(target: str) -> None:
    """`mazziere --version` and ListGames's server_version are the installed distribution's version."""
    exe = shutil.which("mazziere", path=str(Path(sys.executable).parent)) or "mazziere"
    expected = metadata.version("mazziere")
    assert sh([exe, "--version"], ROOT).strip() == f"mazziere {expected}"
    with grpc.insecure_channel(target) as channel:
        answer = service_pb2_grpc.TableServiceStub(channel).ListGames(svc.ListGamesRequest(), timeout=10)
    assert answer.server_version == expected and answer.games


# -- building ------------------------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def index() -> str:
    """pip's package index, reachable, or the test is skipped."""
    url = (os.environ.get("PIP_INDEX_URL") or "https://pypi.org/simple").rstrip("/")
    try:
        with urllib.request.urlopen(f"{url}/pip/", timeout=20) as answer:
            answer.read(1)
    except OSError as exc:
        pytest.skip(f"the package index {url} cannot be reached ({exc}): the release builds and the installs "
                    "need it (PIP_INDEX_URL names a mirror)")  # fmt: skip
    return url


@pytest.fixture(scope="session")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A snapshot of the checkout: every file git tracks or would track (none it ignores), as it is now, with the
    server's generated modules (services/gen, not in git) made as `make setup` and the image make them."""
    listed = sh(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], ROOT)
    out = tmp_path_factory.mktemp("checkout")
    for name in filter(None, listed.split("\0")):
        if (ROOT / name).is_file():  # a file deleted but not yet staged is listed too
            (out / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, out / name)
    sh([sys.executable, "services/codegen.py"], out)
    return out


@pytest.fixture(scope="session")
def tools(index: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv with pip, build and twine (build installs each build environment with this pip)."""
    python = new_venv(tmp_path_factory.mktemp("tools") / "venv")
    pip(python, "install", "--quiet", f"pip=={metadata.version('pip')}", *BUILD_TOOLS)
    return python


@dataclass(frozen=True)
class Built:
    sdist: Path
    wheel: Path

    @property
    def files(self) -> list[Path]:
        return [self.sdist, self.wheel]


@pytest.fixture(scope="session")
def dists(tools: Path, checkout: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Built]:
    """`python -m build` of the server and of the Python client: an sdist, and the wheel built from it."""
    built = {}
    for name, folder in (("mazziere", checkout), ("mazziere-client", checkout / "clients" / "python")):
        out = tmp_path_factory.mktemp(f"dist-{name}")
        sh([str(tools), "-m", "build", "--outdir", str(out), str(folder)], folder)
        (sdist,) = out.glob("*.tar.gz")
        (wheel,) = out.glob("*.whl")
        built[name] = Built(sdist, wheel)
    return built


def wheel_metadata(wheel: Path) -> tuple[list[str], dict[str, str]]:
    """A wheel's file names and its METADATA's headers (Requires-Dist joined by newlines)."""
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        (info,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        headers = HeaderParser().parsestr(z.read(info).decode())
    fields = {key: value for key, value in headers.items() if key != "Requires-Dist"}
    fields["Requires-Dist"] = "\n".join(headers.get_all("Requires-Dist") or [])
    return names, fields


@pytest.mark.long
def test_the_distributions_build_and_pass_twine_check(tools: Path, dists: dict[str, Built]) -> None:
    files = [str(p) for built in dists.values() for p in built.files]
    checked = sh([str(tools), "-m", "twine", "check", "--strict", *files], ROOT)
    assert checked.count("PASSED") == len(files), checked
    for name, built in dists.items():
        assert built.wheel.name == f"{name.replace('-', '_')}-{RELEASE}-py3-none-any.whl"
        assert built.sdist.name == f"{name.replace('-', '_')}-{RELEASE}.tar.gz"

    names, fields = wheel_metadata(dists["mazziere"].wheel)
    assert (fields["Name"], fields["Version"], fields["License-Expression"]) == ("mazziere", RELEASE, "Apache-2.0")
    assert "mazziere/services/gen/mazziere/v1/service_pb2.py" in names
    assert "mazziere/services/gen/comments.json" in names
    with tarfile.open(dists["mazziere"].sdist) as tar:
        tops = {n.split("/")[1] for n in tar.getnames() if n.count("/")}
    assert {"engine", "services", "pyproject.toml", "setup.py", "README.md"} <= tops
    assert not tops & {"tests", "clients", "data", "deploy", "node_modules"}, sorted(tops)

    names, fields = wheel_metadata(dists["mazziere-client"].wheel)
    assert (fields["Name"], fields["Version"]) == ("mazziere-client", RELEASE)
    assert {"mazziere_client/py.typed", "mazziere_client/v1/service_pb2_grpc.py"} <= set(names)
    assert "mazziere_client/v1/service_pb2.pyi" in names
    assert {n.split("/")[0] for n in names} == {"mazziere_client", f"mazziere_client-{RELEASE}.dist-info"}
    with tarfile.open(dists["mazziere-client"].sdist) as tar:
        assert any(n.endswith("/protos/mazziere/v1/service.proto") for n in tar.getnames())


@pytest.mark.long
def test_the_server_wheel_installs_beside_its_locked_dependencies(dists: dict[str, Built], tmp_path: Path) -> None:
    """As the image installs it: the runtime lock (versions and hashes), then the wheel from the built files only;
    pip finds nothing missing, and the installed `mazziere` reports the distribution's version."""
    python = new_venv(tmp_path / "venv")
    pip(python, "install", "--quiet", "--require-hashes", "-r", str(ROOT / "requirements" / "runtime.lock"))
    built = dists["mazziere"].wheel.parent
    pip(python, "install", "--quiet", "--no-index", "--find-links", str(built), f"mazziere=={RELEASE}")
    pip(python, "check")
    probe = (
        "import json, importlib.metadata as m, mazziere.services.gen.mazziere.v1.service_pb2_grpc as g; "
        "from mazziere.services.http.comments import proto_comments; "
        "print(json.dumps([m.version('mazziere'), g.__file__, bool(proto_comments())]))"
    )
    version, where, comments = json.loads(sh([str(python), "-I", "-c", probe], tmp_path))
    assert version == RELEASE and Path(where).is_relative_to(tmp_path / "venv") and comments
    assert sh([str(python.parent / "mazziere"), "--version"], tmp_path).strip() == f"mazziere {RELEASE}"


# -- the Python client at each end of its ranges -------------------------------------------------------------------


def requirements(wheel: Path) -> dict[str, Requirement]:
    """The wheel's Requires-Dist, by canonical name."""
    lines = wheel_metadata(wheel)[1]["Requires-Dist"].splitlines()
    return {canonicalize_name(r.name): r for r in map(Requirement, lines)}


@pytest.fixture(scope="session")
def wheelhouse(dists: dict[str, Built], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Wheels of what the client needs at the newest versions its ranges allow, and of what building it from its
    sdist needs (its [build-system] requires), downloaded once for the ``--no-index`` installs."""
    out = tmp_path_factory.mktemp("wheelhouse")
    download = [sys.executable, "-m", "pip", "download", "--quiet", "--only-binary", ":all:", "--dest", str(out)]
    sh([*download, str(dists["mazziere-client"].wheel)], out)
    build = tomllib.loads((CLIENT / "pyproject.toml").read_text())["build-system"]["requires"]
    sh([*download, *build], out)
    for wheel in out.glob("mazziere_client-*.whl"):
        wheel.unlink()  # the client comes from the built files
    return out


def newest(wheelhouse: Path, wanted: dict[str, Requirement]) -> dict[str, str]:
    """The versions of ``wanted`` the wheelhouse holds (pip downloaded the newest its requirements allow)."""
    found = {}
    for wheel in wheelhouse.glob("*.whl"):
        name, version, _, _ = parse_wheel_filename(wheel.name)
        if name in wanted:
            assert name not in found or found[name] == str(version), f"two versions of {name} in {wheelhouse}"
            found[str(name)] = str(version)
    assert set(found) == set(wanted), f"the wheelhouse lacks {set(wanted) - set(found)}"
    return found


def lowest(wanted: dict[str, Requirement]) -> dict[str, str]:
    """Each requirement's floor (its >= bound): every dependency of the client has one."""
    floors = {}
    for name, req in wanted.items():
        bounds = [s.version for s in req.specifier if s.operator == ">="]
        assert len(bounds) == 1, f"{req}: a dependency of the client needs one lower bound (>=) that is tested"
        floors[name] = bounds[0]
    return floors


def constraints(path: Path, pins: dict[str, str]) -> Path:
    path.write_text("".join(f"{name}=={version}\n" for name, version in sorted(pins.items())))
    return path


def generated_floors(wheel: Path) -> dict[str, str]:
    """The versions the generated stubs ask for: grpcio's GRPC_GENERATED_VERSION and protobuf's gencode version."""
    with zipfile.ZipFile(wheel) as z:
        stub = z.read("mazziere_client/v1/service_pb2_grpc.py").decode()
        messages = z.read("mazziere_client/v1/service_pb2.py").decode()
    grpc_floor = re.search(r"^GRPC_GENERATED_VERSION = '([^']+)'$", stub, re.M)
    proto_floor = re.search(r"^# Protobuf Python Version: (\S+)$", messages, re.M)
    assert grpc_floor and proto_floor
    return {"grpcio": grpc_floor[1], "protobuf": proto_floor[1]}


@dataclass(frozen=True)
class ClientVenv:
    python: Path
    pins: dict[str, str]  # what its constraints file pinned


@pytest.fixture(scope="session")
def client_venvs(
    dists: dict[str, Built], wheelhouse: Path, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, ClientVenv]:
    """The client in fresh venvs: its wheel at the newest versions allowed and at the lowest, and built from its
    sdist (at the newest). The newest come from the wheelhouse alone; the lowest from the index."""
    built = dists["mazziere-client"]
    wanted = requirements(built.wheel)
    pins = {"newest": newest(wheelhouse, wanted), "lowest": lowest(wanted)}
    local = ["--no-index", "--find-links", str(built.wheel.parent), "--find-links", str(wheelhouse)]
    how = {
        "newest": [*local, f"mazziere-client=={RELEASE}"],
        "sdist": [*local, "--no-binary", "mazziere-client", f"mazziere-client=={RELEASE}"],
        "lowest": [str(built.wheel)],
    }
    venvs = {}
    for name, args in how.items():
        folder = tmp_path_factory.mktemp(f"client-{name}")
        pinned = pins.get(name, pins["newest"])
        pip(new_venv(folder / "venv"), "install", "--quiet", "-c", str(constraints(folder / "pins.txt", pinned)), *args)
        venvs[name] = ClientVenv(folder / "venv" / "bin" / "python", pinned)
    return venvs


@pytest.mark.long
def test_the_client_floors_are_what_its_generated_stubs_need(dists: dict[str, Built]) -> None:
    """The lower bounds of grpcio and protobuf are what the generated code checks at import (it refuses to load on
    an older runtime), every dependency has one (tested by the `lowest` venv) and a major-version ceiling."""
    wheel = dists["mazziere-client"].wheel
    wanted = requirements(wheel)
    assert set(wanted) == {"grpcio", "grpcio-status", "googleapis-common-protos", "protobuf"}
    floors = lowest(wanted)
    for name, floor in generated_floors(wheel).items():
        assert floors[name] == floor, f"{name}: the floor {floors[name]} is not the generated code's {floor}"
    for req in wanted.values():
        assert any(s.operator == "<" for s in req.specifier), f"{req}: no ceiling"


@pytest.mark.long
@pytest.mark.parametrize("name", ["lowest", "newest", "sdist"])
def test_the_client_plays_a_hand(name: str, client_venvs: dict[str, ClientVenv], target: str) -> None:
    """clients/python/tests/hand.py and example.py against the server, in the client's venv of each kind; the
    versions it ran on are those its constraints file pinned."""
    venv = client_venvs[name]
    script, example = CLIENT / "tests" / "hand.py", CLIENT / "example.py"
    seen = check_hand(run([str(venv.python), "-I", str(script)], CLIENT, target, script))
    assert seen["versions"]["client"] == RELEASE
    assert {k: seen["versions"][k] for k in ("grpcio", "protobuf")} == {
        k: venv.pins[k] for k in ("grpcio", "protobuf")
    }, f"ran on {seen['versions']}, pinned {venv.pins}"
    freeze = pip(venv.python, "list", "--format=json")
    installed = {canonicalize_name(p["name"]): p["version"] for p in json.loads(freeze)}
    assert {k: installed[k] for k in venv.pins} == venv.pins
    check_example(run([str(venv.python), str(example)], ROOT, target, example))


# -- the TypeScript client -----------------------------------------------------------------------------------------

CONSUMER = """\
// A project that depends on @mazziere/client: the Node entry point, the browser one and the generated messages.
import { Code, ConnectError, connect, errorInfo, type TableClient } from "@mazziere/client";
import { connectWeb } from "@mazziere/client/web";
import { ActRequestSchema } from "@mazziere/client/gen/mazziere/v1/service_pb";
import type { Event } from "@mazziere/client/gen/mazziere/v1/table_pb";

async function hand(client: TableClient) {
  const { games, serverVersion } = await client.listGames({});
  const table = await client.createTable({
    game: "sette_e_mezzo",
    seats: [{ name: "Anna", chips: 100n }, { name: "Bruno", chips: 100n }],
  });
  const keys = new Map(table.seatKeys.map((k) => [k.seat, k.key]));
  let [state, seq, toAct] = [table.state, table.seq, table.toAct];
  const events: Event[] = [];
  while (!events.some((e) => e.kind === "HAND_OVER") && seq < 50n) {
    const seat = toAct[0];
    const view = await client.getView({ tableId: table.tableId, state, seat, seatKey: keys.get(seat) });
    const legal = new Map(view.update!.legalActions.map((a) => [a.kind, a]));
    const stake = legal.get("STAKE");
    const action = legal.has("DEAL")
      ? { seat, kind: "DEAL" }
      : stake ? { seat, kind: "STAKE", amount: stake.minAmount } : { seat, kind: "STAND" };
    const seatKey = keys.get(seat);
    const answer = await client.act({ tableId: table.tableId, state, expectedSeq: seq, action, seatKey });
    [state, seq, toAct] = [answer.state, answer.seq, answer.toAct];
    events.push(...answer.updates[0].events);
  }
  let stale: { code: string; reason?: string } = { code: "none" };
  try {
    await client.act({ tableId: table.tableId, state, expectedSeq: seq - 1n, action: { seat: toAct[0], kind: "DEAL" },
      seatKey: keys.get(toAct[0]) });
  } catch (err) {
    const { code, info } = errorInfo(err);
    stale = { code: Code[code], reason: info?.reason };
    if (!(err instanceof ConnectError)) throw err;
  }
  return { games: games.map((g) => g.id), serverVersion, seq: Number(seq), events: events.map((e) => e.kind), stale };
}

// Never called: tsc must refuse each line under @ts-expect-error, so the package's types are really there.
export function typesAreChecked(client: TableClient): void {
  // @ts-expect-error: expectedSeq is an int64, a bigint
  void client.act({ tableId: "t", expectedSeq: 1 });
  // @ts-expect-error: there is no such method
  void client.dealEverything({});
}

const grpc = await hand(connect(process.env.MAZZIERE_TARGET));
const web = await hand(connectWeb(`http://${process.env.MAZZIERE_REST_TARGET}`));
console.log(JSON.stringify({ grpc, web, request: ActRequestSchema.typeName }));
"""


def npm(args: list[str], cwd: Path) -> str:
    """npm, offline-cache friendly; skipped if it needs the registry and cannot reach it."""
    command = ["npm", *args, "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"]
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=600)
    output = f"$ {shlex.join(command)}  (in {cwd})\n{done.stdout}\n{done.stderr}"
    if done.returncode != 0 and any(word in output for word in NPM_UNREACHABLE):
        pytest.skip(f"npm could not reach its registry and had nothing cached:\n{output}")
    if done.returncode != 0:
        pytest.fail(output, pytrace=False)
    return done.stdout


@pytest.fixture(scope="session")
def typescript_package(checkout: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`npm pack` of the TypeScript client in the snapshot (its prepack script generates and builds it), with the
    client's own node_modules (`make clients` installs them) for buf, protoc-gen-es and tsc."""
    modules = TYPESCRIPT / "node_modules"
    if not (modules / ".bin" / "tsc").exists() or shutil.which("npm") is None:
        pytest.fail("clients/typescript/node_modules is missing: run `make clients` (make test does)", pytrace=False)
    folder = checkout / "clients" / "typescript"
    (folder / "node_modules").symlink_to(modules, target_is_directory=True)
    out = tmp_path_factory.mktemp("npm-pack")
    packed = json.loads(npm(["pack", "--json", "--pack-destination", str(out)], folder))
    return out / packed[0]["filename"]


@pytest.fixture(scope="session")
def consumer(typescript_package: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh npm project holding the packed client (its dependencies from the registry or npm's cache) and
    the client's own TypeScript and Node types, with a consumer compiled by tsc."""
    app = tmp_path_factory.mktemp("consumer")
    dev = json.loads((TYPESCRIPT / "package.json").read_text())["devDependencies"]
    (app / "package.json").write_text(json.dumps({"name": "consumer", "private": True, "type": "module"}))
    tsconfig = {
        "compilerOptions": {"target": "ES2022", "module": "NodeNext", "moduleResolution": "NodeNext",
                            "strict": True, "noUnusedLocals": True, "types": ["node"],
                            "skipLibCheck": True},  # as the client builds: its dependencies' declarations need TS 5.7
        "files": ["main.ts"],
    }  # fmt: skip
    (app / "tsconfig.json").write_text(json.dumps(tsconfig))
    (app / "main.ts").write_text(CONSUMER)
    tools = [f"{name}@{dev[name]}" for name in ("typescript", "@types/node")]
    npm(["install", str(typescript_package), "--save-dev", *tools], app)
    sh([str(app / "node_modules" / ".bin" / "tsc"), "-p", "."], app)
    return app


@pytest.mark.long
def test_the_typescript_package_holds_its_build_only(typescript_package: Path) -> None:
    with tarfile.open(typescript_package) as tar:
        names = set(tar.getnames())
        manifest = json.loads(tar.extractfile("package/package.json").read())  # type: ignore[union-attr]
    assert {"package/dist/client.js", "package/dist/client.d.ts", "package/dist/web.d.ts"} <= names
    assert "package/dist/gen/mazziere/v1/service_pb.d.ts" in names and "package/README.md" in names
    assert not {n for n in names if "/test/" in n or "example" in n or (n.endswith(".ts") and ".d." not in n)}
    assert manifest["name"] == "@mazziere/client" and manifest["version"] == RELEASE
    assert "private" not in manifest and manifest["license"] == "Apache-2.0"
    for entry in manifest["exports"].values():
        for path in [entry] if isinstance(entry, str) else entry.values():
            if "*" not in path:
                assert f"package/{path.removeprefix('./')}" in names, path


@pytest.mark.long
def test_a_typescript_consumer_of_the_package_plays_a_hand(consumer: Path, servers: tuple[str, str]) -> None:
    """The consumer, type-checked by tsc against the installed package, plays a hand over gRPC and over the
    Connect protocol, and reads a stale move's reason."""
    env = {**os.environ, "MAZZIERE_TARGET": servers[0], "MAZZIERE_REST_TARGET": servers[1]}
    output = sh(["node", "main.js"], consumer, env, timeout=120)
    seen = json.loads(output)
    assert seen["request"] == "mazziere.v1.ActRequest", output
    for transport in ("grpc", "web"):
        played = seen[transport]
        assert {"sette_e_mezzo", "saltacavallo", "trentuno"} <= set(played["games"]), output
        assert played["serverVersion"] == metadata.version("mazziere"), output
        assert "HAND_OVER" in played["events"] and played["seq"] >= 4, output
        assert played["stale"] == {"code": "Aborted", "reason": "STALE_SEQUENCE"}, output
