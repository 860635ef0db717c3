"""One game seen by a learning agent: a fixed discrete action space, a legal mask, an observation vector.

An :class:`Adapter` is what the PettingZoo environment (:mod:`engine.rl.env`) and the OpenSpiel games
(:mod:`engine.rl.openspiel`) share: which seat moves, which action numbers are legal and the engine action each one
plays, and the vector of a seat's view.

>>> from mazziere import engine
>>> from mazziere.engine.rl.trentuno import TrentunoAdapter
>>> state = engine.new_table("trentuno", [engine.Seat(n, 10) for n in "abc"], seed=b"demo").state
>>> adapter = TrentunoAdapter(3, state.rules)
>>> seat = adapter.pick(state, frozenset())
>>> {adapter.names[i]: action.kind for i, action in adapter.legal(state, seat, frozenset()).items() if action}
{'DEAL': 'DEAL'}
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from functools import lru_cache
from typing import Any, ClassVar

import numpy as np

from mazziere import engine
from mazziere.engine.rl.encoding import Layout, Vector
from mazziere.engine.table import Action

Legal = Mapping[int, Action | None]
"""The legal action numbers of a seat and the engine action each plays (``None``: the seat passes, see
:attr:`Adapter.passes`)."""


class Adapter(ABC):
    """A game for ``seats`` seats under one rule profile, as numbered actions and observation vectors."""

    game_id: ClassVar[str]
    default_chips: ClassVar[int]
    """The chips each seat brings unless told otherwise (a game ends in a few hundred random moves)."""
    passes: ClassVar[bool] = False
    """The game has the environment's own PASS: a seat the engine offers only optional moves to (Saltacavallo's
    revival) may let them go, until the next DEAL."""

    def __init__(self, seats: int, rules: Any, stake_levels: int = 10) -> None:
        if stake_levels < 2:
            raise ValueError(f"stake_levels must be 2 or more, not {stake_levels}")
        self.seats = seats
        self.rules = rules
        self.stake_levels = stake_levels
        """How many levels an amount range is cut into (games with amounts to choose)."""
        self.names: tuple[str, ...] = self.action_names()
        self.layout = Layout()
        self.lay_out(self.layout)

    @abstractmethod
    def action_names(self) -> tuple[str, ...]:
        """The name of every action number, in order."""

    @abstractmethod
    def lay_out(self, layout: Layout) -> None:
        """Add this game's segments to ``layout``."""

    @abstractmethod
    def write(self, out: Vector, view: Any, seat: int) -> None:
        """Fill the zeroed ``out`` from ``view``, the view of ``seat``."""

    @abstractmethod
    def legal(self, state: Any, seat: int, passed: frozenset[int]) -> Legal:
        """What ``seat`` may do now, by action number (empty when it may not act)."""

    def observe(self, state: Any, seat: int) -> Vector:
        """The observation vector of ``seat``: its view, :func:`engine.view`, written by :meth:`write`."""
        out = np.zeros(self.layout.size, np.float32)
        self.write(out, engine.view(state, seat), seat)
        return out

    def pick(self, state: Any, passed: frozenset[int]) -> int:
        """The seat that moves now: the first of :func:`engine.to_act` (games with passes choose among them)."""
        return engine.to_act(state)[0]

    def mask(self, legal: Legal) -> np.ndarray:
        """The int8 mask of the legal action numbers."""
        mask = np.zeros(len(self.names), np.int8)
        mask[list(legal)] = 1
        return mask


@lru_cache(maxsize=1024)
def levels(low: int, high: int, count: int) -> tuple[tuple[int, int], ...]:
    """The stake levels of an amount range: level ``i`` of ``count`` is ``low + round(i * (high - low) / (count -
    1))``; a level whose amount repeats the level below it is left out.

    >>> levels(1, 10, 10)[:3], levels(0, 0, 10), levels(1, 3, 5)
    (((0, 1), (1, 2), (2, 3)), ((0, 0),), ((0, 1), (1, 2), (3, 3)))
    """
    out: list[tuple[int, int]] = []
    span = high - low
    for i in range(count):
        amount = low + (2 * i * span + count - 1) // (2 * (count - 1))
        if not out or amount != out[-1][1]:
            out.append((i, amount))
    return tuple(out)
