"""Random play through the PettingZoo environments (engine/rl), side by side with RLCard's blackjack environment.

Run: ``make bench`` (or ``.venv/bin/python -m bench.rl``). Each decision goes through the environment as a learner
sees it: ``last()`` (the observation vector of the seat's view and its action mask), a random legal action
from the mask, ``step()``; a finished game is stepped out and the table reset (a new seeded table). RLCard's
environment does the same work per step (``env.step`` returns the next player's encoded state and legal
actions). Interleaved rounds of CPU time, medians, as :mod:`bench.engine` does. No goal: a figure to watch.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

import numpy as np

from bench.engine import Tally, median_rates, rlcard_blackjack
from bench.goals import note
from mazziere.engine import rl

ROUNDS = 5
GAMES = (("sette_e_mezzo", 6, "CLASSICO"), ("saltacavallo", 8, "NAPOLETANO"), ("trentuno", 6, "CLASSICO"))


def environment_player(game_id: str, seats: int) -> Callable[[float], Tally]:
    """A loop of random legal decisions through the environment of ``game_id`` for a given time."""

    def play(seconds: float) -> Tally:
        table = rl.raw_env(game_id, seats)
        rng = random.Random(1)
        tally = Tally()
        table.reset(seed=1)
        deadline = time.process_time() + seconds
        while time.process_time() < deadline:
            for _ in range(100):  # check the clock every hundred steps
                if not table.agents:
                    tally.games += 1
                    tally.hands += table.hands
                    table.reset()
                observation, _, terminated, truncated, _ = table.last()
                if terminated or truncated:
                    table.step(None)
                    continue
                legal = np.flatnonzero(observation["action_mask"])
                table.step(int(legal[rng.randrange(len(legal))]))
                tally.actions += 1
        return tally

    return play


def main() -> dict[str, float]:
    players: dict[str, Callable[[float], Tally]] = {"rlcard blackjack env": rlcard_blackjack}
    for game_id, seats, preset in GAMES:
        players[f"{game_id} {preset} env, {seats} seats"] = environment_player(game_id, seats)
    rates = median_rates(players, ROUNDS)
    base = rates["rlcard blackjack env"][0]
    print(f"{'environment (random legal play)':40} {'decisions/s':>12} {'x rlcard':>9}")
    for name, (actions, _, _) in rates.items():
        print(f"{name:40} {actions:12,.0f} {actions / base:9.2f}")
    out = {}
    for name, (actions, _, _) in list(rates.items())[1:]:
        print(
            note(
                f"{name} decisions/s vs rlcard blackjack env", f"{actions / base:.2f} x ({actions:,.0f} vs {base:,.0f})"
            )
        )
        out[name] = actions / base
    return out


if __name__ == "__main__":
    main()
