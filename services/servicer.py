"""The TableService handlers: decode, call the engine, encode. No rule lives here.

:class:`TableCore` holds the logic as plain methods ``(request, call) -> response`` that raise
:class:`~services.errors.ServiceError`; :mod:`services.server` wraps them for the thread-pool or the asyncio
server, with logs and metrics around every call.
"""

from __future__ import annotations

import os
import secrets
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import grpc
from google.protobuf import struct_pb2
from google.protobuf.message_factory import GetMessageClass

import engine
from engine import codec as engine_codec
from engine.rules import describe
from engine.table import Outcome, TableState
from engine.visibility import Viewer, redact
from services.codec import to_plain, to_proto
from services.errors import ServiceError, ServiceReason
from services.gen.mazziere.v1 import service_pb2 as svc
from services.gen.mazziere.v1 import table_pb2 as pb
from services.sealing import Keyring, TokenError

_VIEW_FIELDS = pb.TableView.DESCRIPTOR.fields_by_name
_RULES_FIELDS = pb.Rules.DESCRIPTOR.fields_by_name


@dataclass(slots=True)
class Call:
    """What a handler tells the wrapper about one call (for logs and metrics)."""

    time_remaining: Callable[[], float | None] = lambda: None
    game: str = ""
    finished: list[tuple[str, str, str]] = field(default_factory=list)
    """(game, preset, event kind) for every HAND_OVER and GAME_OVER of the call."""
    plain_state: bool = False
    """The call works on a plain state from a trusted caller: if the engine trips on it, the state is at fault."""


def served_games() -> list[str]:
    """The registered games that the contract has messages for."""
    return [g.id for g in engine.all_games() if g.id in _VIEW_FIELDS and g.id in _RULES_FIELDS]


class TableCore:
    """The service's logic, independent of the gRPC flavour."""

    def __init__(
        self,
        keyring: Keyring,
        *,
        trusted_mode: bool = False,
        max_replay_actions: int = 10_000,
        recent_size: int = 4096,
        replay_max_views: int = 8000,
    ) -> None:
        self.keyring = keyring
        self.trusted_mode = trusted_mode
        self.max_replay_actions = max_replay_actions
        self.replay_max_views = replay_max_views
        self._games: svc.ListGamesResponse | None = None
        self._recent: OrderedDict[bytes, TableState] = OrderedDict()
        """Tokens this process sealed lately, with their states: a memo that skips decrypting and decoding
        the token a caller sends back (it is the very bytes we made, so it is authentic). Bounded; losing it
        changes nothing but speed."""
        self._recent_lock = threading.Lock()
        self.recent_size = recent_size

    # -- handlers ----------------------------------------------------------------------------------

    def list_games(self, request: svc.ListGamesRequest, call: Call) -> svc.ListGamesResponse:
        if self._games is None:
            self._games = svc.ListGamesResponse(games=[_game_info(engine.get_game(g)) for g in served_games()])
        return self._games

    def create_table(self, request: svc.CreateTableRequest, call: Call) -> svc.CreateTableResponse:
        call.game = request.game
        _check_seed(request)
        seed = request.seed if request.HasField("seed") else os.urandom(32)
        out = self._new_table(request, f"t_{secrets.token_hex(12)}", seed)
        state: TableState = out.state
        self._count_finished(state, out, call)
        return svc.CreateTableResponse(
            table_id=state.table_id,
            state=self._seal(state),
            seat_keys=[]
            if self.trusted_mode
            else [pb.SeatKey(seat=s, key=self.keyring.seat_key(state.table_id, s)) for s in range(state.seat_count)],
            **_outcome(out, [None, *range(state.seat_count)]),
        )

    def act(self, request: svc.ActRequest, call: Call) -> svc.ActResponse:
        state = self._open(request.state, request.table_id, call)
        call.game = state.game
        if not request.HasField("action"):
            raise ServiceError.of(ServiceReason.INVALID_REQUEST, "the request has no action")
        action: engine.Action = _engine_value(engine.Action, to_plain(request.action), "action")
        self._check_seat(state, action.seat, request.seat_key)
        viewers: list[Viewer] = [action.seat, None] if request.include_spectator else [action.seat]
        for extra in request.viewers:
            self._check_seat(state, extra.seat, extra.key)
            if extra.seat not in viewers:
                viewers.append(extra.seat)
        if request.expected_seq != state.seq:
            raise ServiceError.of(
                ServiceReason.STALE_SEQUENCE,
                f"the state is at sequence {state.seq}, not {request.expected_seq}; act on the latest state",
                expected_seq=str(request.expected_seq),
                actual_seq=str(state.seq),
            )
        out = _engine(lambda: engine.apply(state, action))
        new: TableState = out.state
        self._count_finished(new, out, call)
        return svc.ActResponse(state=self._seal(new), **_outcome(out, viewers))

    def get_view(self, request: svc.GetViewRequest, call: Call) -> svc.GetViewResponse:
        state = self._open(request.state, request.table_id, call)
        call.game = state.game
        viewer: Viewer = request.seat if request.HasField("seat") else None
        if viewer is not None:
            self._check_seat(state, viewer, request.seat_key)
        return svc.GetViewResponse(
            seq=state.seq,
            update=_update(state, viewer, ()),
            to_act=engine.to_act(state),
            is_over=engine.is_over(state),
        )

    def replay(self, request: svc.ReplayRequest, call: Call) -> svc.ReplayResponse:
        return svc.ReplayResponse(steps=list(self._replay_steps(request, call)))

    def stream_replay(self, request: svc.StreamReplayRequest, call: Call) -> Iterator[svc.StreamReplayResponse]:
        """Replay, one step per message (the request has ReplayRequest's fields)."""
        for step in self._replay_steps(request, call):
            yield svc.StreamReplayResponse(step=step)

    def _replay_steps(self, request: svc.ReplayRequest | svc.StreamReplayRequest, call: Call) -> Iterator[Any]:
        """Every step of a replay, checked against its limits before any work; the deadline between steps."""
        create = request.create
        call.game = create.game
        if not create.HasField("seed"):
            raise ServiceError.of(ServiceReason.INVALID_REQUEST, "a replay needs the table's seed in create.seed")
        _check_seed(create)
        if len(request.actions) > self.max_replay_actions:
            raise ServiceError.of(
                ServiceReason.INVALID_REQUEST,
                f"a replay takes at most {self.max_replay_actions} actions, not {len(request.actions)}",
            )
        views = (len(request.actions) + 1) * (len(create.seats) + 1)
        if views > self.replay_max_views:
            raise ServiceError.of(
                ServiceReason.REPLAY_BUDGET_EXCEEDED,
                f"this replay needs {views} views ((actions + 1) x (seats + 1)); the server's budget is "
                f"{self.replay_max_views}: replay fewer actions at a time",
                views=str(views),
                budget=str(self.replay_max_views),
            )
        out = self._new_table(create, request.table_id, create.seed)
        yield _step(out, None)
        for i, msg in enumerate(request.actions):
            _check_deadline(call)
            action = _engine_value(engine.Action, to_plain(msg), f"actions[{i}]")
            state = out.state
            out = _engine(lambda state=state, action=action: engine.apply(state, action), step=str(i))  # type: ignore[misc]
            yield _step(out, msg)

    # -- helpers -----------------------------------------------------------------------------------

    def _new_table(self, request: svc.CreateTableRequest, table_id: str, seed: bytes) -> Any:
        game = _engine(lambda: engine.get_game(request.game))
        if game.id not in served_games():
            raise ServiceError.from_rejected(
                engine.Rejected(engine.Reason.UNKNOWN_GAME, f"{game.id} is not in this version of the contract")
            )
        options: dict[str, Any] = {}
        if request.HasField("options"):
            which = request.options.WhichOneof("game")
            if which is not None and which != game.id:
                raise ServiceError.of(
                    ServiceReason.INVALID_REQUEST, f"options are set for {which}, but the table is {game.id}"
                )
            if which is not None:
                options = to_plain(getattr(request.options, which), presence_only=True)
                nullable = {o.name for o in describe(game.rules_type) if o.type.endswith("| null")}
                options = {k: None if v == "" and k in nullable else v for k, v in options.items()}
        seats = [engine.Seat(s.name, s.chips) for s in request.seats]
        return _engine(
            lambda: engine.new_table(
                game.id, seats, seed=seed, preset=request.preset or None, options=options, table_id=table_id
            )
        )

    def _seal(self, state: TableState) -> bytes:
        raw = engine.state_to_bytes(state)
        if self.trusted_mode:
            return raw
        token = self.keyring.seal(raw, state.table_id, state.seq)
        if self.recent_size:
            with self._recent_lock:
                self._recent[token] = state
                if len(self._recent) > self.recent_size:
                    self._recent.popitem(last=False)
        return token

    def _open(self, raw: bytes, table_id: str, call: Call) -> Any:
        if not table_id:
            raise ServiceError.of(ServiceReason.INVALID_REQUEST, "the request names no table_id")
        if not raw:
            raise ServiceError.of(ServiceReason.INVALID_REQUEST, "the request carries no state")
        if raw[:1] == b"{":
            if not self.trusted_mode:
                raise ServiceError.of(ServiceReason.PLAIN_STATE_REFUSED, "this server accepts only sealed state tokens")
            state = _engine(lambda: engine.state_from_bytes(raw))
            call.plain_state = True
        elif (known := self._recent.get(raw)) is not None:
            state = known
        else:
            try:
                header, payload = self.keyring.open(raw)
            except TokenError as exc:
                raise ServiceError.of(ServiceReason.INVALID_TOKEN, str(exc)) from None
            state = _engine(lambda: engine.state_from_bytes(payload))
            if state.table_id != header.table_id or state.seq != header.seq:  # only a key holder could do this
                raise ServiceError.of(ServiceReason.INVALID_TOKEN, "the token's header does not match its state")
        if state.table_id != table_id:
            raise ServiceError.of(
                ServiceReason.WRONG_TABLE, f"the state belongs to another table than {table_id!r}", table_id=table_id
            )
        return state

    def _check_seat(self, state: TableState, seat: int, key: str) -> None:
        if not 0 <= seat < state.seat_count:
            raise ServiceError.from_rejected(
                engine.Rejected(engine.Reason.INVALID_SEAT, f"seat {seat} is not at this {state.seat_count}-seat table")
            )
        if self.trusted_mode:
            return
        if not key:
            raise ServiceError.of(ServiceReason.SEAT_KEY_MISSING, f"seat {seat} needs its seat key", seat=str(seat))
        if not self.keyring.check_seat_key(key, state.table_id, seat):
            raise ServiceError.of(
                ServiceReason.SEAT_KEY_INVALID, f"that is not the key of seat {seat} at this table", seat=str(seat)
            )

    @staticmethod
    def _count_finished(state: TableState, out: Outcome, call: Call) -> None:
        for event in out.events:
            if event.kind in ("HAND_OVER", "GAME_OVER"):
                call.finished.append((state.game, preset_of(state), event.kind))


# -- module helpers --------------------------------------------------------------------------------


def preset_of(state: TableState) -> str:
    """The name of the preset the table plays, or ``custom``."""
    for name, rules in engine.get_game(state.game).presets.items():
        if rules == state.rules:
            return str(name)
    return "custom"


def _engine(fn: Callable[[], Any], **metadata: str) -> Any:
    try:
        return fn()
    except engine.Rejected as exc:
        raise ServiceError.from_rejected(exc, **metadata) from None


def _engine_value(kind: Any, data: Any, where: str) -> Any:
    return _engine(lambda: engine_codec.from_data(kind, data, where))


def _check_seed(request: svc.CreateTableRequest) -> None:
    if request.HasField("seed") and len(request.seed) > engine.MAX_SEED:
        raise ServiceError.from_rejected(
            engine.Rejected(
                engine.Reason.INVALID_SEED, f"the seed is {len(request.seed)} bytes; at most {engine.MAX_SEED}"
            )
        )


def _check_deadline(call: Call) -> None:
    remaining = call.time_remaining()
    if remaining is not None and remaining <= 0:
        raise ServiceError(
            grpc.StatusCode.DEADLINE_EXCEEDED, "DEADLINE_EXCEEDED", "the deadline passed during the replay"
        )


def _update(state: TableState, viewer: Viewer, events: Sequence[engine.Event]) -> pb.SeatUpdate:
    view = engine.view(state, viewer)
    table_view = pb.TableView(**{state.game: to_proto(view, _message_class(_VIEW_FIELDS[state.game]))})
    return pb.SeatUpdate(
        seat=viewer,
        view=table_view,
        events=[to_proto(e, pb.Event) for e in redact(tuple(events), viewer)],
        legal_actions=[]
        if viewer is None
        else [to_proto(a, pb.LegalAction) for a in engine.legal_actions(state, viewer)],
    )


def _step(out: Outcome, action: pb.Action | None) -> svc.ReplayStep:
    return svc.ReplayStep(action=action, **_outcome(out, [None, *range(out.state.seat_count)]))


def _outcome(out: Outcome, viewers: Sequence[Viewer]) -> dict[str, Any]:
    """The fields every answer to a change shares: sequence, settlement, the viewers' updates, who acts next."""
    state: TableState = out.state
    return {
        "seq": state.seq,
        "settlement": [to_proto(t, pb.Transfer) for t in out.settlement],
        "updates": [_update(state, v, out.events) for v in viewers],
        "to_act": engine.to_act(state),
        "is_over": engine.is_over(state),
    }


def _game_info(game: Any) -> pb.GameInfo:
    rules_cls = _message_class(_RULES_FIELDS[game.id])
    options = []
    for o in describe(game.rules_type):
        default = struct_pb2.Value()
        _set_value(default, o.default)
        options.append(pb.OptionInfo(name=o.name, type=o.type, default_value=default, doc=o.doc, choices=o.choices))
    return pb.GameInfo(
        id=game.id,
        title=game.title,
        presets=[
            pb.PresetInfo(name=name, rules=pb.Rules(**{game.id: to_proto(rules, rules_cls)}))
            for name, rules in game.presets.items()
        ],
        options=options,
        action_kinds=list(game.action_kinds),
    )


def _set_value(target: struct_pb2.Value, data: Any) -> None:
    if data is None:
        target.null_value = struct_pb2.NULL_VALUE
    elif isinstance(data, bool):
        target.bool_value = data
    elif isinstance(data, int | float):
        target.number_value = data
    elif isinstance(data, str):
        target.string_value = data
    elif isinstance(data, list):
        target.list_value.SetInParent()
        for item in data:
            _set_value(target.list_value.values.add(), item)
    else:
        target.struct_value.update(data)


def _message_class(fd: Any) -> Any:
    return GetMessageClass(fd.message_type)
