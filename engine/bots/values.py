"""The values advice comes in: one :class:`ActionAdvice` per legal action, gathered in an :class:`Advice`."""

from __future__ import annotations

import math
from collections.abc import Sequence

from mazziere.engine.table import Action
from mazziere.engine.values import Value

EXACT = "EXACT"
SAMPLED = "SAMPLED"


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
    """The standard error of ``expected`` (0 when exact)."""


class Advice(Value, frozen=True):
    """Advice for one seat: ``method`` EXACT (``samples`` 0) or SAMPLED (``samples`` determinizations)."""

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
