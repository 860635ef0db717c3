"""In-process engine throughput under random legal play, side by side with RLCard's and OpenSpiel's blackjack.

Run: ``make bench`` (or ``.venv/bin/python -m bench.engine``). Rounds alternate between the systems so that
noise on a shared machine hits all of them; each round is timed in CPU seconds of this process, and the median
round of each is reported, with the ratios of decisions per second. Trentuno's cost against Sette e mezzo's is
timed apart, in many short rounds alternated (:func:`cost_ratio`), in both engines.

A *decision* is a player's move. Every engine action is one (the bank's DEAL too); RLCard's blackjack environment
counts its steps; OpenSpiel's blackjack (C++ behind ``pyspiel``) counts its player nodes: its chance nodes (the
cards dealt) are sampled and applied in the same loop, so their time counts, but they are not decisions.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import islice
from typing import Any

from bench.goals import note, verdict
from mazziere import engine
from mazziere.engine.table import Action, Outcome, Seat

RLCARD = "rlcard blackjack"
OPENSPIEL = "openspiel blackjack (C++)"
OPENSPIEL_WEIGHTED = "openspiel blackjack, by chance_outcomes()"
SETTE = "sette e mezzo CLASSICO, 6 seats"
TRENTUNO = "trentuno CLASSICO, 6 seats"
ROUND_SECONDS = 1.0
ROUNDS = 11
GOAL = 8.0
"""Sette e mezzo CLASSICO (6 seats) random play: at least this many times RLCard blackjack's actions per second."""
GOAL_OPENSPIEL = 2.0
"""Sette e mezzo CLASSICO (6 seats) random play: at least this many times OpenSpiel blackjack's decisions/s."""
GOAL_OPENSPIEL_TRENTUNO = 1.0
"""Trentuno CLASSICO (6 seats) random play: at least OpenSpiel blackjack's decisions per second."""
GOAL_TRENTUNO_COST = 1.3
"""Trentuno's time per random action at most this many times Sette e mezzo's (6 seats each), in either engine."""
COST_PAIRS = 81
COST_ACTIONS = 1000
""":func:`cost_ratio`'s rounds: about 30 ms each, compiled."""


@dataclass
class Tally:
    actions: int = 0
    hands: int = 0
    games: int = 0


def random_play(game_id: str, seats: int, preset: str | None = None) -> Iterator[Outcome]:
    """Random legal actions on fresh tables of ``game_id`` (seeded), one outcome per action, without end."""
    rng = random.Random(1)
    table = 0
    while True:
        table += 1
        state = new_state(game_id, seats, preset, table)
        while not engine.is_over(state):
            seat = rng.choice(engine.to_act(state))
            entry = rng.choice(engine.legal_actions(state, seat))
            amount = rng.randint(entry.min_amount, entry.max_amount)
            out = engine.apply(state, Action(seat, entry.kind, amount, entry.target, entry.cards))
            state = out.state
            yield out


def mazziere_player(game_id: str, seats: int, preset: str | None = None) -> Callable[[float], Tally]:
    """A loop that plays random legal actions on fresh tables of ``game_id`` for a given time."""

    def play(seconds: float) -> Tally:
        tally = Tally()
        deadline = time.process_time() + seconds
        actions = random_play(game_id, seats, preset)
        while time.process_time() < deadline:
            for out in islice(actions, 100):  # check the clock every hundred actions
                tally.actions += 1
                for event in out.events:
                    if event.kind == "HAND_OVER":
                        tally.hands += 1
                    elif event.kind == "GAME_OVER":
                        tally.games += 1
        return tally

    return play


def cost_ratio(pairs: int = COST_PAIRS, actions: int = COST_ACTIONS) -> tuple[float, float, float]:
    """Trentuno's CPU time per random action over Sette e mezzo's (6 seats each): ``pairs`` rounds of each,
    alternated, each ``actions`` actions on from where that game's last round stopped. The median of the pairs'
    ratios, and its quartiles: rounds this short, side by side, put a shared machine's swings (which move whole
    seconds' rates by a third here) into both sides of each ratio."""
    sette, trentuno = random_play("sette_e_mezzo", 6), random_play("trentuno", 6)
    ratios = sorted(_cpu_time(trentuno, actions) / _cpu_time(sette, actions) for _ in range(pairs))
    return ratios[pairs // 2], ratios[pairs // 4], ratios[3 * pairs // 4]


def _cpu_time(play: Iterator[Outcome], actions: int) -> float:
    start = time.process_time()
    deque(islice(play, actions), maxlen=0)
    return time.process_time() - start


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


def openspiel_blackjack(weighted: bool = False) -> Callable[[float], Tally]:
    """Random play of OpenSpiel's C++ blackjack through pyspiel.

    Blackjack's chance outcomes are the cards left, all equally likely (checked on the first deal), so the anchor
    draws a chance node's outcome uniformly from ``legal_actions()``: the same draw as by ``chance_outcomes()``
    and its probabilities, and pyspiel's fastest. ``weighted`` samples by ``chance_outcomes()`` and its
    probabilities instead, as a loop written for any OpenSpiel game does (about half the rate: docs/performance.md).
    """
    import pyspiel  # type: ignore[import-not-found]  # a bench-only dependency: pip install -e '.[bench]'

    game = pyspiel.load_game("blackjack")
    if len({p for _, p in game.new_initial_state().chance_outcomes()}) != 1:
        raise RuntimeError("OpenSpiel's blackjack no longer deals equally likely cards: sample by chance_outcomes()")

    def play(seconds: float) -> Tally:
        rng = random.Random(1)
        tally = Tally()
        deadline = time.process_time() + seconds
        while time.process_time() < deadline:
            state = game.new_initial_state()
            while not state.is_terminal():
                if not state.is_chance_node():
                    tally.actions += 1
                    state.apply_action(rng.choice(state.legal_actions()))
                elif weighted:
                    outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
                    state.apply_action(rng.choices(outcomes, probabilities)[0])
                else:
                    state.apply_action(rng.choice(state.legal_actions()))
            tally.hands += 1
        return tally

    return play


def median_rates(
    players: dict[str, Callable[[float], Tally]], count: int = ROUNDS
) -> dict[str, tuple[float, float, float]]:
    """``count`` interleaved rounds timed in CPU seconds; for each player the median round's (actions/s, hands/s,
    games/s)."""
    rounds: dict[str, list[tuple[float, float, float]]] = {name: [] for name in players}
    for _ in range(count):
        for name, play in players.items():
            start = time.process_time()
            tally = play(ROUND_SECONDS)
            elapsed = time.process_time() - start
            rounds[name].append((tally.actions / elapsed, tally.hands / elapsed, tally.games / elapsed))
    return {name: sorted(rates)[len(rates) // 2] for name, rates in rounds.items()}


def main() -> dict[str, float]:
    players: dict[str, Callable[[float], Tally]] = {
        RLCARD: rlcard_blackjack,
        OPENSPIEL: openspiel_blackjack(),
        OPENSPIEL_WEIGHTED: openspiel_blackjack(weighted=True),
    }
    available = {g.id for g in engine.all_games()}
    for game_id, seats, label in (
        ("sette_e_mezzo", 6, SETTE),
        ("saltacavallo", 8, "saltacavallo NAPOLETANO, 8 seats"),
        ("trentuno", 6, TRENTUNO),
    ):
        if game_id in available:
            players[label] = mazziere_player(game_id, seats)
    rates = median_rates(players)
    rlcard, openspiel, weighted = rates[RLCARD][0], rates[OPENSPIEL][0], rates[OPENSPIEL_WEIGHTED][0]
    print(f"{'player':44} {'decisions/s':>12} {'hands/s':>10} {'games/s':>9} {'x rlcard':>9} {'x openspiel':>12}")
    print("(hands/s counts deals for trentuno; games/s counts whole games played to the end)")
    for name, (actions, hands, games) in rates.items():
        ratios = f"{actions / rlcard:9.2f} {actions / openspiel:12.2f}"
        print(f"{name:44} {actions:12,.0f} {hands:10,.0f} {games:9,.1f} {ratios}")
    sette, trentuno = rates[SETTE][0], rates[TRENTUNO][0]
    vs = "{:,.0f} vs {:,.0f} decisions/s"
    print(verdict("sette e mezzo actions/s vs rlcard blackjack", sette / rlcard, GOAL, detail=vs.format(sette, rlcard)))
    what = "sette e mezzo decisions/s vs openspiel blackjack"
    print(verdict(what, sette / openspiel, GOAL_OPENSPIEL, detail=vs.format(sette, openspiel)))
    what = "trentuno decisions/s vs openspiel blackjack"
    print(verdict(what, trentuno / openspiel, GOAL_OPENSPIEL_TRENTUNO, detail=vs.format(trentuno, openspiel)))
    for name, rate in (("sette e mezzo", sette), ("trentuno", trentuno)):
        what = f"{name} decisions/s vs openspiel blackjack, chance sampled by chance_outcomes()"
        print(note(what, f"{rate / weighted:.2f} x ({vs.format(rate, weighted)})"))
    what = "trentuno's time per random action vs sette e mezzo's ({} engine)"
    for engine_kind, (median, low, high) in (("compiled", cost_ratio()), ("pure", _pure_cost_ratio())):
        spread = f"quartiles {low:.2f}-{high:.2f} over {COST_PAIRS} alternated rounds"
        print(verdict(what.format(engine_kind), median, GOAL_TRENTUNO_COST, at_most=True, detail=spread))
    return {
        "engine_ratio": sette / rlcard,
        "openspiel_ratio": sette / openspiel,
        "openspiel_trentuno_ratio": trentuno / openspiel,
    }


def _pure_cost_ratio() -> tuple[float, float, float]:
    """:func:`cost_ratio` in the pure engine (a child process)."""
    env = {**os.environ, "MAZZIERE_PURE": "1"}
    child = [sys.executable, "-m", "bench.engine", "--pure-cost"]
    median, low, high = subprocess.run(child, env=env, capture_output=True, text=True, check=True).stdout.split()
    return float(median), float(low), float(high)


if __name__ == "__main__":
    if sys.argv[1:] == ["--pure-cost"]:
        print(*cost_ratio())
    else:
        main()
