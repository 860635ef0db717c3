"""Advise and auto-play over REST: the same answers as over gRPC, the seat key in the header or the body, and
the refusals mapped like every route's."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from typing import Any

import pytest
from google.protobuf import json_format

from mazziere.engine import bots
from mazziere.services.gen.mazziere.v1 import service_pb2 as svc
from tests.gateway.conftest import BASE, Gateway
from tests.gateway.helpers import Api, Table, error
from tests.service.test_bots import assert_is_the_engines_advice


@pytest.fixture(scope="module")
def patient() -> Iterator[Gateway]:
    """A gateway whose calls may take a minute: an advice's cost is the engine's, and a loaded machine is slow."""
    g = Gateway(BASE, timeout=60.0)
    yield g
    g.close()


def advise(api: Api, table: Table, seat: int, *, headers: dict[str, str] | None = None, **body: Any) -> Any:
    payload = {"tableId": table.table_id, "state": table.state, "seat": seat, **body}
    return api.http.post("/v1/tables:advise", json=payload, headers=headers or {})


@pytest.mark.parametrize("where", ["header", "body"])
def test_advise_over_http_is_the_engines_advice(patient: Gateway, where: str) -> None:
    api = patient.api
    table = api.create("trentuno", seed=b"rest-advise")
    api.auto(table, "random")  # the deal: now a player is to act
    seat = table.to_act[0]
    key = table.keys[seat]
    resp = (
        advise(api, table, seat, headers={"X-Seat-Key": key})
        if where == "header"
        else advise(api, table, seat, seatKey=key)
    )
    assert resp.status_code == 200, resp.text
    data = resp.json()
    assert set(data) <= {"seat", "seq", "method", "samples", "actions"}  # numbers and actions, nothing else
    answer = json_format.ParseDict(data, svc.AdviseResponse())
    assert_is_the_engines_advice(answer, bots.advise(api.unseal(table.state), seat), int(table.seq))
    assert answer.actions and data["method"] in ("ADVICE_METHOD_EXACT", "ADVICE_METHOD_SAMPLED")


def test_advise_over_http_needs_the_seats_key(api: Api) -> None:
    table = api.create("sette_e_mezzo", seed=b"rest-advise-keys")
    seat = table.to_act[0]
    other = table.keys[(seat + 1) % table.seats]
    assert error(advise(api, table, seat)) == (403, "PERMISSION_DENIED", "SEAT_KEY_MISSING")
    assert error(advise(api, table, seat, headers={"X-Seat-Key": other})) == (
        403,
        "PERMISSION_DENIED",
        "SEAT_KEY_INVALID",
    )
    assert error(advise(api, table, seat, headers={"X-Seat-Key": table.keys[seat]}, seatKey=other))[0] == 400
    assert error(advise(api, table, 8, headers={"X-Seat-Key": other})) == (400, "INVALID_ARGUMENT", "INVALID_SEAT")


def test_advise_over_http_takes_a_sample_count(api: Api) -> None:
    table = api.create("trentuno", seed=b"rest-advise-samples")
    seat = table.to_act[0]
    key = {"X-Seat-Key": table.keys[seat]}
    answer = advise(api, table, seat, headers=key, samples=7).json()
    assert (answer["method"], answer["samples"]) == ("ADVICE_METHOD_SAMPLED", 7)
    assert error(advise(api, table, seat, headers=key, samples=1001)) == (400, "INVALID_ARGUMENT", "INVALID_REQUEST")


def test_auto_play_over_http_finishes_a_game(api: Api) -> None:
    table = api.create("trentuno", chips=2, seed=b"rest-auto")
    kinds: list[str] = []
    for step in range(2000):
        if table.is_over:
            break
        seat = table.to_act[0]
        data = api.auto(table, bots.POLICIES[step % len(bots.POLICIES)])
        assert data["action"].get("seat", 0) == seat
        events = data["updates"][0]["events"]
        assert events and all(e["auto"] is True for e in events)
        kinds += [e["kind"] for e in events]
    assert table.is_over and "GAME_OVER" in kinds[-8:]


def test_a_players_own_move_has_no_auto_in_its_json(api: Api) -> None:
    table = api.create("sette_e_mezzo", seed=b"rest-own")
    seat = table.to_act[0]
    data = api.act(table, {"seat": seat, "kind": "DEAL"})
    assert all("auto" not in e for e in data["updates"][0]["events"])


def test_auto_play_refusals_over_http(api: Api) -> None:
    table = api.create("sette_e_mezzo", seed=b"rest-auto-refusals")
    seat = table.to_act[0]
    body = {"tableId": table.table_id, "state": table.state, "expectedSeq": table.seq}
    headers = {"X-Seat-Key": table.keys[seat]}

    def act(**fields: Any) -> Any:
        return api.http.post("/v1/tables:act", json={**body, **fields}, headers=headers)

    assert error(act(autoPlay="genius")) == (400, "INVALID_ARGUMENT", "UNKNOWN_POLICY")
    assert error(act()) == (400, "INVALID_ARGUMENT", "INVALID_REQUEST")
    both = act(autoPlay="best", action={"seat": seat, "kind": "DEAL"})
    assert error(both) == (400, "INVALID_ARGUMENT", "INVALID_REQUEST") and "both" in both.json()["error"]["message"]
    assert error(act(autoPlay="best", autoSeat="x"))[0] == 400  # not an int32: refused by the JSON parser
    assert error(act(autoPlay=7))[0] == 400


def test_the_split_gateway_serves_advise(split: Gateway) -> None:
    table = split.api.create("saltacavallo", seed=b"rest-split")
    seat = table.to_act[0]
    resp = advise(split.api, table, seat, headers={"X-Seat-Key": table.keys[seat]})
    assert resp.status_code == 200, resp.text
    assert int(resp.json().get("seq", "0")) == 0
    assert base64.b64decode(table.state)
