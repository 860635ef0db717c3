"""Sette e mezzo's counted advice, by phase: a player's stake or decision, or the bank's (docs/bots.md, "Sette e
mezzo: the model"); none for the deal, which is sampled like every other game's decisions."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mazziere.engine.bots.sette_e_mezzo.bank_advice import bank_advice
from mazziere.engine.bots.sette_e_mezzo.player_advice import player_advice
from mazziere.engine.bots.values import Advice
from mazziere.engine.games.sette_e_mezzo.state import Phase, SetteEMezzoState
from mazziere.engine.table import LegalAction


def advise(state: Any, seat: int, entries: Sequence[LegalAction]) -> Advice | None:
    """Exact advice for a player's stake or decision, or the bank's; None for anything else (DEAL). An amount
    range is advised at the amounts of :func:`~mazziere.engine.bots.sette_e_mezzo.amounts.amounts`."""
    sette_e_mezzo: SetteEMezzoState = state
    if sette_e_mezzo.phase is Phase.BANK:
        return bank_advice(sette_e_mezzo, seat, entries)
    if sette_e_mezzo.phase in (Phase.STAKE, Phase.DECIDE):
        return player_advice(sette_e_mezzo, seat, entries)
    return None
