"""Trentuno with the widow (RULES.md §3): registers the game ``"trentuno"``."""

from mazziere.engine.games.trentuno.game import Trentuno
from mazziere.engine.registry import register

GAME = register(Trentuno())

__all__ = ["GAME", "Trentuno"]
