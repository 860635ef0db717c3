"""Reading TableService's requests: an action message as the engine's action, which move an Act asks for, the
seed's bound, and the engine's refusals as the service's (nothing of a request reaches the engine unchecked)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import grpc

from mazziere import engine
from mazziere.engine import bots
from mazziere.engine.table import TableState
from mazziere.services.core.call import Call
from mazziere.services.errors import ServiceError, ServiceReason
from mazziere.services.gen.mazziere.v1 import service_pb2 as svc
from mazziere.services.gen.mazziere.v1 import table_pb2 as pb


def run_engine(fn: Callable[[], Any], **metadata: str) -> Any:
    """``fn()``, with the engine's :class:`~engine.errors.Rejected` raised as a ServiceError."""
    try:
        return fn()
    except engine.Rejected as exc:
        raise ServiceError.from_rejected(exc, **metadata) from None


def action_of(msg: pb.Action, where: str) -> engine.Action:
    """The engine's action for an ``Action`` message (the message's types are the engine's; cards are checked)."""
    cards: tuple[engine.Card, ...] = ()
    for i, text in enumerate(msg.cards):
        try:
            cards += (engine.Card.parse(text),)
        except engine.Rejected as exc:
            raise ServiceError.from_rejected(
                engine.Rejected(exc.reason, f"{where}.cards[{i}]: {exc.message}")
            ) from None
    target = msg.target if msg.HasField("target") else None
    try:
        entropy = bytes.fromhex(msg.entropy)
    except ValueError:
        raise ServiceError.from_rejected(
            engine.Rejected(engine.Reason.INVALID_ENTROPY, f"{where}.entropy: {msg.entropy[:80]!r} is not hex")
        ) from None
    return engine.Action(msg.seat, msg.kind, msg.amount, target, cards, entropy)


def requested_move(request: svc.ActRequest) -> bool:
    """True for a request carrying its move (``action``), False for one asking for ``auto_play``."""
    has_action = request.HasField("action")
    if has_action == bool(request.auto_play):
        said = "both" if has_action else "neither"
        raise ServiceError.of(
            ServiceReason.INVALID_REQUEST,
            f"the request has {said} action and auto_play; set exactly one: the move in action, or a policy "
            f"({', '.join(bots.POLICIES)}) in auto_play",
        )
    if has_action and request.HasField("auto_seat"):
        raise ServiceError.of(ServiceReason.INVALID_REQUEST, "auto_seat goes with auto_play; an action names its seat")
    return has_action


def auto_seat(state: TableState, request: svc.ActRequest) -> int:
    """The seat ``auto_play`` plays for: ``auto_seat``, or else the one seat to act (the policy checked first)."""
    check_policy(request.auto_play)
    if request.HasField("auto_seat"):
        return request.auto_seat
    to_act = engine.to_act(state)
    if len(to_act) == 1:
        return to_act[0]
    if not to_act:
        raise ServiceError.from_rejected(engine.Rejected(engine.Reason.GAME_OVER, "no seat may act: the game is over"))
    raise ServiceError.of(
        ServiceReason.INVALID_REQUEST,
        f"seats {', '.join(map(str, to_act))} may all act now: name the one to play for in auto_seat",
    )


def check_policy(name: str) -> None:
    """Refuse a bot policy the engine does not know."""
    if name not in bots.POLICIES:
        raise ServiceError.from_rejected(
            engine.Rejected(
                engine.Reason.UNKNOWN_POLICY,
                f"no policy is named {name[:100]!r}; the policies are {', '.join(bots.POLICIES)}",
            )
        )


def check_seed(request: svc.CreateTableRequest) -> None:
    if request.HasField("seed") and len(request.seed) > engine.MAX_SEED:
        raise ServiceError.from_rejected(
            engine.Rejected(
                engine.Reason.INVALID_SEED, f"the seed is {len(request.seed)} bytes; at most {engine.MAX_SEED}"
            )
        )


def check_deadline(call: Call, during: str) -> None:
    """Refuse to go on once the call's deadline passed (``during``: what was under way)."""
    remaining = call.time_remaining()
    if remaining is not None and remaining <= 0:
        raise ServiceError(grpc.StatusCode.DEADLINE_EXCEEDED, "DEADLINE_EXCEEDED", f"the deadline passed {during}")
