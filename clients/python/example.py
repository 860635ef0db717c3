"""Create a Sette e mezzo table and play one hand: the bank deals, the player stakes and stands, the bank plays.

Uses the Python code that ``make setup`` generates into ``services/gen`` (with grpcio and grpcio-status, which the
project installs). From the repository root, against ``make run``::

    .venv/bin/python clients/python/example.py

The server address comes from ``$MAZZIERE_TARGET`` (default ``localhost:50051``).
"""

from __future__ import annotations

import os
import sys

import grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from services.gen.mazziere.v1 import service_pb2 as svc
from services.gen.mazziere.v1 import service_pb2_grpc
from services.gen.mazziere.v1 import table_pb2 as pb

ERROR_DOMAIN = "mazziere.v1"


def error_info(exc: grpc.RpcError) -> error_details_pb2.ErrorInfo | None:
    """The ErrorInfo of a refused call (``reason`` is an ErrorReason name without its prefix), if it has one."""
    status = rpc_status.from_call(exc)
    for detail in status.details if status else []:
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info) and info.domain == ERROR_DOMAIN:
            return info
    return None


def describe(event: pb.Event) -> str:
    parts = [event.kind]
    if event.HasField("seat"):
        parts.append(f"seat {event.seat}")
    parts += [card.card or "hidden" for card in event.cards]
    if event.amount:
        parts.append(f"amount {event.amount}")
    return " ".join(parts)


def choose(legal: list[pb.LegalAction]) -> tuple[str, int]:
    """The example's move: the bank deals, a player stakes 10 (within the allowed range), then everyone stands."""
    kinds = {action.kind: action for action in legal}
    if "DEAL" in kinds:
        return "DEAL", 0
    if stake := kinds.get("STAKE"):
        return "STAKE", min(max(10, stake.min_amount), stake.max_amount)
    if "STAND" in kinds:
        return "STAND", 0
    raise RuntimeError(f"no move to make among {sorted(kinds)}")


def main() -> int:
    with grpc.insecure_channel(os.environ.get("MAZZIERE_TARGET") or "localhost:50051") as channel:
        stub = service_pb2_grpc.TableServiceStub(channel)
        created = stub.CreateTable(
            svc.CreateTableRequest(
                game="sette_e_mezzo", seats=[pb.Seat(name="Anna", chips=100), pb.Seat(name="Bruno", chips=100)]
            ),
            timeout=10,
        )
        # What a host keeps: the latest state token, its sequence number and every seat's key.
        table_id, state, seq, to_act = created.table_id, created.state, created.seq, list(created.to_act)
        keys = {k.seat: k.key for k in created.seat_keys}
        print(f"table {table_id}: {', '.join(map(describe, created.updates[0].events))}")
        kinds: list[str] = []
        while "HAND_OVER" not in kinds and len(kinds) < 100:
            seat = to_act[0]
            # The acting seat's legal actions: a GetView for that seat, with its key.
            view = stub.GetView(
                svc.GetViewRequest(table_id=table_id, state=state, seat=seat, seat_key=keys[seat]), timeout=10
            )
            kind, amount = choose(list(view.update.legal_actions))
            answer = stub.Act(
                svc.ActRequest(
                    table_id=table_id,
                    state=state,
                    expected_seq=seq,
                    action=pb.Action(seat=seat, kind=kind, amount=amount),
                    seat_key=keys[seat],
                ),
                timeout=10,
            )
            state, seq, to_act = answer.state, answer.seq, list(answer.to_act)
            events = answer.updates[0].events
            kinds += [e.kind for e in events]
            paid = "".join(f"; paid {t.payer}->{t.payee} {t.amount} ({t.reason})" for t in answer.settlement)
            move = f"{kind} {amount}" if amount else kind
            print(f"seat {seat} {move} -> seq {seq}: {', '.join(map(describe, events))}{paid}")

        # Acting on an old sequence number is refused with ABORTED, reason STALE_SEQUENCE.
        try:
            stub.Act(
                svc.ActRequest(
                    table_id=table_id,
                    state=state,
                    expected_seq=seq - 1,
                    action=pb.Action(seat=to_act[0], kind="DEAL"),
                    seat_key=keys[to_act[0]],
                ),
                timeout=10,
            )
        except grpc.RpcError as exc:
            info = error_info(exc)
            metadata = dict(info.metadata) if info else {}
            print(f"refused: {exc.code().name}, reason {info and info.reason}, metadata {metadata}")
            return 0 if exc.code() == grpc.StatusCode.ABORTED and info and info.reason == "STALE_SEQUENCE" else 1
        print("a stale sequence number was accepted", file=sys.stderr)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
