"""The host on N server processes against one, in one run: ``bench.host_load``'s load, served by ``mazziere serve``
with ``MAZZIERE_PROCESSES=1`` and ``=N`` alternately, both placed alike (nothing pinned when the machine has no
core for the generator beside N), and the CPU per move summed over each server's process tree.

Run by hand (not in CI; all traffic to 127.0.0.1)::

    .venv/bin/python -m bench.processes                                  # 300 tables x 4, 2 processes, 3 rounds
    .venv/bin/python -m bench.processes --tables 50 --seconds 3 --rounds 1  # a smoke test

Goal: the N processes' CPU per move (the median of the rounds) at most 1.1x one process's, that is, no coordination
overhead worth the name (the notifications between the processes, and the store read each process makes for its
own watchers of a move made elsewhere).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from dataclasses import replace

from bench.goals import verdict
from bench.host_load import bench_host
from bench.load_report import Figures
from bench.load_run import Args, Run
from bench.server_tree import Placement

GOAL_OVERHEAD = 1.1
"""N processes' CPU per move at most this many times one process's."""


def _figures(runs: list[Run]) -> tuple[float, float, float]:
    """Median CPU per move (ms), push p99 (ms) and moves/s over ``runs``."""
    figures = [Figures.of(run) for run in runs]
    per_second = [run.moves / run.args.seconds for run in runs]
    return (
        statistics.median(f.cpu_per_move_ms for f in figures),
        statistics.median(f.push_p99_ms for f in figures),
        statistics.median(per_second),
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=300, help="tables (1 to 2,000)")
    parser.add_argument("--watchers", type=int, default=4, help="Watch streams per table (2 to 16)")
    parser.add_argument("--seconds", type=float, default=20.0, help="seconds measured a run (1 to 300)")
    parser.add_argument("--processes", type=int, default=2, help="the server processes to compare with one (2 to 64)")
    parser.add_argument("--rounds", type=int, default=3, help="alternated pairs of runs (1 to 20)")
    ns = parser.parse_args(argv)
    if not (1 <= ns.tables <= 2000 and 2 <= ns.watchers <= 16 and 1 <= ns.seconds <= 300):
        parser.error("--tables must be 1 to 2,000, --watchers 2 to 16, --seconds 1 to 300")
    if not (2 <= ns.processes <= 64 and 1 <= ns.rounds <= 20):
        parser.error("--processes must be 2 to 64, --rounds 1 to 20")
    many = Args(ns.tables, ns.watchers, ns.seconds, 2.0, 4.0, "sette_e_mezzo", 32, processes=ns.processes)
    one = replace(many, processes=1)
    placement = Placement.plan(ns.processes)  # both servers on the same cores
    runs: dict[int, list[Run]] = {1: [], ns.processes: []}
    with tempfile.TemporaryFile() as log:
        for round_ in range(ns.rounds):
            for args in (one, many) if round_ % 2 == 0 else (many, one):
                run = bench_host(args, placement, log)
                if run.errors or run.incomplete:
                    print(f"processes: a run had errors {dict(run.errors)} or incomplete pushes", file=sys.stderr)
                    return 1
                runs[args.processes].append(run)
    (cpu_one, p99_one, rate_one), (cpu_many, p99_many, rate_many) = _figures(runs[1]), _figures(runs[ns.processes])
    print(
        f"\nthe host on {ns.processes} processes against 1: {ns.tables} tables x {ns.watchers} watchers, a move every "
        f"2 s per table, {ns.seconds:g} s measured, {ns.rounds} alternated pairs (medians); {placement.describe()}"
    )
    print("| processes | moves/s | CPU per move (server tree) | push p99 |\n|---:|---:|---:|---:|")
    print(f"| 1 | {rate_one:,.1f} | {cpu_one:.2f} ms | {p99_one:,.0f} ms |")
    print(f"| {ns.processes} | {rate_many:,.1f} | {cpu_many:.2f} ms | {p99_many:,.0f} ms |")
    ratio = cpu_many / cpu_one
    detail = f"{cpu_many:.2f} against {cpu_one:.2f} ms a move"
    what = f"CPU per move, {ns.processes} processes against 1"
    print(verdict(what, ratio, GOAL_OVERHEAD, at_most=True, detail=detail))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
