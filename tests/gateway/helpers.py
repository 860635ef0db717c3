"""Playing through the REST gateway with plain JSON, as a browser would."""

from __future__ import annotations

import base64
import random
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx

from mazziere import engine
from mazziere.engine.table import TableState
from mazziere.services.core.admission import ANONYMOUS, Admission, CostClass
from mazziere.services.errors import ServiceError
from mazziere.services.table.sealing import Keyring

SEATS = {"sette_e_mezzo": 3, "saltacavallo": 4, "trentuno": 3}
CHIPS = 50


@dataclass
class Table:
    """What a front end keeps of one table: the latest token, its sequence number and the seat keys."""

    table_id: str
    state: str
    seq: str
    keys: dict[int, str]
    seats: int
    to_act: list[int] = field(default_factory=list)
    is_over: bool = False


def error(resp: httpx.Response) -> tuple[int, str, str]:
    """(HTTP status, gRPC status name, ErrorInfo reason) of an error answer."""
    body = resp.json()["error"]
    details = body.get("details") or [{}]
    return resp.status_code, body["status"], details[0].get("reason", "")


class Api:
    def __init__(self, http: httpx.Client, keyring: Keyring) -> None:
        self.http = http
        self.keyring = keyring

    def create(self, game: str, seats: int | None = None, *, seed: bytes = b"seed", chips: int = CHIPS) -> Table:
        n = seats or SEATS[game]
        body = {
            "game": game,
            "seats": [{"name": f"p{i}", "chips": str(chips)} for i in range(n)],
            "seed": base64.b64encode(seed).decode(),
        }
        resp = self.http.post("/v1/tables", json=body)
        assert resp.status_code == 200, resp.text
        data = resp.json()
        keys = {k.get("seat", 0): k["key"] for k in data["seatKeys"]}
        table = Table(data["tableId"], data["state"], data.get("seq", "0"), keys, n)
        table.to_act, table.is_over = data.get("toAct", []), data.get("isOver", False)
        return table

    def view(self, table: Table, seat: int | None) -> dict[str, Any]:
        body: dict[str, Any] = {"tableId": table.table_id, "state": table.state}
        headers = {}
        if seat is not None:
            body["seat"] = seat
            headers["X-Seat-Key"] = table.keys[seat]
        resp = self.http.post("/v1/tables:view", json=body, headers=headers)
        assert resp.status_code == 200, resp.text
        result: dict[str, Any] = resp.json()
        return result

    def act_raw(self, table: Table, action: dict[str, Any], **kw: Any) -> httpx.Response:
        body = {"tableId": table.table_id, "state": table.state, "expectedSeq": table.seq, "action": action}
        headers = {"X-Seat-Key": table.keys[action.get("seat", 0)], **kw.pop("headers", {})}
        return self.http.post("/v1/tables:act", json=body, headers=headers, **kw)

    def act(self, table: Table, action: dict[str, Any]) -> dict[str, Any]:
        resp = self.act_raw(table, action)
        assert resp.status_code == 200, resp.text
        self.last_body = resp.content
        data: dict[str, Any] = resp.json()
        table.state, table.seq = data["state"], data.get("seq", "0")
        table.to_act, table.is_over = data.get("toAct", []), data.get("isOver", False)
        return data

    def auto(self, table: Table, policy: str) -> dict[str, Any]:
        """Act with ``autoPlay = policy`` for the first seat to act (named in ``autoSeat`` if several may)."""
        seat = table.to_act[0]
        body: dict[str, Any] = {"tableId": table.table_id, "state": table.state, "expectedSeq": table.seq}
        body["autoPlay"] = policy
        if len(table.to_act) > 1:
            body["autoSeat"] = seat
        resp = self.http.post("/v1/tables:act", json=body, headers={"X-Seat-Key": table.keys[seat]})
        assert resp.status_code == 200, resp.text
        data: dict[str, Any] = resp.json()
        table.state, table.seq = data["state"], data.get("seq", "0")
        table.to_act, table.is_over = data.get("toAct", []), data.get("isOver", False)
        return data

    def random_action(self, table: Table, rng: random.Random) -> dict[str, Any]:
        seat = rng.choice(table.to_act)
        legal = self.view(table, seat)["update"]["legalActions"]
        entry = rng.choice(legal)
        amount = rng.randint(int(entry.get("minAmount", "0")), int(entry.get("maxAmount", "0")))
        action: dict[str, Any] = {"seat": seat, "kind": entry["kind"], "amount": str(amount)}
        if entry.get("cards"):
            action["cards"] = entry["cards"]
        if "target" in entry:
            action["target"] = entry["target"]
        return action

    def steps(self, table: Table, rng: random.Random, limit: int = 300) -> Iterator[tuple[dict[str, Any], Any]]:
        for _ in range(limit):
            if table.is_over:
                return
            action = self.random_action(table, rng)
            yield action, self.act(table, action)

    def unseal(self, token: str) -> TableState:
        _, payload = self.keyring.open(base64.b64decode(token))
        return engine.state_from_bytes(payload)


@contextmanager
def replay_places_taken(admission: Admission) -> Iterator[None]:
    """Every place of the replay workers taken, as replays in flight would take them; given back after."""
    tickets = []
    while True:
        try:
            tickets.append(admission.admit(CostClass.REPLAY, ANONYMOUS))
        except ServiceError:
            break
    try:
        yield
    finally:
        for ticket in tickets:
            ticket.release()
