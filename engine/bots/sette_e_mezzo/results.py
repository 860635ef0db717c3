"""What a hand is worth in chips: a value's figures, payments as the engine makes them, mixing values by their
probabilities and choosing the best of them, and an action's advice made of a value."""

from __future__ import annotations

from collections.abc import Sequence

from mazziere.engine.bots.values import EXACT, ActionAdvice
from mazziere.engine.table import Action

TIE = 1e-9
"""Expected results closer than this (in chips) are equal: the first option in order is taken (docs/bots.md)."""

Value = tuple[float, float, float, float, float]
"""In chips: (expected, win, push, lose, bust)."""
HALVES = (-6, -4, -2, 0, 2, 3, 4, 6)
"""Every result the judge gives, in halves of the stake."""
Dist = tuple[float, ...]
"""A probability per entry of :data:`HALVES`."""


def pay(stake: int, halves: int, chips: int | None) -> int:
    """The chips a player receives (negative: pays) for a result of ``halves`` on ``stake``, as the engine pays:
    rounded down, a loss at most his ``chips`` (None: no cap)."""
    if halves >= 0:
        return stake * halves // 2
    loss = stake * -halves // 2
    return -loss if chips is None else -min(loss, chips)


def mix(parts: Sequence[tuple[float, Value]]) -> Value:
    """The value of a chance among ``parts``: (probability, value) pairs."""
    ev = win = push = lose = bust = 0.0
    for prob, value in parts:
        ev += prob * value[0]
        win += prob * value[1]
        push += prob * value[2]
        lose += prob * value[3]
        bust += prob * value[4]
    return (ev, win, push, lose, bust)


def best(options: Sequence[Value]) -> Value:
    """The option of the highest expected result; within :data:`TIE` of it, the first in order."""
    top = max(value[0] for value in options)
    return next(value for value in options if value[0] >= top - TIE)


def action_advice(action: Action, value: Value, basis: str = EXACT, bound: float = 0.0) -> ActionAdvice:
    """The advice of ``action`` worth ``value``."""
    return ActionAdvice(action, value[0], value[1], value[2], value[3], value[4], 0.0, basis, bound)
