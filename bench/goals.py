"""Each benchmark's goal, the line that says whether a run met it, and the summary table of a whole run.

Every :func:`verdict` is remembered (:data:`RESULTS`), so ``python -m bench`` ends with one table of every goal
it measured: the headline rows (:data:`HEADLINE`) first, in their order, each marked ``not run`` when its bench
was skipped, then every other goal.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Result:
    """One measured goal: what, the figure today (with its detail), the goal, met or not (``None``: no goal)."""

    what: str
    today: str
    goal: str
    met: bool | None


RESULTS: list[Result] = []
"""Every goal measured in this process, in order."""

HEADLINE: tuple[tuple[str, str, str], ...] = (
    (
        "sette e mezzo decisions/s vs openspiel blackjack",
        "Sette e mezzo CLASSICO 6 seats, random play, decisions/s vs OpenSpiel blackjack",
        ">= 2 x",
    ),
    (
        "trentuno decisions/s vs openspiel blackjack",
        "Trentuno 6 seats, random play, decisions/s vs OpenSpiel blackjack",
        ">= 1 x",
    ),
    ("sette e mezzo actions/s vs rlcard blackjack", "bench.engine: Sette e mezzo vs RLCard blackjack", ">= 8 x"),
    ("stateless round trip vs PokerKit's", "bench.roundtrip: token -> state -> HIT -> token vs PokerKit", ">= 10 x"),
    ("TableService.act, memo miss", "bench.act: whole TableService.act, memo miss", "<= 40 µs"),
    ("gRPC Act vs echo (calls/s)", "bench.grpc_act: Act vs echo, default thread server", ">= 0.7 x"),
    ("REST act vs FastAPI echo (requests/s, embedded default)", "bench.rest_act: act vs FastAPI echo", ">= 0.6 x"),
)
"""The rows every run of ``make bench`` reports: (the verdict's ``what``, the summary's name, the goal it shows
when the bench did not run; a bench that ran shows its own goal constant)."""


def verdict(what: str, value: float, goal: float, unit: str = "x", at_most: bool = False, *, detail: str = "") -> str:
    """``goal: <what> >= 5 x: 5.30 x  PASS`` (or ``<=`` for a cost, with ``at_most``), remembered for the summary
    with ``detail`` (the figures behind a ratio)."""
    met = value <= goal if at_most else value >= goal
    sign = "<=" if at_most else ">="
    today = f"{value:.2f} {unit}" + (f" ({detail})" if detail else "")
    RESULTS.append(Result(what, today, f"{sign} {goal:g} {unit}", met))
    return f"goal: {what} {sign} {goal:g} {unit}: {value:.2f} {unit}  {'PASS' if met else 'MISS'}"


def note(what: str, today: str) -> str:
    """A figure with no goal, remembered for the summary."""
    RESULTS.append(Result(what, today, "(none)", None))
    return f"{what}: {today}"


def summary(results: list[Result] | None = None) -> str:
    """The table of a run: the headline rows first (``not run`` when missing), then every other result."""
    results = RESULTS if results is None else results
    by_what = {r.what: r for r in results}
    rows: list[tuple[str, str, str, str]] = []
    for what, name, goal in HEADLINE:
        r = by_what.get(what)
        if r is None:
            rows.append((name, "not run", goal, "MISS"))
        else:
            rows.append((name, r.today, r.goal, _status(r)))
    headline = {what for what, _, _ in HEADLINE}
    rows += [(r.what, r.today, r.goal, _status(r)) for r in results if r.what not in headline]
    widths = [max(len(row[i]) for row in [("measure", "today", "goal", ""), *rows]) for i in range(3)]
    lines = [f"{'measure':{widths[0]}}  {'today':{widths[1]}}  {'goal':{widths[2]}}  PASS/MISS"]
    lines += [f"{a:{widths[0]}}  {b:{widths[1]}}  {c:{widths[2]}}  {d}" for a, b, c, d in rows]
    return "\n".join(lines)


def _status(result: Result) -> str:
    return "-" if result.met is None else "PASS" if result.met else "MISS"
