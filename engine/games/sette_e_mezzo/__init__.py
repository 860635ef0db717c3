"""Sette e mezzo (RULES.md §1): players against a bank, closest to 7½ without going over.

>>> from mazziere import engine
>>> state = engine.new_table("sette_e_mezzo", [engine.Seat("Ada", 100), engine.Seat("Bruno", 100)], seed=b"demo").state
>>> state = engine.apply(state, engine.Action(0, "DEAL")).state  # seat 0 banks
>>> state = engine.apply(state, engine.Action(1, "STAKE", 10)).state
>>> [entry.kind for entry in engine.legal_actions(state, 1)]
['HIT', 'STAND']
"""

from mazziere.engine.games.sette_e_mezzo.game import SetteEMezzo
from mazziere.engine.games.sette_e_mezzo.rules import PRESETS, SetteEMezzoRules

GAME: SetteEMezzo = SetteEMezzo()

__all__ = ["GAME", "PRESETS", "SetteEMezzo", "SetteEMezzoRules"]
