"""The TableService handlers: open the state, check the seat, call the engine, hand back the answer. No rule
lives here.

Each handler is a plain method ``(request, call) -> answer`` that raises
:class:`~mazziere.services.errors.ServiceError`; the call core (:mod:`mazziere.services.core`) runs it on its
workers, and the transports send its answer. The answers that carry the table (CreateTable, Act, GetView, Replay
and its steps) are :class:`~mazziere.services.wire.answers.Written`: written from the engine's values once, in the
form each transport sends, on the worker that ran the call. The ``answer_*`` methods are the served handlers; the
plain ones (:meth:`TableService.act`, ...) answer messages, for a caller that reads their fields (tests, tools).
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from typing import Any

import grpc

from mazziere import engine
from mazziere.engine import bots
from mazziere.engine.rules import describe
from mazziere.engine.table import Outcome, TableState
from mazziere.engine.visibility import Viewer
from mazziere.services.core import tracing
from mazziere.services.core.call import Call
from mazziere.services.errors import ServiceError, ServiceReason
from mazziere.services.gen.mazziere.v1 import service_pb2 as svc
from mazziere.services.gen.mazziere.v1 import table_pb2 as pb
from mazziere.services.table import heavy, requests
from mazziere.services.table.games import game_info, preset_of, served_games, server_version
from mazziere.services.table.memo import RecentStates
from mazziere.services.table.requests import action_of, run_engine
from mazziere.services.table.sealing import Keyring
from mazziere.services.table.tokens import Tokens
from mazziere.services.wire.answers import Holding, SeatKey, Sent, TableAnswer
from mazziere.services.wire.codec import to_plain, to_proto

MAX_ADVICE_SAMPLES = 1000
"""The most deals an ``Advise`` call may ask to sample (AdviseRequest.samples)."""


class TableService:
    """TableService's logic, whatever the transport."""

    def __init__(
        self,
        keyring: Keyring,
        *,
        trusted_mode: bool = False,
        max_replay_actions: int = 10_000,
        recent_size: int = 4096,
        replay_max_views: int = 8000,
    ) -> None:
        self.tokens = Tokens(keyring, trusted_mode=trusted_mode, recent_size=recent_size)
        self.max_replay_actions = max_replay_actions
        self.replay_max_views = replay_max_views
        self._games: svc.ListGamesResponse | None = None

    @property
    def keyring(self) -> Keyring:
        return self.tokens.keyring

    @property
    def recent(self) -> RecentStates:
        """The memo of the tokens this service sealed lately."""
        return self.tokens.recent

    # -- handlers ----------------------------------------------------------------------------------

    def list_games(self, request: svc.ListGamesRequest, call: Call) -> svc.ListGamesResponse:
        if self._games is None:
            self._games = svc.ListGamesResponse(
                games=[game_info(engine.get_game(g)) for g in served_games()], server_version=server_version()
            )
        return self._games

    def answer_create_table(self, request: svc.CreateTableRequest, call: Call) -> TableAnswer[svc.CreateTableResponse]:
        call.game = request.game
        requests.check_seed(request)
        seed = request.seed if request.HasField("seed") else os.urandom(32)
        out = self._new_table(request, f"t_{secrets.token_hex(12)}", seed)
        state: TableState = out.state
        call.table_id = state.table_id
        _count_finished(state, out, call)
        keys = () if self.tokens.trusted_mode else tuple(self._seat_keys(state))
        head = {"table_id": state.table_id, "state": self.tokens.seal(state, call), "seat_keys": keys}
        game = engine.get_game(state.game)
        return TableAnswer(svc.CreateTableResponse, head, out, [None, *range(state.seat_count)], game)

    def answer_act(self, request: svc.ActRequest, call: Call) -> TableAnswer[svc.ActResponse]:
        with tracing.step("open"):
            state = self._open(request.state, request.table_id, call)
        game = engine.get_game(state.game)  # once per call: every step below is given it
        action = action_of(request.action, "action") if requests.requested_move(request) else None
        seat = requests.auto_seat(state, request) if action is None else action.seat
        viewers = self._viewers(state, request, seat)
        if request.expected_seq != state.seq:
            raise ServiceError.of(
                ServiceReason.STALE_SEQUENCE,
                f"the state is at sequence {state.seq}, not {request.expected_seq}; act on the latest state",
                expected_seq=str(request.expected_seq),
                actual_seq=str(state.seq),
            )
        if action is None:
            played = self._chosen(request.auto_play, state, seat, call)
            sent: Any = played
        else:
            played = action
            sent = Sent(action, request.action)
        with tracing.step("apply"):
            out = run_engine(lambda: game.apply(state, played))
        new: TableState = out.state
        _count_finished(new, out, call)
        with tracing.step("seal"):
            head = {"state": self.tokens.seal(new, call), "action": sent}
        return TableAnswer(
            svc.ActResponse, head, out, viewers, game, auto=action is None, span=lambda: tracing.step("update")
        )

    def answer_get_view(self, request: svc.GetViewRequest, call: Call) -> TableAnswer[svc.GetViewResponse]:
        state = self._open(request.state, request.table_id, call)
        viewer: Viewer = request.seat if request.HasField("seat") else None
        if viewer is not None:
            self.tokens.check_seat(state, viewer, request.seat_key)
        return TableAnswer(svc.GetViewResponse, {}, Outcome(state), [viewer], engine.get_game(state.game))

    def gather(self, request: svc.GatherRequest, call: Call) -> svc.GatherResponse:
        """The table closed for good: the seeds of the packs it still keeps (:func:`engine.gather`). It shows the
        stock's order, so it needs every seat's key."""
        state = self._open(request.state, request.table_id, call)
        keys = {k.seat: k.key for k in request.seat_keys}
        for seat in range(state.seat_count):
            self.tokens.check_seat(state, seat, keys.get(seat, ""))
        return svc.GatherResponse(events=[to_proto(e, pb.Event) for e in engine.gather(state).events])

    def advise(self, request: svc.AdviseRequest, call: Call) -> svc.AdviseResponse:
        """The seat's odds, from its own view only (:func:`engine.bots.advise`); needs the seat's key."""
        if not 0 <= request.samples <= MAX_ADVICE_SAMPLES:
            raise ServiceError.of(
                ServiceReason.INVALID_REQUEST,
                f"samples must be 0 (the default) to {MAX_ADVICE_SAMPLES}, not {request.samples}",
            )
        state = self._open(request.state, request.table_id, call)
        self.tokens.check_seat(state, request.seat, request.seat_key)
        samples = request.samples or None
        try:
            sent = heavy.packed(state, call)
            advice = run_engine(lambda: call.heavy(heavy.advice, sent, request.seat, samples))
        except bots.Stopped:
            raise ServiceError(
                grpc.StatusCode.DEADLINE_EXCEEDED, "DEADLINE_EXCEEDED", "the deadline passed during the advice"
            ) from None
        return _advice(advice, state.seq)

    def answer_replay(self, request: svc.ReplayRequest, call: Call) -> Holding[svc.ReplayResponse]:
        steps = list(self._replay_steps(request, call))
        return Holding(svc.ReplayResponse, "steps", steps, lambda: requests.check_deadline(call, "during the replay"))

    def answer_stream_replay(
        self, request: svc.StreamReplayRequest, call: Call
    ) -> Iterator[Holding[svc.StreamReplayResponse]]:
        """Replay, one step per message (the request has ReplayRequest's fields)."""
        for step in self._replay_steps(request, call):
            yield Holding(svc.StreamReplayResponse, "step", [step])

    # The same answers as messages, for a caller that reads their fields (each written, then parsed once).

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

    # -- parts -------------------------------------------------------------------------------------

    def _open(self, raw: bytes, table_id: str, call: Call) -> TableState:
        state = self.tokens.open(raw, table_id)
        call.game = state.game
        call.table_id = state.table_id
        return state

    def _seat_keys(self, state: TableState) -> Iterator[SeatKey]:
        for seat in range(state.seat_count):
            yield SeatKey(seat, self.tokens.seat_key(state.table_id, seat))

    def _viewers(self, state: TableState, request: svc.ActRequest, seat: int) -> list[Viewer]:
        """Who the answer's updates are for: the acting seat (its key checked), then the spectator if asked, then
        every other seat whose key the request carries."""
        self.tokens.check_seat(state, seat, request.seat_key)
        viewers: list[Viewer] = [seat, None] if request.include_spectator else [seat]
        for extra in request.viewers:
            self.tokens.check_seat(state, extra.seat, extra.key)
            if extra.seat not in viewers:
                viewers.append(extra.seat)
        return viewers

    @staticmethod
    def _chosen(policy: str, state: TableState, seat: int, call: Call) -> engine.Action:
        try:
            with tracing.step("choose"):
                sent = heavy.packed(state, call)
                action: engine.Action = run_engine(lambda: call.heavy(heavy.choice, sent, policy, seat))
        except bots.Stopped:
            raise ServiceError(
                grpc.StatusCode.DEADLINE_EXCEEDED, "DEADLINE_EXCEEDED", "the deadline passed while the bot chose"
            ) from None
        return action

    def _replay_steps(
        self, request: svc.ReplayRequest | svc.StreamReplayRequest, call: Call
    ) -> Iterator[TableAnswer[svc.ReplayStep]]:
        """Every step of a replay, checked against its limits before any work; the deadline between steps."""
        create = request.create
        call.game = create.game
        self._check_replay(request)
        out = self._new_table(create, request.table_id, create.seed)
        call.table_id = out.state.table_id
        yield _replay_step(out, None)
        for i, msg in enumerate(request.actions):
            requests.check_deadline(call, "during the replay")
            action = action_of(msg, f"actions[{i}]")
            state = out.state
            out = run_engine(lambda state=state, action=action: engine.apply(state, action), step=str(i))  # type: ignore[misc]
            yield _replay_step(out, Sent(action, msg))

    def _check_replay(self, request: svc.ReplayRequest | svc.StreamReplayRequest) -> None:
        create = request.create
        if not create.HasField("seed"):
            raise ServiceError.of(ServiceReason.INVALID_REQUEST, "a replay needs the table's seed in create.seed")
        requests.check_seed(create)
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

    def _new_table(self, request: svc.CreateTableRequest, table_id: str, seed: bytes) -> Outcome:
        game = run_engine(lambda: engine.get_game(request.game))
        if game.id not in served_games():
            raise ServiceError.from_rejected(
                engine.Rejected(engine.Reason.UNKNOWN_GAME, f"{game.id} is not in this version of the contract")
            )
        options = _options(request, game)
        seats = [engine.Seat(s.name, s.chips) for s in request.seats]
        out: Outcome = run_engine(
            lambda: engine.new_table(
                game.id, seats, seed=seed, preset=request.preset or None, options=options, table_id=table_id
            )
        )
        return out


def _options(request: svc.CreateTableRequest, game: Any) -> dict[str, Any]:
    """The rule options a CreateTable request sets, as the engine reads them (an empty text: a null option)."""
    if not request.HasField("options"):
        return {}
    which = request.options.WhichOneof("game")
    if which is None:
        return {}
    if which != game.id:
        raise ServiceError.of(ServiceReason.INVALID_REQUEST, f"options are set for {which}, but the table is {game.id}")
    options = to_plain(getattr(request.options, which), presence_only=True)
    nullable = {o.name for o in describe(game.rules_type) if o.type.endswith("| null")}
    return {k: None if v == "" and k in nullable else v for k, v in options.items()}


def _count_finished(state: TableState, out: Outcome, call: Call) -> None:
    for event in out.events:
        if event.kind in ("HAND_OVER", "GAME_OVER"):
            call.finished.append((state.game, preset_of(state), event.kind))


def _replay_step(out: Outcome, sent: Sent | None) -> TableAnswer[svc.ReplayStep]:
    game = engine.get_game(out.state.game)
    head = {} if sent is None else {"action": sent}
    return TableAnswer(svc.ReplayStep, head, out, [None, *range(out.state.seat_count)], game)


def _advice(advice: bots.Advice, seq: int) -> svc.AdviseResponse:
    return svc.AdviseResponse(
        seat=advice.seat,
        seq=seq,
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
