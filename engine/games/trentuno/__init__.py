"""Trentuno with the widow (RULES.md §3)."""

from mazziere.engine.games.trentuno.game import Trentuno

GAME = Trentuno()

__all__ = ["GAME", "Trentuno"]
