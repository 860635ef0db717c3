"""Which HTTP route serves which RPC of TableService and of HostService, and the OpenAPI examples of each."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from google.protobuf.descriptor import MethodDescriptor, ServiceDescriptor
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass

from mazziere.services.gen.mazziere.v1 import host_pb2, service_pb2

SERVICE = service_pb2.DESCRIPTOR.services_by_name["TableService"]
HOST_SERVICE = host_pb2.DESCRIPTOR.services_by_name["HostService"]

_TOKEN = "AAECAwQFBgcICQ=="  # stands for the base64 state token of the last answer
_TABLE = "t_0123456789abcdef01234567"


def _seats(*cards: tuple[str, int, int | None]) -> list[dict[str, Any]]:
    """Sette e mezzo seats after the deal, one card each: (name, seat, its points if the viewer sees its card)."""
    out: list[dict[str, Any]] = []
    for name, owner, points in cards:
        card: dict[str, Any] = {"seenBy": {"seats": [owner]}}
        seat: dict[str, Any] = {"name": name, "chips": "100", "status": "SETTE_E_MEZZO_STATUS_WAITING", "cards": [card]}
        if points is not None:
            card["card"] = "2d" if owner == 0 else "As"
            seat["points"] = points
        out.append(seat)
    return out


_FIRST_UPDATE = {
    "seat": 0,
    "view": {
        "setteEMezzo": {
            "phase": "SETTE_E_MEZZO_PHASE_WAIT_DEAL",
            "seats": [
                {"name": "Anna", "chips": "100", "status": "SETTE_E_MEZZO_STATUS_OUT"},
                {"name": "Bruno", "chips": "100", "status": "SETTE_E_MEZZO_STATUS_OUT"},
            ],
        }
    },
    "events": [{"kind": "FIRST_BANK", "seat": 0, "seenBy": {"everyone": True}}],
    "legalActions": [{"kind": "DEAL"}],
}
_DEALT_VIEW = {
    "setteEMezzo": {
        "phase": "SETTE_E_MEZZO_PHASE_STAKE",
        "turn": 1,
        "handNumber": 1,
        "seats": _seats(("Anna", 0, None), ("Bruno", 1, 2)),
        "stockSize": 38,
    }
}
_DEAL_EVENTS = [
    {"kind": "SHUFFLED", "amount": "40", "seenBy": {"everyone": True}},
    {"kind": "DEALT", "seat": 1, "cards": [{"seenBy": {"seats": [1]}}], "seenBy": {"everyone": True}},
    {"kind": "DEALT", "seat": 0, "cards": [{"seenBy": {"seats": [0]}}], "seenBy": {"everyone": True}},
]
_REPLAY_STEP = {
    "action": {"kind": "DEAL"},
    "seq": "1",
    "updates": [
        {
            "view": {
                "setteEMezzo": {**_DEALT_VIEW["setteEMezzo"], "seats": _seats(("Anna", 0, None), ("Bruno", 1, None))}
            },
            "events": _DEAL_EVENTS,
        }
    ],
    "toAct": [1],
}


_ADVICE = {
    "seq": "2",
    "method": "ADVICE_METHOD_EXACT",
    "actions": [
        {
            "action": {"kind": "HIT"},
            "expectedValue": -0.3943412878626521,
            "win": 0.31695559914228544,
            "lose": 0.6830444008577146,
            "bust": 0.4102129891603576,
            "basis": "ADVICE_BASIS_EXACT",
        },
        {
            "action": {"kind": "STAND"},
            "expectedValue": -0.5530325670842997,
            "win": 0.24710045060089997,
            "lose": 0.7528995493990999,
            "basis": "ADVICE_BASIS_EXACT",
        },
    ],
}
"""A real answer of Advise: Anna (seat 0) holds a 2 and has staked 1 against the bank, whose card she cannot see."""


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
    answer: dict[str, Any] = field(default_factory=dict)
    """An example of the 200 answer (for streaming, of one line); real answers, trimmed to one seat's update."""
    service: ServiceDescriptor = SERVICE

    @property
    def method(self) -> MethodDescriptor:
        result: MethodDescriptor = self.service.methods_by_name[self.rpc]
        return result

    @property
    def request_class(self) -> type[Message]:
        return GetMessageClass(self.method.input_type)

    @property
    def response_class(self) -> type[Message]:
        return GetMessageClass(self.method.output_type)


_REPLAY_EXAMPLE = {
    "replay": {
        "summary": "A table created with a seed, and its first action (seat 0, the first bank, deals)",
        "value": {
            "create": {
                "game": "sette_e_mezzo",
                "seats": [{"name": "Anna", "chips": "100"}, {"name": "Bruno", "chips": "100"}],
                "seed": "c2VlZA==",
            },
            "tableId": "t_replay",
            "actions": [{"kind": "DEAL"}],
        },
    }
}
"""The request example of Replay and StreamReplay (they take the same fields)."""


ROUTES = [
    Route(
        "ListGames",
        "GET",
        "/v1/games",
        "Describe every game",
        answer={
            "games": [
                {
                    "id": "saltacavallo",
                    "title": "Saltacavallo (Asso che fugge)",
                    "presets": [
                        {"name": "CUCU", "rules": {"saltacavallo": {"rulesVersion": 1, "lives": 3, "coin": "1"}}}
                    ],
                    "options": [
                        {
                            "name": "lives",
                            "type": "int",
                            "defaultValue": 3.0,
                            "doc": "SC-3: lives (coins) each player starts with",
                        }
                    ],
                }
            ]
        },
    ),
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
        answer={
            "tableId": _TABLE,
            "state": _TOKEN,
            "seatKeys": [
                {"key": "k1.GraQgAABd1tUsRk3sh6_apOhCVQNYUCl4NKPyZEVPRI"},
                {"seat": 1, "key": "k1.9714CpXgIjultARW-JDFn7Hr3qshuMhObq-X-8v7q2s"},
            ],
            "updates": [_FIRST_UPDATE],
            "toAct": [0],
        },
    ),
    Route(
        "Act",
        "POST",
        "/v1/tables:act",
        "Play one action, or let the table choose it (autoPlay); the acting seat's key in X-Seat-Key or seatKey",
        {
            "stake": {
                "summary": "Seat 1 stakes 10 on the state of sequence 1 (after the bank's DEAL)",
                "value": {
                    "tableId": "t_0123456789abcdef01234567",
                    "state": _TOKEN,
                    "expectedSeq": "1",
                    "action": {"seat": 1, "kind": "STAKE", "amount": "10"},
                },
            },
            "auto_play": {
                "summary": "The table plays for the seat to act with the cautious policy (e.g. its player timed out); "
                "that seat's key is needed as for any move",
                "value": {
                    "tableId": "t_0123456789abcdef01234567",
                    "state": _TOKEN,
                    "expectedSeq": "1",
                    "autoPlay": "cautious",
                },
            },
        },
        answer={
            "state": _TOKEN,
            "seq": "1",
            "updates": [
                {
                    "seat": 0,
                    "view": {
                        "setteEMezzo": {
                            **_DEALT_VIEW["setteEMezzo"],
                            "seats": _seats(("Anna", 0, 4), ("Bruno", 1, None)),
                        }
                    },
                    "events": _DEAL_EVENTS,
                }
            ],
            "toAct": [1],
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
        answer={
            "seq": "1",
            "update": {
                "seat": 1,
                "view": _DEALT_VIEW,
                "legalActions": [{"kind": "STAKE", "minAmount": "1", "maxAmount": "10"}],
            },
            "toAct": [1],
        },
    ),
    Route(
        "Advise",
        "POST",
        "/v1/tables:advise",
        "The odds of each legal action of one seat (its key in X-Seat-Key or seatKey), from its own view only",
        {
            "seat": {
                "summary": "Seat 0's odds: should it hit or stand?",
                "value": {"tableId": "t_0123456789abcdef01234567", "state": _TOKEN, "seat": 0},
            }
        },
        answer=_ADVICE,
    ),
    Route(
        "Gather",
        "POST",
        "/v1/tables:gather",
        "Close a table for good: the seeds of the packs it still keeps, to verify its record to the end",
        {
            "table": {
                "summary": "Reveal the last pack of a table that will not be played on (every seat's key)",
                "value": {
                    "tableId": "t_0123456789abcdef01234567",
                    "state": _TOKEN,
                    "seatKeys": [
                        {"key": "k1.GraQgAABd1tUsRk3sh6_apOhCVQNYUCl4NKPyZEVPRI"},
                        {"seat": 1, "key": "k1.9714CpXgIjultARW-JDFn7Hr3qshuMhObq-X-8v7q2s"},
                    ],
                },
            }
        },
        answer={
            "events": [
                {
                    "kind": "SEED",
                    "cards": [{"card": "2b", "seenBy": {"everyone": True}}],
                    "seenBy": {"everyone": True},
                    "draw": 1,
                    "data": "5f0c" + "0" * 60,
                }
            ]
        },
    ),
    Route(
        "Replay",
        "POST",
        "/v1/tables:replay",
        "Play a whole table again from its creation request (with the seed) and its actions",
        _REPLAY_EXAMPLE,
        answer={"steps": [{"updates": [_FIRST_UPDATE], "toAct": [0]}, _REPLAY_STEP]},
    ),
    Route(
        "StreamReplay",
        "POST",
        "/v1/tables:streamReplay",
        "Replay, streamed: one JSON StreamReplayResponse per line (NDJSON), the creation step first",
        _REPLAY_EXAMPLE,
        streaming=True,
        answer={"step": _REPLAY_STEP},
    ),
]


CAPABILITY_HEADER = "X-Table-Capability"
"""Where a host call's capability goes (an invite's, the spectators' or the owner's): a header, never the URL."""
_HOSTED = "t_9f3c2a7b41d0e5c8a6f1b2d3"
_INVITE = "Kp3vQ0yZ8mW2rT6uX1aB4cD7eF9gH5jL0nS2tV4wY6z"


def _hosted(rpc: str, path: str, summary: str, value: dict[str, Any], answer: dict[str, Any]) -> Route:
    return Route(
        rpc,
        "POST",
        path,
        summary,
        {"example": {"summary": summary, "value": value}},
        answer=answer,
        service=HOST_SERVICE,
    )


HOST_ROUTES = [
    _hosted(
        "OpenTable",
        "/v1/hosted-tables",
        "Open a table kept between people: its owner's capability and one invite a seat (and the spectators')",
        {
            "game": "sette_e_mezzo",
            "seats": [
                {"name": "Anna", "chips": "100"},
                {"name": "Bruno", "chips": "100"},
                {"name": "Nonno", "chips": "100", "bot": "cautious"},
            ],
            "turnSeconds": 60,
        },
        {
            "tableId": _HOSTED,
            "owner": {"capability": _INVITE, "url": f"http://localhost:8080/play/#table={_HOSTED}&invite=..."},
            "invites": [{"seat": 0, "capability": "...", "url": "..."}, {"seat": 1, "capability": "...", "url": "..."}],
        },
    ),
    _hosted(
        "GetHostedTable",
        "/v1/hosted-tables:get",
        "The table as the capability's holder sees it now (X-Table-Capability: an invite, the spectators' or the "
        "owner's)",
        {"tableId": _HOSTED},
        {
            "update": {"seq": "3", "update": _FIRST_UPDATE, "toAct": [1], "game": "sette_e_mezzo"},
            "presence": [{"name": "Anna", "connected": True}, {"seat": 1, "name": "Bruno"}],
        },
    ),
    _hosted(
        "Play",
        "/v1/hosted-tables:play",
        "Play a move for the invite's seat at the table's latest sequence number",
        {"tableId": _HOSTED, "expectedSeq": "3", "action": {"seat": 0, "kind": "STAKE", "amount": "5"}},
        {"update": {"seq": "4", "update": _FIRST_UPDATE, "toAct": [0], "game": "sette_e_mezzo"}},
    ),
    _hosted(
        "AdviseSeat",
        "/v1/hosted-tables:adviseSeat",
        "The odds of each of the invite's seat's legal moves, from that seat's view only",
        {"tableId": _HOSTED},
        {"advice": _ADVICE},
    ),
    _hosted(
        "ReissueInvite",
        "/v1/hosted-tables:reissueInvite",
        "The owner makes a new invite for a seat (or the spectators), revoking the old one and its open streams",
        {"tableId": _HOSTED, "seat": 1},
        {"invite": {"seat": 1, "capability": "...", "url": "..."}},
    ),
    _hosted(
        "StartTable",
        "/v1/hosted-tables:start",
        "The owner starts a table that waits for its people: empty person seats are played by the table until "
        "their person comes",
        {"tableId": _HOSTED},
        {"status": {"state": "TABLE_STATE_PLAYING"}},
    ),
    _hosted(
        "React",
        "/v1/hosted-tables:react",
        "A quick reaction from the invite's seat to everyone watching (one of a fixed set; not kept, no seq)",
        {"tableId": _HOSTED, "kind": "bella"},
        {},
    ),
    _hosted(
        "CloseTable",
        "/v1/hosted-tables:close",
        "The owner closes the table: no more moves; its watchers get a last update marked closed",
        {"tableId": _HOSTED},
        {"seq": "5"},
    ),
]
"""HostService over REST: every RPC but Watch (a server stream, over Connect, gRPC-Web and gRPC). The
capability goes in the X-Table-Capability header only, never in a path or a query string."""
