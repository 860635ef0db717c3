"""The Python client (clients/python) as its distribution builds it (its stubs generated from protos/), importable
in the tests: built once per version of its sources into build/, then put on ``sys.path``."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
CLIENT = ROOT / "clients" / "python"
SOURCES = [CLIENT / "setup.py", CLIENT / "pyproject.toml", ROOT / "services" / "cli" / "verify.py"]


def _digest() -> str:
    """A hash of everything the build reads: the client's sources, its build script, the protos, the verifier."""
    files = [*SOURCES, *sorted((CLIENT / "src").rglob("*.py")), *sorted((ROOT / "protos").rglob("*.proto"))]
    digest = hashlib.sha256()
    for path in files:
        digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def built() -> Path:
    """The folder holding ``mazziere_client``, built (``setup.py build_py``) unless this version already is. Test
    processes side by side each build in a folder of their own and keep the first."""
    target = ROOT / "build" / f"python-client-{_digest()}"
    if (target / "mazziere_client" / "v1" / "host_pb2.py").is_file():
        return target
    target.parent.mkdir(exist_ok=True)
    scratch = Path(tempfile.mkdtemp(dir=target.parent, prefix=".python-client-"))
    command = [sys.executable, "setup.py", "--quiet", "build_py", "--build-lib", str(scratch)]
    done = subprocess.run(command, cwd=CLIENT, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        shutil.rmtree(scratch, ignore_errors=True)
        raise RuntimeError(f"clients/python did not build: {done.stdout}{done.stderr}")
    try:
        scratch.rename(target)
    except OSError:  # built meanwhile by another run
        shutil.rmtree(scratch, ignore_errors=True)
    return target


def put_on_path() -> None:
    folder = str(built())
    if folder not in sys.path:
        sys.path.insert(0, folder)
