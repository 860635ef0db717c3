"""Python calls per random action, counted by the profiler in the pure engine: per game, the calls of Python
functions (the interpreter's builtins apart) that :mod:`cProfile` counts while random legal play runs, as
:func:`bench.engine.mazziere_player` plays it (``to_act``, ``legal_actions``, ``apply``; 6 seats), divided by the
actions played. The seat and the action are drawn outside the profiled calls.

Run: ``.venv/bin/python -m bench.calls`` (part of ``make bench``). The compiled engine makes no calls the profiler
sees, so :func:`main` counts in a child process started with ``MAZZIERE_PURE=1``.
"""

from __future__ import annotations

import cProfile
import os
import pstats
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

from bench.engine import new_state
from bench.goals import note, verdict
from mazziere import engine
from mazziere.engine.table import Action

GAMES = (("sette_e_mezzo", "CLASSICO"), ("saltacavallo", None), ("trentuno", "CLASSICO"))
GOALS = {"sette_e_mezzo": 45.0, "trentuno": 85.5}
"""At most half the calls per action of the engine that made 90 (Sette e mezzo) and 171 (Trentuno)."""
SEATS = 6
ACTIONS = 3000
"""Random actions profiled per game."""


def calls_per_action(game: str, preset: str | None, actions: int = ACTIONS) -> tuple[float, float, float]:
    """Per action over ``actions`` random actions from fresh tables (seeded): the Python calls, the game's own
    ``legal_actions`` worked out, and :func:`engine.get_game` calls (the game looked up)."""
    rng = random.Random(1)
    profiler = cProfile.Profile()
    played = table = 0
    while played < actions:
        table += 1
        state: Any = new_state(game, SEATS, preset, table)
        while played < actions:
            to_act = profiler.runcall(engine.to_act, state)
            seat = rng.choice(to_act)
            entries = profiler.runcall(engine.legal_actions, state, seat)
            entry = rng.choice(entries)
            amount = rng.randint(entry.min_amount, entry.max_amount)
            action = Action(seat, entry.kind, amount, entry.target, entry.cards)
            state = profiler.runcall(engine.apply, state, action).state
            played += 1
            if profiler.runcall(engine.is_over, state):
                break
    stats: dict[tuple[str, int, str], tuple[Any, ...]] = pstats.Stats(profiler).stats  # type: ignore[attr-defined]
    total: int = sum(calls for (filename, _, _), (_, calls, *_) in stats.items() if filename != "~")  # "~": builtins
    legal = sum(calls for (filename, _, name), (_, calls, *_) in stats.items() if _games_own(filename, name))
    lookups = sum(calls for (_, _, name), (_, calls, *_) in stats.items() if name == "get_game")
    return total / played, legal / played, lookups / played


def _games_own(filename: str, name: str) -> bool:
    """A game's own ``legal_actions`` (``engine/games/<game>/game.py``), not the API's."""
    path = Path(filename)
    return name == "legal_actions" and path.name == "game.py" and path.parent.parent.name == "games"


def _count() -> None:
    """In a pure-engine process: one line per game."""
    for game, preset in GAMES:
        calls, legal, lookups = calls_per_action(game, preset)
        print(f"{game} {preset or '-'} {calls:.1f} {legal:.2f} {lookups:.2f}", flush=True)


def main() -> dict[str, float]:
    env = {**os.environ, "MAZZIERE_PURE": "1"}
    child = subprocess.run(
        [sys.executable, "-m", "bench.calls", "--child"], env=env, capture_output=True, text=True, check=True
    )
    out: dict[str, float] = {}
    for row in child.stdout.splitlines():
        game, preset, calls, legal, lookups = row.split(" ")
        out[game] = float(calls)
        label = game if preset == "-" else f"{game} {preset}"
        what = f"Python calls per random action, pure engine ({label}, {SEATS} seats)"
        goal, figure = GOALS.get(game), float(calls)
        print(note(what, f"{figure:.1f}") if goal is None else verdict(what, figure, goal, "calls", at_most=True))
        print(note(f"  legal actions worked out, get_game calls, per action ({label})", f"{legal}, {lookups}"))
    return out


if __name__ == "__main__":
    if sys.argv[1:] == ["--child"]:
        _count()
    else:
        main()
