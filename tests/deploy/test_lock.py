"""The lock files (requirements/*.lock, made by `make lock`) agree with pyproject.toml, read without network.

The runtime lock holds what the server needs and the code generator (the dependency group ``codegen``; the image
and `make run` install it with ``--require-hashes``); the dev lock holds that and the development tools (`make
test`). The server's dependencies are ranges (its package installs beside other things), and each is locked at a
version its range allows; the groups and extras pin, and each pin is locked at its version. Every entry carries
hashes, the dev lock repeats the runtime lock exactly, and nothing is locked for a dependency pyproject.toml no
longer has.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]
RUNTIME_LOCK = ROOT / "requirements" / "runtime.lock"
DEV_LOCK = ROOT / "requirements" / "dev.lock"
PYPROJECT = "mazziere (pyproject.toml)"
ENTRY = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)")
REFRESH = "run `make lock` after changing the dependencies in pyproject.toml"


@dataclass
class Locked:
    version: str
    line: str
    hashes: list[str] = field(default_factory=list)
    via: list[str] = field(default_factory=list)


@cache
def read_lock(path: Path) -> dict[str, Locked]:
    """The lock's entries by normalized name: pinned version, hashes and the "# via" annotations."""
    entries: dict[str, Locked] = {}
    current: Locked | None = None
    for line in path.read_text().splitlines():
        if match := ENTRY.match(line):
            name = canonicalize_name(match[1])
            assert name not in entries, f"{path.name}: {name} locked twice"
            current = entries[name] = Locked(match[2], line)
        elif current is None:
            continue
        elif (text := line.strip()).startswith("--hash="):
            current.hashes.append(text.removeprefix("--hash=").rstrip(" \\"))
        elif text.startswith("# via"):
            current.via.extend([text.removeprefix("# via").strip()] if text != "# via" else [])
        elif text.startswith("#   "):
            current.via.append(text.removeprefix("#   ").strip())
    return entries


def ranges(requirements: list[str]) -> dict[str, SpecifierSet]:
    """pyproject.toml's requirements by normalized name: the versions each allows."""
    return {canonicalize_name(Requirement(text).name): Requirement(text).specifier for text in requirements}


def pinned(requirements: list[str]) -> dict[str, SpecifierSet]:
    """Requirements that each pin one version (`==`): the groups' and the extras'."""
    found = ranges(requirements)
    for name, specifier in found.items():
        specs = list(specifier)
        assert len(specs) == 1 and specs[0].operator == "==", f"pyproject.toml pins {name} exactly: {specifier}"
    return found


def project() -> dict[str, list[str]]:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return {
        "runtime": data["project"]["dependencies"],
        "codegen": data["dependency-groups"]["codegen"],
        "dev": data["project"]["optional-dependencies"]["dev"],
    }


RUNTIME = {**ranges(project()["runtime"]), **pinned(project()["codegen"])}
DEV = {**RUNTIME, **pinned(project()["dev"])}
LOCKS = [pytest.param(RUNTIME_LOCK, RUNTIME, id="runtime"), pytest.param(DEV_LOCK, DEV, id="dev")]


def test_the_servers_dependencies_are_ranges_and_code_generation_is_not_one() -> None:
    """Installed beside other things, the server asks for ranges, never one version; grpcio-tools writes code at
    build time and is no dependency of the installed server."""
    server = ranges(project()["runtime"])
    assert not [name for name, specifier in server.items() if any(s.operator == "==" for s in specifier)]
    assert all(any(s.operator == ">=" for s in specifier) for specifier in server.values()), "each has a floor"
    assert "grpcio-tools" not in server and "grpcio-tools" in RUNTIME
    (uvloop,) = [Requirement(text) for text in project()["runtime"] if text.startswith("uvloop")]
    assert uvloop.marker is not None and not uvloop.marker.evaluate({"sys_platform": "win32"})


@pytest.mark.parametrize(("path", "direct"), LOCKS)
def test_every_dependency_is_locked_at_a_version_it_allows(path: Path, direct: dict[str, SpecifierSet]) -> None:
    lock = read_lock(path)
    missing = sorted(name for name in direct if name not in lock)
    assert missing == [], f"{path.name} lacks {missing}: {REFRESH}"
    wrong = {
        name: (str(spec), lock[name].version)
        for name, spec in direct.items()
        if Version(lock[name].version) not in spec
    }
    assert wrong == {}, f"(pyproject, {path.name}): {REFRESH}"


@pytest.mark.parametrize(("path", "direct"), LOCKS)
def test_nothing_is_locked_for_a_dependency_pyproject_no_longer_has(
    path: Path, direct: dict[str, SpecifierSet]
) -> None:
    lock = read_lock(path)
    ours = [name for name, entry in lock.items() if any(via.startswith(PYPROJECT[:-1]) for via in entry.via)]
    stale = [name for name in ours if name not in direct]
    assert stale == [], f"{path.name} locks these as pyproject.toml's, which it no longer lists: {REFRESH}"
    orphans = [name for name, entry in lock.items() if name not in direct and not entry.via]
    assert orphans == [], f"{path.name}: locked without a reason: {REFRESH}"


@pytest.mark.parametrize("path", [RUNTIME_LOCK, DEV_LOCK], ids=["runtime", "dev"])
def test_every_entry_has_sha256_hashes_and_the_refresh_command(path: Path) -> None:
    lock = read_lock(path)
    assert lock
    unhashed = [name for name, entry in lock.items() if not entry.hashes]
    assert unhashed == []
    assert all(re.fullmatch(r"sha256:[0-9a-f]{64}", h) for entry in lock.values() for h in entry.hashes)
    assert "#    make lock" in path.read_text()


def test_the_dev_lock_repeats_the_runtime_lock_exactly() -> None:
    runtime, dev = read_lock(RUNTIME_LOCK), read_lock(DEV_LOCK)
    differ = [name for name, entry in runtime.items() if name not in dev or dev[name].line != entry.line]
    assert differ == [], f"the runtime packages differ between the locks: {REFRESH}"
    assert all(sorted(dev[name].hashes) == sorted(entry.hashes) for name, entry in runtime.items())


def test_the_image_installs_the_runtime_lock_with_hashes_and_the_project_without_dependencies() -> None:
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text()
    assert "pip install --require-hashes --requirement requirements/runtime.lock" in dockerfile
    assert "pip install --no-deps --no-build-isolation ." in dockerfile
    assert "!requirements/runtime.lock" in (ROOT / ".dockerignore").read_text().splitlines()
