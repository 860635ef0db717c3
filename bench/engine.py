"""In-process engine throughput under random legal play, measured side by side with RLCard's blackjack.

Run: ``make bench`` (or ``.venv/bin/python -m bench.engine``). Rounds alternate between the systems so that
noise on a shared machine hits both; each round is timed in CPU seconds of this process, and the median round of
each is reported, with the ratio of actions per second.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bench.goals import verdict
from mazziere import engine
from mazziere.engine.table import Action, Seat

ROUND_SECONDS = 1.0
ROUNDS = 11
GOAL = 5.0
"""Sette e mezzo CLASSICO (6 seats) random play: at least this many times RLCard blackjack's actions per second."""


@dataclass
class Tally:
    actions: int = 0
    hands: int = 0
    games: int = 0


def mazziere_player(game_id: str, seats: int, preset: str | None = None) -> Callable[[float], Tally]:
    """A loop that plays random legal actions on fresh tables of ``game_id`` for a given time."""

    def play(seconds: float) -> Tally:
        rng = random.Random(1)
        tally = Tally()
        deadline = time.process_time() + seconds
        table = 0
        while time.process_time() < deadline:
            table += 1
            state = new_state(game_id, seats, preset, table)
            while not engine.is_over(state) and time.process_time() < deadline:
                for _ in range(100):  # check the clock every hundred actions
                    seat = rng.choice(engine.to_act(state))
                    entry = rng.choice(engine.legal_actions(state, seat))
                    amount = rng.randint(entry.min_amount, entry.max_amount)
                    out = engine.apply(state, Action(seat, entry.kind, amount, entry.target, entry.cards))
                    state = out.state
                    tally.actions += 1
                    for event in out.events:
                        if event.kind == "HAND_OVER":
                            tally.hands += 1
                        elif event.kind == "GAME_OVER":
                            tally.games += 1
                    if engine.is_over(state):
                        break
        return tally

    return play


def new_state(game_id: str, seats: int, preset: str | None, table: int) -> Any:
    chips = 1000
    people = [Seat(f"p{i}", chips) for i in range(seats)]
    return engine.new_table(game_id, people, seed=table.to_bytes(8, "big"), preset=preset).state


def rlcard_blackjack(seconds: float) -> Tally:
    import rlcard  # a bench-only dependency: pip install -e '.[bench]'

    env = rlcard.make("blackjack", config={"seed": 0})
    rng = random.Random(1)
    tally = Tally()
    deadline = time.process_time() + seconds
    while time.process_time() < deadline:
        state, _ = env.reset()
        while not env.is_over():
            state, _ = env.step(rng.choice(list(state["legal_actions"])))
            tally.actions += 1
        tally.hands += 1
    return tally


def median_rates(players: dict[str, Callable[[float], Tally]]) -> dict[str, tuple[float, float, float]]:
    """Interleaved rounds timed in CPU seconds; for each player the median round's (actions/s, hands/s, games/s)."""
    rounds: dict[str, list[tuple[float, float, float]]] = {name: [] for name in players}
    for _ in range(ROUNDS):
        for name, play in players.items():
            start = time.process_time()
            tally = play(ROUND_SECONDS)
            elapsed = time.process_time() - start
            rounds[name].append((tally.actions / elapsed, tally.hands / elapsed, tally.games / elapsed))
    return {name: sorted(rates)[len(rates) // 2] for name, rates in rounds.items()}


def main() -> dict[str, float]:
    players: dict[str, Callable[[float], Tally]] = {"rlcard blackjack": rlcard_blackjack}
    available = {g.id for g in engine.all_games()}
    for game_id, seats, label in (
        ("sette_e_mezzo", 6, "sette e mezzo CLASSICO, 6 seats"),
        ("saltacavallo", 8, "saltacavallo NAPOLETANO, 8 seats"),
        ("trentuno", 6, "trentuno CLASSICO, 6 seats"),
    ):
        if game_id in available:
            players[label] = mazziere_player(game_id, seats)
    rates = median_rates(players)
    base = rates["rlcard blackjack"][0]
    print(f"{'player':36} {'actions/s':>12} {'hands/s':>10} {'games/s':>9} {'x rlcard':>9}")
    print("(hands/s counts deals for trentuno; games/s counts whole games played to the end)")
    for name, (actions, hands, games) in rates.items():
        print(f"{name:36} {actions:12,.0f} {hands:10,.0f} {games:9,.1f} {actions / base:9.2f}")
    ratio = rates["sette e mezzo CLASSICO, 6 seats"][0] / base
    print(verdict("sette e mezzo actions/s vs rlcard blackjack", ratio, GOAL))
    return {"engine_ratio": ratio}


if __name__ == "__main__":
    main()
