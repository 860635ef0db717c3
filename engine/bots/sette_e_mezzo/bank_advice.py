"""The bank's advice (BANK): standing against drawing, against every standing player, from the bank's own view;
EXACT with the players' face-down cards weighed jointly while their assignments are few enough
(:data:`BANK_EXACT_ASSIGNMENTS`), else APPROXIMATE within its bound."""

from __future__ import annotations

import math
from collections.abc import Sequence

from mazziere.engine.bots.hidden import Hidden
from mazziere.engine.bots.sette_e_mezzo.bank_approx import BANK_APPROX_ERROR, bank_value_approx
from mazziere.engine.bots.sette_e_mezzo.bank_joint import bank_value
from mazziere.engine.bots.sette_e_mezzo.counting import Profile, profile_of
from mazziere.engine.bots.sette_e_mezzo.opponents import Player, fits, outcome_value
from mazziere.engine.bots.sette_e_mezzo.results import action_advice
from mazziere.engine.bots.values import APPROXIMATE, EXACT, Advice
from mazziere.engine.games.sette_e_mezzo.state import SetteEMezzoState, Status
from mazziere.engine.table import LegalAction

BANK_EXACT_ASSIGNMENTS = 150
"""The bank's advice weighs the standing players' face-down cards jointly while they have at most this many
assignments (classes, one per player); beyond it, each on his own (APPROXIMATE)."""


def bank_advice(state: SetteEMezzoState, seat: int, entries: Sequence[LegalAction]) -> Advice:
    """Advice for the bank's HIT and STAND."""
    profile = profile_of(state.rules)
    hidden = Hidden(state, seat)
    pool = profile.pool(hidden.cards)
    bank = profile.hand([tc.card for tc in state.hands[seat].cards])  # type: ignore[misc]  # its own cards
    bank = (bank[0], *sorted(bank[1:]))
    players, at_risk = standing_players(state, seat, profile)
    choices = [fits(profile, player, pool) for player in players]
    joint = math.prod(len(choice) for choice in choices if choice) <= BANK_EXACT_ASSIGNMENTS
    value = bank_value if joint else bank_value_approx
    basis, bound = (EXACT, 0.0) if joint else (APPROXIMATE, BANK_APPROX_ERROR * at_risk)
    out = []
    for entry in entries:
        outcome = value(profile, players, hidden.owned, bank, pool, entry.kind == "HIT")
        out.append(action_advice(entry.example(seat), outcome_value(outcome), basis, bound))
    return Advice(seat, EXACT, 0, tuple(out))


def standing_players(state: SetteEMezzoState, seat: int, profile: Profile) -> tuple[tuple[Player, ...], int]:
    """Every standing player as the bank ``seat`` sees him, and the chips staked by those whose card is face down."""
    players: list[Player] = []
    at_risk = 0
    for other, hand in enumerate(state.hands):
        if other == seat or hand.status not in (Status.STOOD, Status.SETTE_E_MEZZO):
            continue
        seen = [tc.card if tc.card is not None and tc.seen_by.admits(seat) else None for tc in hand.cards]
        down = next((index for index, card in enumerate(seen) if card is None), -1)
        classes = tuple(-1 if card is None else profile.hand([card])[0] for card in seen)
        reach = hand.stake * profile.loss > state.chips[other]
        players.append((hand.stake, state.chips[other] if reach else None, classes, down))
        at_risk += hand.stake if down >= 0 else 0
    return tuple(players), at_risk
