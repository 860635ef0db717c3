"""``python -m bench.host_load`` on a tiny configuration (5 tables x 2 watchers and 2 tables of bots on timers, 3 s)
runs: it prints its table with every row and the goal's lines with PASS or MISS. A smoke test of the benchmark,
not of its timings (docs/performance.md has those)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from bench.host_load import ROWS

ROOT = Path(__file__).resolve().parents[2]


def test_a_tiny_run_prints_every_row_and_the_goals() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bench.host_load", "--tables", "5", "--watchers", "2", "--seconds", "3",
         "--timers", "2", "--timer-turn", "1", "--timer-bot", "cautious"],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    out = done.stdout
    assert done.returncode == 0, out + done.stderr
    assert "host under load: 5 tables × 2 watchers (2 seats each)" in out, out  # noqa: RUF001
    rows = [line for line in out.splitlines() if line.startswith("| ")][1:]
    assert [row.split(" | ")[0].removeprefix("| ") for row in rows] == list(ROWS), out
    assert all(len(row.split(" | ")) == 2 for row in rows), out
    values = dict(row.removeprefix("| ").removesuffix(" |").split(" | ") for row in rows)
    assert values["tables"] == "5" and values["watchers connected (asked)"].endswith("(10)"), out
    assert re.fullmatch(
        r"[\d.,]+/[\d.,]+ ms \([\d,]+\)", values["timer lateness: turn due → the step at a watcher, p50/p99"]
    )
    goals = [line for line in out.splitlines() if line.startswith("goal: ")]
    assert len(goals) == 3 and all(re.search(r"  (PASS|MISS)\b", goal) for goal in goals), out
