"""The compiled engine beside the pure one, in one run: the in-process benchmarks, round by round in turn.

Run: ``.venv/bin/python tools/compiled_vs_pure.py`` after ``make setup`` (which compiles the engine:
docs/development.md). Two worker processes, one with ``MAZZIERE_PURE=1``, play the same rounds in turn, so that
noise on a shared machine hits both: random play of each game (``bench.engine``, actions per CPU second), the
steps of one ``Act`` (``bench.act``, µs) and the stateless round trip (``bench.roundtrip``, µs). Each figure is
the median round.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
GAMES = (("sette_e_mezzo", 6), ("saltacavallo", 8), ("trentuno", 6))
ACT_ROWS = (
    "decode the state (engine.state_from_bytes)",
    "engine.apply",
    "encode the state (engine.state_to_bytes)",
    "the actor's update (view, events, legal actions)",
    "whole TableCore.act, memo miss",
    "whole TableCore.act, memo hit",
)


def measures() -> dict[str, Any]:
    """In a worker: each measure by name, a function of no arguments giving that round's figures."""
    from bench import act, roundtrip
    from bench import engine as bench_engine

    def play(game_id: str, seats: int) -> dict[str, float]:
        start = time.process_time()
        tally = bench_engine.mazziere_player(game_id, seats)(1.0)
        return {f"bench.engine: {game_id}, {seats} seats (actions/s)": tally.actions / (time.process_time() - start)}

    def act_round() -> dict[str, float]:
        rows = dict(act.steps(500, 1))
        return {f"bench.act: {name} (µs)": rows[name] for name in ACT_ROWS}

    trip = roundtrip.mazziere_round_trip()

    def trip_round() -> dict[str, float]:
        return {"bench.roundtrip: token -> state -> HIT -> token (µs)": act.median_us(trip, roundtrip.NUMBER, 1)}

    found: dict[str, Any] = {f"play {g}": (lambda g=g, s=s: play(g, s)) for g, s in GAMES}
    found["act"] = act_round
    found["roundtrip"] = trip_round
    return found


def work() -> None:
    """A worker: says which engine it runs, then answers each measure's name read from stdin with its figures."""
    sys.path.insert(0, str(ROOT))  # bench
    from mazziere.engine import _loader

    print(json.dumps(_loader.WHY_PURE or "compiled"), flush=True)
    found = measures()
    for line in sys.stdin:
        print(json.dumps(found[json.loads(line)]()), flush=True)


class Worker:
    def __init__(self, pure: bool) -> None:
        env = {k: v for k, v in os.environ.items() if k != "MAZZIERE_PURE"} | ({"MAZZIERE_PURE": "1"} if pure else {})
        self.process = subprocess.Popen(
            [sys.executable, __file__, "--work"], cwd=ROOT, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        self.engine = self.read()

    def read(self) -> Any:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise SystemExit(f"a worker stopped (exit {self.process.wait()})")
        return json.loads(line)

    def run(self, name: str) -> dict[str, float]:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(name) + "\n")
        self.process.stdin.flush()
        return dict(self.read())

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait()


def main(argv: list[str] | None = None) -> dict[str, tuple[float, float]]:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--work", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.work:
        work()
        return {}
    workers = {"pure": Worker(pure=True), "compiled": Worker(pure=False)}
    if workers["compiled"].engine != "compiled":
        raise SystemExit(f"the compiled engine does not load: {workers['compiled'].engine}")
    names = [*(f"play {g}" for g, _ in GAMES), "act", "roundtrip"]
    figures: dict[str, dict[str, list[float]]] = {"pure": {}, "compiled": {}}
    for _ in range(args.rounds):
        for name in names:
            for which, worker in workers.items():
                for key, value in worker.run(name).items():
                    figures[which].setdefault(key, []).append(value)
    for worker in workers.values():
        worker.close()
    medians = {
        key: (statistics.median(figures["pure"][key]), statistics.median(figures["compiled"][key]))
        for key in figures["pure"]
    }
    print(f"{'measure (median of ' + str(args.rounds) + ' rounds)':72} {'pure':>9} {'compiled':>9} {'gain':>6}")
    for key, (pure, compiled) in medians.items():
        gain = compiled / pure if key.endswith("/s)") else pure / compiled
        print(f"{key:72} {pure:9,.1f} {compiled:9,.1f} {gain:5.2f}x")
    return medians


if __name__ == "__main__":
    main()
