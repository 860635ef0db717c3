"""The OpenAPI document: its descriptions without the source tree, its schemas' details, and /docs offline."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from services.gateway.comments import COMMENTS_FILE, proto_comments

ROOT = Path(__file__).resolve().parents[2]


def test_codegen_writes_the_comments_beside_the_generated_modules() -> None:
    path = ROOT / "services" / "gen" / COMMENTS_FILE
    notes = json.loads(path.read_text())
    assert "sequence number" in notes["mazziere.v1.ActRequest.expected_seq"]
    assert notes == proto_comments()


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project built as a wheel from a copy of what the image's build stage holds (no protos/ needed)."""
    src = tmp_path_factory.mktemp("src")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    for name in ("engine", "services"):
        shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    out = tmp_path_factory.mktemp("dist")
    build = [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "--no-index"]
    subprocess.run([*build, "-w", str(out), str(src)], check=True, capture_output=True, timeout=300)
    (found,) = out.glob("mazziere-*.whl")
    return found


def test_the_comments_are_in_the_package_files(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    assert f"services/gen/{COMMENTS_FILE}" in names
    assert "services/gen/mazziere/v1/service_pb2.py" in names
    assert not any(n.startswith("protos/") for n in names)


_PROBE = """
import json, services
from services.gateway.app import create_app
from tests.gateway.conftest import BASE
from tests.gateway.test_fuzz import _NoBackend
doc = create_app(_NoBackend(), BASE).openapi()
print(json.dumps({"file": services.__file__, "doc": doc}))
"""


def test_the_installed_app_has_descriptions_without_protos(wheel: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    shutil.copytree(ROOT / "tests", site / "tests", ignore=shutil.ignore_patterns("__pycache__"))
    assert not (site / "protos").exists()
    env = {"PYTHONPATH": str(site), "PATH": ""}
    done = subprocess.run(
        [sys.executable, "-c", _PROBE], cwd=site, env=env, capture_output=True, text=True, timeout=120, check=True
    )
    result = json.loads(done.stdout.splitlines()[-1])
    assert Path(result["file"]).is_relative_to(site), "the probe must import the wheel's files"
    schemas = result["doc"]["components"]["schemas"]
    assert "sequence number" in schemas["mazziere.v1.ActRequest"]["properties"]["expectedSeq"]["description"]
    assert schemas["mazziere.v1.ActRequest"]["description"] == "ActRequest plays one action."
