"""Every game, one package each. Importing this package registers them all."""

from mazziere.engine.games import (
    saltacavallo,  # noqa: F401
    sette_e_mezzo,  # noqa: F401
    trentuno,  # noqa: F401
)
