"""The ``best`` bot against ``cautious`` over fixed-seed hands, per game: each seat's mean chip result per hand and
the paired difference (the best seat's result minus the cautious seats' mean in the same hand), each with its 95 %
confidence interval (1.96 standard errors).

Run: ``.venv/bin/python -m bench.best_vs_cautious`` (part of ``make bench``). Every game is played twice over
:data:`HANDS` hands from fixed seeds (:func:`mazziere.engine.bots.match.play_match`), ``best`` in the first seat and
then in the last, so no seat's place favours it; Sette e mezzo heads-up (the bank changes hands), the others with
two ``cautious`` seats. The policies are deterministic, so a run gives the same figures until a bot changes. The
goal per game: the difference is no lower than :data:`REFERENCE`, measured on the same hands before the last change
to the ``best`` bot's advice (a lower figure means the bot plays worse on these hands). Bounded: under a minute.
"""

from __future__ import annotations

import argparse
import time

from bench.goals import note, verdict
from mazziere.engine.bots.match import play_match
from mazziere.engine.bots.values import mean_se

HANDS: dict[str, int] = {"sette_e_mezzo": 2000, "saltacavallo": 1000, "trentuno": 400}
"""Hands per seating, per game (two seatings)."""
SEATS: dict[str, int] = {"sette_e_mezzo": 2, "saltacavallo": 3, "trentuno": 3}
REFERENCE: dict[str, float] = {"sette_e_mezzo": 0.625, "saltacavallo": -0.024, "trentuno": 0.426}
"""Per game, the mean difference (chips per hand, to 3 decimals) on these hands before Trentuno's play-outs left
``engine.apply`` (docs/bots.md); the same figures since, hand by hand."""
Z95 = 1.96


def _interval(xs: list[float]) -> str:
    mean, se = mean_se(xs)
    return f"{mean:+.3f} ± {Z95 * se:.3f}"


def run(game: str, hands: int) -> float:
    """Print one game's figures; the mean paired difference (chips per hand, to 3 decimals as printed)."""
    seats = SEATS[game]
    best: list[float] = []
    others: list[float] = []
    diffs: list[float] = []
    start = time.process_time()
    for first in (True, False):
        bots = ["cautious"] * seats
        mine = 0 if first else seats - 1
        bots[mine] = "best"
        match = play_match(game, bots, hands, seed=b"best-vs-cautious/" + game.encode() + bytes([mine]))
        for result in match.results:
            rest = [result[s] for s in range(seats) if s != mine]
            best.append(result[mine])
            others.append(sum(rest) / len(rest))
            diffs.append(result[mine] - sum(rest) / len(rest))
    cpu = time.process_time() - start
    mean, _ = mean_se(diffs)
    print(
        f"{game:13} {len(diffs):4} hands: best {_interval(best)}  cautious {_interval(others)}  "
        f"best - cautious {_interval(diffs)} chips/hand  ({cpu:.1f} s CPU)",
        flush=True,
    )
    note(f"{game} best - cautious, chips per hand", f"{_interval(diffs)} over {len(diffs)} hands")
    return round(mean, 3)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.best_vs_cautious", description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", action="append", help="only this game (repeatable)")
    args = parser.parse_args(argv)
    for game, hands in HANDS.items():
        if args.game and game not in args.game:
            continue
        mean = run(game, hands)
        if game in REFERENCE:
            print(verdict(f"{game}: best - cautious no lower than before", mean, REFERENCE[game], "chips/hand"))


if __name__ == "__main__":
    main()
