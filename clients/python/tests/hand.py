"""Plays a hand of Sette e mezzo through ``mazziere_client`` alone; tests/clients runs it in the client's own venv.

It runs outside the project (no ``engine``, no ``services``, not even on ``sys.path``): the server's address is in
``$MAZZIERE_TARGET``, and it prints one JSON object of what it saw for the test to check.
"""

from __future__ import annotations

import json
import os
import socket
import sys
from typing import Any

import grpc
import mazziere_client
from google import protobuf
from google.protobuf import json_format
from mazziere_client import Action, Client, MazziereError, Table, verify_record
from mazziere_client.v1 import sette_e_mezzo_pb2


def refusal(exc: MazziereError) -> dict[str, Any]:
    return {"code": exc.code.name, "reason": exc.reason, "metadata": exc.metadata}


def public(update: Any) -> list[dict[str, Any]]:
    """The events of a spectator's update, as JSON (what ``mazziere verify`` reads)."""
    return [json_format.MessageToDict(e) for e in update.events]


def main() -> int:
    out: dict[str, Any] = {"moves": [], "events": []}
    with Client(os.environ["MAZZIERE_TARGET"]) as client:
        out["games"] = [game.id for game in client.list_games()]
        out["versions"] = {
            "server": client.server_version(),
            "client": mazziere_client.__version__,
            "grpcio": grpc.__version__,
            "protobuf": protobuf.__version__,
        }
        first_bank = sette_e_mezzo_pb2.SETTE_E_MEZZO_FIRST_BANK_SEAT
        options = sette_e_mezzo_pb2.SetteEMezzoRules(first_bank=first_bank, first_bank_seat=1)
        table = client.create("sette_e_mezzo", [("Anna", 100), ("Bruno", 100)], options=options, seed=b"mazziere")
        out["created"] = {"seq": table.seq, "to_act": table.to_act, "keys": sorted(table.seat_keys)}
        assert table.created is not None
        record = [public(u) for u in table.created.updates if not u.HasField("seat")]  # the spectator's record

        # A seat that may not act now: refused, and the table keeps its state and sequence number.
        other = next(seat for seat in table.seat_keys if seat not in table.to_act)
        state, seq = table.state, table.seq
        try:
            table.act(Action(seat=other, kind="STAND"))
        except MazziereError as exc:
            out["not_your_turn"] = refusal(exc) | {"unchanged": table.state == state and table.seq == seq}
        try:
            table.act(Action(seat=table.to_act[0], kind="DEAL"), seat_key=table.key(other))
        except MazziereError as exc:
            out["wrong_key"] = refusal(exc)
        try:
            client.create("scopa", [("Anna", 100), ("Bruno", 100)])
        except MazziereError as exc:
            out["unknown_game"] = refusal(exc)

        while not any(e["kind"] == "HAND_OVER" for e in out["events"]) and len(out["moves"]) < 50:
            seat = table.to_act[0]
            legal = {action.kind: action for action in table.view(seat).update.legal_actions}
            if "DEAL" in legal:
                action = Action(seat=seat, kind="DEAL")
            elif stake := legal.get("STAKE"):
                action = Action(seat=seat, kind="STAKE", amount=stake.min_amount)
            else:
                action = Action(seat=seat, kind="STAND")
            answer = table.act(action, include_spectator=True)
            assert answer.seq == table.seq and list(answer.to_act) == table.to_act
            out["moves"].append({"seat": seat, "kind": action.kind, "seq": table.seq})
            out["events"] += [{"kind": e.kind} for e in answer.updates[0].events]
            record += [public(u) for u in answer.updates if not u.HasField("seat")]
        out["spectator"] = table.view(None).update.HasField("seat")
        try:
            table.auto("genius")
        except MazziereError as exc:
            out["unknown_policy"] = refusal(exc)
        auto = table.auto("cautious", include_spectator=True)  # the bank's next deal, played by the table
        record += [public(u) for u in auto.updates if not u.HasField("seat")]
        marked = all(e.auto for e in auto.updates[0].events)
        out["auto"] = {"kind": auto.action.kind, "seq": table.seq, "marked": marked}
        advice = table.advise(table.to_act[0])
        out["advice"] = {"seat": advice.seat, "actions": len(advice.actions), "seq": advice.seq}

        behind = Table(client, table.table_id, table.state, table.seq - 1, table.seat_keys)
        try:
            behind.act(Action(seat=table.to_act[0], kind="DEAL"))
        except MazziereError as exc:
            out["stale"] = refusal(exc) | {"is_grpc": isinstance(exc.code, grpc.StatusCode)}

        # docs/fairness.md: the spectator's record checks out; the pack in play is revealed once gathered.
        playing = verify_record(e for events in record for e in events)
        record.append([json_format.MessageToDict(e) for e in table.gather().events])
        gathered = verify_record(e for events in record for e in events)
        out["verified"] = {
            "playing": [playing.ok, playing.unrevealed],
            "gathered": [gathered.ok, gathered.unrevealed, len(gathered.checked_draws)],
        }
    # No server there: UNAVAILABLE, with no ErrorInfo, hence no reason.
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        nowhere = f"127.0.0.1:{free.getsockname()[1]}"
    with Client(nowhere, timeout=5) as client:
        try:
            client.list_games()
        except MazziereError as exc:
            out["unreachable"] = refusal(exc)
    out["server_modules"] = sorted(
        name for name in sys.modules if name.split(".")[0] in ("mazziere", "engine", "services")
    )
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
