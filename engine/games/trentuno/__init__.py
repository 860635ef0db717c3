"""Trentuno with the widow (RULES.md §3): registers the game ``"trentuno"``."""

from engine.games.trentuno.game import Trentuno
from engine.registry import register

GAME = register(Trentuno())

__all__ = ["GAME", "Trentuno"]
