"""Games by id, and a state checked by its own game. The games themselves are listed once, in
:data:`engine.games.BUILT_IN`; :mod:`engine` registers them when it is imported, so this module imports no game
(and no game imports it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mazziere.engine.errors import Reason, Rejected
from mazziere.engine.validate import check_stock, invalid

if TYPE_CHECKING:  # the registry holds games; no game imports it
    from mazziere.engine.game import Game
    from mazziere.engine.table import TableState

GAMES: dict[str, Game[Any, Any]] = {}


def register(game: Game[Any, Any]) -> Game[Any, Any]:
    """Serve ``game`` under its id (a game of one's own, beside the built-in ones: docs/engine.md)."""
    GAMES[game.id] = game
    return game


def get_game(game_id: str) -> Game[Any, Any]:
    """The game with this id; raise :class:`Rejected` (UNKNOWN_GAME) if there is none.

    >>> from mazziere import engine
    >>> get_game("trentuno").title, get_game("trentuno").default_preset
    ('Trentuno with the widow', 'CLASSICO')
    """
    game = GAMES.get(game_id)
    if game is None:
        raise Rejected(Reason.UNKNOWN_GAME, f"unknown game {game_id!r}; games are: {', '.join(sorted(GAMES))}")
    return game


def all_games() -> tuple[Game[Any, Any], ...]:
    """Every registered game, the built-in ones first.

    >>> from mazziere import engine
    >>> [game.id for game in all_games()]
    ['saltacavallo', 'sette_e_mezzo', 'trentuno']
    """
    return tuple(GAMES.values())


def check_state(state: TableState) -> None:
    """Raise :class:`Rejected` (INVALID_STATE, ``"<path>: <what is wrong>"``) unless ``state`` is consistent: its
    game checks it (:meth:`engine.game.Game.check_state`, with the helpers of :mod:`engine.validate`).

    >>> from mazziere import engine
    >>> state = engine.new_table("trentuno", [engine.Seat(n, 10) for n in "abc"], seed=b"s").state
    >>> check_state(state)
    """
    try:
        game = get_game(state.game)
    except Rejected:
        raise invalid("state.game", f"{state.game!r} is not a game") from None
    if type(state) is not game.state_type:
        raise invalid("state", f"a {type(state).__name__} is not a {game.id} state")
    game.check_state(state)
    if not game.is_over(state):
        check_stock(state)
