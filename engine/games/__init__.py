"""Every game, one package each, and the list of them that :mod:`engine` registers."""

from typing import Any

from mazziere.engine.game import Game
from mazziere.engine.games import saltacavallo, sette_e_mezzo, trentuno

BUILT_IN: tuple[Game[Any, Any], ...] = (saltacavallo.GAME, sette_e_mezzo.GAME, trentuno.GAME)
"""The games Mazziere serves, in the order it lists them."""
