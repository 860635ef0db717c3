"""Every game, one package each. Importing this package registers them all."""
from engine.games import saltacavallo  # noqa: F401
from engine.games import trentuno  # noqa: F401
