"""The engine alone: its distribution, ``mazziere-engine`` (engine/pyproject.toml), builds from a snapshot of engine/
with ``python -m build`` (an sdist, then the wheel from it), installs into fresh venvs with nothing of the server's
(no grpcio, no FastAPI, no pins), at the lowest and at the newest versions its ranges allow, and plays the example
of its README (engine/README.md) there.

The builds and the installs need the package index (pip's, PyPI by default): without it those tests skip and say
so. They are marked ``long``, as the server's and the clients' package tests (tests/clients/test_packages.py).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tomllib
import urllib.request
import zipfile
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.clients.test_packages import BUILD_TOOLS, new_venv, pip, sh

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "engine"
if ROOT.name == "mutants":
    pytest.skip("make mutate: the engine is mutmut's mutated copy, not a distribution", allow_module_level=True)
PROJECT = tomllib.loads((ENGINE / "pyproject.toml").read_text())
RELEASE = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
EXAMPLE = re.findall(r"```pycon\n(.*?)```", (ENGINE / "README.md").read_text(), re.S)
RUN_EXAMPLE = """
import doctest, sys
from mazziere.engine import _loader
test = doctest.DocTestParser().get_doctest(open(sys.argv[1]).read(), {}, "README", sys.argv[1], 0)
runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
runner.run(test)
print(runner.summarize(verbose=False).attempted, _loader.WHY_PURE)
sys.exit(runner.failures)
"""


def test_the_distribution_lists_every_package_of_the_engine() -> None:
    folders = sorted(p.parent.relative_to(ENGINE).parts for p in ENGINE.rglob("__init__.py"))
    packages = [".".join(["mazziere", "engine", *parts]) for parts in folders]
    assert PROJECT["tool"]["setuptools"]["packages"] == packages
    assert PROJECT["tool"]["setuptools"]["package-dir"] == {"mazziere.engine": "."}
    assert PROJECT["project"]["version"] == RELEASE


def test_its_dependencies_are_ranges_with_a_floor_and_a_ceiling() -> None:
    wanted = [Requirement(r) for r in PROJECT["project"]["dependencies"]]
    assert {canonicalize_name(r.name) for r in wanted} == {"msgspec", "mypy-extensions"}
    for req in [*wanted, *(Requirement(r) for r in PROJECT["project"]["optional-dependencies"]["rl"])]:
        assert sorted(s.operator for s in req.specifier) == ["<", ">="], req


def test_the_readme_shows_the_example() -> None:
    assert len(EXAMPLE) == 1 and ">>> from mazziere import engine" in EXAMPLE[0]


# -- building and installing ---------------------------------------------------------------------------------------


def engine_files() -> list[str]:
    """The files of engine/ git tracks or would track (none it ignores, such as the compiled modules), as they are."""
    listed = sh(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", "engine"], ROOT)
    return [name for name in filter(None, listed.split("\0")) if (ROOT / name).is_file()]


@pytest.fixture(scope="module")
def index() -> str:
    """pip's package index, reachable, or the test is skipped."""
    url = (os.environ.get("PIP_INDEX_URL") or "https://pypi.org/simple").rstrip("/")
    try:
        with urllib.request.urlopen(f"{url}/msgspec/", timeout=20) as answer:
            answer.read(1)
    except OSError as exc:
        pytest.skip(f"the package index {url} cannot be reached ({exc}): the build and the installs need it")
    return url


@pytest.fixture(scope="module")
def wheel(index: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`python -m build` of a snapshot of engine/ (every file git does not ignore, as it is now): its wheel."""
    snapshot = tmp_path_factory.mktemp("checkout")
    for name in engine_files():
        (snapshot / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, snapshot / name)
    tools = new_venv(tmp_path_factory.mktemp("tools") / "venv")
    pip(tools, "install", "--quiet", f"pip=={metadata.version('pip')}", *BUILD_TOOLS)
    out = tmp_path_factory.mktemp("dist")
    sh([str(tools), "-m", "build", "--outdir", str(out), str(snapshot / "engine")], snapshot)
    (built,) = out.glob("*.whl")
    assert len(list(out.glob("*.tar.gz"))) == 1
    return built


@pytest.mark.long
def test_the_wheel_is_pure_python_and_holds_the_engine_only(wheel: Path) -> None:
    assert wheel.name == f"mazziere_engine-{RELEASE}-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        (info,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        requires = [line for line in z.read(info).decode().splitlines() if line.startswith("Requires-Dist:")]
    sources = {f"mazziere/{name}" for name in engine_files() if name.endswith(".py")}
    assert {n for n in names if ".dist-info/" not in n} == sources
    wanted = [Requirement(line.removeprefix("Requires-Dist:")) for line in requires]
    assert {canonicalize_name(r.name) for r in wanted if r.marker is None} == {"msgspec", "mypy-extensions"}
    assert not [r for r in wanted if re.search("grpc|fastapi|protobuf|uvicorn", r.name) or "==" in str(r.specifier)]


@pytest.mark.long
@pytest.mark.parametrize("versions", ["lowest", "newest"])
def test_installed_alone_it_plays_the_readme_example(wheel: Path, versions: str, tmp_path: Path) -> None:
    """In a fresh venv, the wheel and its dependencies only (each at its floor, or the newest the index has): no
    grpcio in `pip list`, and the README's example runs as shown, on the pure engine."""
    python = new_venv(tmp_path / "venv")
    floors = [Requirement(r) for r in PROJECT["project"]["dependencies"]]
    pins = {r.name: next(s.version for s in r.specifier if s.operator == ">=") for r in floors}
    constraints = tmp_path / "pins.txt"
    constraints.write_text("".join(f"{n}=={v}\n" for n, v in pins.items()) if versions == "lowest" else "")
    pip(python, "install", "--quiet", "-c", str(constraints), str(wheel))
    installed = {canonicalize_name(p["name"]): p["version"] for p in json.loads(pip(python, "list", "--format=json"))}
    assert set(installed) - {"pip", "setuptools"} == {"mazziere-engine", "msgspec", "mypy-extensions"}, installed
    assert "grpcio" not in installed
    if versions == "lowest":
        assert {n: installed[canonicalize_name(n)] for n in pins} == pins
    (tmp_path / "example.txt").write_text(EXAMPLE[0])
    output = sh([str(python), "-I", "-c", RUN_EXAMPLE, "example.txt"], tmp_path, timeout=120)
    attempted, _, why_pure = output.strip().partition(" ")
    assert int(attempted) >= 10 and why_pure.startswith("no compiled build"), output
