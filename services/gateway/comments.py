"""The contract's comments, for the OpenAPI descriptions.

Generated Python modules carry no comments, so ``make setup`` (``python -m services.codegen``) also asks
``protoc`` for the descriptor set with source info and writes each leading comment, by full name, to
``services/gen/comments.json``, which ships inside the package (wheel and image alike). At run time the gateway
reads that file: it needs no ``protos/`` folder.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

COMMENTS_FILE = "comments.json"
"""The file's name inside the ``services.gen`` package."""


@cache
def proto_comments() -> dict[str, str]:
    """Leading comments by full name of every message, field, enum and enum value (empty if unavailable)."""
    try:
        text = (resources.files("services.gen") / COMMENTS_FILE).read_text(encoding="utf-8")
    except (FileNotFoundError, ModuleNotFoundError):
        return {}
    data = json.loads(text)
    return {str(k): str(v) for k, v in data.items()}


def comments_of(fds: Any) -> dict[str, str]:
    """The leading comments of a ``FileDescriptorSet`` built with ``--include_source_info``, by full name."""
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
