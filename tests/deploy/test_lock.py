"""The lock files (requirements/*.lock, made by `make lock`) agree with pyproject.toml, read without network.

The runtime lock holds what the server needs (the image and `make run` install it with ``--require-hashes``); the
dev lock holds that and the development tools (`make test`). Every dependency pyproject.toml pins is locked at its
version, every entry carries hashes, the dev lock repeats the runtime lock exactly, and nothing is locked for a
dependency pyproject.toml no longer has.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

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


def pinned(requirements: list[str]) -> dict[str, str]:
    """pyproject.toml's dependencies by normalized name: each pinned to one version (`==`)."""
    found: dict[str, str] = {}
    for text in requirements:
        requirement = Requirement(text)
        specs = list(requirement.specifier)
        assert len(specs) == 1 and specs[0].operator == "==", f"pyproject.toml pins each dependency exactly: {text}"
        found[canonicalize_name(requirement.name)] = specs[0].version
    return found


def project() -> dict[str, list[str]]:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return {"runtime": data["dependencies"], "dev": data["optional-dependencies"]["dev"]}


RUNTIME = pinned(project()["runtime"])
DEV = {**RUNTIME, **pinned(project()["dev"])}
LOCKS = [pytest.param(RUNTIME_LOCK, RUNTIME, id="runtime"), pytest.param(DEV_LOCK, DEV, id="dev")]


@pytest.mark.parametrize(("path", "direct"), LOCKS)
def test_every_pinned_dependency_is_locked_at_its_version(path: Path, direct: dict[str, str]) -> None:
    lock = read_lock(path)
    wrong = {name: (version, lock[name].version if name in lock else None) for name, version in direct.items()}
    assert {n: v for n, v in wrong.items() if v[0] != v[1]} == {}, f"(pyproject, {path.name}): {REFRESH}"


@pytest.mark.parametrize(("path", "direct"), LOCKS)
def test_nothing_is_locked_for_a_dependency_pyproject_no_longer_has(path: Path, direct: dict[str, str]) -> None:
    lock = read_lock(path)
    stale = [name for name, entry in lock.items() if PYPROJECT in entry.via and name not in direct]
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
