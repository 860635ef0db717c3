"""Each benchmark's goal, and the line that says whether a run met it."""

from __future__ import annotations


def verdict(what: str, value: float, goal: float, unit: str = "x", at_most: bool = False) -> str:
    """``goal: <what> >= 5 x: 5.30 x  PASS`` (or ``<=`` for a cost, with ``at_most``)."""
    met = value <= goal if at_most else value >= goal
    return f"goal: {what} {'<=' if at_most else '>='} {goal:g} {unit}: {value:.2f} {unit}  {'PASS' if met else 'MISS'}"
