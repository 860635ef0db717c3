"""Bot advice cost: ``advise`` on Sette e mezzo decisions, and one simulated hand of each game with ``best`` bots.

Run: ``make bench`` (or ``.venv/bin/python -m bench.advise``). The decisions are those of seeded CASINO hands
(stake 1, then the best policy); each is timed in CPU seconds, first on cold caches (the first hands), then warm,
and the median of the warm ones is held against the goal.
"""

from __future__ import annotations

import statistics
import time

from bench.goals import verdict
from mazziere import engine
from mazziere.engine.bots import advise, choose
from mazziere.engine.bots.match import play_match
from mazziere.engine.bots.sampled import next_actor
from mazziere.engine.table import Action, Seat

GOAL_MS = 5.0
"""``advise`` on a Sette e mezzo decision (warm caches, median): at most this many milliseconds."""
HANDS = 400


def sette_e_mezzo_decisions(hands: int = HANDS) -> tuple[list[float], list[float]]:
    """Milliseconds per ``advise`` call over seeded CASINO hands: (the first 20 hands', the rest)."""
    cold: list[float] = []
    warm: list[float] = []
    for h in range(hands):
        seats = [Seat("house", 10**6), Seat("player", 10**6)]
        state = engine.new_table("sette_e_mezzo", seats, seed=b"bench%d" % h, preset="CASINO").state
        done = False
        while not done:
            seat = next_actor(state)
            if state.phase.value in ("STAKE", "DECIDE"):
                t = time.process_time()
                advise(state, seat)
                (cold if h < 20 else warm).append(1000 * (time.process_time() - t))
            stake = state.phase.value == "STAKE"
            action = Action(seat, "STAKE", 1) if stake else choose("best", state, seat)
            out = engine.apply(state, action)
            state = out.state
            done = any(e.kind == "HAND_OVER" for e in out.events)
    return cold, warm


def hand_seconds(game: str, preset: str | None, hands: int = 3) -> float:
    """CPU seconds per hand of ``game`` with three ``best`` seats."""
    t = time.process_time()
    play_match(game, ["best", "best", "best"], hands, preset=preset, seed=b"bench")
    return (time.process_time() - t) / hands


def main() -> None:
    cold, warm = sette_e_mezzo_decisions()
    print(f"advise, Sette e mezzo CASINO: {len(cold)} cold calls, median {statistics.median(cold):.2f} ms, "
          f"max {max(cold):.1f} ms; {len(warm)} warm calls, median {statistics.median(warm):.3f} ms, "
          f"p99 {sorted(warm)[int(0.99 * len(warm))]:.2f} ms")  # fmt: skip
    print(verdict("advise on a Sette e mezzo decision (warm, median)", statistics.median(warm), GOAL_MS, "ms", True))
    for game, preset in (("sette_e_mezzo", "CLASSICO"), ("saltacavallo", None), ("trentuno", None)):
        print(f"a hand of {game} with three best bots: {1000 * hand_seconds(game, preset):.0f} ms")


if __name__ == "__main__":
    main()
