"""A stateless round trip beside PokerKit's: read the state, play one action, write the state back.

Run: ``.venv/bin/python -m bench.roundtrip`` (part of ``make bench``). Mazziere: open a sealed token, decode the
state, apply a HIT, encode and seal the new state. PokerKit (the bench extra): unpickle a 4-player no-limit
hold'em state, ``check_or_call``, pickle it again, which is how a stateless service would have to carry it.
Medians of interleaved rounds of CPU time.
"""

from __future__ import annotations

import pickle
import statistics
import time
from collections.abc import Callable
from typing import Any

from bench.act import mid_hand_request
from bench.goals import verdict
from mazziere import engine
from mazziere.services.table.requests import action_of
from mazziere.services.table.sealing import Keyring
from mazziere.services.table.service import TableService

GOAL = 10.0
ROUNDS = 11
NUMBER = 300


def mazziere_round_trip() -> Callable[[], Any]:
    core = TableService(Keyring.ephemeral())
    request = mid_hand_request(core)
    action = action_of(request.action, "action")
    keyring, token = core.keyring, request.state

    def round_trip() -> bytes:
        _, payload = keyring.open(token)
        out = engine.apply(engine.state_from_bytes(payload), action)
        return keyring.seal(engine.state_to_bytes(out.state), out.state.table_id, out.state.seq)

    return round_trip


def pokerkit_round_trip() -> Callable[[], Any] | None:
    try:
        from pokerkit import Automation, NoLimitTexasHoldem  # a bench-only dependency: pip install -e '.[bench]'
    except ImportError:
        return None
    automations = (
        Automation.ANTE_POSTING, Automation.BET_COLLECTION, Automation.BLIND_OR_STRADDLE_POSTING,
        Automation.CARD_BURNING, Automation.HOLE_DEALING, Automation.BOARD_DEALING,
        Automation.HOLE_CARDS_SHOWING_OR_MUCKING, Automation.HAND_KILLING, Automation.CHIPS_PUSHING,
        Automation.CHIPS_PULLING,
    )  # fmt: skip
    state = NoLimitTexasHoldem.create_state(automations, True, 0, (1, 2), 2, (200,) * 4, 4)
    raw = pickle.dumps(state)

    def round_trip() -> bytes:
        played = pickle.loads(raw)
        played.check_or_call()
        return pickle.dumps(played)

    return round_trip


def main() -> dict[str, float]:
    ours = mazziere_round_trip()
    theirs = pokerkit_round_trip()
    if theirs is None:
        print("round trip: PokerKit is not installed (pip install -e '.[bench]'); skipped")
        return {}
    times: dict[str, list[float]] = {"mazziere": [], "pokerkit": []}
    for _ in range(ROUNDS):
        for name, fn in (("mazziere", ours), ("pokerkit", theirs)):
            start = time.process_time()
            for _ in range(NUMBER):
                fn()
            times[name].append((time.process_time() - start) / NUMBER * 1e6)
    us = {name: statistics.median(t) for name, t in times.items()}
    ratio = us["pokerkit"] / us["mazziere"]
    print(f"{'stateless round trip (read, play one action, write)':52} {'µs':>8}")
    print(f"{'Mazziere: token -> state -> HIT -> token':52} {us['mazziere']:8.1f}")
    print(f"{'PokerKit: pickle -> state -> check_or_call -> pickle':52} {us['pokerkit']:8.1f}")
    detail = f"{us['mazziere']:.1f} vs {us['pokerkit']:.1f} µs"
    print(verdict("stateless round trip vs PokerKit's", ratio, GOAL, detail=detail))
    return {"round_trip_ratio": ratio}


if __name__ == "__main__":
    main()
