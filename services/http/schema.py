"""JSON Schema of protobuf messages as ``json_format`` prints them, made from the descriptors at startup.

One generic function (:func:`message_schemas`) walks any message type: camelCase property names, 64-bit
integers as decimal strings, enums by name, bytes in base64, repeated fields as arrays, maps as objects,
at most one member of each ``oneof``, and the JSON forms of the well-known types. Nothing here knows a game.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

from google.protobuf import descriptor_pb2
from google.protobuf.descriptor import FieldDescriptor

Schema = dict[str, Any]

INT64_NOTE = "A 64-bit integer, printed as a decimal string (a JSON number is accepted too)."
_INT32 = {"type": "integer", "format": "int32", "minimum": -(2**31), "maximum": 2**31 - 1}
_UINT32 = {"type": "integer", "format": "int64", "minimum": 0, "maximum": 2**32 - 1}
_INT64 = {"type": "string", "format": "int64", "pattern": "^-?[0-9]{1,19}$", "description": INT64_NOTE}
_UINT64 = {"type": "string", "format": "uint64", "pattern": "^[0-9]{1,20}$", "description": INT64_NOTE}
_FLOAT = {"oneOf": [{"type": "number"}, {"type": "string", "enum": ["NaN", "Infinity", "-Infinity"]}]}
_BYTES = {
    "type": "string",
    "format": "byte",
    "contentEncoding": "base64",
    "pattern": "^[A-Za-z0-9+/_-]*={0,2}$",
    "description": "Bytes in base64 (standard or URL-safe alphabet).",
}

_SCALARS: dict[int, Schema] = {
    FieldDescriptor.TYPE_INT32: _INT32,
    FieldDescriptor.TYPE_SINT32: _INT32,
    FieldDescriptor.TYPE_SFIXED32: _INT32,
    FieldDescriptor.TYPE_UINT32: _UINT32,
    FieldDescriptor.TYPE_FIXED32: _UINT32,
    FieldDescriptor.TYPE_INT64: _INT64,
    FieldDescriptor.TYPE_SINT64: _INT64,
    FieldDescriptor.TYPE_SFIXED64: _INT64,
    FieldDescriptor.TYPE_UINT64: _UINT64,
    FieldDescriptor.TYPE_FIXED64: _UINT64,
    FieldDescriptor.TYPE_FLOAT: _FLOAT,
    FieldDescriptor.TYPE_DOUBLE: _FLOAT,
    FieldDescriptor.TYPE_BOOL: {"type": "boolean"},
    FieldDescriptor.TYPE_STRING: {"type": "string"},
    FieldDescriptor.TYPE_BYTES: _BYTES,
}

_WELL_KNOWN: dict[str, Schema] = {
    "google.protobuf.Value": {"description": "Any JSON value."},
    "google.protobuf.Struct": {"type": "object", "description": "A JSON object."},
    "google.protobuf.ListValue": {"type": "array", "description": "A JSON array."},
    "google.protobuf.Empty": {"type": "object", "additionalProperties": False},
    "google.protobuf.Any": {
        "type": "object",
        "properties": {"@type": {"type": "string"}},
        "required": ["@type"],
        "description": "A message of the type its @type names, with that type's fields beside @type.",
    },
    "google.protobuf.Timestamp": {"type": "string", "format": "date-time"},
    "google.protobuf.Duration": {"type": "string", "pattern": "^-?[0-9]+(\\.[0-9]{1,9})?s$"},
    "google.protobuf.FieldMask": {"type": "string"},
}


def ref(name: str) -> Schema:
    return {"$ref": f"#/components/schemas/{name}"}


def message_schemas(*roots: Any, comments: dict[str, str] | None = None) -> dict[str, Schema]:
    """The schema of every message reachable from ``roots``, by full name (for ``components/schemas``).

    ``comments``: optional descriptions by full name of message or field (the proto's leading comments).
    """
    out: dict[str, Schema] = {}
    notes = comments or {}

    def visit(desc: Any) -> Schema:
        name = desc.full_name
        if name in _WELL_KNOWN:
            return dict(_WELL_KNOWN[name])
        if name not in out:
            out[name] = {}  # placeholder: recursive types refer to themselves
            out[name] = _message(desc, visit, notes)
        return ref(name)

    for root in roots:
        visit(root)
    return out


def _message(desc: Any, visit: Any, notes: dict[str, str]) -> Schema:
    properties: dict[str, Schema] = {}
    for fd in desc.fields:
        prop = _field(fd, visit)
        note = notes.get(fd.full_name)
        if note:
            prop = {**prop, "description": note} if "$ref" not in prop else {"allOf": [prop], "description": note}
        properties[fd.json_name] = prop
    schema: Schema = {"type": "object", "title": desc.name, "properties": properties, "additionalProperties": False}
    if notes.get(desc.full_name):
        schema["description"] = notes[desc.full_name]
    _one_of_each_oneof(desc, schema)
    return schema


def _one_of_each_oneof(desc: Any, schema: Schema) -> None:
    """A message's oneofs (not proto3's synthetic ones for ``optional``): no two fields of one set together."""
    proto = descriptor_pb2.DescriptorProto()
    desc.CopyToProto(proto)
    synthetic = {f.oneof_index for f in proto.field if f.proto3_optional}
    groups = [[f.json_name for f in oneof.fields] for i, oneof in enumerate(desc.oneofs) if i not in synthetic]
    pairs = [list(p) for group in groups for p in combinations(group, 2)]
    if pairs:
        schema["not"] = {"anyOf": [{"properties": {n: {} for n in p}, "required": p} for p in pairs]}
        extra = "; ".join(f"at most one of {', '.join(g)}" for g in groups if len(g) > 1)
        schema["description"] = f"{schema.get('description', '')} ({extra})".strip()


def _field(fd: Any, visit: Any) -> Schema:
    if fd.message_type is not None and fd.message_type.GetOptions().map_entry:
        value = _single(fd.message_type.fields_by_name["value"], visit)
        return {"type": "object", "additionalProperties": value, "default": {}}
    item = _single(fd, visit)
    if fd.is_repeated:
        return {"type": "array", "items": item, "default": []}
    if not fd.has_presence and fd.type != FieldDescriptor.TYPE_MESSAGE and item.get("type") != "null":
        item["default"] = _zero(fd)  # proto3 JSON leaves a field at its zero value out: say what it means
    return item


def _zero(fd: Any) -> Any:
    """The value a proto3 field without presence has when the JSON leaves it out, as the JSON would print it."""
    if fd.type == FieldDescriptor.TYPE_ENUM:
        return fd.enum_type.values_by_number[0].name
    if fd.type in (FieldDescriptor.TYPE_STRING, FieldDescriptor.TYPE_BYTES):
        return ""
    if fd.type == FieldDescriptor.TYPE_BOOL:
        return False
    if _SCALARS[fd.type] in (_INT64, _UINT64):
        return "0"
    return 0


def _single(fd: Any, visit: Any) -> Schema:
    if fd.type == FieldDescriptor.TYPE_MESSAGE:
        result: Schema = visit(fd.message_type)
        return result
    if fd.type == FieldDescriptor.TYPE_ENUM:
        if fd.enum_type.full_name == "google.protobuf.NullValue":
            return {"type": "null"}
        return {"type": "string", "enum": [v.name for v in fd.enum_type.values], "title": fd.enum_type.name}
    return dict(_SCALARS[fd.type])
