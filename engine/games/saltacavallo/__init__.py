"""Saltacavallo / Asso che fugge (RULES.md §2): one card each, keep it or swap it on, the lowest loses a life.

>>> from mazziere import engine
>>> state = engine.new_table("saltacavallo", [engine.Seat(n, 100) for n in "abc"], seed=b"demo").state
>>> dealer = engine.to_act(state)[0]
>>> state = engine.apply(state, engine.Action(dealer, "DEAL")).state
>>> [entry.kind for entry in engine.legal_actions(state, engine.to_act(state)[0])]
['KEEP', 'SWAP']
"""

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

GAME: Saltacavallo = Saltacavallo()

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
