"""Advise and auto-play over gRPC: the engine's advice for the seat and nothing more, keys as for any seat's call,
whole games played by the table alone, every auto-played event marked, and the refusals."""

from __future__ import annotations

import asyncio
import random
from dataclasses import replace
from typing import Any

import grpc
import pytest

from mazziere import engine
from mazziere.engine import bots
from mazziere.engine.codec import from_data
from mazziere.services.app import App
from mazziere.services.core.admission import CostClass
from mazziere.services.core.call import Call
from mazziere.services.gen.mazziere.v1 import service_pb2 as svc
from mazziere.services.gen.mazziere.v1 import table_pb2 as pb
from mazziere.services.table.games import served_games
from mazziere.services.table.methods import SERVICE_NAME, act_cost, table_methods
from mazziere.services.wire.answers import seat_update
from mazziere.services.wire.codec import to_plain, to_proto
from tests.conformance.updates import reference_update
from tests.service.conftest import Running
from tests.service.helpers import Client, Table, visible_cards
from tests.service.test_errors import refused

Code = grpc.StatusCode
GAMES = sorted(served_games())
MAX_STEPS = 3000
"""Moves an auto-played game may take before the test gives up on it ending."""


def engine_action(msg: pb.Action) -> engine.Action:
    return from_data(engine.Action, to_plain(msg))


def assert_is_the_engines_advice(answer: svc.AdviseResponse, advice: bots.Advice, seq: int) -> None:
    assert (answer.seat, answer.seq, answer.samples) == (advice.seat, seq, advice.samples)
    assert svc.AdviceMethod.Name(answer.method) == f"ADVICE_METHOD_{advice.method}"
    assert len(answer.actions) == len(advice.actions)
    for got, want in zip(answer.actions, advice.actions, strict=True):
        assert got.action == to_proto(want.action, pb.Action)
        assert (got.expected_value, got.standard_error) == (want.expected, want.stderr)
        assert (got.win, got.push, got.lose, got.bust) == (want.win, want.push, want.lose, want.bust)


# -- Advise -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_advise_is_the_engines_advice_for_that_seat_alone(client: Client, game: str) -> None:
    """For every seat, along a game: the answer is engine.bots.advise on the seat; a seat that may not act gets
    no entries; every action advised is one of the seat's legal actions and names only cards it sees."""
    table = client.create(game, seed=b"advise-" + game.encode())
    rng = random.Random(5)
    advised = 0
    for _ in range(2):
        state = client.unseal(table.state)
        for seat in range(table.seats):
            answer = client.advise(table, seat)
            assert_is_the_engines_advice(answer, bots.advise(state, seat), table.seq)
            if seat not in table.to_act:
                assert not answer.actions
                continue
            advised += 1
            view = client.stub.GetView(
                svc.GetViewRequest(table_id=table.table_id, state=table.state, seat=seat, seat_key=table.keys[seat])
            )
            legal = {(a.kind, tuple(a.cards)) for a in view.update.legal_actions}
            seen = set(visible_cards(view.update.view))
            for entry in answer.actions:
                assert entry.action.seat == seat and (entry.action.kind, tuple(entry.action.cards)) in legal
                assert set(entry.action.cards) <= seen
                assert entry.win + entry.push + entry.lose == pytest.approx(1.0)
                assert 0 <= entry.bust <= entry.lose + 1e-9
        client.act(table, client.random_action(table, rng))
    assert advised == 2


def test_advise_and_best_at_a_twelve_seat_casino_table(client: Client) -> None:
    """The largest CASINO table (the house and 11 players): every decision of its first hand is advised through the
    service, EXACT, and then played by ``best`` auto-play, each within the server's budget (no DEADLINE_EXCEEDED)."""
    table = client.create("sette_e_mezzo", 12, seed=b"x" * 8, preset="CASINO")
    client.act(table, pb.Action(seat=table.to_act[0], kind="DEAL"))
    decisions = 0
    while client.unseal(table.state).phase.value in ("STAKE", "DECIDE"):
        seat = table.to_act[0]
        answer = client.advise(table, seat)
        assert answer.actions and {a.basis for a in answer.actions} == {svc.ADVICE_BASIS_EXACT}
        client.auto(table, "best", seat)
        decisions += 1
    assert decisions >= 22  # each of the 11 players stakes and decides at least once


def test_advise_samples_as_many_deals_as_asked(client: Client) -> None:
    """samples 1..1000 samples that many deals even where the odds are exact by default; 0 is the default; any
    other count is refused before any work."""
    table = client.create("sette_e_mezzo", seed=b"advise-samples")
    client.act(table, pb.Action(seat=table.to_act[0], kind="DEAL"))
    seat = table.to_act[0]
    state = client.unseal(table.state)
    assert client.advise(table, seat).method == svc.ADVICE_METHOD_EXACT
    answer = client.advise(table, seat, samples=30)
    assert (answer.method, answer.samples) == (svc.ADVICE_METHOD_SAMPLED, 30)
    assert_is_the_engines_advice(answer, bots.advise(state, seat, samples=30), table.seq)
    for samples in (-1, 1001):
        refused(lambda n=samples: client.advise(table, seat, samples=n), Code.INVALID_ARGUMENT, "INVALID_REQUEST")


def test_the_advice_message_can_hold_no_card_of_the_table() -> None:
    """AdviseResponse has no view, no table card and no event: only actions and numbers leave the service."""
    seen: set[str] = set()

    def walk(desc: Any) -> None:
        if desc.full_name in seen:
            return
        seen.add(desc.full_name)
        for fd in desc.fields:
            if fd.message_type is not None:
                walk(fd.message_type)

    walk(svc.AdviseResponse.DESCRIPTOR)
    assert seen == {"mazziere.v1.AdviseResponse", "mazziere.v1.ActionAdvice", "mazziere.v1.Action"}


def test_advise_needs_the_seats_key(client: Client) -> None:
    table = client.create("sette_e_mezzo", seed=b"advise-keys")
    seat = table.to_act[0]
    other = client.create("sette_e_mezzo", seed=b"advise-keys")
    refused(lambda: client.advise(table, seat, key=""), Code.PERMISSION_DENIED, "SEAT_KEY_MISSING")
    for key in (table.keys[(seat + 1) % table.seats], other.keys[seat], "nonsense"):
        refused(lambda k=key: client.advise(table, seat, key=k), Code.PERMISSION_DENIED, "SEAT_KEY_INVALID")
    refused(lambda: client.advise(table, 9, key="x"), Code.INVALID_ARGUMENT, "INVALID_SEAT")
    refused(
        lambda: client.stub.Advise(
            svc.AdviseRequest(table_id=table.table_id, state=other.state, seat=seat, seat_key=table.keys[seat])
        ),
        Code.INVALID_ARGUMENT,
        "WRONG_TABLE",
    )
    assert client.advise(table, seat).actions


def test_advise_is_counted_and_logged_like_every_method(running: Running, client: Client) -> None:
    table = client.create("trentuno", seed=b"advise-metrics")
    labels = {"grpc_type": "unary", "grpc_service": "mazziere.v1.TableService", "grpc_method": "Advise"}
    registry = running.app.metrics.registry

    def handled(code: str) -> float:
        return registry.get_sample_value("grpc_server_handled_total", {**labels, "grpc_code": code}) or 0.0

    ok, denied = handled("OK"), handled("PERMISSION_DENIED")
    client.advise(table, table.to_act[0])
    refused(lambda: client.advise(table, table.to_act[0], key=""), Code.PERMISSION_DENIED, "SEAT_KEY_MISSING")
    assert (handled("OK"), handled("PERMISSION_DENIED")) == (ok + 1, denied + 1)
    assert registry.get_sample_value("grpc_server_handling_seconds_count", labels)

    lines: list[tuple[str, dict[str, Any]]] = []

    class Recorder:
        def info(self, event: str, **fields: Any) -> None:
            lines.append((event, fields))

    app = App(replace(running.app.config, log_calls=True), keyring=running.app.keyring)
    app.dispatcher.observer.log = Recorder()  # type: ignore[assignment]
    advise = app.dispatcher.method(SERVICE_NAME, "Advise")
    assert advise is not None
    request = svc.AdviseRequest(table_id=table.table_id, state=table.state, seat=table.to_act[0])
    request.seat_key = table.keys[table.to_act[0]]
    asyncio.run(app.dispatcher.unary(advise, request, Call(metadata=[("x-request-id", "r-advise")]), None))
    app.dispatcher.shutdown()
    ((event, fields),) = lines
    assert event == "call" and fields["method"] == "Advise" and fields["game"] == "trentuno"
    assert (fields["code"], fields["request_id"]) == ("OK", "r-advise")


def test_advise_and_sampling_bots_run_off_the_move_workers(running: Running) -> None:
    """An advice, a sampling bot's move and a replay play out many deals: each has a cost class of its own (its
    own workers and places), so none ever holds a move's worker."""
    costs = {m.name: m.cost(m.request_class()) for m in table_methods(running.app.table)}
    assert costs == {
        "ListGames": CostClass.MOVE,
        "CreateTable": CostClass.MOVE,
        "Act": CostClass.MOVE,
        "GetView": CostClass.MOVE,
        "Replay": CostClass.REPLAY,
        "StreamReplay": CostClass.REPLAY,
        "Advise": CostClass.ADVICE,
        "Gather": CostClass.MOVE,
    }
    assert act_cost(svc.ActRequest(auto_play="best")) is CostClass.BOT
    assert act_cost(svc.ActRequest(auto_play="cautious")) is CostClass.MOVE


# -- auto-play ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_auto_play_finishes_a_whole_game_with_no_human_move(client: Client, game: str) -> None:
    """The game's default preset, every move auto-played (the policies in turn) for whoever is to act, until the
    game is over: each answer names the action it played, which is the engine's own move on the true state, and
    every event any viewer receives is marked auto."""
    table = client.create(game, seats=3, chips=4, seed=b"auto-" + game.encode())
    finished = []
    for step in range(MAX_STEPS):
        if table.is_over:
            break
        before = client.unseal(table.state)
        seat = table.to_act[0]
        policy = bots.POLICIES[step % len(bots.POLICIES)]
        resp = client.auto(
            table,
            policy,
            viewers=[pb.SeatKey(seat=s, key=k) for s, k in table.keys.items()],
            include_spectator=True,
        )
        assert resp.action.seat == seat
        truth = engine.apply(before, bots.choose(policy, before, seat))
        assert engine.apply(before, engine_action(resp.action)).state == truth.state == client.unseal(resp.state)
        events = [e for update in resp.updates for e in update.events]
        assert events and all(e.auto for e in events)
        finished += [e.kind for e in resp.updates[1].events if e.kind in ("HAND_OVER", "GAME_OVER")]
    assert table.is_over, f"{game} not over after {MAX_STEPS} auto-played moves"
    assert finished[-1] == "GAME_OVER"


def test_events_of_a_players_own_move_are_not_marked_auto(client: Client) -> None:
    table = client.create("sette_e_mezzo", seed=b"auto-mark")
    seat = table.to_act[0]
    entry = client.legal(table, seat)[0]
    resp = client.act(table, pb.Action(seat=seat, kind=entry.kind, amount=entry.min_amount), all_viewers=True)
    events = [e for update in resp.updates for e in update.events]
    assert events and not any(e.auto for e in events)
    assert resp.action == pb.Action(seat=seat, kind=entry.kind, amount=entry.min_amount)


@pytest.mark.parametrize("game", GAMES)
def test_the_fast_auto_update_is_the_reference_with_auto_set(game: str) -> None:
    out = engine.new_table(game, [engine.Seat(f"p{i}", 20) for i in range(3)], seed=b"auto-wire")
    for _ in range(3):
        state = out.state
        seat = engine.to_act(state)[0]
        out = engine.apply(state, bots.choose("random", state, seat))
        for viewer in [None, *range(3)]:
            want = reference_update(out.state, viewer, out.events)
            for event in want.events:
                event.auto = True
            assert pb.SeatUpdate.FromString(seat_update(out.state, viewer, out.events, auto=True)) == want


def auto_request(table: Table, **fields: Any) -> svc.ActRequest:
    base = {"table_id": table.table_id, "state": table.state, "expected_seq": table.seq}
    return svc.ActRequest(**{**base, "seat_key": table.keys[table.to_act[0]], **fields})


def test_auto_play_refusals(client: Client) -> None:
    table = client.create("sette_e_mezzo", seed=b"auto-refusals")
    seat = table.to_act[0]
    other = (seat + 1) % table.seats
    action = pb.Action(seat=seat, kind=client.legal(table, seat)[0].kind)
    act = client.stub.Act
    exc = refused(lambda: act(auto_request(table, auto_play="genius")), Code.INVALID_ARGUMENT, "UNKNOWN_POLICY")
    assert "random, cautious, best" in exc.details()  # type: ignore[attr-defined]
    exc = refused(lambda: act(auto_request(table, action=action, auto_play="random")), Code.INVALID_ARGUMENT,
                  "INVALID_REQUEST")  # fmt: skip
    assert "both" in exc.details()  # type: ignore[attr-defined]
    exc = refused(lambda: act(auto_request(table)), Code.INVALID_ARGUMENT, "INVALID_REQUEST")
    assert "neither" in exc.details()  # type: ignore[attr-defined]
    refused(lambda: act(auto_request(table, action=action, auto_seat=seat)), Code.INVALID_ARGUMENT, "INVALID_REQUEST")
    # The seat's key, as for any move: the auto-played seat's own.
    refused(lambda: act(auto_request(table, auto_play="best", seat_key="")), Code.PERMISSION_DENIED,
            "SEAT_KEY_MISSING")  # fmt: skip
    refused(lambda: act(auto_request(table, auto_play="best", seat_key=table.keys[other])), Code.PERMISSION_DENIED,
            "SEAT_KEY_INVALID")  # fmt: skip
    # A seat that is not to act, named with its own key.
    refused(lambda: act(auto_request(table, auto_play="best", auto_seat=other, seat_key=table.keys[other])),
            Code.FAILED_PRECONDITION, "NOT_YOUR_TURN")  # fmt: skip
    refused(lambda: act(auto_request(table, auto_play="best", auto_seat=7)), Code.INVALID_ARGUMENT, "INVALID_SEAT")
    refused(lambda: act(auto_request(table, auto_play="best", expected_seq=3)), Code.ABORTED, "STALE_SEQUENCE")
    # Nothing changed: the same token still auto-plays.
    resp = client.auto(table, "best")
    assert resp.seq == 1 and resp.action.seat == seat


def test_auto_play_after_the_game_is_over(client: Client) -> None:
    table = client.create("trentuno", seats=3, chips=1, seed=b"auto-over")
    while not table.is_over:
        client.auto(table, "random")
    request = svc.ActRequest(table_id=table.table_id, state=table.state, expected_seq=table.seq, auto_play="random")
    refused(lambda: client.stub.Act(request), Code.FAILED_PRECONDITION, "GAME_OVER")


def several_to_act() -> engine.TableState:
    """A Saltacavallo state in which several seats may act (a dead seat may be revived before the deal)."""
    rng = random.Random(11)
    for attempt in range(50):
        seats = [engine.Seat(f"p{i}", 5) for i in range(4)]
        state = engine.new_table("saltacavallo", seats, seed=bytes([attempt]), table_id="t_several").state
        for _ in range(400):
            if engine.is_over(state):
                break
            if len(engine.to_act(state)) > 1:
                return state
            seat = engine.to_act(state)[0]
            state = engine.apply(state, bots.choose(rng.choice(bots.POLICIES), state, seat)).state
    raise AssertionError("no Saltacavallo state with several seats to act")


def test_auto_seat_picks_among_several_seats_to_act(trusted: Running) -> None:
    state = several_to_act()
    to_act = engine.to_act(state)
    request = svc.ActRequest(
        table_id=state.table_id, state=engine.state_to_bytes(state), expected_seq=state.seq, auto_play="cautious"
    )
    exc = refused(lambda: trusted.stub.Act(request), Code.INVALID_ARGUMENT, "INVALID_REQUEST")
    assert "auto_seat" in exc.details()  # type: ignore[attr-defined]
    for seat in to_act:
        request.auto_seat = seat
        resp = trusted.stub.Act(request)
        assert resp.action.seat == seat and resp.action == to_proto(bots.choose("cautious", state, seat), pb.Action)
