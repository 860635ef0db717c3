"""A soak of all three games through the service's handler: memory levels off (caches and memo are bounded)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_rss_levels_off_over_a_soak_of_every_game() -> None:
    """40,000 random Acts on 300 tables of the three games: RSS after them within 10 % of RSS after 10,000.

    ``make bench`` runs the same soak for 1,000,000 Acts (docs/performance.md)."""
    done = subprocess.run(
        [sys.executable, "-m", "bench.memory", "--acts", "40000"],
        cwd=ROOT, capture_output=True, text=True, timeout=600, check=True,
    )  # fmt: skip
    growth = re.search(r"\(([+-][\d.]+) %\)", done.stdout)
    assert growth is not None, done.stdout
    assert float(growth.group(1)) <= 10.0, done.stdout
