"""Generates the gRPC stubs into the wheel while it is built (the metadata is in pyproject.toml), with the record
verifier (``mazziere_client.verify``, the server's ``services/cli/verify.py``: docs/fairness.md).

The stubs come from the contract, ``protos/`` at the repository root (``../../protos`` from here), compiled with
grpcio-tools (a build requirement) straight into the build tree as ``mazziere_client.v1``: nothing generated is
written next to the sources, so the checkout stays clean. An sdist carries a copy of the protos in ``protos/``.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from importlib import resources
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

HERE = Path(__file__).resolve().parent
PACKAGE = "mazziere_client"


def find_verifier() -> Path:
    # The record verifier is the server's own file (it needs only the standard library); an sdist carries a copy.
    for path in (HERE / "verify.py", HERE.parent.parent / "services" / "cli" / "verify.py"):
        if path.is_file():
            return path
    raise RuntimeError(f"services/cli/verify.py was not found beside {HERE}")


def find_protos() -> Path:
    # An sdist's own copy first; in a checkout there is none, and the contract is at the repository root.
    for folder in (HERE / "protos", HERE.parent.parent / "protos"):
        if (folder / "mazziere" / "v1" / "service.proto").is_file():
            return folder
    raise RuntimeError(f"the protos were not found beside {HERE} (./protos or ../../protos)")


def generate(out: Path) -> None:
    """Writes mazziere/v1/*_pb2.py, *_pb2.pyi and service_pb2_grpc.py as ``out/mazziere_client/v1``."""
    from grpc_tools import protoc

    protos = find_protos()
    files = sorted(str(p.relative_to(protos)) for p in protos.rglob("*.proto"))
    include = str(resources.files("grpc_tools") / "_proto")
    with tempfile.TemporaryDirectory() as tmp:
        args = ["grpc_tools.protoc", f"-I{protos}", f"-I{include}"]
        args += [f"--python_out={tmp}", f"--pyi_out={tmp}", f"--grpc_python_out={tmp}", *files]
        if protoc.main(args) != 0:
            raise RuntimeError("protoc failed")
        target = out / PACKAGE / "v1"
        if target.exists():
            shutil.rmtree(target)
        target.mkdir(parents=True)
        for path in sorted((Path(tmp) / "mazziere" / "v1").iterdir()):
            text = path.read_text()
            text = re.sub(r"^from mazziere\.v1 import", f"from {PACKAGE}.v1 import", text, flags=re.MULTILINE)
            text = re.sub(r"^import mazziere\.v1\.", f"import {PACKAGE}.v1.", text, flags=re.MULTILINE)
            (target / path.name).write_text(text)
        (target / "__init__.py").write_text(
            '"""The stubs generated from protos/mazziere/v1 (package mazziere.v1)."""\n'
        )


class BuildPyWithStubs(build_py):
    def run(self) -> None:
        super().run()
        generate(Path(self.build_lib))
        shutil.copyfile(find_verifier(), Path(self.build_lib) / PACKAGE / "verify.py")


class SdistWithProtos(sdist):
    def make_release_tree(self, base_dir: str, files: list[str]) -> None:
        super().make_release_tree(base_dir, files)
        shutil.copytree(find_protos(), Path(base_dir) / "protos", dirs_exist_ok=True)
        shutil.copyfile(find_verifier(), Path(base_dir) / "verify.py")


setup(cmdclass={"build_py": BuildPyWithStubs, "sdist": SdistWithProtos})
