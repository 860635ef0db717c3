"""Every refusal: the official gRPC-to-HTTP mapping and Google's JSON error envelope, never a 500."""

from __future__ import annotations

import base64

import grpc
import pytest

from mazziere.services.http.errors import HTTP_STATUS
from tests.gateway.conftest import BASE, Gateway
from tests.gateway.helpers import Api, error, replay_places_taken


def _post(api: Api, path: str, body: bytes, **headers: str) -> tuple[int, str, str]:
    resp = api.http.post(path, content=body, headers={"content-type": "application/json", **headers})
    assert resp.headers["content-type"] == "application/json"
    return error(resp)


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        (b"{", "Failed to load JSON"),
        (b"[1, 2]", ""),
        (b'"text"', ""),
        (b"\xff\xfe", "UTF-8"),
        (b'{"game": 7}', "game"),
        (b'{"seats": {"name": "x"}}', "seats"),
        (b'{"seats": [{"chips": "lots"}]}', "chips"),
        (b'{"gaem": "trentuno"}', "gaem"),
        (b'{"seed": "not base64!"}', "seed"),
        (b'{"game": "trentuno", "seats": [{"chips": "99999999999999999999999"}]}', "chips"),
        (b"[" * 5000 + b"]" * 5000, ""),
    ],
)
def test_malformed_bodies_are_400_invalid_request(api: Api, body: bytes, fragment: str) -> None:
    resp = api.http.post("/v1/tables", content=body, headers={"content-type": "application/json"})
    assert error(resp) == (400, "INVALID_ARGUMENT", "INVALID_REQUEST"), resp.text
    assert fragment in resp.json()["error"]["message"]
    assert resp.json()["error"]["code"] == 400
    assert resp.json()["error"]["details"][0]["domain"] == "mazziere.v1"


def test_a_too_large_body_is_413(api: Api) -> None:
    body = b'{"game": "' + b"x" * (BASE.gateway_max_body_bytes + 1) + b'"}'
    assert _post(api, "/v1/tables", body) == (413, "INVALID_ARGUMENT", "INVALID_REQUEST")


def test_a_too_large_chunked_body_is_413(api: Api) -> None:
    def chunks():  # type: ignore[no-untyped-def]
        for _ in range(100):
            yield b" " * 1024

    resp = api.http.post("/v1/tables", content=chunks(), headers={"content-type": "application/json"})
    assert error(resp) == (413, "INVALID_ARGUMENT", "INVALID_REQUEST")


def test_a_service_refusal_keeps_reason_and_metadata(api: Api) -> None:
    resp = api.http.post("/v1/tables", json={"game": "briscola"})
    assert error(resp) == (400, "INVALID_ARGUMENT", "UNKNOWN_GAME")


def test_a_forged_token_is_400_invalid_token(api: Api) -> None:
    table = api.create("trentuno")
    raw = bytearray(base64.b64decode(table.state))
    raw[-1] ^= 1
    table.state = base64.b64encode(bytes(raw)).decode()
    resp = api.act_raw(table, {"seat": table.to_act[0], "kind": "KNOCK"})
    assert error(resp) == (400, "INVALID_ARGUMENT", "INVALID_TOKEN")


def test_a_token_of_another_table_is_400_wrong_table(api: Api) -> None:
    one, two = api.create("trentuno"), api.create("trentuno")
    one.state = two.state
    resp = api.act_raw(one, {"seat": one.to_act[0], "kind": "KNOCK"})
    assert error(resp) == (400, "INVALID_ARGUMENT", "WRONG_TABLE")


def test_a_stale_sequence_is_409_aborted(api: Api) -> None:
    import random

    table = api.create("sette_e_mezzo")
    old = (table.state, table.seq)
    action = api.random_action(table, random.Random(1))
    api.act(table, action)
    table.seq = old[1]  # the new state, the old sequence number
    resp = api.act_raw(table, api.random_action(table, random.Random(1)))
    assert error(resp) == (409, "ABORTED", "STALE_SEQUENCE")
    metadata = resp.json()["error"]["details"][0]["metadata"]
    assert metadata == {"expected_seq": old[1], "actual_seq": "1"}


def test_an_illegal_move_is_400_failed_precondition(api: Api) -> None:
    table = api.create("sette_e_mezzo")
    seat = table.to_act[0]
    resp = api.act_raw(table, {"seat": seat, "kind": "HIT"})
    status, code, reason = error(resp)
    assert (status, code) == (400, "FAILED_PRECONDITION")
    assert reason in ("ILLEGAL_ACTION", "NOT_YOUR_TURN")
    other = next(s for s in range(table.seats) if s not in table.to_act)
    resp = api.act_raw(table, {"seat": other, "kind": "STAND"})
    assert error(resp) == (400, "FAILED_PRECONDITION", "NOT_YOUR_TURN")


def test_seat_keys_missing_wrong_or_contradictory(api: Api) -> None:
    table = api.create("trentuno")
    seat = table.to_act[0]
    body = {
        "tableId": table.table_id,
        "state": table.state,
        "expectedSeq": "0",
        "action": {"seat": seat, "kind": "KNOCK"},
    }
    assert error(api.http.post("/v1/tables:act", json=body)) == (403, "PERMISSION_DENIED", "SEAT_KEY_MISSING")
    wrong = table.keys[(seat + 1) % table.seats]
    resp = api.http.post("/v1/tables:act", json=body, headers={"X-Seat-Key": wrong})
    assert error(resp) == (403, "PERMISSION_DENIED", "SEAT_KEY_INVALID")
    resp = api.http.post("/v1/tables:act", json={**body, "seatKey": table.keys[seat]}, headers={"X-Seat-Key": wrong})
    assert error(resp) == (400, "INVALID_ARGUMENT", "INVALID_REQUEST")
    view = {"tableId": table.table_id, "state": table.state, "seat": seat}
    assert error(api.http.post("/v1/tables:view", json=view)) == (403, "PERMISSION_DENIED", "SEAT_KEY_MISSING")
    # The key in the body works as well as the header.
    assert api.http.post("/v1/tables:view", json={**view, "seatKey": table.keys[seat]}).status_code == 200


def test_unknown_routes_and_methods(api: Api) -> None:
    resp = api.http.get("/v1/nothing")
    assert (resp.status_code, resp.json()["error"]["status"]) == (404, "NOT_FOUND")
    resp = api.http.get("/v1/tables")
    assert (resp.status_code, resp.json()["error"]["code"]) == (405, 405)


def test_the_mapping_is_the_official_one() -> None:
    expected = {
        "INVALID_ARGUMENT": 400,
        "FAILED_PRECONDITION": 400,
        "OUT_OF_RANGE": 400,
        "ABORTED": 409,
        "ALREADY_EXISTS": 409,
        "NOT_FOUND": 404,
        "PERMISSION_DENIED": 403,
        "UNAUTHENTICATED": 401,
        "RESOURCE_EXHAUSTED": 429,
        "DEADLINE_EXCEEDED": 504,
        "UNAVAILABLE": 503,
        "UNIMPLEMENTED": 501,
        "INTERNAL": 500,
        "UNKNOWN": 500,
        "CANCELLED": 499,
        "DATA_LOSS": 500,
    }
    assert {code.name: HTTP_STATUS[code] for code in grpc.StatusCode if code.name in expected} == expected


def test_split_mode_gives_the_same_errors(split: Gateway) -> None:
    api = split.api
    table = api.create("trentuno")
    body = {"tableId": table.table_id, "state": table.state, "expectedSeq": "3", "action": {"seat": 0, "kind": "KNOCK"}}
    resp = api.http.post("/v1/tables:act", json=body, headers={"X-Seat-Key": table.keys[0]})
    assert error(resp) == (409, "ABORTED", "STALE_SEQUENCE")
    resp = api.http.post("/v1/tables", content=b'{"x":1}', headers={"content-type": "application/json"})
    assert error(resp) == (400, "INVALID_ARGUMENT", "INVALID_REQUEST")


def test_a_passed_deadline_is_504(gateway: Gateway) -> None:
    """The gateway's deadline reaches the handler, which refuses work whose caller stopped waiting."""
    import asyncio

    import httpx

    from mazziere.services.core.backend import InProcessBackend
    from mazziere.services.http.app import create_app
    from mazziere.services.table.methods import TABLE_SERVICE

    async def ready() -> bool:
        return True

    backend = InProcessBackend(gateway.app.dispatcher, TABLE_SERVICE, timeout=-1.0, ready=ready)
    transport = httpx.ASGITransport(app=create_app(backend, BASE))

    async def call() -> httpx.Response:
        async with httpx.AsyncClient(transport=transport, base_url="http://gw") as client:
            return await client.get("/v1/games")

    resp = asyncio.run(call())
    assert (resp.status_code, resp.json()["error"]["status"]) == (504, "DEADLINE_EXCEEDED")


def test_an_overloaded_service_is_429_with_retry_after(gateway: Gateway) -> None:
    """A replay beyond the replay workers' places is refused at once; the RetryInfo becomes Retry-After."""
    body = {"create": {"game": "trentuno", "seats": [{"name": "a", "chips": "5"}] * 3, "seed": "c2VlZA=="}}
    with replay_places_taken(gateway.app.dispatcher.admission):
        for path in ("/v1/tables:replay", "/v1/tables:streamReplay"):
            resp = gateway.http.post(path, json=body)
            assert error(resp) == (429, "RESOURCE_EXHAUSTED", "OVERLOADED"), resp.text
            assert resp.headers["retry-after"] == "1"
    assert gateway.http.post("/v1/tables:replay", json=body).status_code == 200
