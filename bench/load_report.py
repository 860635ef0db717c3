"""What ``bench.host_load`` prints: the host and the Colyseus room server side by side (one row per measure), the
goals with PASS or MISS, the Colyseus ratio as a reference, and in a soak the memory per watcher over time."""

from __future__ import annotations

import math
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bench.goals import note, verdict
from bench.load_run import Run
from bench.server_tree import Placement

GOAL_TABLES, GOAL_WATCHERS, GOAL_INTERVAL, GOAL_PUSH_MS = 1000, 4, 2.0, 100.0
GOAL_PACE = 0.95
"""The share of the goal's moves per second (1,000 tables / 2 s) a run must achieve."""
GOAL_CPU_SHARE = 50.0
"""At the goal's load, the server tree's CPU (one core = 100 %) at most this."""
GOAL_CPU_PER_MOVE_MS = 0.7
GOAL_TIMERS, GOAL_LATENESS_MS = 60, 500.0
"""With this many tables of bots on timers, a due turn is played within this long (p99)."""
GOAL_SOAK_GROWTH = 10.0
"""Over a soak, the memory per watcher of the last sample at most this many percent above the first's."""
MAX_SEATS = 4
ROWS = (
    "tables",
    "watchers connected (asked)",
    "moves per second (the schedule's)",
    "push: move sent → last watcher has the step, p50/p99",
    "Play latency p50/p99",
    "server processes (MAZZIERE_PROCESSES)",
    "server tree CPU (one core = 100 %)",
    "CPU per move (server tree)",
    "memory per watcher (the tree above its idle size)",
    "load generator CPU (one core = 100 %)",
    "moves late by more than an interval (turns skipped)",
    "timer lateness: turn due → the step at a watcher, p50/p99",
    "pushes not complete at the end",
    "errors",
)
"""The rows of the printed table, in order."""
NOT_RUN = "—"


@dataclass(frozen=True)
class Figures:
    """The derived figures of one side."""

    cpu_share: float
    """Percent of one core."""
    cpu_per_move_ms: float
    per_watcher_kib: float
    push_p99_ms: float

    @classmethod
    def of(cls, side: Run) -> Figures:
        args, tree = side.args, side.tree
        watchers = args.tables * args.watchers
        cpu = tree.cpu if tree else math.nan
        per_move = 1000 * tree.cpu_seconds / side.moves if tree and side.moves else math.nan
        per_watcher = (tree.end_bytes - tree.idle_bytes) / 1024 / watchers if tree else math.nan
        p99 = 1000 * pct(side.pushes, 0.99) if side.pushes and not side.incomplete else math.inf
        return cls(100 * cpu, per_move, per_watcher, p99)


def pct(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else math.nan


def ms(seconds: float) -> str:
    """Seconds as milliseconds: one decimal below 10 ms, whole ones above."""
    ms = 1000 * seconds
    return f"{ms:.1f}" if ms < 10 else f"{ms:,.0f}"


def _p50_p99(values: Sequence[float]) -> str:
    return f"{ms(pct(values, 0.5))}/{ms(pct(values, 0.99))} ms ({len(values):,})" if values else "none"


def _mib(size: int) -> str:
    return f"{size / 1024 / 1024:,.0f} MiB"


def machine() -> str:
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{os.cpu_count()} cores{f' ({model})' if model else ''}, Python {sys.version.split()[0]}"


def _errors(side: Run) -> str:
    errors = ", ".join(f"{name} {n:,}" for name, n in sorted(side.errors.items())) or "none"
    if side.reconnects:
        errors += f"; {side.reconnects:,} watchers reconnected"
    if side.renewed:
        errors += f"; {side.renewed:,} streams renewed (ended after their lifetime, resumed)"
    if side.stopped:
        errors += f"; {side.stopped:,} tables stopped playing"
    return errors


def column(side: Run, host: bool) -> tuple[str, ...]:
    """One side's values, in the order of :data:`ROWS`."""
    args, tree, figures = side.args, side.tree, Figures.of(side)
    schedule = args.tables / args.interval
    memory = f"{figures.per_watcher_kib:,.1f} KiB ({_mib(tree.idle_bytes)} → {_mib(tree.end_bytes)})" if tree else ""
    return (
        f"{args.tables:,}",
        f"{side.connected_at_end:,} ({args.tables * args.watchers:,})",
        f"{side.moves / args.seconds:,.1f} ({schedule:,.1f})",
        _p50_p99(side.pushes),
        _p50_p99(side.plays) if host else f"{NOT_RUN} (a message, no answer)",
        f"{tree.processes if tree else 0} ({args.processes if host else NOT_RUN})",
        f"{figures.cpu_share:.0f} %",
        f"{figures.cpu_per_move_ms:.2f} ms",
        memory,
        f"{100 * side.own_cpu:.0f} %",
        f"{side.skipped:,}",
        (_p50_p99(side.lateness) if args.timers else "no timer tables (--timers)") if host else NOT_RUN,
        f"{side.incomplete:,}",
        _errors(side),
    )


def report(host: Run, colyseus: Run | None, why: str, placement: Placement) -> None:
    """The table of both sides, the goals, the reference ratio and, in a soak, memory over time."""
    args = host.args
    seats = max(2, min(args.watchers, MAX_SEATS))
    spectators = args.watchers - seats
    extra = f" + {spectators} spectator{'s' if spectators > 1 else ''}" if spectators > 0 else ""
    print(
        f"\nhost under load: {args.tables:,} tables × {args.watchers} watchers ({seats} seats"  # noqa: RUF001
        f"{extra} each), {args.game}, a move every "
        f"{args.interval:g} s per table; {args.seconds:g} s measured after {args.warmup:g} s of warm-up; "
        f"{placement.describe()}; {time.strftime('%Y-%m-%d')}, {machine()}"
    )
    print(
        f"host: opened {args.tables:,} tables in {host.opened_seconds:.1f} s; connected "
        f"{args.tables * args.watchers:,} watchers in {host.connect_seconds:.1f} s"
    )
    if colyseus is not None:
        print(
            f"Colyseus (one process, on {'CPU 0' if placement.pinned else 'any CPU'}): joined "
            f"{args.tables * args.watchers:,} clients to {args.tables:,} rooms in {colyseus.connect_seconds:.1f} s"
        )
    else:
        print(f"Colyseus: not run ({why})")
    if host.noise:
        print(host.noise)
    other = column(colyseus, False) if colyseus is not None else (NOT_RUN,) * len(ROWS)
    print("| measure | host | Colyseus |")
    print("|---|---:|---:|")
    for label, mine, theirs in zip(ROWS, column(host, True), other, strict=True):
        print(f"| {label} | {mine} | {theirs} |")
    goals(host, placement)
    if colyseus is not None:
        reference(host, colyseus)
    if args.soak_every:
        soak(host, "host", goal=True)
        if colyseus is not None:
            soak(colyseus, "Colyseus", goal=False)


def goals(host: Run, placement: Placement) -> None:
    """The goal's lines, each PASS or MISS; those of the goal's load MISS when the run was not at it."""
    args, figures = host.args, Figures.of(host)
    full = host.full_at_end if args.watchers >= GOAL_WATCHERS else 0
    what = f"tables with {GOAL_WATCHERS} watchers or more, every one connected at the end"
    print(verdict(what, full, GOAL_TABLES, "tables"))
    pace = GOAL_PACE * GOAL_TABLES / GOAL_INTERVAL
    what = f"moves per second ({100 * GOAL_PACE:.0f} % of a move every {GOAL_INTERVAL:g} s on {GOAL_TABLES:,} tables)"
    print(verdict(what, host.moves / args.seconds, pace, "moves/s"))
    at_goal = args.tables >= GOAL_TABLES and args.watchers >= GOAL_WATCHERS and args.interval <= GOAL_INTERVAL
    one_core = placement.pinned and len(placement.server) == 1
    unmet = (
        "" if at_goal and one_core
        else " (not the goal's load: 1,000 × 4, a move every 2 s)" if not at_goal  # noqa: RUF001
        else " (the server was not pinned to one core)"
    )  # fmt: skip
    lines = (
        verdict("push p99 (move sent → the table's last watcher has the step)", figures.push_p99_ms, GOAL_PUSH_MS,
                "ms", True),
        verdict("server tree CPU at that load (one core = 100 %)", figures.cpu_share, GOAL_CPU_SHARE, "%", True),
        verdict("CPU per move (server tree)", figures.cpu_per_move_ms, GOAL_CPU_PER_MOVE_MS, "ms", True),
    )  # fmt: skip
    for line in lines:
        print(line if not unmet else line.removesuffix("PASS").removesuffix("MISS").rstrip() + "  MISS" + unmet)
    if args.timers >= GOAL_TIMERS:
        late = 1000 * pct(host.lateness, 0.99) if host.lateness else math.inf
        what = f"timer lateness p99 with {args.timers} tables of {args.timer_bot} bots on timers"
        print(verdict(what, late, GOAL_LATENESS_MS, "ms", True))


def reference(host: Run, colyseus: Run) -> None:
    """The host against the room server, as a reference (no goal)."""
    mine, theirs = Figures.of(host), Figures.of(colyseus)
    ratio = mine.cpu_per_move_ms / theirs.cpu_per_move_ms if theirs.cpu_per_move_ms else math.nan
    detail = f"{ratio:.1f} × ({mine.cpu_per_move_ms:.2f} vs {theirs.cpu_per_move_ms:.2f} ms)"  # noqa: RUF001
    print(note("reference: host CPU per move vs Colyseus's", detail))
    ratio = mine.push_p99_ms / theirs.push_p99_ms if theirs.push_p99_ms else math.nan
    detail = f"{ratio:.1f} × ({mine.push_p99_ms:,.1f} vs {theirs.push_p99_ms:,.1f} ms)"  # noqa: RUF001
    print(note("reference: host push p99 vs Colyseus's", detail))
    ratio = mine.per_watcher_kib / theirs.per_watcher_kib if theirs.per_watcher_kib > 0 else math.nan
    detail = f"{ratio:.1f} × ({mine.per_watcher_kib:,.1f} vs {theirs.per_watcher_kib:,.1f} KiB)"  # noqa: RUF001
    print(note("reference: host memory per watcher vs Colyseus's", detail))


def soak(side: Run, name: str, *, goal: bool) -> None:
    """The memory per watcher at each sample of the window, and whether it stayed flat."""
    tree = side.tree
    if tree is None or not tree.samples:
        return
    watchers = side.args.tables * side.args.watchers
    per_watcher = [(at, (size - tree.idle_bytes) / 1024 / watchers) for at, size in tree.samples]
    print(f"{name}: memory per watcher over the window (seconds into it: KiB)")
    print("  " + ", ".join(f"{at:,.0f} s: {kib:,.1f}" for at, kib in per_watcher))
    first, last = per_watcher[0][1], per_watcher[-1][1]
    growth = 100 * (last - first) / first if first > 0 else math.inf
    what = f"{name} memory per watcher over a {side.args.seconds:g} s soak, last sample vs first"
    print(verdict(what, growth, GOAL_SOAK_GROWTH, "%", True) if goal else note(what, f"{growth:+.1f} %"))
