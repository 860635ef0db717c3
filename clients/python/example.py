"""Create a Sette e mezzo table and play one hand: the bank deals, the player stakes and stands, the bank plays.
Then the table plays the bank's next deal itself (auto-play, as a host's timer would) and the player asks for its
odds (Advise).

Uses the ``mazziere-client`` distribution (``pip install clients/python``, clients/README.md). Against
``make run``::

    python3 -m venv /tmp/mazziere-client && /tmp/mazziere-client/bin/pip install clients/python
    /tmp/mazziere-client/bin/python clients/python/example.py

The server address comes from ``$MAZZIERE_TARGET`` (default ``localhost:50051``).
"""

from __future__ import annotations

import os
import sys

from mazziere_client import Action, Client, MazziereError, Table
from mazziere_client.v1 import table_pb2 as pb


def describe(event: pb.Event) -> str:
    parts = [f"{event.kind} (auto)" if event.auto else event.kind]
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
    with Client(os.environ.get("MAZZIERE_TARGET") or "localhost:50051") as client:
        # The table keeps what a host keeps: the latest state token, its sequence number and every seat's key.
        table = client.create("sette_e_mezzo", [("Anna", 100), ("Bruno", 100)])
        assert table.created is not None
        print(f"table {table.table_id}: {', '.join(map(describe, table.created.updates[0].events))}")
        kinds: list[str] = []
        while "HAND_OVER" not in kinds and len(kinds) < 100:
            seat = table.to_act[0]
            # The acting seat's legal actions: its view, asked for with its key.
            kind, amount = choose(list(table.view(seat).update.legal_actions))
            answer = table.act(Action(seat=seat, kind=kind, amount=amount))  # expected_seq = table.seq
            events = answer.updates[0].events
            kinds += [e.kind for e in events]
            paid = "".join(f"; paid {t.payer}->{t.payee} {t.amount} ({t.reason})" for t in answer.settlement)
            move = f"{kind} {amount}" if amount else kind
            print(f"seat {seat} {move} -> seq {table.seq}: {', '.join(map(describe, events))}{paid}")

        # The player's time is up: the table plays for it with the "cautious" policy (the seat's key is needed).
        seat = table.to_act[0]
        answer = table.auto("cautious")
        print(f"seat {seat} played by the table: {answer.action.kind} -> seq {table.seq}: "
              f"{', '.join(map(describe, answer.updates[0].events))}")  # fmt: skip
        # The next seat to act asks for the odds of each of its actions, from what it may see.
        seat = table.to_act[0]
        for entry in table.advise(seat).actions:
            move = f"{entry.action.kind} {entry.action.amount}" if entry.action.amount else entry.action.kind
            print(f"advice for seat {seat}: {move}: expected {entry.expected_value:.2f} "
                  f"(win {entry.win:.2f}, push {entry.push:.2f}, lose {entry.lose:.2f})")  # fmt: skip

        # A host whose sequence number is out of date (here one behind) is refused with ABORTED, STALE_SEQUENCE.
        behind = Table(client, table.table_id, table.state, table.seq - 1, table.seat_keys)
        try:
            behind.act(Action(seat=table.to_act[0], kind="DEAL"))
        except MazziereError as exc:
            print(f"refused: {exc.code.name}, reason {exc.reason}, metadata {exc.metadata}")
            return 0 if exc.reason == "STALE_SEQUENCE" else 1
        print("a stale sequence number was accepted", file=sys.stderr)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
