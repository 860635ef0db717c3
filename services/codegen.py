"""Generate the Python protobuf and gRPC modules from ``protos/`` into ``services/gen``.

Run by ``make setup`` and by the image's build as ``python services/codegen.py``: it imports nothing of the
project (so it runs before the project is installed), and nothing of the project imports it. The generated
modules import each other as ``mazziere.services.gen.mazziere.v1`` (the installed name of ``services/gen``).
Beside them goes ``comments.json``: the contract's leading comments by full name (from protoc's descriptor set
with source info), which the REST gateway's OpenAPI document uses as descriptions without ``protos/``.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
import tempfile
from importlib import resources
from pathlib import Path
from typing import Any

from google.protobuf import descriptor_pb2
from grpc_tools import protoc

ROOT = Path(__file__).resolve().parent.parent
PROTOS = ROOT / "protos"
OUT = ROOT / "services" / "gen"
COMMENTS_FILE = "comments.json"
"""The contract's comments, beside the generated modules (read by :mod:`mazziere.services.http.comments`)."""


def main() -> int:
    files = sorted(str(p.relative_to(PROTOS)) for p in PROTOS.rglob("*.proto"))
    if OUT.exists():
        shutil.rmtree(OUT)
    OUT.mkdir(parents=True)
    include = str(resources.files("grpc_tools") / "_proto")
    args = [
        "grpc_tools.protoc",
        f"-I{PROTOS}",
        f"-I{include}",
        f"--python_out={OUT}",
        f"--pyi_out={OUT}",
        f"--grpc_python_out={OUT}",
        *files,
    ]
    if protoc.main(args) != 0:
        print("protoc failed", file=sys.stderr)
        return 1
    for path in OUT.rglob("*.py*"):
        text = path.read_text()
        fixed = re.sub(r"^from mazziere\.", "from mazziere.services.gen.mazziere.", text, flags=re.MULTILINE)
        fixed = re.sub(r"^import mazziere\.", "import mazziere.services.gen.mazziere.", fixed, flags=re.MULTILINE)
        if fixed != text:
            path.write_text(fixed)
    for folder in [OUT, *(p for p in OUT.rglob("*") if p.is_dir())]:
        (folder / "__init__.py").touch()
    if write_comments(protoc, args[1:3], files) != 0:
        return 1
    print(f"generated {len(files)} proto files into {OUT.relative_to(ROOT)}")
    return 0


def write_comments(protoc: Any, includes: list[str], files: list[str]) -> int:
    """``services/gen/comments.json``: every leading comment of the contract, by full name."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "set.pb"
        if protoc.main(["protoc", *includes, "--include_source_info", f"--descriptor_set_out={out}", *files]) != 0:
            print("protoc failed (descriptor set)", file=sys.stderr)
            return 1
        fds = descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes())
    notes = comments_of(fds)
    (OUT / COMMENTS_FILE).write_text(json.dumps(notes, indent=0, sort_keys=True, ensure_ascii=False) + "\n")
    return 0


def comments_of(fds: Any) -> dict[str, str]:
    """The leading comments of a ``FileDescriptorSet`` built with ``--include_source_info``, by full name."""
    notes: dict[str, str] = {}
    for f in fds.file:
        names: dict[tuple[int, ...], str] = {}
        _walk_messages(f.message_type, f.package, (4,), names)
        for i, enum in enumerate(f.enum_type):
            _walk_enum(enum, f.package, (5, i), names)
        for i, service in enumerate(f.service):
            names[(6, i)] = f"{f.package}.{service.name}"
            for j, method in enumerate(service.method):
                names[(6, i, 2, j)] = f"{f.package}.{service.name}.{method.name}"
        for loc in f.source_code_info.location:
            name = names.get(tuple(loc.path))
            text = " ".join(line.strip() for line in loc.leading_comments.strip().splitlines())
            if name and text:
                notes[name] = text
    return notes


def _walk_messages(messages: Any, scope: str, path: tuple[int, ...], names: dict[tuple[int, ...], str]) -> None:
    for i, msg in enumerate(messages):
        full = f"{scope}.{msg.name}"
        here = (*path, i)
        names[here] = full
        for j, field in enumerate(msg.field):
            names[(*here, 2, j)] = f"{full}.{field.name}"
        _walk_messages(msg.nested_type, full, (*here, 3), names)
        for k, enum in enumerate(msg.enum_type):
            _walk_enum(enum, full, (*here, 4, k), names)


def _walk_enum(enum: Any, scope: str, path: tuple[int, ...], names: dict[tuple[int, ...], str]) -> None:
    full = f"{scope}.{enum.name}"
    names[path] = full
    for j, value in enumerate(enum.value):
        names[(*path, 2, j)] = f"{scope}.{value.name}"


if __name__ == "__main__":
    raise SystemExit(main())
