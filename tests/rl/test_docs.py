"""docs/rl.md shows the layouts and action spaces the environments have."""

from __future__ import annotations

from pathlib import Path

import pytest

from mazziere.engine.rl.env import ADAPTERS, make_adapter

PAGE = Path(__file__).resolve().parents[2] / "docs" / "rl.md"


@pytest.mark.parametrize("game_id", ADAPTERS)
def test_the_page_shows_each_games_observation_layout_at_four_seats(game_id: str) -> None:
    adapter = make_adapter(game_id, 4, None, None, 10)
    assert adapter.layout.table() in PAGE.read_text(), f"docs/rl.md: {game_id}'s layout table is not today's"


def test_the_page_numbers_the_actions_as_the_environments_do() -> None:
    text = PAGE.read_text()
    names = {game_id: make_adapter(game_id, 4, None, None, 10).names for game_id in ADAPTERS}
    sette, salta, trentuno = names["sette_e_mezzo"], names["saltacavallo"], names["trentuno"]
    assert (sette[0], sette[1], sette[11], sette[21], sette[31], sette[41]) == (
        "DEAL", "STAKE_0", "HIT_0", "HIT_HIDDEN_0", "STAND_0", "BURN",
    )  # fmt: skip
    assert salta[:6] == ("DEAL", "KEEP", "SWAP", "DRAW", "PASS", "REVIVE_FROM_0")
    assert (trentuno[0], trentuno[1 + 3 * 2 + 1], trentuno[10], trentuno[11], trentuno[12]) == (
        "DEAL", "EXCHANGE_2_1", "TAKE_ALL", "STOP", "PASS",
    )  # fmt: skip
    for game, count in (("| Sette e mezzo |", len(sette)), ("| Trentuno |", len(trentuno))):
        assert f"{game} {count} |" in text
    assert f"| Saltacavallo | 5 + seats ({len(salta)}) |" in text
