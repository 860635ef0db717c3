"""The values advice comes in: one :class:`ActionAdvice` per legal action, gathered in an :class:`Advice`."""

from __future__ import annotations

import math
from collections.abc import Sequence

from mazziere.engine.table import Action
from mazziere.engine.values import Value

EXACT = "EXACT"
SAMPLED = "SAMPLED"
APPROXIMATE = "APPROXIMATE"
"""The bases of one action's figures: EXACT under the model of docs/bots.md, SAMPLED (with ``stderr``), or an
APPROXIMATE computation (with ``error_bound``)."""


class ActionAdvice(Value, frozen=True):
    """What one action is worth to the seat taking it (then playing on well), in chips.

    ``win + push + lose == 1``; ``bust`` (the seat goes over, where the game has busts) is part of ``lose``.
    """

    action: Action
    expected: float
    win: float
    push: float
    lose: float
    bust: float
    stderr: float = 0.0
    """The standard error of ``expected`` (0 unless sampled)."""
    basis: str = EXACT
    """How the figures were found: EXACT, SAMPLED or APPROXIMATE."""
    error_bound: float = 0.0
    """APPROXIMATE: how far ``expected`` may be from the exact figure, in chips (0 otherwise)."""


class Advice(Value, frozen=True):
    """Advice for one seat: ``method`` EXACT (``samples`` 0: computed by counting every way the unseen cards may
    lie; each action's ``basis`` says whether exactly or as an approximation) or SAMPLED (``samples``
    determinizations)."""

    seat: int
    method: str
    samples: int
    actions: tuple[ActionAdvice, ...]
    """In the order of ``engine.legal_actions`` (an amount range gives one entry per amount that matters)."""


def mean_se(xs: Sequence[float]) -> tuple[float, float]:
    """The mean of ``xs`` and its standard error (0 for fewer than two values)."""
    n = len(xs)
    if n == 0:
        return 0.0, 0.0
    m = sum(xs) / n
    if n < 2:
        return m, 0.0
    var = sum((x - m) ** 2 for x in xs) / (n - 1)
    return m, math.sqrt(var / n)
