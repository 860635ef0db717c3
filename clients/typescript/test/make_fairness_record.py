"""Writes test/fairness_record.ndjson: the spectator's record of one table of each game, for fairness.test.ts.

Each table is played by the engine itself (no server): a fixed secret, moves picked by a seeded PRNG among the
legal ones, every seat giving entropy (derived bytes, so the file is reproducible) on its first move after each
commitment, as the web table does (docs/fairness.md). Play stops when the game ends (the engine reveals every
pack) or after a few hundred moves, when ``engine.gather`` closes the table (as the host's CloseTable does).

One line per step: ``{"table": <game>, "seq": n, "update": {"events": [...]}}``, the events as the spectator
sees them (``redact_events(events, None)``) in the REST JSON of ``mazziere.v1.Event``
(``services.wire.jsondata.write``). The test reads every ``events`` array of a line, as ``mazziere verify`` does, and
groups the lines by ``table``.

Run from the repository root, with the engine's environment:

    .venv/bin/python clients/typescript/test/make_fairness_record.py
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path

from mazziere import engine
from mazziere.engine.events import redact_events
from mazziere.services.gen.mazziere.v1 import table_pb2
from mazziere.services.wire import jsondata

OUT = Path(__file__).with_name("fairness_record.ndjson")
GAMES = {
    # game: (seats, chips, most moves)
    "sette_e_mezzo": ("abcd", 100, 120),
    "saltacavallo": ("abcd", 100, 300),
    "trentuno": ("abc", 20, 100),
}


def public(events: tuple[engine.Event, ...]) -> list[dict]:
    return [jsondata.write(e, table_pb2.Event) for e in redact_events(events, None)]


def play(game: str, names: str, chips: int, moves: int) -> list[dict]:
    rng = random.Random(f"fairness/{game}")
    out = engine.new_table(game, [engine.Seat(n, chips) for n in names], seed=f"fairness/{game}".encode())
    state = out.state
    lines = [{"table": game, "seq": state.seq, "update": {"events": public(out.events)}}]
    draw = max((e.draw for e in out.events if e.kind == "COMMITTED" and e.draw is not None), default=0)
    given: set[tuple[int, int]] = set()  # (seat, draw) pairs whose entropy was given
    for _ in range(moves):
        if engine.is_over(state):
            break
        seats = engine.to_act(state)
        seat = seats[rng.randrange(len(seats))]
        legal = engine.legal_actions(state, seat)
        move = legal[rng.randrange(len(legal))]
        amount = rng.randint(move.min_amount, move.max_amount) if move.max_amount > move.min_amount else move.min_amount
        entropy = b""
        if (seat, draw) not in given:
            given.add((seat, draw))
            entropy = hashlib.sha256(f"{game}/{seat}/{draw}".encode()).digest()[: 8 + seat * 4]
        action = engine.Action(seat, move.kind, amount, move.target, move.cards, entropy=entropy)
        out = engine.apply(state, action)
        state = out.state
        lines.append({"table": game, "seq": state.seq, "update": {"events": public(out.events)}})
        draw = max((e.draw for e in out.events if e.kind == "COMMITTED" and e.draw is not None), default=draw)
    if not engine.is_over(state):
        closed = engine.gather(state)
        lines.append({"table": game, "seq": state.seq, "closed": True, "update": {"events": public(closed.events)}})
    return lines


def main() -> None:
    lines = [line for game, (names, chips, moves) in GAMES.items() for line in play(game, names, chips, moves)]
    OUT.write_text("".join(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n" for line in lines))
    print(f"{OUT}: {len(lines)} lines")


if __name__ == "__main__":
    main()
