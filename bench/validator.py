"""What :func:`engine.registry.check_state` costs on states of play, beside what decoding the same state costs.

Run: ``.venv/bin/python -m bench.validator``. For each game, 4- and 6-seat tables are played a few random moves
into a hand; each figure is the best of 200 rounds of 1,000 calls (short rounds dodge a busy machine).
"profile checked" clears the memo of validated rule profiles before every call, as for a state decoded with a
profile not seen before.
"""

from __future__ import annotations

import random
import timeit
from typing import Any

from mazziere import engine
from mazziere.engine import registry, validate
from mazziere.engine.table import Action, Seat

CALLS = 1_000
ROUNDS = 200


def mid_hand(game_id: str, seats: int, moves: int) -> Any:
    rng = random.Random(1)
    state = engine.new_table(game_id, [Seat(f"p{i}", 100) for i in range(seats)], seed=b"bench").state
    for _ in range(moves):
        seat = rng.choice(engine.to_act(state))
        entry = rng.choice(engine.legal_actions(state, seat))
        state = engine.apply(state, Action(seat, entry.kind, entry.min_amount, entry.target, entry.cards)).state
    return state


def best(fn: Any, number: int = CALLS) -> float:
    return min(timeit.repeat(fn, number=number, repeat=ROUNDS)) / number * 1e6


def main() -> None:
    print(f"{'game':14} {'seats':>5} {'phase':>9} {'check µs':>9} {'profile checked µs':>19} {'decode µs':>10}")
    for game_id, moves in (("sette_e_mezzo", 5), ("saltacavallo", 3), ("trentuno", 4)):
        for seats in (4, 6):
            state = mid_hand(game_id, seats, moves)
            raw = engine.state_to_bytes(state)
            registry.check_state(state)
            hit = best(lambda s=state: registry.check_state(s))

            def cold(s: Any = state) -> None:
                validate._VALID_RULES.clear()
                registry.check_state(s)

            miss = best(cold)
            decode = best(lambda r=raw: engine.state_from_bytes(r), 100)
            print(f"{game_id:14} {seats:>5} {state.phase.value:>9} {hit:>9.1f} {miss:>19.1f} {decode:>10.0f}")


if __name__ == "__main__":
    main()
