"""Learning environments over the engine's games: PettingZoo AEC environments and OpenSpiel games (docs/rl.md).

Needs the ``rl`` extra (``pip install 'mazziere[rl]'``: PettingZoo, Gymnasium, NumPy, OpenSpiel); the engine itself
never imports this package. :func:`env` is the environment as PettingZoo hands its own out (wrapped so that
misuse is refused), :func:`raw_env` the bare one, :func:`parallel_env` the same table in PettingZoo's parallel API
(:mod:`engine.rl.parallel`); :mod:`engine.rl.openspiel` registers the games with OpenSpiel.

>>> from mazziere.engine import rl
>>> table = rl.env("sette_e_mezzo", seats=4, max_hands=3)
>>> table.reset(seed=1)
>>> for agent in table.agent_iter():
...     observation, reward, terminated, truncated, info = table.last()
...     legal = observation["action_mask"].nonzero()[0]
...     table.step(None if terminated or truncated else int(legal[0]))
>>> table.unwrapped.hands
3
"""

from __future__ import annotations

from typing import Any

from pettingzoo.utils import wrappers  # type: ignore[import-untyped]

from mazziere.engine.rl.env import ADAPTERS, MazziereEnv
from mazziere.engine.rl.parallel import MazziereParallelEnv

__all__ = ["ADAPTERS", "MazziereEnv", "MazziereParallelEnv", "env", "parallel_env", "raw_env"]


def raw_env(game_id: str, seats: int = 4, **settings: Any) -> MazziereEnv:
    """The environment of ``game_id`` (settings: ``preset``, ``options``, ``chips``, ``max_hands``,
    ``stake_levels``, ``render_mode``: see :class:`MazziereEnv`).

    >>> int(raw_env("saltacavallo", seats=5).action_space("player_0").n)
    10
    """
    return MazziereEnv(game_id, seats, **settings)


def env(game_id: str, seats: int = 4, **settings: Any) -> Any:
    """:func:`raw_env` in PettingZoo's order-enforcing wrapper (no step before reset, and the like).

    >>> str(env("trentuno", seats=3))
    'mazziere_trentuno_v0'
    """
    return wrappers.OrderEnforcingWrapper(raw_env(game_id, seats, **settings))


def parallel_env(game_id: str, seats: int = 4, **settings: Any) -> MazziereParallelEnv:
    """:func:`raw_env` in PettingZoo's parallel API (:class:`MazziereParallelEnv`: the agent to act plays).

    >>> sorted(parallel_env("sette_e_mezzo", seats=2).possible_agents)
    ['player_0', 'player_1']
    """
    return MazziereParallelEnv(raw_env(game_id, seats, **settings))
