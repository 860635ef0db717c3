"""Seeded matches: ``best`` against ``random``, and the exact CASINO return reproduced by play."""

from __future__ import annotations

import pytest

from mazziere.engine.bots.match import casino_returns, mean_se, play_match
from mazziere.engine.bots.sette_e_mezzo import EXACT_RTP, rtp_profiles

HOUSE_ALWAYS = {"first_bank": "SEAT", "first_bank_seat": 0, "bank_passes_when": "NEVER", "bank_passes_on_reale": False}


def test_best_player_wins_against_a_random_bank() -> None:
    """Sette e mezzo: seat 0 keeps a bank played at random; the best player's mean result is above zero."""
    match = play_match("sette_e_mezzo", ["random", "best"], 600, options=HOUSE_ALWAYS, seed=b"bank")
    mean, se, _ = match.summary(1)
    assert mean > 0
    assert mean > 2 * se


@pytest.mark.parametrize(
    ("game", "hands"),
    [("sette_e_mezzo", 300), ("saltacavallo", 120), ("trentuno", 15)],
)
def test_best_never_loses_to_random_beyond_chance(game: str, hands: int) -> None:
    """Over a seeded match the best seat's edge over the random seat is not below 3 standard errors (hands are
    fewer where sampled advice is costly, so the suite stays fast)."""
    bots = ["best", "random"] if game == "sette_e_mezzo" else ["best", "random", "random"]
    match = play_match(game, bots, hands, seed=b"match")
    diffs = [r[0] - r[1] for r in match.results]
    mean, se = mean_se(diffs)
    assert mean > -3 * se


def test_casino_exact_return_reproduced_by_play() -> None:
    """The exact CASINO return (mazziere rtp) lies within 3 standard errors of a seeded simulation through
    engine.apply (stake 1, then the best policy)."""
    name = "CASINO"
    mean, se = casino_returns(rtp_profiles()[name], 3000, seed=b"test")
    assert abs(1 + mean - EXACT_RTP[name]) < 3 * se
