"""The host over REST: a whole hosted hand played by a client made from the OpenAPI document alone (each
operation's method, path and capability header read from it), with the capability in its header only and the same
typed refusals as over Connect."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, Protocol

import httpx

from mazziere.services.app import App
from mazziere.services.config import Config
from mazziere.services.table.sealing import Keyring
from tests.service.conftest import KEYS

BASE_URL = "http://127.0.0.1:8080"


class RestApi(Protocol):
    """What a hand needs of a client of the REST API: an operation called by its ``operationId``, with a body and
    a capability (and, to show it is refused there, a query string)."""

    async def call(self, operation: str, body: dict[str, Any], secret: str = "", **params: str) -> httpx.Response: ...

    async def ok(self, operation: str, body: dict[str, Any], secret: str = "") -> dict[str, Any]: ...


class OpenApiClient:
    """Calls an API's operations by their ``operationId``, as its OpenAPI document describes them: the method, the
    path, and the header of the security scheme an operation names (a generated client does no more)."""

    def __init__(self, doc: dict[str, Any], http: httpx.AsyncClient) -> None:
        self.http = http
        schemes = doc["components"]["securitySchemes"]
        self.operations: dict[str, tuple[str, str, str | None]] = {}
        for path, methods in doc["paths"].items():
            for method, operation in methods.items():
                needs = [name for option in operation.get("security", []) for name in option]
                header = schemes[needs[0]]["name"] if needs else None
                self.operations[operation["operationId"]] = (method.upper(), path, header)

    async def call(self, operation: str, body: dict[str, Any], secret: str = "", **params: str) -> httpx.Response:
        method, path, header = self.operations[operation]
        headers = {header: secret} if header and secret else {}
        return await self.http.request(method, path, json=body, headers=headers, params=params)

    async def ok(self, operation: str, body: dict[str, Any], secret: str = "") -> dict[str, Any]:
        answer = await self.call(operation, body, secret)
        assert answer.status_code == 200, answer.text
        result: dict[str, Any] = answer.json()
        return result


def reason(answer: httpx.Response) -> tuple[int, str]:
    error = answer.json()["error"]
    return answer.status_code, error["details"][0]["reason"]


@contextlib.asynccontextmanager
async def hosting(data_dir: Path) -> AsyncIterator[httpx.ASGITransport]:
    """A hosting server's REST face, in process: the transport an HTTP client calls it through."""
    config = Config(data_dir=str(data_dir), seal_keys=KEYS, metrics_port=0, port=0, log_calls=False)
    app = App(config, keyring=Keyring.parse(KEYS), hosting=True)
    assert app.host is not None
    await app.host.start()
    try:
        yield httpx.ASGITransport(app=app.rest())
    finally:
        await app.host.stop()
        app.dispatcher.shutdown()


async def test_a_whole_hosted_hand_over_rest_from_the_openapi_document(tmp_path: Path) -> None:
    async with hosting(tmp_path) as transport, httpx.AsyncClient(transport=transport, base_url=BASE_URL) as http:
        doc = (await http.get("/openapi.json")).json()
        api = OpenApiClient(doc, http)
        assert {
            "OpenTable",
            "GetHostedTable",
            "Play",
            "AdviseSeat",
            "ReissueInvite",
            "StartTable",
            "React",
            "CloseTable",
        } <= set(api.operations)
        assert api.operations["OpenTable"][2] is None and api.operations["Play"][2] == "X-Table-Capability"
        await play_a_hand(api)


async def play_a_hand(api: RestApi) -> None:
    seats = [{"name": "Anna", "chips": "20"}, {"name": "Bruno", "chips": "20"}]
    bank = {"setteEMezzo": {"firstBank": "SETTE_E_MEZZO_FIRST_BANK_SEAT", "firstBankSeat": 1}}
    opened = await api.ok("OpenTable", {"game": "sette_e_mezzo", "seats": seats, "options": bank})
    table, owner = opened["tableId"], opened["owner"]["capability"]
    invites = {invite.get("seat", 0): invite["capability"] for invite in opened["invites"]}
    # The capability only in its header: one in the query string opens nothing.
    assert reason(await api.call("GetHostedTable", {"tableId": table}, capability=invites[0]))[0] == 403
    advised, over = False, False
    for _ in range(20):
        seen = await api.ok("GetHostedTable", {"tableId": table}, invites[0])
        seat = seen["update"]["toAct"][0]
        mine = await api.ok("GetHostedTable", {"tableId": table}, invites[seat])
        legal = mine["update"]["update"]["legalActions"]
        if not advised and any(move["kind"] == "STAND" for move in legal):
            advice = await api.ok("AdviseSeat", {"tableId": table}, invites[seat])
            assert {a["action"]["kind"] for a in advice["advice"]["actions"]} >= {"STAND"}
            advised = True
        move = next((m for m in legal if m["kind"] == "STAND"), legal[0])
        action = {"seat": seat, "kind": move["kind"], "amount": move.get("minAmount", "0")}
        # Another seat's invite may not play this seat's move: typed, and nothing moves.
        other = invites[1 - seat]
        body = {"tableId": table, "expectedSeq": mine["update"].get("seq", "0"), "action": action}
        assert reason(await api.call("Play", body, other))[0] == 403
        played = await api.ok("Play", body, invites[seat])
        if any(e["kind"] == "HAND_OVER" for e in played["update"]["update"]["events"]):
            over = True
            break
    assert over and advised
    # The owner reissues Bruno's invite: the old one is refused at once; the new one plays on.
    new = await api.ok("ReissueInvite", {"tableId": table, "seat": 1}, owner)
    assert reason(await api.call("GetHostedTable", {"tableId": table}, invites[1]))[0] == 403
    assert (await api.ok("GetHostedTable", {"tableId": table}, new["invite"]["capability"]))["seat"] == 1
    # Only the owner closes; after it, no move is taken.
    assert reason(await api.call("CloseTable", {"tableId": table}, invites[0]))[0] == 403
    closed = await api.ok("CloseTable", {"tableId": table}, owner)
    after = await api.ok("GetHostedTable", {"tableId": table}, invites[0])
    assert after["update"]["closed"] and after["update"]["seq"] == closed["seq"]
    unknown = await api.call("GetHostedTable", {"tableId": "t_" + "0" * 24}, invites[0])
    assert reason(unknown)[0] in (403, 404)
