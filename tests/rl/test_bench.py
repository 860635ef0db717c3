"""bench/rl.py's loop plays through the environments, and bench/goals.py's summary lists every headline row."""

from __future__ import annotations

import pytest

from bench import goals
from bench.rl import GAMES, environment_player


@pytest.mark.parametrize(("game_id", "seats"), [(game_id, seats) for game_id, seats, _ in GAMES])
def test_the_bench_loop_plays_random_decisions_through_the_environment(game_id: str, seats: int) -> None:
    tally = environment_player(game_id, seats)(0.2)
    assert tally.actions > 50


def test_the_summary_lists_every_headline_row_and_marks_the_missing_ones() -> None:
    results: list[goals.Result] = []
    line = goals.verdict("TableService.act, memo miss", 35.0, 40.0, "µs", at_most=True)
    assert line == "goal: TableService.act, memo miss <= 40 µs: 35.00 µs  PASS"
    results.append(goals.RESULTS.pop())
    goals.note("an extra figure", "1.5 x")
    results.append(goals.RESULTS.pop())
    table = goals.summary(results).splitlines()
    assert len(table) == 1 + len(goals.HEADLINE) + 1
    rows = dict(zip([name for _, name, _ in goals.HEADLINE], table[1:], strict=False))
    assert rows["bench.act: whole TableService.act, memo miss"].split()[-1] == "PASS"
    missing = rows["bench.engine: Sette e mezzo vs RLCard blackjack"]
    assert "not run" in missing and missing.split()[-1] == "MISS"
    assert table[-1].startswith("an extra figure") and table[-1].split()[-1] == "-"
