"""The contract's comments, for the OpenAPI descriptions: read from ``protos/`` with protoc's source info.

Generated Python modules carry no comments, so this runs ``grpc_tools.protoc`` once, in memory, over the same
files ``make setup`` compiles. Without the ``protos/`` folder (an installed wheel) the document simply has no
descriptions.
"""

from __future__ import annotations

import tempfile
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from google.protobuf import descriptor_pb2

PROTOS = Path(__file__).resolve().parents[2] / "protos"


@cache
def proto_comments() -> dict[str, str]:
    """Leading comments by full name of every message, field, enum and enum value (empty if unavailable)."""
    files = sorted(str(p.relative_to(PROTOS)) for p in PROTOS.rglob("*.proto")) if PROTOS.is_dir() else []
    if not files:
        return {}
    try:
        from grpc_tools import protoc
    except ImportError:
        return {}
    include = str(resources.files("grpc_tools") / "_proto")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "set.pb"
        args = ["protoc", f"-I{PROTOS}", f"-I{include}", "--include_source_info", f"--descriptor_set_out={out}"]
        if protoc.main([*args, *files]) != 0:
            return {}
        fds = descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes())
    notes: dict[str, str] = {}
    for f in fds.file:
        names: dict[tuple[int, ...], str] = {}
        _walk_messages(f.message_type, f.package, (4,), names)
        for i, enum in enumerate(f.enum_type):
            _walk_enum(enum, f.package, (5, i), names)
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
