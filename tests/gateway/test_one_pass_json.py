"""The JSON of every answer that carries the table, written in one pass from the engine's values, is the JSON the
gateway printed from the parsed message (``json_format.MessageToDict``, written compactly), byte for byte: on every
answer of random whole games of every game and preset (every seat's and the spectator's update, moves named and
auto-played, views, the whole game replayed and streamed)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from google.protobuf import json_format

from mazziere import engine
from mazziere.services.core.call import Call
from mazziere.services.gen.mazziere.v1 import service_pb2 as svc
from mazziere.services.gen.mazziere.v1 import table_pb2 as pb
from mazziere.services.table.games import served_games
from mazziere.services.table.sealing import Keyring
from mazziere.services.table.service import TableService
from mazziere.services.wire import protojson
from mazziere.services.wire.answers import Written

CORE = TableService(Keyring([("k", bytes(32))]))
TRUSTED = TableService(Keyring([("k", bytes(32))]), trusted_mode=True)
MAX_ACTIONS = 600
"""Actions of one game at most (every game here ends well before, with few chips)."""
CASES = [
    (game, preset, seats)
    for game in sorted(served_games())
    for preset, rules in engine.get_game(game).presets.items()
    for seats in sorted({max(3, getattr(rules, "min_seats", 3)), 5})
]


def compact(data: object) -> bytes:
    """json_format's JSON of a message, written without spaces: the bytes the gateway sent."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode()


def same_json(answer: Written[Any]) -> Any:
    """The answer's message, once its one-pass JSON has been found equal to json_format's of that message."""
    message = answer.message()
    want = compact(json_format.MessageToDict(message))
    assert answer.json() == want
    assert protojson.to_json(answer) == want
    return message


def legal(core: TableService, table: svc.CreateTableResponse, state: bytes, seat: int, keys: dict[int, str]) -> Any:
    request = svc.GetViewRequest(table_id=table.table_id, state=state, seat=seat, seat_key=keys.get(seat, ""))
    return same_json(core.answer_get_view(request, Call())).update.legal_actions


def play(core: TableService, game: str, preset: str, seats: int, seed: int) -> int:
    """A whole game of random moves (a fifth auto-played), every answer checked; the number of actions."""
    rng = random.Random(seed)
    create = svc.CreateTableRequest(
        game=game, preset=preset, seats=[pb.Seat(name=f"Ösel {i} 🂡", chips=6) for i in range(seats)], seed=b"%d" % seed
    )
    table = same_json(core.answer_create_table(create, Call()))
    keys = {k.seat: k.key for k in table.seat_keys}
    state, seq, to_act, over = table.state, table.seq, list(table.to_act), table.is_over
    actions: list[pb.Action] = []
    while not over and len(actions) < MAX_ACTIONS:
        seat = rng.choice(to_act)
        request = svc.ActRequest(
            table_id=table.table_id,
            state=state,
            expected_seq=seq,
            seat_key=keys.get(seat, ""),
            viewers=[pb.SeatKey(seat=s, key=keys.get(s, "")) for s in range(seats) if s != seat],
            include_spectator=rng.random() < 0.7,
        )
        if rng.random() < 0.2:
            request.auto_play, request.auto_seat = "random", seat
        else:
            entry = rng.choice(legal(core, table, state, seat, keys))
            request.action.CopyFrom(
                pb.Action(
                    seat=seat,
                    kind=entry.kind,
                    amount=rng.randint(entry.min_amount, entry.max_amount),
                    cards=entry.cards,
                )
            )
            if entry.HasField("target"):
                request.action.target = entry.target
        answer = same_json(core.answer_act(request, Call()))
        actions.append(answer.action)
        state, seq, to_act, over = answer.state, answer.seq, list(answer.to_act), answer.is_over
    spectator = svc.GetViewRequest(table_id=table.table_id, state=state)
    same_json(core.answer_get_view(spectator, Call()))
    replay = svc.ReplayRequest(create=create, table_id=table.table_id, actions=actions)
    steps = same_json(core.answer_replay(replay, Call())).steps
    streamed = svc.StreamReplayRequest(create=create, table_id=table.table_id, actions=actions)
    assert [same_json(m).step for m in core.answer_stream_replay(streamed, Call())] == list(steps)
    return len(actions)


@pytest.mark.parametrize(("game", "preset", "seats"), CASES)
def test_every_answer_of_whole_games_is_json_format_byte_for_byte(game: str, preset: str, seats: int) -> None:
    played = [play(CORE, game, preset, seats, seed) for seed in range(2)]
    assert all(0 < n < MAX_ACTIONS for n in played), played  # whole games, to their end


@pytest.mark.parametrize("game", sorted(served_games()))
def test_a_trusted_servers_plain_states_print_alike(game: str) -> None:
    """No seat keys, plain state bytes (base64 of any byte)."""
    assert play(TRUSTED, game, next(iter(engine.get_game(game).presets)), 3, seed=7) > 0


@pytest.mark.long
@pytest.mark.parametrize(("game", "preset", "seats"), CASES)
def test_many_more_whole_games(game: str, preset: str, seats: int) -> None:
    for seed in range(2, 12):
        play(CORE, game, preset, seats, seed)
