"""The gateway's fast JSON reader reads exactly what json_format reads, and refuses what it refuses; whatever the
body, it returns a message or raises JsonError with a bounded message that encodes as UTF-8."""

from __future__ import annotations

import base64
import json
import random
from typing import Any

import pytest
from google.protobuf import json_format

from mazziere.services.gen.mazziere.v1 import service_pb2 as svc
from mazziere.services.wire import protojson

ACT = {
    "tableId": "t_1",
    "state": base64.b64encode(bytes(range(200))).decode(),
    "expectedSeq": "3",
    "action": {"seat": 1, "kind": "HIT", "amount": "2", "target": 2, "cards": ["Rd", "7c"]},
    "seatKey": "k.abc",
    "viewers": [{"seat": 2, "key": "k.x"}],
    "includeSpectator": True,
}
CREATE = {
    "game": "sette_e_mezzo",
    "preset": "CLASSICO",
    "seats": [{"name": "Anna", "chips": "100"}, {"name": "Bruno", "chips": 50}],
    "seed": "c2VlZA==",
    "options": {"setteEMezzo": {"maxStake": "20", "pack": "SETTE_E_MEZZO_PACK_FRENCH", "burnRanks": {"values": [3]}}},
}
ODD_VALUES: list[Any] = [
    None, True, False, 0, -1, 1.5, 3.0, 2**31, 2**63, -(2**63) - 1, "", "7", "-7", "+7", " 7", "007", "1e3", "٣",
    "c2VlZA", "c2V-ZA==", "c2VlZA==", "x" * 3, [], [1], [{}], {}, {"seat": 1}, "SETTE_E_MEZZO_PACK_FRENCH", 2,
]  # fmt: skip


def read(body: bytes, cls: Any) -> tuple[str, Any]:
    """('ok', message) or ('error', None) through the gateway's reader, which may raise nothing but JsonError."""
    try:
        return "ok", protojson.parse(body, cls)
    except protojson.JsonError as exc:
        text = str(exc)
        assert len(text) <= protojson.MAX_ERROR and text.encode("utf-8"), text[:200]
        return "error", None


def outcome(body: bytes, cls: Any, fast: bool) -> tuple[str, Any]:
    """('ok', message) or ('error', None): through the gateway's reader, or through json_format alone."""
    if fast:
        return read(body, cls)
    try:
        msg = cls()
        json_format.Parse(body.decode(), msg, ignore_unknown_fields=False, max_recursion_depth=32)
        return "ok", msg
    except (json_format.ParseError, ValueError, TypeError, RecursionError):
        return "error", None


def mutations(data: Any, rng: random.Random) -> Any:
    """``data`` with one value somewhere replaced by an odd one, or a key renamed, dropped or doubled."""
    if isinstance(data, dict) and data:
        key = rng.choice(sorted(data))
        out = dict(data)
        roll = rng.random()
        if roll < 0.5:
            out[key] = mutations(data[key], rng) if rng.random() < 0.5 else rng.choice(ODD_VALUES)
        elif roll < 0.7:
            del out[key]
        elif roll < 0.85:
            out[key + "X"] = data[key]
        else:  # the proto name beside the JSON name
            snake = "".join("_" + c.lower() if c.isupper() else c for c in key)
            out[snake] = data[key]
        return out
    if isinstance(data, list) and data:
        out_list = list(data)
        i = rng.randrange(len(out_list))
        out_list[i] = mutations(out_list[i], rng)
        return out_list
    return rng.choice(ODD_VALUES)


@pytest.mark.parametrize(("cls", "good"), [(svc.ActRequest, ACT), (svc.CreateTableRequest, CREATE)])
def test_the_fast_reader_agrees_with_json_format(cls: Any, good: dict[str, Any]) -> None:
    rng = random.Random(2024)
    bodies = [json.dumps(good).encode()]
    bodies += [json.dumps(mutations(good, rng)).encode() for _ in range(3000)]
    bodies += [b'{"tableId": "a", "tableId": "b"}', b"[1, 2]", b'"text"', b"{", b'{"state": NaN}']
    for body in bodies:
        fast, slow = outcome(body, cls, True), outcome(body, cls, False)
        assert fast == slow, body


SIGNS = ["", "-", "--", "+", "-+", " ", "\t"]
DIGITS = ["", "0", "7", "007", "1_000", "٣", "²", "9" * 19, "9" * 20, "9" * 21, "1" * 4300, "1" * 4301, "1" * 5000,
          "0" * 5000 + "1"]  # fmt: skip
TAILS = ["", ".", ".0", ".5", "e", "e3", "E-3", "e999", "e-999", "e+99999999999", " ", "\n", "\x00", "\ud800", "x"]
WORDS = ["NaN", "-NaN", "Infinity", "-Infinity", "inf", "0x1F", "0b1", "0o7", "\ud800", "1\udfff"]


def number_shapes() -> list[str]:
    """JSON values for numbers of every shape: each text as a JSON string, and bare where it is ASCII with no space
    (a JSON number, ``NaN`` and ``Infinity`` that Python's parser reads, or text that is no JSON at all)."""
    texts = [s + d + t for s in SIGNS for d in DIGITS for t in TAILS if len(d) < 30 or t in ("", ".0", "e3", "e999")]
    texts += WORDS
    bare = [t for t in texts if t.isascii() and t.isprintable() and " " not in t]
    return [json.dumps(t) for t in texts] + bare


def test_number_strings_of_every_shape_are_read_or_refused_as_json_format_does() -> None:
    """Once ``"--1"`` and strings of more than 4,300 digits raised a ValueError out of the reader (HTTP 500)."""
    for shape in number_shapes():
        for cls, template in (
            (svc.ActRequest, '{"expectedSeq": %s}'),  # int64
            (svc.ActRequest, '{"action": {"seat": %s, "kind": "HIT"}}'),  # int32, nested
            (svc.CreateTableRequest, '{"seats": [{"name": "a", "chips": %s}]}'),  # int64 in a list
            (svc.AdviseRequest, '{"samples": %s}'),  # int32
        ):
            body = (template % shape).encode()
            assert read(body, cls) == outcome(body, cls, fast=False), body[:120]
    for body in (b'{"expectedSeq": "--1"}', b'{"expectedSeq": "' + b"1" * 4301 + b'"}'):
        assert read(body, svc.ActRequest) == ("error", None)


@pytest.mark.parametrize("body", [b"[]", b"[{}]", b"1", b"-0.5", b"1e999", b'""', b'"x"', b"null", b"true", b"false"])
def test_a_body_that_is_not_a_json_object_is_refused(body: bytes) -> None:
    """json_format reads ``[]`` and ``""`` as the empty message (it iterates them); the body must be an object."""
    for cls in (svc.ListGamesRequest, svc.ActRequest):
        with pytest.raises(protojson.JsonError, match="must be a JSON object"):
            protojson.parse(body, cls)
    assert protojson.parse(b"  ", svc.ListGamesRequest) == svc.ListGamesRequest()  # an empty body still is


@pytest.mark.parametrize(
    "body",
    [
        b'{"tableId": "\\ud800"}',  # a lone surrogate in a string field: the message refuses it
        b'{"action": {"kind": "HIT\\udfff"}}',  # in an enum name, which json_format's message quotes
        b'{"\\ud800": 1}',  # in a field name, quoted too
        b'{"expectedSeq": "1\\ud800"}',
        b'{"state": "\\ud800AAA"}',  # in base64 bytes
        b'{"x' + b"y" * 50_000 + b'": 1}',  # an unknown field, its name quoted
        b'{"expectedSeq": "' + b"9" * 50_000 + b'"}',
        b'{"expectedSeq": 1e999999, "seat": NaN}',
        b'{"tableId": "a", "tableId": "a"}',  # a key twice
        b'{"action": ' * 40 + b"{}" + b"}" * 40,  # deeper than 32 messages
        b"[" * 100_000 + b"]" * 100_000,  # deeper than the JSON parser goes
    ],
)
def test_hostile_values_are_a_json_error_with_a_bounded_printable_message(body: bytes) -> None:
    assert read(body, svc.ActRequest) == ("error", None)
