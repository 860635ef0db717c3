"""Sette e mezzo CASINO's exact return to player under optimal play, and the option sets whose return is
published (docs/rules/sette-e-mezzo.md; ``mazziere rtp``)."""

from __future__ import annotations

from typing import Any

from mazziere.engine.bots.sette_e_mezzo.counting import profile_of, take
from mazziere.engine.bots.sette_e_mezzo.player import Turn, decide
from mazziere.engine.games.sette_e_mezzo.rules import SetteEMezzoRules


def casino_rtp(rules: SetteEMezzoRules) -> float:
    """The return to player of optimal play, heads-up against a house bank whose first card is face up, over a
    fresh shuffle, computed exactly: 1 + the expected result per chip of a flat stake of 2 (a 3:2 payment of an even
    stake is not rounded)."""
    bare = profile_of(rules)
    full = bare.pool(bare.scoring.pack)
    total = sum(full)
    ev = 0.0
    for player_card, player_count in enumerate(full):
        if not player_count:
            continue
        after_player = take(full, player_card)
        for bank_card, bank_count in enumerate(after_player):
            if not bank_count:
                continue
            profile = profile_of(rules, (bank_card,))
            pool = take(after_player, bank_card)
            prob = player_count / total * bank_count / (total - 1)
            ev += prob * decide(Turn(profile, 0, 0, None, 0), (player_card,), pool, 0, 2)[0] / 2
    return 1.0 + ev


def rtp_profiles() -> dict[str, dict[str, Any]]:
    """The CASINO option sets whose return docs/rules/sette-e-mezzo.md publishes (overrides of CASINO)."""
    return {
        "CASINO": {},
        "CASINO five_tie_loses, reale_with_matta_pays=THREE_TO_TWO": {
            "five_tie_loses": True,
            "reale_with_matta_pays": "THREE_TO_TWO",
        },
    }


EXACT_RTP = {
    "CASINO": 0.9982738284987394,
    "CASINO five_tie_loses, reale_with_matta_pays=THREE_TO_TWO": 0.9928520961959545,
}
""":func:`casino_rtp` of :func:`rtp_profiles`, as ``mazziere rtp`` prints it and docs/rules/sette-e-mezzo.md
publishes it (tests/bots/test_matches.py checks all three agree)."""
