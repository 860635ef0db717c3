"""Sette e mezzo (RULES.md §1): players against a bank, closest to 7½ without going over."""

from mazziere.engine.games.sette_e_mezzo.game import SetteEMezzo
from mazziere.engine.games.sette_e_mezzo.rules import PRESETS, SetteEMezzoRules

GAME = SetteEMezzo()

__all__ = ["GAME", "PRESETS", "SetteEMezzo", "SetteEMezzoRules"]
