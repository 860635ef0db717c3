"""``python -m bench.hostile --quick`` runs: both configurations print their table with every row, and every goal
with PASS or MISS, and so do the host's rows. A smoke test of the benchmark, not of its timings (docs/performance.md
has those)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from bench.hostile import LOADS
from bench.hostile_host import LOADS as HOST_LOADS

ROOT = Path(__file__).resolve().parents[2]


def test_quick_run_prints_every_row_and_goal_of_both_configurations() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bench.hostile", "--quick"],
        cwd=ROOT, capture_output=True, text=True, timeout=600, check=True,
    )  # fmt: skip
    for configuration in ("embedded", "split"):
        part = done.stdout.split(f"\n{configuration}: ", 1)[1]
        rows = [line for line in part.splitlines() if line.startswith("| ")][1 : 1 + len(LOADS)]
        assert [row.split(" | ")[0].removeprefix("| ") for row in rows] == [load.label for load in LOADS], part
        assert all(len(row.split(" | ")) == 7 for row in rows), part
        goals = [line for line in part.splitlines() if line.startswith(f"goal: {configuration}: ")]
        assert len(goals) == 6 and all(re.search(r"  (PASS|MISS)$", goal) for goal in goals), part
    part = done.stdout.split("\nhost: ", 1)[1]
    rows = [line for line in part.splitlines() if line.startswith("| ")][1 : 1 + len(HOST_LOADS)]
    assert [row.split(" | ")[0].removeprefix("| ") for row in rows] == [load.label for load in HOST_LOADS], part
    assert all(len(row.split(" | ")) == 6 for row in rows), part
    goals = [line for line in part.splitlines() if line.startswith("goal: host: ")]
    assert len(goals) == 2 and all(re.search(r"  (PASS|MISS)$", goal) for goal in goals), part
