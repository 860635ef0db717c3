"""The amounts of a range (a stake, a raise) worth advising on: both ends and every amount at which the expected
result bends, between two of which it runs in a straight line (docs/bots.md, "Amount ranges").

The value is convex in the amount (over the amounts of one parity where a 3:2 payment may be made): it is a maximum
over ways of playing on, each a sum of terms ``a*f``, ``max(-k*f, -chips)`` and ``floor(3*f/2)``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable

from mazziere.engine.bots.sette_e_mezzo.results import TIE


class _Line:
    """A convex function sampled on ``lo, lo + step, ..``, each point evaluated once: its runs of one slope."""

    def __init__(self, value_at: Callable[[int], float], lo: int, step: int) -> None:
        self.value_at, self.lo, self.step = value_at, lo, step
        self.known: dict[int, float] = {}
        self.runs: list[tuple[int, int]] = []

    def __call__(self, index: int) -> float:
        if index not in self.known:
            self.known[index] = self.value_at(self.lo + index * self.step)
        return self.known[index]

    def split(self, first: int, last: int) -> None:
        """Cut ``first..last`` where the lines of its end slopes meet, until each run is straight."""
        if last - first < 2:
            self.runs.append((first, last))
            return
        left, right = self(first + 1) - self(first), self(last) - self(last - 1)
        if right - left <= TIE * (1 + abs(left) + abs(right)):
            self.runs.append((first, last))
            return
        meet = (self(last) - self(first) - right * last + left * first) / (left - right)
        middle = min(max(math.floor(meet), first + 1), last - 1)
        self.split(first, middle)
        self.split(middle, last)

    def slope(self, run: tuple[int, int]) -> float:
        first, last = run
        return (self(last) - self(first)) / (last - first)


def corners(value_at: Callable[[int], float], lo: int, hi: int, step: int) -> list[int]:
    """The amounts ``lo, lo + step, .. <= hi`` at which ``value_at`` (convex over them) changes slope, with both
    ends: between two of them it is a straight line. Found by cutting where the end slopes' lines meet."""
    points = (hi - lo) // step + 1
    line = _Line(value_at, lo, step)
    bends = {0, points - 1}
    if points > 1:
        line.split(0, points - 1)
    line.runs.sort()
    for run, after in itertools.pairwise(line.runs):
        if run[1] == after[0] and abs(line.slope(run) - line.slope(after)) > TIE:
            bends.add(run[1])
    return sorted(lo + index * step for index in bends)


def amounts(value_at: Callable[[int], float], lo: int, hi: int, parity: bool) -> list[int]:
    """The amounts of ``lo..hi`` to advise on: :func:`corners`, apart for odd and even amounts when ``parity``."""
    if lo == hi:
        return [lo]
    if not parity:
        return corners(value_at, lo, hi, 1)
    out = corners(value_at, lo, hi - (hi - lo) % 2, 2) + corners(value_at, lo + 1, hi - (hi - lo - 1) % 2, 2)
    return sorted(set(out))
