"""Games by id. A new game registers itself here and touches nothing else."""

from __future__ import annotations

from typing import Any

from mazziere.engine.errors import Reason, Rejected
from mazziere.engine.game import Game

GAMES: dict[str, Game[Any, Any]] = {}


def register(game: Game[Any, Any]) -> Game[Any, Any]:
    GAMES[game.id] = game
    return game


def get_game(game_id: str) -> Game[Any, Any]:
    """The game with this id; raise :class:`Rejected` (UNKNOWN_GAME) if there is none."""
    game = GAMES.get(game_id)
    if game is None:
        _load()
        game = GAMES.get(game_id)
    if game is None:
        raise Rejected(Reason.UNKNOWN_GAME, f"unknown game {game_id!r}; games are: {', '.join(sorted(GAMES))}")
    return game


def all_games() -> tuple[Game[Any, Any], ...]:
    _load()
    return tuple(GAMES.values())


def _load() -> None:
    import mazziere.engine.games  # noqa: F401  (registers every game on first use)
