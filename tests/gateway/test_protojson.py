"""The gateway's fast JSON reader reads exactly what json_format reads, and refuses what it refuses."""

from __future__ import annotations

import base64
import json
import random
from typing import Any

import pytest
from google.protobuf import json_format

from mazziere.services.gateway import protojson
from mazziere.services.gen.mazziere.v1 import service_pb2 as svc

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


def outcome(body: bytes, cls: Any, fast: bool) -> tuple[str, Any]:
    """('ok', message) or ('error', None): through the gateway's reader, or through json_format alone."""
    try:
        if fast:
            return "ok", protojson.parse(body, cls)
        msg = cls()
        json_format.Parse(body.decode(), msg, ignore_unknown_fields=False, max_recursion_depth=32)
        return "ok", msg
    except (protojson.JsonError, json_format.ParseError, ValueError, TypeError, RecursionError):
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
