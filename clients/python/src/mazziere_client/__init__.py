"""A client for Mazziere, the stateless rules engine for Italian card games (``mazziere.v1.TableService``).

``Client`` holds the gRPC channel; ``Client.create`` opens a ``Table``, which keeps what a host must keep (the
latest state token, its sequence number and every seat's key) and sends it back with each call::

    from mazziere_client import Action, Client, MazziereError

    with Client("localhost:50051") as client:
        table = client.create("sette_e_mezzo", [("Anna", 100), ("Bruno", 100)])
        seat = table.to_act[0]
        answer = table.act(Action(seat=seat, kind="DEAL"))   # the seat's own key, expected_seq = table.seq
        view = table.view(seat)                               # view.update.legal_actions: what it may do now
        advice = table.advise(table.to_act[0])                # the odds of each of its actions, from its view
        table.auto("cautious")                                # the table plays for the seat to act (a timeout)

``verify_record(events)`` checks a table's public record against its committed dealing (docs/fairness.md), from
the record alone: ``verify_record(events_of(open("record.ndjson"))).ok``.

``Client.watch(table_id, capability)`` follows a hosted table (``HostService.Watch``) across reconnections, every
update once and in order::

    for answer in client.watch(table_id, invite):        # ends when the table closes; Watch.cancel() stops it
        if answer.HasField("update"):
            print(answer.update.seq, [e.kind for e in answer.update.update.events])

A refused call raises ``MazziereError`` (``.code``, ``.reason``, ``.metadata``). The generated messages and stub
are in ``mazziere_client.v1`` (``table_pb2``, ``service_pb2``, ``service_pb2_grpc``, one module per proto file).
"""

from __future__ import annotations

from importlib import metadata

from mazziere_client.client import Client, Table
from mazziere_client.errors import MazziereError
from mazziere_client.v1.service_pb2 import ActResponse, AdviseResponse, CreateTableResponse, GetViewResponse
from mazziere_client.v1.table_pb2 import Action, Rules, Seat, SeatKey
from mazziere_client.verify import events_of, verify_record
from mazziere_client.watch import Backoff, Watch

try:
    __version__ = metadata.version("mazziere-client")
    """The installed distribution's version (``Client.server_version()`` asks the server for its own)."""
except metadata.PackageNotFoundError:  # the package's folder used without its distribution
    __version__ = "0+unknown"

__all__ = [
    "ActResponse",
    "Action",
    "AdviseResponse",
    "Backoff",
    "Client",
    "CreateTableResponse",
    "GetViewResponse",
    "MazziereError",
    "Rules",
    "Seat",
    "SeatKey",
    "Table",
    "Watch",
    "events_of",
    "verify_record",
]
