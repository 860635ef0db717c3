"""Whole hands of every game through the REST gateway, and the JSON it speaks is json_format's."""

from __future__ import annotations

import base64
import json
import random
from typing import Any

import httpx
import pytest
from google.protobuf import json_format

from mazziere.services.gen.mazziere.v1 import service_pb2 as svc
from mazziere.services.table.games import served_games
from mazziere.services.wire import protojson
from tests.gateway.conftest import Gateway
from tests.gateway.helpers import CHIPS, Api, error

GAMES = sorted(served_games())


@pytest.mark.parametrize("game", GAMES)
def test_a_whole_hand_over_http(api: Api, game: str) -> None:
    table = api.create(game, seed=b"rest-" + game.encode())
    rng = random.Random(11)
    kinds: list[str] = []
    for _action, resp in api.steps(table, rng):
        mine = resp["updates"][0]
        kinds += [e["kind"] for e in mine.get("events", [])]
        if "HAND_OVER" in kinds:
            break
    assert "HAND_OVER" in kinds
    state = api.unseal(table.state)
    assert state.seq == int(table.seq)
    assert sum(state.chips) + state.pot == table.seats * CHIPS


@pytest.mark.parametrize("game", GAMES)
def test_every_answer_is_exactly_json_format(gateway: Gateway, game: str) -> None:
    """The bytes on the wire parse back to the gRPC answer, and print as json_format prints it."""
    api = gateway.api
    table = api.create(game, seed=b"parity")
    rng = random.Random(5)
    for _action, data in api.steps(table, rng, limit=25):
        msg = json_format.ParseDict(data, svc.ActResponse())
        assert json_format.MessageToDict(msg) == data
        assert protojson.to_dict(msg) == data
        assert api.last_body == compact(json_format.MessageToDict(msg))
    view = api.view(table, None)
    assert json_format.MessageToDict(json_format.ParseDict(view, svc.GetViewResponse())) == view
    games = gateway.http.get("/v1/games")
    msg = json_format.ParseDict(games.json(), svc.ListGamesResponse())
    assert games.content == compact(json_format.MessageToDict(msg))


def compact(data: object) -> bytes:
    """json_format's JSON of a message, written without spaces: the bytes the gateway must send."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode()


@pytest.mark.parametrize("game", GAMES)
def test_replay_over_http(api: Api, game: str) -> None:
    table = api.create(game, seed=b"replay")
    rng = random.Random(3)
    actions, seqs = [], []
    for action, data in api.steps(table, rng, limit=15):
        actions.append(action)
        seqs.append(data.get("seq", "0"))
    create = {
        "game": game,
        "seats": [{"name": f"p{i}", "chips": str(CHIPS)} for i in range(table.seats)],
        "seed": base64.b64encode(b"replay").decode(),
    }
    resp = api.http.post("/v1/tables:replay", json={"create": create, "tableId": table.table_id, "actions": actions})
    assert resp.status_code == 200, resp.text
    steps = resp.json()["steps"]
    assert [s.get("seq", "0") for s in steps] == ["0", *seqs]


def test_proto_field_names_and_numbers_are_accepted_too(api: Api) -> None:
    """json_format reads the proto names and plain numbers for 64-bit integers; so does the gateway."""
    table = api.create("trentuno")
    resp = api.http.post(
        "/v1/tables:view",
        json={"table_id": table.table_id, "state": table.state, "seat": 0, "seat_key": table.keys[0]},
    )
    assert resp.status_code == 200, resp.text
    assert resp.json()["update"]["seat"] == 0 or "seat" not in resp.json()["update"]


def test_list_games_describes_every_served_game(api: Api) -> None:
    resp = api.http.get("/v1/games")
    assert resp.status_code == 200
    assert [g["id"] for g in resp.json()["games"]] == served_games()
    assert resp.headers["content-type"] == "application/json"


def _ndjson(resp: httpx.Response) -> list[dict[str, Any]]:
    assert resp.headers["content-type"].startswith("application/x-ndjson"), resp.text
    return [json.loads(line) for line in resp.text.splitlines()]


def test_stream_replay_gives_the_replay_steps_one_per_line(gateway: Gateway, split: Gateway) -> None:
    body = {
        "create": {
            "game": "trentuno",
            "seats": [{"name": f"p{i}", "chips": "20"} for i in range(3)],
            "seed": "c2VlZA==",
        },
        "tableId": "t_stream",
    }
    for g in (gateway, split):
        unary = g.http.post("/v1/tables:replay", json=body).json()
        lines = _ndjson(g.http.post("/v1/tables:streamReplay", json=body))
        assert [line["step"] for line in lines] == unary["steps"]
        # A refusal before the first step is an ordinary error answer.
        bad = g.http.post("/v1/tables:streamReplay", json={**body, "create": {**body["create"], "seed": None}})
        assert error(bad) == (400, "INVALID_ARGUMENT", "INVALID_REQUEST")
        # One after it is the last line.
        wrong = {**body, "actions": [{"seat": 0, "kind": "NOPE"}]}
        lines = _ndjson(g.http.post("/v1/tables:streamReplay", json=wrong))
        assert "step" in lines[0] and lines[-1]["error"]["status"] == "FAILED_PRECONDITION"
