"""Which HTTP route serves which RPC of TableService, and the OpenAPI examples of each."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from google.protobuf.descriptor import MethodDescriptor
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass

from services.gen.mazziere.v1 import service_pb2 as svc

SERVICE = svc.DESCRIPTOR.services_by_name["TableService"]

_TOKEN = "AAECAwQFBgcICQ=="  # stands for the base64 state token of the last answer


@dataclass(frozen=True, slots=True)
class Route:
    """One RPC as a JSON endpoint."""

    rpc: str
    http_method: str
    path: str
    summary: str
    examples: dict[str, Any] = field(default_factory=dict)
    streaming: bool = False
    """Server streaming: the answer is NDJSON, one response message per line."""

    @property
    def method(self) -> MethodDescriptor:
        result: MethodDescriptor = SERVICE.methods_by_name[self.rpc]
        return result

    @property
    def request_class(self) -> type[Message]:
        return GetMessageClass(self.method.input_type)

    @property
    def response_class(self) -> type[Message]:
        return GetMessageClass(self.method.output_type)


ROUTES = [
    Route("ListGames", "GET", "/v1/games", "Describe every game"),
    Route(
        "CreateTable",
        "POST",
        "/v1/tables",
        "Seat the players, deal, and return the first state with every seat's key",
        {
            "sette_e_mezzo": {
                "summary": "Sette e mezzo, three players, the default preset",
                "value": {
                    "game": "sette_e_mezzo",
                    "seats": [{"name": n, "chips": "100"} for n in ("Anna", "Bruno", "Carla")],
                },
            },
            "trentuno_seeded": {
                "summary": "Trentuno with a fixed seed (tests and replays only)",
                "value": {
                    "game": "trentuno",
                    "seats": [{"name": n, "chips": "20"} for n in ("Anna", "Bruno", "Carla")],
                    "seed": "c2VlZA==",
                },
            },
        },
    ),
    Route(
        "Act",
        "POST",
        "/v1/tables:act",
        "Play one action (the acting seat's key in X-Seat-Key or seatKey)",
        {
            "stake": {
                "summary": "Seat 1 stakes 10 on the state of sequence 1 (after the bank's DEAL)",
                "value": {
                    "tableId": "t_0123456789abcdef01234567",
                    "state": _TOKEN,
                    "expectedSeq": "1",
                    "action": {"seat": 1, "kind": "STAKE", "amount": "10"},
                },
            }
        },
    ),
    Route(
        "GetView",
        "POST",
        "/v1/tables:view",
        "What one seat (with its key in X-Seat-Key or seatKey) or a spectator (no seat) may know",
        {
            "seat": {
                "summary": "Seat 0's view and legal actions",
                "value": {"tableId": "t_0123456789abcdef01234567", "state": _TOKEN, "seat": 0},
            },
            "spectator": {
                "summary": "The spectator's view",
                "value": {"tableId": "t_0123456789abcdef01234567", "state": _TOKEN},
            },
        },
    ),
    Route(
        "Replay",
        "POST",
        "/v1/tables:replay",
        "Play a whole table again from its creation request (with the seed) and its actions",
        {
            "replay": {
                "summary": "A table created with a seed, and its first action",
                "value": {
                    "create": {
                        "game": "sette_e_mezzo",
                        "seats": [{"name": "Anna", "chips": "100"}, {"name": "Bruno", "chips": "100"}],
                        "seed": "c2VlZA==",
                    },
                    "tableId": "t_replay",
                    "actions": [{"seat": 1, "kind": "STAKE", "amount": "10"}],
                },
            }
        },
    ),
    Route(
        "StreamReplay",
        "POST",
        "/v1/tables:streamReplay",
        "Replay, streamed: one JSON StreamReplayResponse per line (NDJSON), the creation step first",
        {
            "replay": {
                "summary": "A table created with a seed, and its first action",
                "value": {
                    "create": {
                        "game": "sette_e_mezzo",
                        "seats": [{"name": "Anna", "chips": "100"}, {"name": "Bruno", "chips": "100"}],
                        "seed": "c2VlZA==",
                    },
                    "tableId": "t_replay",
                    "actions": [{"seat": 1, "kind": "DEAL"}],
                },
            }
        },
        streaming=True,
    ),
]
