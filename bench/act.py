"""One ``Act`` in process, step by step: where its microseconds go, with the memo missing and hitting.

Run: ``.venv/bin/python -m bench.act`` (part of ``make bench``). The request is the one ``bench.grpc_act`` sends:
a Sette e mezzo table of 4 seats, mid-hand, a sealed token, the acting seat's key. Each figure is the median of
``--rounds`` rounds of ``--number`` calls (``time.process_time``), so another process on the machine costs
little. It also prints the bytes of a state and of its token for every game.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

from bench.goals import verdict
from mazziere import engine
from mazziere.services.core.call import Call
from mazziere.services.gen.mazziere.v1 import service_pb2 as svc
from mazziere.services.gen.mazziere.v1 import table_pb2 as pb
from mazziere.services.table.requests import action_of
from mazziere.services.table.sealing import Keyring
from mazziere.services.table.service import TableService
from mazziere.services.wire.answers import seat_update

GOAL_US = 40.0
"""The goal: a whole ``TableService.act`` (memo miss, sealed token) in at most this many microseconds."""


def mid_hand_request(core: TableService, seats: int = 4) -> svc.ActRequest:
    """An ``ActRequest`` in the middle of a Sette e mezzo hand (a HIT after the stake), made through the core."""
    people = [pb.Seat(name=f"p{i}", chips=100) for i in range(seats)]
    table = core.create_table(svc.CreateTableRequest(game="sette_e_mezzo", seats=people, seed=b"bench"), Call())
    keys = {k.seat: k.key for k in table.seat_keys}
    state, seq, to_act = table.state, table.seq, list(table.to_act)
    for _ in range(20):
        seat = to_act[0]
        view = core.get_view(
            svc.GetViewRequest(table_id=table.table_id, state=state, seat=seat, seat_key=keys[seat]), Call()
        )
        kinds = [entry.kind for entry in view.update.legal_actions]
        entry = view.update.legal_actions[kinds.index("HIT") if "HIT" in kinds else 0]
        request = svc.ActRequest(
            table_id=table.table_id,
            state=state,
            expected_seq=seq,
            action=pb.Action(seat=seat, kind=entry.kind, amount=entry.min_amount),
            seat_key=keys[seat],
        )
        if entry.kind == "HIT":
            return request
        answer = core.act(request, Call())
        state, seq, to_act = answer.state, answer.seq, list(answer.to_act)
    raise RuntimeError("no mid-hand HIT found")


def median_us(fn: Callable[[], Any], number: int, rounds: int) -> float:
    times = []
    for _ in range(rounds):
        start = time.process_time()
        for _ in range(number):
            fn()
        times.append((time.process_time() - start) / number * 1e6)
    return statistics.median(times)


def steps(number: int, rounds: int) -> list[tuple[str, float]]:
    """Each step of an Act on the mid-hand request, and the whole call with the memo missing and hitting."""
    core = TableService(Keyring.ephemeral())
    request = mid_hand_request(core)
    _, payload = core.keyring.open(request.state)
    state = engine.state_from_bytes(payload)
    action = action_of(request.action, "action")
    out = engine.apply(state, action)
    raw = engine.state_to_bytes(out.state)
    key = request.seat_key

    def time_of(fn: Callable[[], Any]) -> float:
        return median_us(fn, number, rounds)

    rows = [
        ("open the token (AES-GCM)", time_of(lambda: core.keyring.open(request.state))),
        ("decode the state (engine.state_from_bytes)", time_of(lambda: engine.state_from_bytes(payload))),
        ("read the action", time_of(lambda: action_of(request.action, "action"))),
        ("check the seat key (HMAC)", time_of(lambda: core.keyring.check_seat_key(key, state.table_id, action.seat))),
        ("engine.apply", time_of(lambda: engine.apply(state, action))),
        ("encode the state (engine.state_to_bytes)", time_of(lambda: engine.state_to_bytes(out.state))),
        ("seal the token", time_of(lambda: core.keyring.seal(raw, state.table_id, out.state.seq))),
        (
            "the actor's update (view, events, legal actions)",
            time_of(lambda: seat_update(out.state, action.seat, out.events)),
        ),
    ]
    core.recent.entries = 0
    rows.append(("whole TableService.act, memo miss", time_of(lambda: core.act(request, Call()))))
    core.recent.entries = 4096
    core.recent.put(request.state, state)
    rows.append(("whole TableService.act, memo hit", time_of(lambda: core.act(request, Call()))))
    return rows


def sizes() -> list[tuple[str, int, int, int]]:
    """(game, seats, state bytes, token bytes) mid-game, after 12 random legal actions."""
    keys = Keyring.ephemeral()
    out = []
    for game_id, seats in (("sette_e_mezzo", 4), ("sette_e_mezzo", 6), ("saltacavallo", 6), ("trentuno", 4)):
        rng = random.Random(1)
        people = [engine.Seat(f"p{i}", 100) for i in range(seats)]
        state = engine.new_table(game_id, people, seed=b"sizes", table_id="t_0123456789abcdef01234567").state
        for _ in range(12):
            seat = rng.choice(engine.to_act(state))
            state = engine.apply(state, rng.choice(engine.legal_actions(state, seat)).example(seat)).state
        raw = engine.state_to_bytes(state)
        out.append((game_id, seats, len(raw), len(keys.seal(raw, state.table_id, state.seq))))
    return out


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--number", type=int, default=1000, help="calls per round")
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args(argv)
    rows = steps(args.number, args.rounds)
    print(f"{'step (Sette e mezzo, 4 seats, mid-hand HIT)':52} {'µs':>8}")
    for name, us in rows:
        print(f"{name:52} {us:8.1f}")
    miss = dict(rows)["whole TableService.act, memo miss"]
    print(verdict("TableService.act, memo miss", miss, GOAL_US, "µs", at_most=True))
    print(f"\n{'state mid-game':24} {'state bytes':>12} {'token bytes':>12}")
    for game_id, seats, state_bytes, token_bytes in sizes():
        print(f"{game_id + f', {seats} seats':24} {state_bytes:12,} {token_bytes:12,}")
    return {"act_miss_us": miss}


if __name__ == "__main__":
    main()
