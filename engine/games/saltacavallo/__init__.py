"""Saltacavallo / Asso che fugge (RULES.md §2)."""

from mazziere.engine.games.saltacavallo.game import Saltacavallo
from mazziere.engine.games.saltacavallo.rules import (
    CUCU,
    NAPOLETANO,
    AllDeadHand,
    FirstDealer,
    Reshuffle,
    SaltacavalloRules,
)
from mazziere.engine.games.saltacavallo.state import Phase, SaltacavalloState, SaltacavalloView

GAME = Saltacavallo()

__all__ = [
    "CUCU",
    "GAME",
    "NAPOLETANO",
    "AllDeadHand",
    "FirstDealer",
    "Phase",
    "Reshuffle",
    "Saltacavallo",
    "SaltacavalloRules",
    "SaltacavalloState",
    "SaltacavalloView",
]
