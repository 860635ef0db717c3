"""The TableService handlers: decode, call the engine, encode. No rule lives here.

:class:`TableCore` holds the logic as plain methods ``(request, call) -> response`` that raise
:class:`~services.errors.ServiceError`; :mod:`services.server` wraps them for the thread-pool or the asyncio
server, with logs and metrics around every call.

The answers that carry the table (CreateTable, Act, GetView, Replay and its steps) are :class:`Written`: each is
written from the engine's values once, in the form its transport sends, on the worker that ran the call. gRPC
and Connect's proto codec take its protobuf bytes as they are (no message is built, parsed or serialized again),
REST and Connect's JSON codec its JSON (written in one pass by :mod:`services.jsonwire`), and a caller in this
process that reads fields its message (the bytes parsed once): the ``answer_*`` methods are the served handlers,
the plain ones (:meth:`TableCore.act`, ...) answer messages.
"""

from __future__ import annotations

import base64
import os
import secrets
from collections.abc import Callable, Iterator, Sequence
from functools import cache
from importlib import metadata
from typing import Any, Generic, NamedTuple, TypeVar

import grpc
from google.protobuf import struct_pb2
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass

from mazziere import engine
from mazziere.engine import bots
from mazziere.engine.events import redact_events
from mazziere.engine.game import Game
from mazziere.engine.ledger import Transfer
from mazziere.engine.rules import describe
from mazziere.engine.table import Outcome, TableState
from mazziere.engine.visibility import Viewer, redact
from mazziere.services import jsonwire, protowire
from mazziere.services.codec import to_plain, to_proto
from mazziere.services.core import tracing
from mazziere.services.core.call import Call
from mazziere.services.errors import ServiceError, ServiceReason
from mazziere.services.gen.mazziere.v1 import service_pb2 as svc
from mazziere.services.gen.mazziere.v1 import table_pb2 as pb
from mazziere.services.recent import RecentStates
from mazziere.services.sealing import Keyring, OldTokenError, TokenError

_VIEW_FIELDS = pb.TableView.DESCRIPTOR.fields_by_name
_VIEW_TAGS = {name: protowire.tag(fd.number, 2) for name, fd in _VIEW_FIELDS.items()}
_RULES_FIELDS = pb.Rules.DESCRIPTOR.fields_by_name
_EVENT = protowire.writer(engine.Event, pb.Event.DESCRIPTOR)
_LEGAL = protowire.writer(engine.LegalAction, pb.LegalAction.DESCRIPTOR)
_TRANSFER = protowire.writer(Transfer, pb.Transfer.DESCRIPTOR)
_VIEW_KEYS = {name: fd.json_name for name, fd in _VIEW_FIELDS.items()}
_EVENT_JSON = jsonwire.writer(engine.Event, pb.Event.DESCRIPTOR)
_LEGAL_JSON = jsonwire.writer(engine.LegalAction, pb.LegalAction.DESCRIPTOR)
_TRANSFER_JSON = jsonwire.writer(Transfer, pb.Transfer.DESCRIPTOR)
MAX_ADVICE_SAMPLES = 1000
"""The most deals an ``Advise`` call may ask to sample (AdviseRequest.samples)."""
_AUTO_EVENT = protowire.writer(engine.Event, pb.Event.DESCRIPTOR, ("auto",))
"""An auto-played move's event: ``auto = true`` in its field-number place."""
_AUTO_EVENT_JSON = jsonwire.writer(engine.Event, pb.Event.DESCRIPTOR, ("auto",))


DISTRIBUTION = "mazziere"
"""The server's distribution, whose installed metadata names the version that ListGames and ``--version`` report."""
UNKNOWN_VERSION = "0+unknown"
"""The version reported when the code runs without its distribution's metadata (a copy of the folders)."""


@cache
def server_version() -> str:
    """The installed ``mazziere`` distribution's version (``importlib.metadata``), or :data:`UNKNOWN_VERSION`."""
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return UNKNOWN_VERSION


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
        self.recent = RecentStates(recent_size)

    # -- handlers ----------------------------------------------------------------------------------

    def list_games(self, request: svc.ListGamesRequest, call: Call) -> svc.ListGamesResponse:
        if self._games is None:
            self._games = svc.ListGamesResponse(
                games=[_game_info(engine.get_game(g)) for g in served_games()], server_version=server_version()
            )
        return self._games

    # The answers that carry the table as messages, for a caller in this process that reads their fields (the host
    # over its in-process backend asks the call core for the same): each written as protobuf bytes and parsed once.
    # The served handlers are the ``answer_*`` ones below, whose answers each transport takes in its own form.

    def create_table(self, request: svc.CreateTableRequest, call: Call) -> svc.CreateTableResponse:
        return self.answer_create_table(request, call).message()

    def act(self, request: svc.ActRequest, call: Call) -> svc.ActResponse:
        return self.answer_act(request, call).message()

    def get_view(self, request: svc.GetViewRequest, call: Call) -> svc.GetViewResponse:
        return self.answer_get_view(request, call).message()

    def replay(self, request: svc.ReplayRequest, call: Call) -> svc.ReplayResponse:
        return self.answer_replay(request, call).message()

    def stream_replay(self, request: svc.StreamReplayRequest, call: Call) -> Iterator[svc.StreamReplayResponse]:
        for step in self.answer_stream_replay(request, call):
            yield step.message()

    def answer_create_table(self, request: svc.CreateTableRequest, call: Call) -> Written[svc.CreateTableResponse]:
        call.game = request.game
        _check_seed(request)
        seed = request.seed if request.HasField("seed") else os.urandom(32)
        out = self._new_table(request, f"t_{secrets.token_hex(12)}", seed)
        state: TableState = out.state
        call.table_id = state.table_id
        self._count_finished(state, out, call)
        head = {
            "table_id": state.table_id,
            "state": self._seal(state, call),
            "seat_keys": ()
            if self.trusted_mode
            else tuple(_SeatKey(s, self.keyring.seat_key(state.table_id, s)) for s in range(state.seat_count)),
        }
        game = engine.get_game(state.game)
        return TableAnswer(svc.CreateTableResponse, head, out, [None, *range(state.seat_count)], game)

    def answer_act(self, request: svc.ActRequest, call: Call) -> Written[svc.ActResponse]:
        with tracing.step("open"):
            state = self._open(request.state, request.table_id, call)
        call.game = state.game
        call.table_id = state.table_id
        game = engine.get_game(state.game)  # once per call: every step below is given it
        action = _action(request.action, "action") if _requested_move(request) else None
        seat = _auto_seat(state, request) if action is None else action.seat
        self._check_seat(state, seat, request.seat_key)
        viewers: list[Viewer] = [seat, None] if request.include_spectator else [seat]
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
        if action is None:
            try:
                with tracing.step("choose"):
                    played = _engine(lambda: bots.choose(request.auto_play, state, seat, stop=call.stop))
            except bots.Stopped:
                raise ServiceError(
                    grpc.StatusCode.DEADLINE_EXCEEDED, "DEADLINE_EXCEEDED", "the deadline passed while the bot chose"
                ) from None
            sent: Any = played
        else:
            played = action
            sent = _Sent(action, request.action)
        with tracing.step("apply"):
            out = _engine(lambda: game.apply(state, played))
        new: TableState = out.state
        self._count_finished(new, out, call)
        with tracing.step("seal"):
            head = {"state": self._seal(new, call), "action": sent}
        return TableAnswer(svc.ActResponse, head, out, viewers, game, auto=action is None, step="update")

    def answer_get_view(self, request: svc.GetViewRequest, call: Call) -> Written[svc.GetViewResponse]:
        state = self._open(request.state, request.table_id, call)
        call.game = state.game
        call.table_id = state.table_id
        viewer: Viewer = request.seat if request.HasField("seat") else None
        if viewer is not None:
            self._check_seat(state, viewer, request.seat_key)
        return TableAnswer(svc.GetViewResponse, {}, Outcome(state), [viewer], engine.get_game(state.game))

    def gather(self, request: svc.GatherRequest, call: Call) -> svc.GatherResponse:
        """The table closed for good: the seeds of the packs it still keeps (:func:`engine.gather`). It shows the
        stock's order, so it needs every seat's key."""
        state = self._open(request.state, request.table_id, call)
        call.game = state.game
        call.table_id = state.table_id
        keys = {k.seat: k.key for k in request.seat_keys}
        for seat in range(state.seat_count):
            self._check_seat(state, seat, keys.get(seat, ""))
        events = engine.gather(state).events
        return svc.GatherResponse(events=[pb.Event.FromString(_EVENT(e)) for e in events])

    def advise(self, request: svc.AdviseRequest, call: Call) -> svc.AdviseResponse:
        """The seat's odds, from its own view only (:func:`engine.bots.advise`); needs the seat's key."""
        if not 0 <= request.samples <= MAX_ADVICE_SAMPLES:
            raise ServiceError.of(
                ServiceReason.INVALID_REQUEST,
                f"samples must be 0 (the default) to {MAX_ADVICE_SAMPLES}, not {request.samples}",
            )
        state = self._open(request.state, request.table_id, call)
        call.game = state.game
        call.table_id = state.table_id
        self._check_seat(state, request.seat, request.seat_key)
        samples = request.samples or None
        try:
            advice: bots.Advice = _engine(lambda: bots.advise(state, request.seat, samples=samples, stop=call.stop))
        except bots.Stopped:
            raise ServiceError(
                grpc.StatusCode.DEADLINE_EXCEEDED, "DEADLINE_EXCEEDED", "the deadline passed during the advice"
            ) from None
        return svc.AdviseResponse(
            seat=advice.seat,
            seq=state.seq,
            method=f"ADVICE_METHOD_{advice.method}",
            samples=advice.samples,
            actions=[
                svc.ActionAdvice(
                    action=to_proto(a.action, pb.Action),
                    expected_value=a.expected,
                    win=a.win,
                    push=a.push,
                    lose=a.lose,
                    bust=a.bust,
                    standard_error=a.stderr,
                    basis=f"ADVICE_BASIS_{a.basis}",
                    error_bound=a.error_bound,
                )
                for a in advice.actions
            ],
        )

    def answer_replay(self, request: svc.ReplayRequest, call: Call) -> Written[svc.ReplayResponse]:
        return Holding(svc.ReplayResponse, "steps", list(self._replay_steps(request, call)), call)

    def answer_stream_replay(
        self, request: svc.StreamReplayRequest, call: Call
    ) -> Iterator[Written[svc.StreamReplayResponse]]:
        """Replay, one step per message (the request has ReplayRequest's fields)."""
        for step in self._replay_steps(request, call):
            yield Holding(svc.StreamReplayResponse, "step", [step])

    def _replay_steps(
        self, request: svc.ReplayRequest | svc.StreamReplayRequest, call: Call
    ) -> Iterator[TableAnswer[svc.ReplayStep]]:
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
        call.table_id = out.state.table_id
        yield _step(out, None)
        for i, msg in enumerate(request.actions):
            _check_deadline(call)
            action = _action(msg, f"actions[{i}]")
            state = out.state
            out = _engine(lambda state=state, action=action: engine.apply(state, action), step=str(i))  # type: ignore[misc]
            yield _step(out, _Sent(action, msg))

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

    def _seal(self, state: TableState, call: Call) -> bytes:
        raw = engine.state_to_bytes(state)
        if self.trusted_mode:
            return raw
        token = self.keyring.seal(raw, state.table_id, state.seq)
        call.on_answered.append(lambda: self.recent.put(token, state))  # remembered only once it is answered
        return token

    def _open(self, raw: bytes, table_id: str, call: Call) -> Any:
        if not table_id:
            raise ServiceError.of(ServiceReason.INVALID_REQUEST, "the request names no table_id")
        if not raw:
            raise ServiceError.of(ServiceReason.INVALID_REQUEST, "the request carries no state")
        if engine.wire.is_plain_state(raw):
            if not self.trusted_mode:
                raise ServiceError.of(ServiceReason.PLAIN_STATE_REFUSED, "this server accepts only sealed state tokens")
            state = _engine(lambda: engine.state_from_bytes(raw))
        elif (known := self.recent.get(raw)) is not None:
            state = known
        else:
            try:
                header, payload = self.keyring.open(raw)
            except OldTokenError as exc:
                raise ServiceError.from_rejected(
                    engine.Rejected(engine.Reason.RULES_VERSION_UNSUPPORTED, str(exc))
                ) from None
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


def _action(msg: pb.Action, where: str) -> engine.Action:
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


def _requested_move(request: svc.ActRequest) -> bool:
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


def _auto_seat(state: TableState, request: svc.ActRequest) -> int:
    """The seat ``auto_play`` plays for: ``auto_seat``, or else the one seat to act (the policy checked first)."""
    if request.auto_play not in bots.POLICIES:
        raise ServiceError.from_rejected(
            engine.Rejected(
                engine.Reason.UNKNOWN_POLICY,
                f"no policy is named {request.auto_play[:100]!r}; the policies are {', '.join(bots.POLICIES)}",
            )
        )
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


def _update(
    state: TableState,
    viewer: Viewer,
    events: tuple[engine.Event, ...],
    *,
    auto: bool = False,
    game: Game[Any, Any] | None = None,
) -> bytes:
    """What ``viewer`` may see after ``events``: a ``SeatUpdate`` written by :mod:`services.protowire`. ``auto``:
    the events are those of an auto-played move (each gets ``auto = true``); ``game``: the state's, when the
    caller has it already."""
    game = game or engine.get_game(state.game)
    view = redact(game.view(state, viewer), viewer)
    kind: Any = type(view)
    view_bytes = protowire.writer(kind, _VIEW_FIELDS[state.game].message_type)(view)
    parts = [] if viewer is None else [b"\x08" + protowire.varint(viewer)]  # seat = 1
    parts.append(protowire.length_delimited(b"\x12", protowire.length_delimited(_VIEW_TAGS[state.game], view_bytes)))
    for event in redact_events(events, viewer):  # events = 3
        parts.append(protowire.length_delimited(b"\x1a", _AUTO_EVENT(event) if auto else _EVENT(event)))
    if viewer is not None:
        for entry in game.legal_actions(state, viewer):  # legal_actions = 4
            parts.append(protowire.length_delimited(b"\x22", _LEGAL(entry)))
    parts.append(b"\x28" + protowire.varint(state.draws))  # next_draw = 5
    parts.append(b"\x32\x40" + state.commitment.hex().encode())  # commitment = 6: 64 hex digits
    return b"".join(parts)


def _update_json(
    state: TableState, viewer: Viewer, events: tuple[engine.Event, ...], *, auto: bool, game: Game[Any, Any]
) -> dict[str, Any]:
    """:func:`_update`'s ``SeatUpdate`` as its JSON object, written by :mod:`services.jsonwire` in one pass."""
    view = redact(game.view(state, viewer), viewer)
    kind: Any = type(view)
    data: dict[str, Any] = {} if viewer is None else {"seat": viewer}
    data["view"] = {_VIEW_KEYS[state.game]: jsonwire.writer(kind, _VIEW_FIELDS[state.game].message_type)(view)}
    write = _AUTO_EVENT_JSON if auto else _EVENT_JSON
    if seen := [write(event) for event in redact_events(events, viewer)]:
        data["events"] = seen
    if viewer is not None and (legal := [_LEGAL_JSON(entry) for entry in game.legal_actions(state, viewer)]):
        data["legalActions"] = legal
    data["nextDraw"], data["commitment"] = state.draws, state.commitment.hex()
    return data


def _step(out: Outcome, sent: _Sent | None) -> TableAnswer[svc.ReplayStep]:
    game = engine.get_game(out.state.game)
    head = {} if sent is None else {"action": sent}
    return TableAnswer(svc.ReplayStep, head, out, [None, *range(out.state.seat_count)], game)


M = TypeVar("M", bound=Message)


class Written(Generic[M]):
    """An answer written from the engine's values, once and in the form its transport asks for: the call core
    asks on the worker that ran the call (:meth:`~services.core.dispatch.Dispatcher.unary`'s ``wire`` and
    ``encode``), so no transport parses or serializes it again.

    :meth:`SerializeToString` (and :meth:`ByteSize`) are the message's protobuf bytes (and their length), which
    grpcio and Connect's proto codec send as they are; :meth:`json` is its protobuf JSON, as ``json_format``
    prints the message (REST, Connect's JSON codec); :meth:`message` is the message itself, the bytes parsed once,
    for a caller in this process that reads its fields.
    """

    __slots__ = ("_wire", "response")

    def __init__(self, response: type[M]) -> None:
        self.response = response
        self._wire: bytes | None = None

    def SerializeToString(self) -> bytes:
        """The protobuf bytes (written on first use, then kept)."""
        if self._wire is None:
            self._wire = self._write()
        return self._wire

    def ByteSize(self) -> int:
        return len(self.SerializeToString())

    def json(self) -> bytes:
        """The compact UTF-8 protobuf JSON (as the gateway prints ``json_format.MessageToDict`` of the message)."""
        return jsonwire.encode(self.data())

    def message(self) -> M:
        return self.response.FromString(self.SerializeToString())

    def data(self) -> dict[str, Any]:
        """The JSON object (``json_format.MessageToDict`` of the message)."""
        raise NotImplementedError

    def _write(self) -> bytes:
        raise NotImplementedError


class _SeatKey(NamedTuple):
    """A ``SeatKey`` of a CreateTable answer, written as engine values are."""

    seat: int
    key: str


class _Sent(NamedTuple):
    """The request's action sent back in the answer: its own bytes for protobuf, as the engine read it for JSON
    (the same JSON: a card's notation reads back as itself, and JSON carries no unknown fields)."""

    action: engine.Action
    message: pb.Action


class TableAnswer(Written[M]):
    """An answer that carries the table (CreateTable's, Act's, GetView's, a replay's step): its own fields in
    ``head`` (the table's id, the token, the seat keys, the action played: by field name) and the table's after
    ``out``: ``seq``, ``settlement``, each viewer's update (``updates``, or GetView's ``update``), ``to_act``,
    ``is_over``; every field in number order. ``auto``: the change is an auto-played move (each event gets
    ``auto = true``); ``step``: the tracing step the writing is."""

    __slots__ = ("auto", "game", "head", "out", "step", "viewers")

    def __init__(
        self,
        response: type[M],
        head: dict[str, Any],
        out: Outcome,
        viewers: Sequence[Viewer],
        game: Game[Any, Any],
        *,
        auto: bool = False,
        step: str | None = None,
    ) -> None:
        super().__init__(response)
        self.head = head
        self.out = out
        self.viewers = viewers
        self.game = game
        self.auto = auto
        self.step = step

    def _write(self) -> bytes:
        if self.step is None:
            return self._bytes()
        with tracing.step(self.step):
            return self._bytes()

    def data(self) -> dict[str, Any]:
        if self.step is None:
            return self._json()
        with tracing.step(self.step):
            return self._json()

    def _bytes(self) -> bytes:
        out, game, head = self.out, self.game, self.head
        state: TableState = out.state
        parts: list[bytes] = []
        for name, _key, tag, fd in _fields(self.response.DESCRIPTOR):
            if name in head:
                parts += _head_bytes(tag, fd, head[name])
            elif name == "seq":
                if state.seq:
                    parts.append(tag + protowire.varint(state.seq))
            elif name == "settlement":
                parts += [protowire.length_delimited(tag, _TRANSFER(t)) for t in out.settlement]
            elif name in ("updates", "update"):
                updates = (_update(state, v, out.events, auto=self.auto, game=game) for v in self.viewers)
                parts += [protowire.length_delimited(tag, update) for update in updates]
            elif name == "to_act":
                if to_act := game.to_act(state):
                    parts.append(protowire.length_delimited(tag, b"".join(map(protowire.varint, to_act))))
            elif name == "is_over" and game.is_over(state):
                parts.append(tag + b"\x01")
        return b"".join(parts)

    def _json(self) -> dict[str, Any]:
        out, game, head = self.out, self.game, self.head
        state: TableState = out.state
        data: dict[str, Any] = {}
        for name, key, _tag, fd in _fields(self.response.DESCRIPTOR):
            if name in head:
                value = _head_json(fd, head[name])
                if value is not None:
                    data[key] = value
            elif name == "seq":
                if state.seq:
                    data[key] = str(state.seq)
            elif name == "settlement":
                if out.settlement:
                    data[key] = [_TRANSFER_JSON(t) for t in out.settlement]
            elif name == "updates":
                if updates := [_update_json(state, v, out.events, auto=self.auto, game=game) for v in self.viewers]:
                    data[key] = updates
            elif name == "update":
                data[key] = _update_json(state, self.viewers[0], out.events, auto=self.auto, game=game)
            elif name == "to_act":
                if to_act := game.to_act(state):
                    data[key] = list(to_act)
            elif name == "is_over" and game.is_over(state):
                data[key] = True
        return data


class Holding(Written[M]):
    """An answer whose one field holds other written answers: Replay's ``steps``, StreamReplay's ``step``. With
    ``call``, the deadline is checked before each is written (a long replay stops where its time runs out)."""

    __slots__ = ("call", "field", "items")

    def __init__(self, response: type[M], field: str, items: Sequence[Written[Any]], call: Call | None = None) -> None:
        super().__init__(response)
        self.field = field
        self.items = items
        self.call = call

    def _each(self) -> Iterator[Written[Any]]:
        for item in self.items:
            if self.call is not None:
                _check_deadline(self.call)
            yield item

    def _write(self) -> bytes:
        tag = _field(self.response.DESCRIPTOR, self.field)[2]
        return b"".join([protowire.length_delimited(tag, item._write()) for item in self._each()])

    def data(self) -> dict[str, Any]:
        _name, key, _tag, fd = _field(self.response.DESCRIPTOR, self.field)
        items = [item.data() for item in self._each()]
        if not items:
            return {}
        return {key: items if fd.is_repeated else items[0]}


_Field = tuple[str, str, bytes, Any]


@cache
def _fields(desc: Any) -> tuple[_Field, ...]:
    """(name, JSON name, tag, descriptor) of every field of a message, in number order."""
    return tuple(_field(desc, fd.name) for fd in sorted(desc.fields, key=lambda fd: fd.number))


@cache
def _field(desc: Any, name: str) -> _Field:
    fd = desc.fields_by_name[name]
    scalar = fd.type in (fd.TYPE_INT64, fd.TYPE_INT32, fd.TYPE_BOOL, fd.TYPE_ENUM) and not fd.is_repeated
    return name, fd.json_name, protowire.tag(fd.number, 0 if scalar else 2), fd


def _head_bytes(tag: bytes, fd: Any, value: Any) -> list[bytes]:
    """The protobuf bytes of one field of an answer's ``head``: a token, a text, the action sent back, or engine
    values (one, or a tuple for a repeated field)."""
    if type(value) is bytes:
        return [protowire.length_delimited(tag, value)] if value else []
    if type(value) is str:
        return [protowire.length_delimited(tag, value.encode())] if value else []
    if type(value) is _Sent:
        return [protowire.length_delimited(tag, value.message.SerializeToString())]
    items = value if type(value) is tuple else (value,)
    return [protowire.length_delimited(tag, _proto_of(item, fd.message_type)) for item in items]


def _head_json(fd: Any, value: Any) -> Any:
    """The JSON of one field of an answer's ``head`` (None: left out), as :func:`_head_bytes` writes it."""
    if type(value) is bytes:
        return base64.b64encode(value).decode("ascii") if value else None
    if type(value) is str:
        return value or None
    if type(value) is _Sent:
        value = value.action
    if type(value) is tuple:
        return [_json_of(item, fd.message_type) for item in value] or None
    return _json_of(value, fd.message_type)


def _proto_of(value: Any, desc: Any) -> bytes:
    kind: Any = type(value)
    return protowire.writer(kind, desc)(value)


def _json_of(value: Any, desc: Any) -> Any:
    kind: Any = type(value)
    return jsonwire.writer(kind, desc)(value)


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
