"""Playing through the API, and reading the rich errors it returns."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from mazziere import engine
from mazziere.engine.table import TableState
from mazziere.services.gen.mazziere.v1 import cards_pb2
from mazziere.services.gen.mazziere.v1 import service_pb2 as svc
from mazziere.services.gen.mazziere.v1 import table_pb2 as pb
from mazziere.services.table.sealing import Keyring

SEATS = {"sette_e_mezzo": 3, "saltacavallo": 4, "trentuno": 3}
CHIPS = 50


@dataclass
class Table:
    """What a host keeps of one table: the latest token, its sequence number and the seat keys."""

    table_id: str
    state: bytes
    seq: int
    keys: dict[int, str]
    seats: int
    to_act: list[int] = field(default_factory=list)
    is_over: bool = False


def error_info(exc: grpc.RpcError) -> error_details_pb2.ErrorInfo | None:
    """The ErrorInfo of a rich error, if it has one."""
    status = rpc_status.from_call(exc)  # type: ignore[arg-type]
    if status is None:
        return None
    for detail in status.details:
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info):
            return info
    return None


def visible_cards(msg: Any) -> list[str]:
    """Every face-up card (non-empty TableCard.card) anywhere inside a message."""
    found: list[str] = []
    if isinstance(msg, cards_pb2.TableCard):
        return [msg.card] if msg.card else []
    for fd, value in msg.ListFields():
        if fd.message_type is None:
            continue
        for item in value if fd.is_repeated else [value]:
            found.extend(visible_cards(item))
    return found


class Client:
    """A host: creates tables, acts for any seat (it holds every key), and can open tokens test-side."""

    def __init__(self, stub: Any, keyring: Keyring) -> None:
        self.stub = stub
        self.keyring = keyring

    def create(
        self, game: str, seats: int | None = None, *, seed: bytes | None = b"seed", chips: int = CHIPS, **kw: Any
    ) -> Table:
        n = seats or SEATS[game]
        request = svc.CreateTableRequest(game=game, seats=[pb.Seat(name=f"p{i}", chips=chips) for i in range(n)], **kw)
        if seed is not None:
            request.seed = seed
        resp = self.stub.CreateTable(request)
        table = Table(resp.table_id, resp.state, resp.seq, {k.seat: k.key for k in resp.seat_keys}, n)
        table.to_act, table.is_over = list(resp.to_act), resp.is_over
        return table

    def legal(self, table: Table, seat: int) -> list[pb.LegalAction]:
        resp = self.stub.GetView(
            svc.GetViewRequest(table_id=table.table_id, state=table.state, seat=seat, seat_key=table.keys.get(seat, ""))
        )
        return list(resp.update.legal_actions)

    def act(self, table: Table, action: pb.Action, *, all_viewers: bool = False) -> svc.ActResponse:
        viewers = [pb.SeatKey(seat=s, key=k) for s, k in table.keys.items()] if all_viewers else []
        resp = self.stub.Act(
            svc.ActRequest(
                table_id=table.table_id,
                state=table.state,
                expected_seq=table.seq,
                action=action,
                seat_key=table.keys.get(action.seat, ""),
                viewers=viewers,
                include_spectator=all_viewers,
            )
        )
        table.state, table.seq = resp.state, resp.seq
        table.to_act, table.is_over = list(resp.to_act), resp.is_over
        return resp

    def auto(self, table: Table, policy: str, seat: int | None = None, **kw: Any) -> svc.ActResponse:
        """Act with ``auto_play = policy`` for ``seat`` (default: the first seat to act; ``auto_seat`` is named
        only when several may act), with that seat's key."""
        seat = table.to_act[0] if seat is None else seat
        request = svc.ActRequest(
            table_id=table.table_id, state=table.state, expected_seq=table.seq, auto_play=policy,
            seat_key=table.keys.get(seat, ""), **kw,
        )  # fmt: skip
        if len(table.to_act) != 1 or seat not in table.to_act:
            request.auto_seat = seat
        resp = self.stub.Act(request)
        table.state, table.seq = resp.state, resp.seq
        table.to_act, table.is_over = list(resp.to_act), resp.is_over
        return resp

    def advise(self, table: Table, seat: int, key: str | None = None, samples: int = 0) -> svc.AdviseResponse:
        key = table.keys.get(seat, "") if key is None else key
        request = svc.AdviseRequest(
            table_id=table.table_id, state=table.state, seat=seat, seat_key=key, samples=samples
        )
        resp: svc.AdviseResponse = self.stub.Advise(request)
        return resp

    def random_action(self, table: Table, rng: random.Random) -> pb.Action:
        seat = rng.choice(table.to_act)
        entry = rng.choice(self.legal(table, seat))
        action = pb.Action(
            seat=seat,
            kind=entry.kind,
            amount=rng.randint(entry.min_amount, entry.max_amount),
            cards=entry.cards,
        )
        if entry.HasField("target"):
            action.target = entry.target
        return action

    def steps(self, table: Table, rng: random.Random, limit: int = 300) -> Iterator[tuple[pb.Action, Any]]:
        """Random legal moves through the API until the game ends or ``limit``."""
        for _ in range(limit):
            if table.is_over:
                return
            action = self.random_action(table, rng)
            yield action, self.act(table, action, all_viewers=True)

    def unseal(self, token: bytes) -> TableState:
        """The true state behind a token (test side only)."""
        _, payload = self.keyring.open(token)
        return engine.state_from_bytes(payload)
