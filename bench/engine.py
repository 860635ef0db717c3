"""In-process engine throughput under random legal play, measured side by side with RLCard's blackjack.

Run: ``make bench`` (or ``.venv/bin/python -m bench.engine``). Rounds alternate between the systems so that
noise on a shared machine hits both; the best round of each is reported, and the ratio of actions per second.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import engine
from engine.table import Action, Seat

ROUND_SECONDS = 1.0
ROUNDS = 5


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
        deadline = time.perf_counter() + seconds
        table = 0
        while time.perf_counter() < deadline:
            table += 1
            state = new_state(game_id, seats, preset, table)
            while not engine.is_over(state) and time.perf_counter() < deadline:
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
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        state, _ = env.reset()
        while not env.is_over():
            state, _ = env.step(rng.choice(list(state["legal_actions"])))
            tally.actions += 1
        tally.hands += 1
    return tally


def best_rates(players: dict[str, Callable[[float], Tally]]) -> dict[str, tuple[float, float, float]]:
    """Interleaved rounds; for each player the best (actions/s, hands/s, games/s)."""
    best: dict[str, tuple[float, float, float]] = {name: (0.0, 0.0, 0.0) for name in players}
    for _ in range(ROUNDS):
        for name, play in players.items():
            start = time.perf_counter()
            tally = play(ROUND_SECONDS)
            elapsed = time.perf_counter() - start
            rates = (tally.actions / elapsed, tally.hands / elapsed, tally.games / elapsed)
            if rates[0] > best[name][0]:
                best[name] = rates
    return best


def main() -> None:
    players: dict[str, Callable[[float], Tally]] = {"rlcard blackjack": rlcard_blackjack}
    available = {g.id for g in engine.all_games()}
    for game_id, seats, label in (
        ("sette_e_mezzo", 6, "sette e mezzo CLASSICO, 6 seats"),
        ("saltacavallo", 8, "saltacavallo NAPOLETANO, 8 seats"),
        ("trentuno", 6, "trentuno CLASSICO, 6 seats"),
    ):
        if game_id in available:
            players[label] = mazziere_player(game_id, seats)
    rates = best_rates(players)
    base = rates["rlcard blackjack"][0]
    print(f"{'player':36} {'actions/s':>12} {'hands/s':>10} {'games/s':>9} {'x rlcard':>9}")
    print("(hands/s counts deals for trentuno; games/s counts whole games played to the end)")
    for name, (actions, hands, games) in rates.items():
        print(f"{name:36} {actions:12,.0f} {hands:10,.0f} {games:9,.1f} {actions / base:9.2f}")
    print("goal: sette e mezzo actions/s >= 5.00 x rlcard blackjack")


if __name__ == "__main__":
    main()
