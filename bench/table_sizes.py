"""Advice and the ``best`` bot at every table size: per game, preset and seat count (2, 4, 7, 10, 12 and the most
the game allows), ``advise`` and ``choose("best")`` on the decisions of random legal play from a fresh table.

Run: ``.venv/bin/python -m bench.table_sizes`` (part of ``make bench``). Each call is timed in CPU seconds and cut by
its ``stop`` callback once it passes a cap (:data:`ADVISE_CAP_S`, :data:`BEST_CAP_S`), as the service's budget
would; a cut call counts as the cap and is listed apart. ``advise`` and ``best`` each take the decisions in order
from a cold table of Sette e mezzo's values (a table in play). Per line: advise p50/p99 and the bases of its actions
(EXACT / APPROXIMATE / SAMPLED), ``best`` p50/p99, and PASS when both p99s meet their goals (:data:`ADVISE_GOAL_MS`,
:data:`BEST_GOAL_MS`) with no call cut, else MISS; the closing goals are the worst p99s over every line. Bounded:
:data:`DECISIONS` decisions a line. ``--game``, ``--preset`` and ``--seats`` (each repeatable) run some lines only.
"""

from __future__ import annotations

import argparse
import random
import time
from collections import Counter
from collections.abc import Callable

from bench.goals import verdict
from mazziere import engine
from mazziere.engine.bots import Stopped, advise, choose
from mazziere.engine.bots.sampled import next_actor
from mazziere.engine.bots.sette_e_mezzo import MEMO
from mazziere.engine.games.saltacavallo.rules import MAX_SEATS as SALTACAVALLO_SEATS
from mazziere.engine.games.saltacavallo.rules import PRESETS as SALTACAVALLO
from mazziere.engine.games.sette_e_mezzo.rules import MAX_SEATS as SETTE_E_MEZZO_SEATS
from mazziere.engine.games.sette_e_mezzo.rules import PRESETS as SETTE_E_MEZZO
from mazziere.engine.games.trentuno.rules import MAX_SEATS as TRENTUNO_SEATS
from mazziere.engine.games.trentuno.rules import PRESETS as TRENTUNO
from mazziere.engine.table import Action, Seat, TableState

ADVISE_GOAL_MS = 1000.0
"""``advise`` at p99 on one core, at every table the rules allow."""
BEST_GOAL_MS = 200.0
"""``choose("best")`` at p99 on one core, at every table the rules allow."""
ADVISE_CAP_S = 2.0
BEST_CAP_S = 1.0
"""A call still running after this many CPU seconds is stopped (and counted at the cap)."""
DECISIONS = 6
"""Decisions timed per game, preset and seat count."""
SIZES = (2, 4, 7, 10, 12)

GAMES: tuple[tuple[str, tuple[str, ...], int], ...] = (
    ("sette_e_mezzo", tuple(SETTE_E_MEZZO), SETTE_E_MEZZO_SEATS),
    ("saltacavallo", tuple(SALTACAVALLO), SALTACAVALLO_SEATS),
    ("trentuno", tuple(TRENTUNO), TRENTUNO_SEATS),
)


def _timed(call: Callable[[Callable[[], bool]], object], cap: float) -> tuple[float, object]:
    """(CPU milliseconds, result or None when stopped at ``cap`` seconds)."""
    start = time.process_time()
    deadline = start + cap
    try:
        result = call(lambda: time.process_time() > deadline)
    except Stopped:
        result = None
    return 1000 * (time.process_time() - start), result


def _decisions(game: str, preset: str, seats: int, count: int) -> list[tuple[TableState, int]] | None:
    """``count`` decisions with a choice from random legal play (seeded), or None when the preset refuses the seats."""
    people = [Seat(f"s{s}", 100) for s in range(seats)]
    rng = random.Random(f"{game}/{preset}/{seats}")
    out: list[tuple[TableState, int]] = []
    table = 0
    while len(out) < count and table < 20:
        try:
            state = engine.new_table(game, people, seed=b"%d" % table + b"x" * 7, preset=preset).state
        except engine.Rejected:
            return None
        table += 1
        steps = 0
        while not engine.is_over(state) and len(out) < count and steps < 400:
            seat = next_actor(state)
            entries = engine.legal_actions(state, seat)
            if (len(entries) > 1 or entries[0].max_amount > entries[0].min_amount) and rng.random() < 0.5:
                out.append((state, seat))
            entry = rng.choice(entries)
            amount = rng.randint(entry.min_amount, entry.max_amount)
            state = engine.apply(state, Action(seat, entry.kind, amount, entry.target, entry.cards)).state
            steps += 1
    return out


def _quantile(xs: list[float], q: float) -> float:
    ordered = sorted(xs)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def line(game: str, preset: str, seats: int) -> tuple[float, float] | None:
    """Print one line; (advise p99, best p99) in ms, or None when the preset refuses the seats."""
    decisions = _decisions(game, preset, seats, DECISIONS)
    if not decisions:
        return None
    advise_ms: list[float] = []
    best_ms: list[float] = []
    bases: Counter[str] = Counter()
    cut: Counter[str] = Counter()
    MEMO.clear()  # each pass as a table in play: its decisions in order, from a cold table
    for state, seat in decisions:
        elapsed, advice = _timed(lambda stop, s=state, a=seat: advise(s, a, stop=stop), ADVISE_CAP_S)  # type: ignore[misc]
        advise_ms.append(elapsed)
        if advice is None:
            cut["advise"] += 1
        else:
            bases.update(a.basis for a in advice.actions)  # type: ignore[attr-defined]
    MEMO.clear()
    for state, seat in decisions:
        elapsed, action = _timed(lambda stop, s=state, a=seat: choose("best", s, a, stop=stop), BEST_CAP_S)  # type: ignore[misc]
        best_ms.append(elapsed)
        cut["best"] += action is None
    basis = " ".join(f"{k} {bases[k]}" for k in ("EXACT", "APPROXIMATE", "SAMPLED") if bases[k])
    advise_p99, best_p99 = _quantile(advise_ms, 0.99), _quantile(best_ms, 0.99)
    met = advise_p99 <= ADVISE_GOAL_MS and best_p99 <= BEST_GOAL_MS and not cut.total()
    print(
        f"{game:13} {preset:10} {seats:2} seats: advise p50 {_quantile(advise_ms, 0.5):8.1f} ms p99 "
        f"{_quantile(advise_ms, 0.99):8.1f} ms [{basis}]{' cut ' + str(cut['advise']) if cut['advise'] else ''}; "
        f"best p50 {_quantile(best_ms, 0.5):7.1f} ms p99 {_quantile(best_ms, 0.99):7.1f} ms"
        f"{' cut ' + str(cut['best']) if cut['best'] else ''}  {'PASS' if met else 'MISS'}",
        flush=True,
    )
    return advise_p99, best_p99


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.table_sizes", description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", action="append", help="only this game (repeatable)")
    parser.add_argument("--preset", action="append", help="only this preset (repeatable)")
    parser.add_argument("--seats", action="append", type=int, help="only this seat count (repeatable)")
    args = parser.parse_args(argv)
    worst_advise = worst_best = 0.0
    for game, presets, most in GAMES:
        if args.game and game not in args.game:
            continue
        for preset in presets:
            if args.preset and preset not in args.preset:
                continue
            for seats in sorted({s for s in SIZES if s <= most} | {most}):
                if args.seats and seats not in args.seats:
                    continue
                figures = line(game, preset, seats)
                if figures is not None:
                    worst_advise, worst_best = max(worst_advise, figures[0]), max(worst_best, figures[1])
    print(verdict("advise at every table size (worst p99)", worst_advise, ADVISE_GOAL_MS, "ms", True))
    print(verdict("best bot at every table size (worst p99)", worst_best, BEST_GOAL_MS, "ms", True))


if __name__ == "__main__":
    main()
