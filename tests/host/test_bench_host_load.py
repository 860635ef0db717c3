"""``python -m bench.host_load`` on a tiny configuration (5 tables x 2 watchers and 2 tables of bots on timers, 3 s)
runs: it prints its table with every row for the host and the Colyseus column, and the goal's lines with PASS or
MISS; with the Colyseus packages installed (``make bench`` and ``make test`` install them), the same with the
Colyseus side measured too; ``python -m bench.grpc_floor`` prints the host's row and its bare gRPC floor's. Smoke
tests of the benchmarks, not of their timings (docs/performance.md and docs/benchmarks.md have those)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from bench import colyseus_load
from bench.load_report import ROWS

ROOT = Path(__file__).resolve().parents[2]
TINY = ["--tables", "5", "--watchers", "2", "--seconds", "3"]
FIGURE = r"[\d.,]+"
PUSHES = rf"{FIGURE}/{FIGURE} ms \([\d,]+\)"


def _run(*options: str) -> tuple[str, dict[str, tuple[str, str]]]:
    done = subprocess.run(
        [sys.executable, "-m", "bench.host_load", *TINY, *options],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    out = done.stdout
    assert done.returncode == 0, out + done.stderr
    rows = [line for line in out.splitlines() if line.startswith("| ")][1:]
    assert [row.split(" | ")[0].removeprefix("| ") for row in rows] == list(ROWS), out
    assert all(len(row.split(" | ")) == 3 for row in rows), out
    cells = [row.removeprefix("| ").removesuffix(" |").split(" | ") for row in rows]
    return out, {label: (host, colyseus) for label, host, colyseus in cells}


def _common(out: str, values: dict[str, tuple[str, str]], side: int) -> None:
    assert values["tables"][side] == "5" and values["watchers connected (asked)"][side].endswith("(10)"), out
    assert re.fullmatch(PUSHES, values["push: move sent → last watcher has the step, p50/p99"][side]), out
    assert re.fullmatch(rf"{FIGURE} %", values["server tree CPU (one core = 100 %)"][side]), out
    assert re.fullmatch(rf"{FIGURE} ms", values["CPU per move (server tree)"][side]), out
    memory = values["memory per watcher (the tree above its idle size)"][side]
    assert re.fullmatch(rf"-?{FIGURE} KiB \({FIGURE} MiB → {FIGURE} MiB\)", memory), out


def test_a_tiny_run_prints_every_row_and_the_goals() -> None:
    out, values = _run("--timers", "2", "--timer-turn", "1", "--timer-bot", "cautious", "--no-colyseus")
    assert "host under load: 5 tables × 2 watchers (2 seats each)" in out, out  # noqa: RUF001
    assert "Colyseus: not run (--no-colyseus)" in out, out
    _common(out, values, 0)
    assert values["server processes (MAZZIERE_PROCESSES)"][0].endswith("(1)"), out
    assert re.fullmatch(PUSHES, values["timer lateness: turn due → the step at a watcher, p50/p99"][0]), out
    assert all(colyseus == "—" for _, colyseus in values.values()), out
    goals = [line for line in out.splitlines() if line.startswith("goal: ")]
    assert len(goals) == 5 and all(re.search(r"  (PASS|MISS)\b", goal) for goal in goals), out
    assert "MISS (not the goal's load" in goals[2], out


@pytest.mark.skipif(bool(colyseus_load.missing()), reason=f"Colyseus side: {colyseus_load.missing()}")
def test_a_tiny_run_measures_colyseus_beside_the_host() -> None:
    out, values = _run("--colyseus")
    _common(out, values, 0)
    _common(out, values, 1)
    assert values["server processes (MAZZIERE_PROCESSES)"][1] == "1 (—)", out
    assert values["errors"][1] == "none", out
    references = [line for line in out.splitlines() if line.startswith("reference: ")]
    assert len(references) == 3 and "host CPU per move vs Colyseus's" in references[0], out


def test_the_grpc_floor_serves_the_same_load_beside_the_host() -> None:
    """``bench.grpc_floor``: the host and the bare gRPC server of its protocol, each under the generator."""
    done = subprocess.run(
        [sys.executable, "-m", "bench.grpc_floor", "--tables", "5", "--seconds", "2", "--rounds", "1"],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    out = done.stdout
    assert done.returncode == 0, out + done.stderr
    rows = {line.split(" | ")[0].removeprefix("| "): line for line in out.splitlines() if line.startswith("| ")}
    for server in ("host", "gRPC floor"):
        figures = rf"{FIGURE} \| {FIGURE}/{FIGURE} ms \| {FIGURE} % \| {FIGURE} ms"
        assert re.fullmatch(rf"\| {server} \| {figures} \|", rows[server]), out
    assert re.search(rf"the host's CPU per move against the bare gRPC floor's: ({FIGURE} x|n/a)", out), out
